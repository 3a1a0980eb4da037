"""What a long fold must keep to the end but seldom reads again, put away on disk.

A fold over one table's day (the offline auditor's) keeps things that a late event can
still reach - every round (a correction, a late void), every settled bet's net and where
(a correction, a bet settled twice) - but reads almost none of them again. Held in
memory, they grow with the day. A :class:`Shelf` is a temporary file that byte strings
are appended to; each is fetched back by the 16-byte handle :meth:`Shelf.put` gave (its
offset and length), so memory holds 16 bytes a thing put away, wherever it is.

:class:`ShelvedMap` is an ordered mapping (of bet ids, of a table's rounds) built on one:
the latest entries in a dict, the older ones shelved a batch at a time, pickled, with an
index of the keys' hashes
(8 bytes each, with the batch's number), itself put on the shelf 8,192 entries at a time
behind a Bloom filter of a fixed size. A key is looked for in the batches its hash names,
each thawed and asked, so every answer is exact - two keys of one hash are told apart by
the batch, a hash that is no key's finds nothing - in memory that does not grow with the
keys.

Pure Python, no I/O but the shelf's own file; the caller closes the shelf.
"""

from __future__ import annotations

import pickle
import struct
import tempfile
from array import array
from collections.abc import Hashable, ItemsView, Iterator, MutableMapping
from typing import IO, Generic, TypeVar

_HANDLE = struct.Struct("<QQ")  # offset, length
# the file's buffer: a round is put away at every round and read back in order at the end;
# with the default 8 KiB, every few of them would be a system call
_BUFFER = 1 << 16
_ENTRY = struct.Struct("<qI")  # the key's hash, its batch
_BUCKETS = 256  # of the index, by the low byte of a key's hash
_TABLE = struct.Struct(
    f"<{_BUCKETS + 1}I"
)  # where each bucket of a run of the index starts, and its end
_OFFSETS = struct.Struct("<II")
# two of a byte's eight bits, for six bits of a hash (the 28 pairs, four of them twice):
# a Bloom filter's two bytes of an element (audit.record.ids, ShelvedMap)
PAIRS = tuple((1 << low) | (1 << high) for low in range(8) for high in range(low + 1, 8))
PATTERNS = tuple(PAIRS[n % len(PAIRS)] for n in range(64))
# the ShelvedMap's filter of its shelved keys (bytes, a power of two): made twice as large,
# up to _MOST, whenever the keys shelved are more than a third of its bytes (87,381 keys
# for 256 KiB), so that its false alarms - each reads every run - stay as few
FILTER = 1 << 18
_MOST = 1 << 24
# the index entries a ShelvedMap holds in memory before it writes them as a run
ENTRIES = 8192
# the entries a ShelvedMap holds in memory before it shelves them together (512 settled
# bets pickle to about 10 KB; a correction or a repeat reads back the batch it names)
BATCH = 512

# the filter a ShelvedMap of a table's rounds starts with (grown as above): a table's day
# has a few thousand rounds, a month's package 45,000 (at which it has grown to 256 KiB)
SMALL_FILTER = 1 << 14

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class Shelf:
    """Byte strings appended to a temporary file; :meth:`put` gives a 16-byte handle,
    :meth:`get` the bytes back (:meth:`read`, a part of them)."""

    __slots__ = ("_at_end", "_end", "_file")

    def __init__(self) -> None:
        # closed by close(); deleted by the system when closed, or when the process ends
        self._file: IO[bytes] = tempfile.TemporaryFile(buffering=_BUFFER)  # noqa: SIM115
        self._end = 0
        # whether the file stands at its end: no read since the last put (asking the file,
        # tell(), is a system call at every put - a replay puts every round away)
        self._at_end = True

    def put(self, data: bytes) -> bytes:
        """Put ``data`` away; the handle to :meth:`get` it back with."""
        file = self._file
        if not self._at_end:
            file.seek(self._end)
            self._at_end = True
        file.write(data)
        handle = _HANDLE.pack(self._end, len(data))
        self._end += len(data)
        return handle

    def get(self, handle: bytes) -> bytes:
        """The bytes :meth:`put` gave ``handle`` for."""
        offset, length = _HANDLE.unpack(handle)
        file = self._file
        self._at_end = False
        file.seek(offset)
        data = file.read(length)
        if len(data) != length:
            raise OSError(f"the shelf's file ends before {offset + length} bytes")
        return data

    def read(self, handle: bytes, start: int, length: int) -> bytes:
        """``length`` bytes from ``start`` of what :meth:`put` gave ``handle`` for."""
        offset, size = _HANDLE.unpack(handle)
        if start < 0 or length < 0 or start + length > size:
            raise ValueError(f"bytes {start} to {start + length} of a thing of {size} bytes")
        file = self._file
        self._at_end = False
        file.seek(offset + start)
        data = file.read(length)
        if len(data) != length:
            raise OSError(f"the shelf's file ends before {offset + start + length} bytes")
        return data

    def __len__(self) -> int:
        """The bytes put away."""
        return self._end

    def close(self) -> None:
        self._file.close()


class ShelvedMap(MutableMapping[K, V], Generic[K, V]):
    """A mapping of picklable keys (texts, or tuples of texts and numbers: what ``hash``
    gives the same for equal keys within the process) to picklable values whose older
    entries are kept on a :class:`Shelf`: ``batch`` entries in a dict, then shelved,
    pickled together. Reading or changing a shelved entry thaws its batch (the last batch
    thawed is kept, so a run of reads of one batch thaws it once); changing one shelves
    its batch again. A value read is a copy once its batch is shelved: a value changed
    after it is read must be put back (``m[key] = value``).

    Ordered as a dict is: the keys in the order they were first set (a key set again
    keeps its place), oldest first; :meth:`__reversed__` newest first, :meth:`items_from`
    from the n-th on.

    Which batch holds a key: each shelved key's hash and batch number (12 bytes), in
    memory up to :data:`ENTRIES`, then on the shelf as a run bucketed by the hash's low
    byte; a Bloom filter of :data:`FILTER` bytes in front of them (the hash's bits, two
    in each of two bytes) answers "never shelved" for nearly every key not shelved. So
    memory does not grow with the keys up to 87,381 of them (the filter, 256 KiB, is made
    twice as large past a key a third of its bytes, to 16 MiB at most); a key the filter lets through is looked up in
    its bucket of the entries in memory and of each run (two reads a run), and each batch
    an entry of its hash names is thawed and asked: every answer is exact."""

    def __init__(
        self,
        shelf: Shelf,
        *,
        batch: int | None = None,
        filter: int | None = None,
        grows: bool | None = None,
    ) -> None:
        """``filter``: the filter's bytes to start with; ``grows``: whether it is made
        larger as keys are shelved (by default only a filter of the default size: a test's
        size stays that size)."""
        self.shelf = shelf
        self.batch = BATCH if batch is None else batch
        self.recent: dict[K, V] = {}
        self.batches: list[bytes] = []  # each batch's handle on the shelf
        self._lengths = array("I")  # each batch's entries (items_from skips whole batches)
        size = FILTER if filter is None else filter
        if size < 1 or size & (size - 1):
            raise ValueError("the filter's bytes are a power of two")
        self._bits = bytearray(size)
        self._mask = size - 1
        self._grows = filter is None if grows is None else grows
        self._entries = [bytearray() for _ in range(_BUCKETS)]  # the index's latest entries
        self._count = 0  # of them
        self._shelved_keys = 0  # the index's entries in all
        self._runs: list[bytes] = []  # the index's older entries on the shelf: each run's handle
        self._thawed: tuple[int, dict[K, V]] | None = None
        self._size = 0
        self.alarms = 0  # the look-ups the filter let through (the shelved keys among them)

    # --- where a key is ---------------------------------------------------------------------

    def _batch(self, number: int) -> dict[K, V]:
        thawed = self._thawed
        if thawed is not None and thawed[0] == number:
            return thawed[1]
        entries: dict[K, V] = pickle.loads(self.shelf.get(self.batches[number]))
        self._thawed = (number, entries)
        return entries

    def _shelved(self, key: object) -> tuple[int, dict[K, V]] | None:
        """The batch that holds ``key`` (its number and entries), None when none does."""
        code = hash(key)
        bits = self._bits
        mask = self._mask
        pattern = PATTERNS[code >> 52 & 63]
        if bits[code & mask] & pattern != pattern:
            return None
        pattern = PATTERNS[code >> 58 & 63]
        if bits[code >> 24 & mask] & pattern != pattern:
            return None
        self.alarms += 1
        # a key is in one batch at most: the one thawed last answers without the index
        # (a pass over the keys in their order asks each batch's keys in turn)
        thawed = self._thawed
        if thawed is not None and key in thawed[1]:
            return thawed
        for number in self._numbers(code):
            entries = self._batch(number)
            if key in entries:
                return number, entries
        return None

    def _numbers(self, code: int) -> Iterator[int]:
        """The batches an entry of hash ``code`` names: the latest entries', then each run's."""
        wanted = code.to_bytes(8, "little", signed=True)
        bucket = code & (_BUCKETS - 1)
        yield from _named(self._entries[bucket], wanted)
        shelf = self.shelf
        for handle in self._runs:
            start, end = _OFFSETS.unpack(shelf.read(handle, 4 * bucket, 8))
            if end > start:
                yield from _named(shelf.read(handle, _TABLE.size + start, end - start), wanted)

    def _shelve(self) -> None:
        entries, self.recent = self.recent, {}
        number = len(self.batches)
        self.batches.append(self.shelf.put(pickle.dumps(entries, pickle.HIGHEST_PROTOCOL)))
        self._lengths.append(len(entries))
        index = self._entries
        bits = self._bits
        mask = self._mask
        entry = _ENTRY.pack
        for key in entries:
            code = hash(key)
            bits[code & mask] |= PATTERNS[code >> 52 & 63]
            bits[code >> 24 & mask] |= PATTERNS[code >> 58 & 63]
            index[code & (_BUCKETS - 1)] += entry(code, number)
        self._count += len(entries)
        self._shelved_keys += len(entries)
        if self._count >= ENTRIES:
            self._entries, self._count = [bytearray() for _ in range(_BUCKETS)], 0
            starts = [0]
            for bucket in index:
                starts.append(starts[-1] + len(bucket))
            self._runs.append(self.shelf.put(_TABLE.pack(*starts) + b"".join(index)))
        self._thawed = (number, entries)  # the batch just shelved is the likeliest read next
        if self._grows and 3 * self._shelved_keys > len(bits) and len(bits) < _MOST:
            self._grow()

    def _grow(self) -> None:
        """The filter made twice as large, its bits set again from every entry of the index
        (each entry keeps its key's whole hash)."""
        size = 2 * len(self._bits)
        bits = bytearray(size)
        mask = size - 1
        for number in range(len(self._runs) + 1):
            if number < len(self._runs):
                part = self.shelf.get(self._runs[number])[_TABLE.size :]
            else:
                part = b"".join(self._entries)
            for code, _ in _ENTRY.iter_unpack(part):
                bits[code & mask] |= PATTERNS[code >> 52 & 63]
                bits[code >> 24 & mask] |= PATTERNS[code >> 58 & 63]
        self._bits = bits
        self._mask = mask

    # --- the mapping ---------------------------------------------------------------------------

    def __contains__(self, key: object) -> bool:
        if key in self.recent:
            return True
        return self._shelved(key) is not None

    def __getitem__(self, key: K) -> V:
        recent = self.recent
        if key in recent:
            return recent[key]
        found = self._shelved(key)
        if found is None:
            raise KeyError(key)
        return found[1][key]

    def get(self, key: K, default: V | None = None) -> V | None:  # type: ignore[override]
        # the mapping's own get goes through __getitem__ and a KeyError for a key not
        # held, the usual answer of a round's look-up
        recent = self.recent
        if key in recent:
            return recent[key]
        found = self._shelved(key)
        return default if found is None else found[1][key]

    def __setitem__(self, key: K, value: V) -> None:
        recent = self.recent
        if key in recent:
            recent[key] = value
            return
        found = self._shelved(key)
        if found is not None:  # shelved again, changed: its handle is the batch's new place
            number, entries = found
            entries[key] = value
            self.batches[number] = self.shelf.put(pickle.dumps(entries, pickle.HIGHEST_PROTOCOL))
            return
        self._add(key, value)

    def setdefault(self, key: K, default: V) -> V:
        """The value of ``key``, else ``default`` set and given: one look-up (the mapping's
        own makes two, and a KeyError, for a new key - a new round's, each round)."""
        recent = self.recent
        if key in recent:
            return recent[key]
        found = self._shelved(key)
        if found is not None:
            return found[1][key]
        self._add(key, default)
        return default

    def _add(self, key: K, value: V) -> None:
        """A key held nowhere set."""
        if len(self.recent) >= self.batch:
            self._shelve()
        self.recent[key] = value
        self._size += 1

    def __delitem__(self, key: K) -> None:
        recent = self.recent
        if key in recent:
            del recent[key]
        else:
            found = self._shelved(key)
            if found is None:
                raise KeyError(key)
            number, entries = found
            del entries[key]  # its hash stays in the index, pointing at a batch without it
            self.batches[number] = self.shelf.put(pickle.dumps(entries, pickle.HIGHEST_PROTOCOL))
            self._lengths[number] -= 1
        self._size -= 1

    def __len__(self) -> int:
        return self._size

    def __iter__(self) -> Iterator[K]:
        """The keys, oldest batch first (each batch thawed in turn)."""
        for number in range(len(self.batches)):
            yield from list(self._batch(number))
        yield from list(self.recent)

    def __reversed__(self) -> Iterator[K]:
        """The keys, newest first (each batch thawed in turn, the newest first)."""
        yield from list(reversed(self.recent))
        for number in range(len(self.batches) - 1, -1, -1):
            yield from list(reversed(self._batch(number)))

    def items(self) -> ItemsView[K, V]:
        """The entries in order, a batch thawed at a time (not a look-up of each key)."""
        return _Items(self)

    def items_from(self, start: int) -> Iterator[tuple[K, V]]:
        """The entries from the ``start``-th (0: the oldest) on, in order. Each batch is
        thawed apart from the one :meth:`__getitem__` keeps, so that several of these
        can be read side by side (a merge) without thawing a batch twice."""
        shelf = self.shelf
        for number, length in enumerate(self._lengths):
            if start >= length:
                start -= length
                continue
            entries: dict[K, V] = pickle.loads(shelf.get(self.batches[number]))
            yield from list(entries.items())[start:]
            start = 0
        yield from list(self.recent.items())[start:]


class _Items(ItemsView[K, V]):
    """A :class:`ShelvedMap`'s entries, iterated a batch at a time."""

    _mapping: ShelvedMap[K, V]

    def __iter__(self) -> Iterator[tuple[K, V]]:
        return self._mapping.items_from(0)


def _named(bucket: bytes | bytearray, wanted: bytes) -> Iterator[int]:
    """The batch numbers of a bucket's entries whose hash is ``wanted`` (a match across two
    entries is not one)."""
    at = bucket.find(wanted)
    while at >= 0:
        if not at % _ENTRY.size:
            yield _ENTRY.unpack_from(bucket, at)[1]
        at = bucket.find(wanted, at + 1)
