"""Offline replay of a JSON Lines file in memory that does not grow with the file.

The engine's own reader (:mod:`tables.engine.offline`) holds every event of the file at
once, about 2.8 KiB each: a 100-table gaming day would need some 10 GiB. Here the file is
read once, line by line:

1. each line is decoded strictly by the record core's one codec and, unless told not to,
   its hash chain checked by the core's one verifier as it comes (one head per stream);
2. the event, in the export form, goes to its stream's *spool* - a temporary file on
   disk, MessagePack, one per stream - with the little that must be known before a
   stream can be folded: the events a correction strikes (the fold skips them from the
   start, and the correction comes after them) and the currency of its last
   ``table.opened``;
3. only when the whole file has been read and every chain holds is anything replayed
   (the findings of a record that may have been altered would mislead): each stream's
   spool is then folded by the engine's :class:`~tables.engine.replay.Replay`, in the
   order the streams first appear in the file, and its result handed out before the next
   stream is folded.

4. a stream is folded compactly (:func:`fold_stream`): each round pickled to a
   :class:`~audit.record.shelf.Shelf` (a temporary file) once the next starts, the event
   ids behind a filter of a fixed size (:class:`~audit.record.ids.IdSet`), and its report
   rendered a round at a time into a file (:func:`each_stream`), which is copied out.

So memory holds a head per stream while reading and, while replaying, a few bytes a
round of the stream being folded (its handles on the shelf), whatever the number of
tables and however long a table's day; streams that interleave in the file cost nothing
more. The results are the engine's, exactly: the same fold over the same events, with
the same struck events, as :func:`tables.engine.offline.replay_lines` gives.
"""

from __future__ import annotations

import collections
import contextlib
import itertools
import os
import struct
import tempfile
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import IO, Any, Self, TypeVar

import msgspec

from audit.record.collector import bulk_work
from audit.record.corrections import struck_events
from audit.record.events import read_current
from audit.record.ids import IdSet
from audit.record.jsonl import LineError, NotChained, decode_hashed, numbered
from audit.record.processes import process_pool
from audit.record.shelf import Shelf
from audit.record.verify import Verifier
from tables.engine.illegal import Finding
from tables.engine.offline import BrokenChain, UnusableInput, _unchained
from tables.engine.replay import Replay, ReplayResult, RoundResult
from tables.engine.rules import RuleSet

_LENGTH = struct.Struct("<I")
# spools kept open at once; a file of more streams than this reopens them to append
_OPEN_SPOOLS = 128


@dataclass(slots=True)
class _Stream:
    path: str
    struck: set[str] = field(default_factory=set)
    currency: str | None = None
    events: int = 0


class Spooled:
    """A file read and checked, its events spooled by stream; :meth:`replay` folds them.
    Close it (or use it as a context manager) to remove the spools."""

    def __init__(self) -> None:
        self._folder = tempfile.TemporaryDirectory(prefix="replay-")
        self.streams: dict[str, _Stream] = {}
        self._open: dict[str, IO[bytes]] = {}
        self._encode = msgspec.msgpack.Encoder().encode

    def add(self, event: dict[str, Any]) -> None:
        name = str(event["stream"])
        stream = self.streams.get(name)
        if stream is None:
            stream = self.streams[name] = _Stream(
                os.path.join(self._folder.name, f"{len(self.streams)}.msgpack")
            )
        out = self._open.pop(name, None)  # re-inserted below: the dict's order is the use order
        if out is None:
            if len(self._open) >= _OPEN_SPOOLS:
                oldest = next(iter(self._open))
                self._open.pop(oldest).close()
            out = open(stream.path, "ab", buffering=1 << 16)  # noqa: SIM115 - kept open across calls
        self._open[name] = out
        data = self._encode(event)
        out.write(_LENGTH.pack(len(data)))
        out.write(data)
        stream.events += 1
        kind = event["type"]
        if kind == "correction.recorded":
            stream.struck |= struck_events((event,))
        elif kind == "table.opened":
            payload = event["payload"]
            if isinstance(payload, dict) and "currency" in payload:
                stream.currency = payload["currency"]

    def flush(self) -> None:
        """Every spool written out and closed (before it is read, or forked)."""
        for out in self._open.values():
            out.close()
        self._open.clear()

    def currencies(self) -> dict[str, str]:
        """Each stream's currency, from its (last) ``table.opened``."""
        return {name: s.currency for name, s in self.streams.items() if s.currency is not None}

    def events(self, name: str) -> Iterator[dict[str, Any]]:
        """A stream's events, in file order, read back from its spool."""
        self.flush()
        decode = msgspec.msgpack.Decoder().decode
        unpack = _LENGTH.unpack
        with open(self.streams[name].path, "rb", buffering=1 << 16) as spool:
            read = spool.read
            while head := read(4):
                yield decode(read(unpack(head)[0]))

    def replay(self, rules: RuleSet | None = None) -> Iterator[ReplayResult]:
        """Each stream's result, folded one stream at a time."""
        for name in self.streams:
            yield replay_stream(name, self.events(name), self.streams[name].struck, rules)

    def close(self) -> None:
        self.flush()
        self._folder.cleanup()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


@dataclass(slots=True)
class FoldedStream:
    """One stream folded to its end: what :class:`~tables.engine.replay.ReplayResult`
    holds, but its rounds given one at a time (:meth:`each_round`, once), thawed from the
    fold's shelf as they are asked for."""

    stream: str
    rules: str | None
    events: int
    rounds: int
    findings: tuple[Finding, ...]
    _rounds: Iterator[RoundResult]

    def each_round(self) -> Iterator[RoundResult]:
        """The rounds in the order they started, as the whole fold's result lists them."""
        return self._rounds


@contextlib.contextmanager
def fold_stream(
    name: str,
    events: Iterable[dict[str, Any]],
    struck: set[str],
    rules: RuleSet | None = None,
    *,
    expected: int | None = None,
) -> Iterator[FoldedStream]:
    """One stream's fold, in memory that does not grow with it: its rounds pickled to a
    shelf once the next starts, its event ids in an :class:`~audit.record.ids.IdSet` (for
    ``expected`` ids), the findings and rounds those of :meth:`Replay.view`. The shelf is
    let go when the block ends. Bulk work: the collector's young threshold raised
    (:mod:`audit.record.collector`)."""
    shelf = Shelf()
    try:
        ids = IdSet(shelf=shelf, expected=expected)
        repeated: set[str] = set()

        def checked() -> Iterator[dict[str, Any]]:
            # the fold pulls one event at a time, so an id is a repeat only once the fold
            # has read its first event - the finding lands where the whole fold's does
            add_new = ids.add_new
            for event in events:
                event_id = event.get("id")
                if isinstance(event_id, str) and not add_new(event_id):
                    repeated.add(event_id)
                yield event

        state = Replay(rules, struck=struck, repeats=repeated, ids=ids, compact=True, shelf=shelf)
        with bulk_work():
            state.run(checked())
            findings, rounds = state.final(by_number=False)
            yield FoldedStream(
                state.stream if state.stream is not None else name,
                state.rules.name if state.rules is not None else None,
                state.count,
                len(state.rounds),
                findings,
                rounds,
            )
    finally:
        shelf.close()


def replay_stream(
    name: str, events: Iterable[dict[str, Any]], struck: set[str], rules: RuleSet | None = None
) -> ReplayResult:
    """One stream's fold from an iterator (what :func:`tables.engine.replay.replay` does
    with a list, the struck events known beforehand), every round held in the result."""
    with fold_stream(name, events, struck, rules) as folded:
        return ReplayResult(
            folded.stream, folded.rules, tuple(folded.each_round()), folded.findings, folded.events
        )


_Rendered = TypeVar("_Rendered")
# what the workers of each_stream fold and render: set before they are forked
_WORK: tuple[Spooled, Callable[[FoldedStream, IO[str]], Any], RuleSet | None] | None = None


def _fold_and_render(name: str) -> tuple[Any, str]:
    assert _WORK is not None
    spooled, render, rules = _WORK
    return _rendered(spooled, name, render, rules)


def _rendered(
    spooled: Spooled,
    name: str,
    render: Callable[[FoldedStream, IO[str]], _Rendered],
    rules: RuleSet | None,
) -> tuple[_Rendered, str]:
    """``render``'s answer for the stream, and the file it wrote the stream's report to."""
    stream = spooled.streams[name]
    path = stream.path + ".out"
    with (
        open(path, "w", encoding="utf-8", newline="", buffering=1 << 16) as out,
        fold_stream(
            name, spooled.events(name), stream.struck, rules, expected=stream.events
        ) as folded,
    ):
        return render(folded, out), path


def each_stream(
    spooled: Spooled,
    render: Callable[[FoldedStream, IO[str]], _Rendered],
    rules: RuleSet | None = None,
    *,
    processes: int | None = None,
) -> Iterator[tuple[_Rendered, IO[str]]]:
    """Each stream folded and ``render(folded, out)`` called, in the order the streams
    first appear: what it returns (say, what to write before the file, where that is
    known only once the file is written), and what it wrote to ``out``, open to be read
    (a temporary file, removed when the next stream is asked for). Streams are independent,
    so when there are several they are folded and rendered by ``processes`` worker
    processes (default one per processor; forked, where this process may fork), a few streams
    ahead of the one handed out; what each holds is a stream's fold, never its report."""
    global _WORK
    names = list(spooled.streams)
    processes = min(len(names), processes or os.cpu_count() or 1)

    def handed(done: tuple[_Rendered, str]) -> Iterator[tuple[_Rendered, IO[str]]]:
        answer, path = done
        try:
            with open(path, encoding="utf-8", newline="") as written:
                yield answer, written
        finally:
            os.remove(path)

    pool = process_pool(processes) if processes > 1 else None  # forked, or none: they inherit _WORK
    if pool is None:
        for name in names:
            yield from handed(_rendered(spooled, name, render, rules))
        return
    spooled.flush()
    _WORK = (spooled, render, rules)
    try:
        with pool:
            waiting = iter(names)
            ahead = collections.deque(
                pool.submit(_fold_and_render, name)
                for name in itertools.islice(waiting, 2 * processes)
            )
            while ahead:
                done = ahead.popleft().result()
                following = next(waiting, None)
                if following is not None:
                    ahead.append(pool.submit(_fold_and_render, following))
                yield from handed(done)
    finally:
        _WORK = None


def spool_lines(lines: Iterable[str | bytes], *, verify_chain: bool = True) -> Spooled:
    """Read, check and spool a file's lines (see the module's docstring).
    :class:`~tables.engine.offline.UnusableInput` at the first line that is not an envelope,
    :class:`~tables.engine.offline.BrokenChain` with every problem when a chain does not
    hold; either way nothing is left on disk."""
    spooled = Spooled()
    try:
        if verify_chain:
            _read_chained(lines, spooled)
        else:
            for number, text in numbered(lines):
                spooled.add(_unchained(text, number))
    except LineError as error:
        spooled.close()
        raise UnusableInput(
            error.line or 0, error.reason, not_chained=isinstance(error, NotChained)
        ) from None
    except BaseException:
        spooled.close()
        raise
    return spooled


def _read_chained(lines: Iterable[str | bytes], spooled: Spooled) -> None:
    verifier = Verifier(check_payloads=False)  # the codec has checked the payloads
    check = verifier.check
    broken = False
    for number, text in numbered(lines):
        envelope, event = decode_hashed(text, number)
        if check(envelope, number) is not None:
            broken = True
        if (
            not broken
        ):  # every line is still read: a later one may be unusable, or break another chain
            spooled.add(read_current(event))  # after its hash: the fold reads the current form
    report = verifier.finish()
    if not report.ok:
        raise BrokenChain(report.problems)
