"""A compact set of event ids, for a fold that must find a repeated id over a long stream.

An event id as the record writes it - a UUID as lower-case 8-4-4-4-12 text - is held as
its 16 bytes, appended to one of 4,096 byte strings (the bucket its first 12 bits name);
a membership test is one search of that bucket at C speed. That is 16 bytes an id where
a ``set`` of the texts holds about 100 (the text and its slot), and no object per id for
the collector to walk. Any other text (a test's ``"e1"``, an upper-case UUID) is kept as
it is, in a plain set: every id is held exactly, so a repeat is found exactly as a set of
the texts finds it - a text and its bytes never stand for each other (only the canonical
text is turned into bytes, and it is the one text of those bytes).
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator

_BUCKETS = 4096


def _key(event_id: str) -> bytes | None:
    """The 16 bytes of a canonical UUID text, else None."""
    if len(event_id) != 36 or event_id[8] != "-" or event_id[13] != "-" or event_id[18] != "-" or event_id[23] != "-":
        return None
    digits = event_id.replace("-", "")
    # fromhex takes upper case and skips spaces: only the one text of these bytes is theirs
    # (a UUID of digits alone, 1 in 10^10, is held as its text)
    if not digits.islower():
        return None
    try:
        key = bytes.fromhex(digits)
    except ValueError:
        return None
    return key if len(key) == 16 else None


class IdSet:
    """A set of event ids (texts): ``in``, :meth:`add`, :meth:`add_new`, ``len``, iteration."""

    __slots__ = ("_buckets", "_other", "_size")

    def __init__(self, ids: Iterable[str] = ()) -> None:
        self._buckets = [bytearray() for _ in range(_BUCKETS)]
        self._other: set[str] = set()
        self._size = 0
        for event_id in ids:
            self.add(event_id)

    def __contains__(self, event_id: object) -> bool:
        if not isinstance(event_id, str):
            return False
        key = _key(event_id)
        if key is None:
            return event_id in self._other
        return _find(self._buckets[key[0] << 4 | key[1] >> 4], key)

    def add(self, event_id: str) -> None:
        self.add_new(event_id)

    def add_new(self, event_id: str) -> bool:
        """Add ``event_id``; whether it was not held before (False: a repeat)."""
        key = _key(event_id)
        if key is None:
            if event_id in self._other:
                return False
            self._other.add(event_id)
        else:
            bucket = self._buckets[key[0] << 4 | key[1] >> 4]
            if _find(bucket, key):
                return False
            bucket += key
        self._size += 1
        return True

    def __len__(self) -> int:
        return self._size

    def __iter__(self) -> Iterator[str]:
        for bucket in self._buckets:
            for start in range(0, len(bucket), 16):
                raw = bucket[start:start + 16].hex()
                yield f"{raw[:8]}-{raw[8:12]}-{raw[12:16]}-{raw[16:20]}-{raw[20:]}"
        yield from self._other


def _find(bucket: bytearray, key: bytes) -> bool:
    """Whether ``key`` is one of the bucket's 16-byte keys (a match across two keys is not)."""
    at = bucket.find(key)
    while at >= 0:
        if not at & 15:
            return True
        at = bucket.find(key, at + 1)
    return False
