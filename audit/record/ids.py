"""A set of event ids for a fold that must find a repeated id, exactly, over a long stream,
in memory that does not grow with the stream.

Three places hold the ids, none of them a set of texts (about 100 bytes an id):

- the **latest** ids, up to :data:`FRESH`, as the texts the caller gave (a list: appending
  is all an id costs when it comes);
- the **settled** ids, up to :data:`SETTLED`, as 16 bytes each, in 256 byte strings (the
  bucket its first byte names: a UUID's random bits, so the buckets fill evenly - ids
  that are not random fill some more than others, which costs a look-up more reading,
  never a wrong answer). The latest are settled a thousand at a
  time: a few string operations over all their texts at once prove each of them a
  canonical UUID (lower-case 8-4-4-4-12) and one ``bytes.fromhex`` turns them into bytes.
  A text that is not a canonical UUID (a test's ``"e1"``, an upper-case UUID) is kept as
  it is, in a plain set: a text and its bytes never stand for each other (only the
  canonical text is turned into bytes, and it is the one text of those bytes);
- the **shelved** ids, on a :class:`audit.record.shelf.Shelf` (a temporary file): when the
  settled ids are :data:`SETTLED`, they are written as one run - a table of where each
  bucket starts, then the buckets - and memory keeps the run's handle (16 bytes a run of
  16,384 ids).

In front of them a **Bloom filter** of a fixed size (a ``bytearray`` of :data:`BYTES`, 1
MiB by default): each id sets two bits in each of two bytes, all taken from its text's
64-bit hash (the bytes from its lowest 24 bits and the next 24, the bits from its highest
12) - which the text keeps once made, and which siphash spreads evenly whatever the ids
are (a package of sequential or all-but-equal ids sounds no more false alarms), where
bits taken from the UUID's own bytes would need the bytes made first, for every id. An id
whose bits are not all set was never added: that is the answer for all but a few. When
they are all set - the id was added, or a false alarm - it is looked up exactly: in the
latest texts, the set of other texts, its settled bucket, and its bucket of each run read
back from the file (two reads a run). So every answer is exact: a repeat is found however
far apart, and a false alarm costs a look-up, never a finding.

Memory: the filter, the latest texts (about 0.1 MiB) and the settled ids (0.25 MiB),
whatever the number of ids. The false alarms grow with the ids a filter of a fixed size
holds, and each reads two places of every run: measured for new ids against 1 MiB, none
in 200,000 at 22,000 ids held, 1 in 18,000 at 90,000, 1 in 3,200 at 180,000 (10 runs),
1 in 210 at 500,000 and 1 in 33 at a million (61 runs: there the alarms' reads outweigh
the rest of a look-up). So a caller that expects more than 262,144 ids says so
(``expected``) and the filter is made larger, 4 bytes or more an expected id (1 in 1,400
at a million, 4 MiB). Pure Python, no I/O but the shelf's.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable, Iterator

from .chain import UUID_TEXT as _ONE
from .shelf import PATTERNS as _PATTERNS
from .shelf import Shelf

# the filter's bytes by default (a power of two: 1 MiB)
BYTES = 1 << 20
# the filter's bytes an id when more are expected than BYTES is made for, and its most
_PER_ID = 4
_MOST = 1 << 24
# the latest ids kept as texts before they are settled as bytes
FRESH = 1024
# the settled ids kept in memory before they are written to the shelf as a run
SETTLED = 16384
_BUCKETS = 256  # a key's first byte names its bucket
_TABLE = struct.Struct(f"<{_BUCKETS + 1}I")  # where each bucket of a run starts, and its end
_OFFSETS = struct.Struct("<II")


class IdSet:
    """A set of event ids (texts): ``in``, :meth:`add`, :meth:`add_new`, ``len``, iteration.
    ``shelf``: where runs of ids go (one of its own by default, closed with the set);
    ``size``: the filter's bytes (a power of two; :data:`BYTES` by default, or, when
    ``expected`` - the ids the caller expects - is more than 262,144, a power of two of at
    least 4 bytes an expected id, at most 16 MiB)."""

    __slots__ = (
        "_bits",
        "_fresh",
        "_mask",
        "_other",
        "_runs",
        "_settled",
        "_shelf",
        "_size",
        "alarms",
    )

    def __init__(
        self,
        ids: Iterable[str] = (),
        *,
        shelf: Shelf | None = None,
        size: int | None = None,
        expected: int | None = None,
    ) -> None:
        if size is None:
            size = BYTES
            # a longer stream than the filter is made for: a larger filter, so that its
            # false alarms stay as few (each reads every run)
            while size < _MOST and isinstance(expected, int) and expected * _PER_ID > size:
                size <<= 1
        if size < 1 or size & (size - 1):
            raise ValueError("the filter's bytes are a power of two")
        self._bits = bytearray(size)
        self._mask = size - 1
        self._fresh: list[str] = []
        self._settled = [bytearray() for _ in range(_BUCKETS)]
        self._other: set[str] = set()
        self._runs: list[bytes] = []  # each run's handle on the shelf
        self._shelf = Shelf() if shelf is None else shelf
        self._size = 0
        self.alarms = 0  # the exact look-ups the filter sent on (the ids added again among them)
        for event_id in ids:
            self.add(event_id)

    def __contains__(self, event_id: object) -> bool:
        if not isinstance(event_id, str):
            return False
        code = hash(event_id)
        bits = self._bits
        mask = self._mask
        first = code & mask
        second = code >> 24 & mask
        pattern = _PATTERNS[code >> 52 & 63]
        if bits[first] & pattern != pattern:
            return False
        pattern = _PATTERNS[code >> 58 & 63]
        if bits[second] & pattern != pattern:
            return False
        return self._held(event_id)

    def add(self, event_id: str) -> None:
        self.add_new(event_id)

    def add_new(self, event_id: str) -> bool:
        """Add ``event_id``; whether it was not held before (False: a repeat). The
        auditor's hot path: a hash (the text keeps it), two bytes of the filter and an
        append."""
        code = hash(event_id)
        bits = self._bits
        mask = self._mask
        first = code & mask
        second = code >> 24 & mask
        one = _PATTERNS[code >> 52 & 63]
        two = _PATTERNS[code >> 58 & 63]
        if bits[first] & one == one and bits[second] & two == two and self._held(event_id):
            return False
        bits[first] |= one
        bits[second] |= two
        fresh = self._fresh
        fresh.append(event_id)
        if len(fresh) >= FRESH:
            self._settle()
        self._size += 1
        return True

    def __len__(self) -> int:
        return self._size

    def __iter__(self) -> Iterator[str]:
        """The ids: the shelved runs, oldest first, the settled, the latest, the others."""
        for handle in self._runs:
            data = self._shelf.get(handle)
            yield from _texts(data[_TABLE.size :])
        for bucket in self._settled:
            yield from _texts(bucket)
        yield from list(self._fresh)
        yield from list(self._other)

    # --- the exact look-up, once the filter has sounded ---------------------------------------

    def _held(self, event_id: str) -> bool:
        """Whether ``event_id`` is held, looked up exactly."""
        self.alarms += 1
        if event_id in self._other or event_id in self._fresh:
            return True
        if len(event_id) != 36 or not _ONE.fullmatch(event_id):
            return False  # not a canonical UUID: held, if at all, as its text (above)
        key = bytes.fromhex(event_id.replace("-", ""))
        number = key[0]
        if _find(self._settled[number], key):
            return True
        shelf = self._shelf
        for handle in self._runs:
            start, end = _OFFSETS.unpack(shelf.read(handle, 4 * number, 8))
            if end > start and _find(shelf.read(handle, _TABLE.size + start, end - start), key):
                return True
        return False

    # --- from texts to bytes, from memory to the shelf -----------------------------------------

    def _settle(self) -> None:
        """The latest ids into the settled buckets as 16 bytes each (the others, as texts,
        into the set of others); a run to the shelf when the settled ids are many."""
        fresh, self._fresh = self._fresh, []
        settled = self._settled
        keys = _canonical(fresh)
        if keys is not None:
            for (key,) in _KEYS.iter_unpack(keys):
                settled[key[0]] += key
        else:
            for event_id in fresh:
                if len(event_id) == 36 and _ONE.fullmatch(event_id):
                    key = bytes.fromhex(event_id.replace("-", ""))
                    settled[key[0]] += key
                else:
                    self._other.add(event_id)
        if sum(map(len, settled)) >= 16 * SETTLED:
            self._shelve()

    def _shelve(self) -> None:
        settled, self._settled = self._settled, [bytearray() for _ in range(_BUCKETS)]
        starts = [0]
        for bucket in settled:
            starts.append(starts[-1] + len(bucket))
        self._runs.append(self._shelf.put(_TABLE.pack(*starts) + b"".join(settled)))


_KEYS = struct.Struct("16s")


def _canonical(texts: list[str]) -> bytes | None:
    """The 16 bytes of each text, in order, when every one is a canonical UUID (lower-case
    8-4-4-4-12), else None - checked for all of them at once, at C speed."""
    count = len(texts)
    joined = "\n".join(texts) + "\n"
    # every 37th character a newline, and no other: each text 36 characters, none a newline;
    # a dash at the four places, and no other; the rest lower-case hexadecimal digits (the
    # 32 of each text make 16 bytes only if none is a space, which fromhex would skip)
    if (
        len(joined) != 37 * count
        or joined[36::37] != "\n" * count
        or joined.count("\n") != count
        or joined.count("-") != 4 * count
        or joined[8::37] != "-" * count
        or joined[13::37] != "-" * count
        or joined[18::37] != "-" * count
        or joined[23::37] != "-" * count
    ):
        return None
    digits = joined.replace("-", "").replace("\n", "")
    if digits.lower() != digits:
        return None
    try:
        keys = bytes.fromhex(digits)
    except ValueError:
        return None
    return keys if len(keys) == 16 * count else None


def _texts(keys: bytes | bytearray) -> Iterator[str]:
    for start in range(0, len(keys), 16):
        raw = keys[start : start + 16].hex()
        yield f"{raw[:8]}-{raw[8:12]}-{raw[12:16]}-{raw[16:20]}-{raw[20:]}"


def _find(bucket: bytes | bytearray, key: bytes) -> bool:
    """Whether ``key`` is one of the bucket's 16-byte keys (a match across two keys is not)."""
    at = bucket.find(key)
    while at >= 0:
        if not at & 15:
            return True
        at = bucket.find(key, at + 1)
    return False
