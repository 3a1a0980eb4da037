"""A replay's rounds kept on a shelf: what :class:`tables.engine.replay.Replay` folds
into when it is given one (the offline auditor's long day, a month's package).

The replay keeps each round as its result while it may still change, and as the handle
of its pickle on the shelf once the next round starts (``Replay(compact=True)``). In
memory those handles, and their keys, still grow with the rounds (about 230 bytes a
round); here they go to a :class:`audit.record.shelf.ShelvedMap` a batch at a time, so
that memory holds a batch of them, whatever the rounds.

A value in a shelved batch is a copy: a result the replay still changes - the round in
play, or an older round a late event thawed - must not be pickled into a batch while it
changes. So a result (not a handle) is held apart, in :attr:`ShelvedRounds.thawed`, its
key given its place in the map; each is frozen into the map when a new round is set (the
next round's start: the late events that change an older round come before it) or when
the replay sets its handle itself.

Pure Python; the engine imports nothing else of the record's (:mod:`audit.record`).
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Callable, Iterator, MutableMapping
from typing import TYPE_CHECKING

from audit.record.shelf import SMALL_FILTER, Shelf, ShelvedMap

if TYPE_CHECKING:
    from .replay import RoundKey, RoundResult

# the rounds pickled together: a late event thaws its round's batch, and the report's
# pass in the order of the rounds' numbers holds one batch per gaming day (the days'
# rounds are merged), so a batch is kept small: 128 keys and handles, about 18 KB thawed
BATCH = 128
# a merge of more runs than this (a record whose rounds are far out of order) sorts the
# keys in memory instead, as a dict of rounds does: each run holds a batch while merged
RUNS = 64


class ShelvedRounds(MutableMapping["RoundKey", "RoundResult | bytes"]):
    """The rounds as a dict of them is read and written by the replay - in the order they
    started, a round started again keeping its place - with the handles on the shelf.
    ``pickled``: a result as the bytes put on the shelf (the replay's ``_freeze``; not a
    method of the replay, which holds this: a cycle would keep the whole fold, its id
    filter and memo, until the collector's next full pass)."""

    __slots__ = ("pickled", "shelf", "shelved", "thawed")

    def __init__(self, shelf: Shelf, pickled: Callable[[RoundResult], bytes]) -> None:
        self.shelved: ShelvedMap[RoundKey, bytes] = ShelvedMap(
            shelf, batch=BATCH, filter=SMALL_FILTER, grows=True
        )
        self.thawed: dict[RoundKey, RoundResult] = {}
        self.shelf = shelf
        self.pickled = pickled

    def __setitem__(self, key: RoundKey, value: RoundResult | bytes) -> None:
        if isinstance(value, bytes):
            self.thawed.pop(key, None)
            self.shelved[key] = value
            return
        # a new round (not a handle's, b"": its place; its value is held apart) puts back
        # the results held before it
        if key not in self.thawed and self.shelved.setdefault(key, b"") == b"" and self.thawed:
            self.put_back()
        self.thawed[key] = value

    def put_back(self) -> None:
        """Every result held apart frozen into the map."""
        thawed, self.thawed = self.thawed, {}
        for key, result in thawed.items():
            self.shelved[key] = self.shelf.put(self.pickled(result))

    def __getitem__(self, key: RoundKey) -> RoundResult | bytes:
        thawed = self.thawed.get(key)
        return thawed if thawed is not None else self.shelved[key]

    def get(  # type: ignore[override]
        self, key: RoundKey, default: RoundResult | bytes | None = None
    ) -> RoundResult | bytes | None:
        thawed = self.thawed.get(key)
        if thawed is not None:
            return thawed
        value = self.shelved.get(key)
        return default if value is None else value

    def __contains__(self, key: object) -> bool:
        return key in self.thawed or key in self.shelved

    def __delitem__(self, key: RoundKey) -> None:
        self.thawed.pop(key, None)
        del self.shelved[key]

    def __len__(self) -> int:
        return len(self.shelved)

    def __iter__(self) -> Iterator[RoundKey]:
        return iter(self.shelved)

    def __reversed__(self) -> Iterator[RoundKey]:
        return reversed(self.shelved)

    def pairs(self, start: int = 0) -> Iterator[tuple[RoundKey, RoundResult | bytes]]:
        """The rounds from the ``start``-th on, in the order they started, a batch thawed
        at a time."""
        thawed = self.thawed
        for key, value in self.shelved.items_from(start):
            yield key, thawed.get(key, value)

    def by_number(self) -> Iterator[tuple[RoundKey, RoundResult | bytes]]:
        """The rounds in the order of their numbers, a stable sort of the order they
        started (what ``sorted(rounds, key=number)`` gives a dict of them): the runs of
        rising numbers in that order - a gaming day's, usually - merged. The merge takes
        the earlier run's first among equal numbers, and each run is in start order, so
        the order is the sort's; it holds one batch of each run."""
        starts: list[int] = []
        last: int | None = None
        for index, (_, number) in enumerate(self):
            if last is None or number < last:
                starts.append(index)
            last = number
        if not starts:  # not one round (a table opened and closed without dealing)
            return
        if len(starts) > RUNS:
            for key in sorted(self, key=_number):
                yield key, self[key]
            return
        ends = [*starts[1:], len(self)]
        runs = [
            itertools.islice(self.pairs(start), end - start)
            for start, end in zip(starts, ends, strict=True)
        ]
        yield from heapq.merge(*runs, key=_first_number)


def _number(key: RoundKey) -> int:
    return key[1]


def _first_number(pair: tuple[RoundKey, object]) -> int:
    return pair[0][1]
