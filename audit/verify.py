"""Integrity verification: re-hash every chain and find gaps, reordering and alterations.

Rows are read in (stream, version) order through a server-side cursor, keeping only the
previous event of the current stream, so memory stays constant however large the store.
The first problem of each stream is reported; checking resumes with the next stream.

What it proves: each stored event still matches its hash, each links to the one before
it, versions have no holes and positions never go backwards within a stream. What it
cannot prove alone: that nobody rewrote a stream's tail *and* re-hashed it consistently,
or cut events off its end - for that, compare stream heads with ones recorded elsewhere
(an export handed to the regulator, a signed checkpoint).
"""
from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime

from .record.chain import GENESIS_HASH, event_hash
from .record.events import PayloadError, validate_payload
from .models import Event

_COLUMNS = (
    "stream", "version", "position", "event_id", "type", "schema_version", "occurred_at",
    "recorded_at", "actor", "source", "payload", "prev_hash", "hash",
)


@dataclass(frozen=True)
class Problem:
    stream: str
    version: int
    position: int
    event_id: str
    kind: str  # gap | reordered | broken_link | altered | invalid | bad_start
    detail: str

    def __str__(self) -> str:
        return (
            f"{self.stream}: first bad event is version {self.version} at position "
            f"{self.position} (id {self.event_id}): {self.kind}: {self.detail}"
        )


@dataclass
class Report:
    streams: int = 0
    events: int = 0
    problems: list[Problem] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


@dataclass
class _Cursor:
    stream: str
    version: int
    position: int
    hash: str
    broken: bool = False


def _anchor(stream: str, first_version: int, since: datetime | None) -> _Cursor:
    """Where checking of a stream starts: its genesis, or the event before ``since``."""
    if since is None or first_version == 1:
        return _Cursor(stream, 0, 0, GENESIS_HASH)
    before = (
        Event.objects.filter(stream=stream, version=first_version - 1)
        .values_list("position", "hash")
        .first()
    )
    if before is None:  # reported as a gap by the caller's check
        return _Cursor(stream, first_version - 1, 0, "?")
    return _Cursor(stream, first_version - 1, before[0], before[1])


def _rows(stream: str | None, since: datetime | None, chunk_size: int) -> Iterator[tuple]:
    rows = Event.objects.order_by("stream", "version")
    if stream is not None:
        rows = rows.filter(stream=stream)
    if since is not None:
        rows = rows.filter(recorded_at__gte=since)
    return rows.values_list(*_COLUMNS).iterator(chunk_size=chunk_size)


def _check(cur: _Cursor, row: tuple) -> tuple[str, str] | None:
    (stream, version, position, event_id, type_, schema_version, occurred_at, recorded_at,
     actor, source, payload, prev_hash, stored_hash) = row
    if version != cur.version + 1:
        if cur.version == 0:
            return "bad_start", f"the stream starts at version {version}, not 1"
        return "gap", f"versions {cur.version + 1}..{version - 1} are missing"
    if position <= cur.position:
        return "reordered", f"position {position} is not after the previous event's {cur.position}"
    if prev_hash != cur.hash:
        return "broken_link", f"prev_hash {prev_hash[:12]}... is not the previous event's hash {cur.hash[:12]}..."
    computed = event_hash(
        id=event_id, stream=stream, version=version, type=type_, schema_version=schema_version,
        occurred_at=occurred_at, recorded_at=recorded_at, actor=actor, source=source,
        payload=payload, prev_hash=prev_hash,
    )
    if computed != stored_hash:
        return "altered", f"the content does not match its hash (stored {stored_hash[:12]}..., computed {computed[:12]}...)"
    try:
        validate_payload(type_, schema_version, payload)
    except PayloadError as error:
        return "invalid", f"stored payload breaks its schema: {error}"
    return None


def verify_chains(
    *,
    stream: str | None = None,
    since: datetime | None = None,
    chunk_size: int = 5000,
    progress: Callable[[int], None] | None = None,
) -> Report:
    report = Report()
    cur: _Cursor | None = None
    for row in _rows(stream, since, chunk_size):
        report.events += 1
        if progress is not None and report.events % chunk_size == 0:
            progress(chunk_size)
        if cur is None or row[0] != cur.stream:
            report.streams += 1
            cur = _anchor(row[0], row[1], since)
        if cur.broken:
            continue
        problem = _check(cur, row)
        if problem is not None:
            kind, detail = problem
            report.problems.append(Problem(row[0], row[1], row[2], str(row[3]), kind, detail))
            cur.broken = True
            continue
        cur.version, cur.position, cur.hash = row[1], row[2], row[12]
    return report


def chain_state(event: Event, previous_hash: str | None) -> tuple[bool, str]:
    """Whether a stored event still matches its hash and links to the one before it
    (``previous_hash``: that event's stored hash, None if it is missing)."""
    computed = event_hash(
        id=event.event_id, stream=event.stream, version=event.version, type=event.type,
        schema_version=event.schema_version, occurred_at=event.occurred_at, recorded_at=event.recorded_at,
        actor=event.actor, source=event.source, payload=event.payload, prev_hash=event.prev_hash,
    )
    if computed != event.hash:
        return False, "content does not match its hash"
    if event.version > 1:
        if previous_hash is None:
            return False, f"version {event.version - 1} of the stream is missing"
        if previous_hash != event.prev_hash:
            return False, "prev_hash is not the hash of the event before it"
    return True, "intact"
