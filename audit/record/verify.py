"""The chain verifier: the one check of hash chains, over envelopes from anywhere.

:func:`verify` takes envelopes in version order within each stream - streams may come
one after another (the store reads them so) or interleaved (a file in position order) -
and reports, per stream, the first of these (kinds of the findings vocabulary, owner
``integrity``):

- ``bad_start`` - the stream's first event is not version 1 (or not the version after
  the event the caller started it from: ``starts`` or ``start``);
- ``gap`` - the version is not the one after the previous event's (missing, repeated or
  swapped events);
- ``reordered`` - the position is not after the previous event's (when both have one);
- ``broken_link`` - ``prev_hash`` is not the previous event's ``hash``;
- ``altered`` - the content does not match its ``hash``;
- ``invalid`` - the payload breaks its type's schema (a reader that has decoded the
  payload into its schema already, like :func:`verify_lines`, skips this);
- ``head_mismatch`` - given a known head (version, hash) of the stream, kept outside
  the record (an earlier export, a signed head): the event at that version has another
  hash, so the chain was rewritten and re-hashed;
- ``truncated`` - the stream ends before such a known head, or is not there at all.

After a stream's first problem nothing more of it is checked: nothing read from there
on can be trusted. Memory is one head per stream, whatever the number of events.
Each :class:`Problem` names the stream, the version, the position (if any), the line (if
from a file), the event's id, the kind and what is wrong.

What a chain alone cannot show - a tail cut off, or rewritten and re-hashed throughout -
only the known heads reveal.

A stream whose first events are kept elsewhere (archived: a gaming day's partition
detached after a verified regulator's package) starts from ``starts[stream]``, the
(version, hash) of its last event kept elsewhere: its first event given must be the next
version and link to that hash. A known head at or below that version is not the record's
to show any more; with no event of the stream given, the stream ends there.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol
from uuid import UUID

from .chain import GENESIS_HASH
from .envelope import Envelope
from .events import PayloadError, validate_payload
from .findings import kinds_of
from .jsonl import decode_lines

KINDS = kinds_of("integrity")


@dataclass(frozen=True, slots=True)
class Problem:
    stream: str
    version: int
    position: int | None
    event_id: str  # empty where no event shows it (a stream missing altogether)
    kind: str
    detail: str
    line: int | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"{self.kind!r} is not a kind of the chain verifier")

    def __str__(self) -> str:
        where = "" if self.line is None else f"line {self.line}: "
        at = "" if self.position is None else f" at position {self.position}"
        event = f" (id {self.event_id})" if self.event_id else ""
        if self.kind == "truncated":
            return f"{where}{self.stream}: ends at version {self.version}{at}{event}: {self.kind}: {self.detail}"
        return f"{where}{self.stream}: first bad event is version {self.version}{at}{event}: {self.kind}: {self.detail}"


@dataclass(frozen=True, slots=True)
class Report:
    streams: int
    events: int
    problems: list[Problem]

    @property
    def ok(self) -> bool:
        return not self.problems


@dataclass(slots=True)
class Head:
    """Where a stream's check starts: the event before the first one given (version 0
    and the genesis hash for a whole stream)."""

    version: int = 0
    hash: str = GENESIS_HASH
    position: int = 0


class Chained(Protocol):
    """What :meth:`Verifier.check` reads of an event: an :class:`.Envelope`, or the
    :class:`.jsonl.Link` of a line the codec decoded and hashed (its id the line's text)."""

    @property
    def id(self) -> UUID | str: ...
    @property
    def stream(self) -> str: ...
    @property
    def version(self) -> int: ...
    @property
    def position(self) -> int | None: ...
    @property
    def type(self) -> str: ...
    @property
    def schema_version(self) -> int: ...
    @property
    def payload(self) -> dict[str, Any]: ...
    @property
    def prev_hash(self) -> str: ...
    @property
    def hash(self) -> str: ...
    def computed_hash(self) -> str: ...


@dataclass(slots=True)
class _Stream:
    version: int
    hash: str
    position: int
    start: int  # the version checking started after
    broken: bool = False
    line: int | None = None
    last: UUID | str | None = None  # the id of the last event checked


# the first envelope given of a stream -> where that stream's check starts
Start = Callable[[Chained], Head]


class Verifier:
    """Feed envelopes to :meth:`check` one at a time, then :meth:`finish` (the
    arguments are :func:`verify`'s)."""

    def __init__(
        self,
        *,
        heads: Mapping[str, tuple[int, str]] | None = None,
        start: Start | None = None,
        starts: Mapping[str, tuple[int, str]] | None = None,
        check_payloads: bool = True,
    ) -> None:
        self.heads = heads or {}
        self.start = start
        self.starts = starts or {}
        self.check_payloads = check_payloads
        self.events = 0
        self.problems: list[Problem] = []
        self._streams: dict[str, _Stream] = {}

    def check(self, envelope: Chained, line: int | None = None) -> Problem | None:
        """The envelope's problem, if it has one (it is also kept for the report). One
        method, its checks inline: it runs once per event of the store."""
        self.events += 1
        state = self._streams.get(envelope.stream)
        if state is None:
            from_ = self.starts.get(envelope.stream) if self.starts else None
            if from_ is not None and (self.start is None or envelope.version == from_[0] + 1):
                head = Head(from_[0], from_[1])
            else:
                head = self.start(envelope) if self.start is not None else Head()
            state = self._streams[envelope.stream] = _Stream(
                head.version, head.hash, head.position, head.version
            )
        if state.broken:
            return None
        version = envelope.version
        if version != state.version + 1:
            if state.version == state.start:
                return self._found(
                    state,
                    envelope,
                    line,
                    "bad_start",
                    f"the stream starts at version {version}, not {state.version + 1}",
                )
            if version > state.version + 1:
                return self._found(
                    state,
                    envelope,
                    line,
                    "gap",
                    f"versions {state.version + 1}..{version - 1} are missing",
                )
            return self._found(
                state,
                envelope,
                line,
                "gap",
                f"version {version} comes after version {state.version}, not {state.version + 1}",
            )
        position = envelope.position
        if position is not None and state.position and position <= state.position:
            return self._found(
                state,
                envelope,
                line,
                "reordered",
                f"position {position} is not after the previous event's {state.position}",
            )
        if envelope.prev_hash != state.hash:
            return self._found(
                state,
                envelope,
                line,
                "broken_link",
                (
                    f"prev_hash {envelope.prev_hash[:12]}... is not the previous event's hash {state.hash[:12]}..."
                ),
            )
        computed = envelope.computed_hash()
        if computed != envelope.hash:
            return self._found(
                state,
                envelope,
                line,
                "altered",
                (
                    f"the content does not match its hash (stored {envelope.hash[:12]}..., computed {computed[:12]}...)"
                ),
            )
        known = self.heads.get(envelope.stream) if self.heads else None
        if known is not None and known[0] == version and known[1] != computed:
            return self._found(
                state,
                envelope,
                line,
                "head_mismatch",
                (
                    f"its hash {computed[:12]}... is not the known head's {known[1][:12]}... at this version"
                ),
            )
        if self.check_payloads:
            try:
                validate_payload(envelope.type, envelope.schema_version, envelope.payload)
            except PayloadError as error:
                return self._found(
                    state, envelope, line, "invalid", f"the payload breaks its schema: {error}"
                )
        state.version, state.hash, state.line, state.last = version, computed, line, envelope.id
        if position is not None:
            state.position = position
        return None

    def _found(
        self, state: _Stream, envelope: Chained, line: int | None, kind: str, detail: str
    ) -> Problem:
        problem = Problem(
            envelope.stream,
            envelope.version,
            envelope.position,
            str(envelope.id),
            kind,
            detail,
            line,
        )
        self.problems.append(problem)
        state.broken = True
        return problem

    def finish(self) -> Report:
        """The report: every stream's problem, and each known head the record ends before."""
        for stream, (version, digest) in self.heads.items():
            state = self._streams.get(stream)
            kept = self.starts.get(stream)
            if kept is not None and version <= kept[0] and (state is None or not state.broken):
                if version == kept[0] and digest != kept[1]:
                    self.problems.append(
                        Problem(
                            stream,
                            version,
                            None,
                            "",
                            "head_mismatch",
                            (
                                f"its last event kept elsewhere has hash {kept[1][:12]}..., not the known head's "
                                f"{digest[:12]}... at this version"
                            ),
                        )
                    )
                continue
            if state is None and kept is not None:
                state = _Stream(kept[0], kept[1], 0, kept[0])
            if state is None:
                self.problems.append(
                    Problem(
                        stream,
                        0,
                        None,
                        "",
                        "truncated",
                        f"no event of the stream is there; its known head is version {version}",
                    )
                )
            elif not state.broken and state.version < version:
                self.problems.append(
                    Problem(
                        stream,
                        state.version,
                        None,
                        str(state.last or ""),
                        "truncated",
                        f"the known head is version {version} (hash {digest[:12]}...)",
                        state.line,
                    )
                )
        return Report(len(self._streams), self.events, self.problems)


def verify(
    envelopes: Iterable[Envelope | tuple[int, Envelope]],
    *,
    heads: Mapping[str, tuple[int, str]] | None = None,
    start: Start | None = None,
    starts: Mapping[str, tuple[int, str]] | None = None,
    check_payloads: bool = True,
) -> Report:
    """Check ``envelopes`` (or (line number, envelope) pairs from a file); see the
    module's docstring. ``heads`` maps a stream to a known (version, hash); ``start``
    says where a stream's check starts when the first envelope given of it is not its
    first (default: the genesis); ``starts`` maps a stream whose first events are kept
    elsewhere (archived) to the (version, hash) of the last of them, where its check
    starts (it takes precedence over ``start`` for the envelope right after it)."""
    verifier = Verifier(heads=heads, start=start, starts=starts, check_payloads=check_payloads)
    for item in envelopes:
        if isinstance(item, tuple):
            verifier.check(item[1], item[0])
        else:
            verifier.check(item)
    return verifier.finish()


def verify_lines(
    lines: Iterable[str | bytes], *, heads: Mapping[str, tuple[int, str]] | None = None
) -> Report:
    """:func:`verify` over a JSON Lines file's lines, each decoded strictly by
    :func:`.jsonl.decode_line` (which raises :class:`.jsonl.LineError` at the first that
    is not an envelope); blank lines are skipped, problems name their line."""
    return verify(decode_lines(lines), heads=heads, check_payloads=False)
