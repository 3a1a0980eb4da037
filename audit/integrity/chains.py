"""Integrity verification of the store: the record core's chain verifier over its rows.

Rows are read in (stream, version) order through a server-side cursor and handed to
:func:`audit.record.verify.verify` one at a time, which keeps only each stream's head,
so memory stays constant however large the store. The first problem of each stream is
reported; checking resumes with the next stream. The kinds, and what a chain alone
cannot prove (a cut tail, a consistent re-hash), are the core verifier's.

A stream whose first versions were archived (PostgreSQL: a gaming day's partition
detached, regulator.archive) is checked from the last archived version: the latest
``store.partition_detached`` event of ``audit.store`` records every stream's archived head
(version, hash), and the hash is read again from the key table, which keeps every event's
(:func:`archived_starts`). A stream missing its first versions with no detach recorded
over them is still ``bad_start``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Mapping
from datetime import datetime
from typing import Any

from django.db import connection

from audit.models import Event
from audit.record.envelope import Envelope
from audit.record.verify import Head, Problem, Report, Start, Verifier, verify
from audit.store.partitions import DETACH_STREAM, DETACHED, KEY_TABLE, keyed
from audit.store.seals import seal_holds
from audit.store.streams import envelope_of

__all__ = [
    "Archived",
    "Problem",
    "Report",
    "archived_heads",
    "archived_starts",
    "chain_state",
    "last_detach_of",
    "verify_chains",
]

# the columns in the order of Envelope's fields, so that a row is an Envelope's arguments
_COLUMNS = (
    "event_id",
    "stream",
    "version",
    "type",
    "schema_version",
    "occurred_at",
    "recorded_at",
    "actor",
    "source",
    "payload",
    "prev_hash",
    "hash",
    "position",
)


def _anchor(since: datetime) -> Start:
    """Where checking of a stream starts when only events since ``since`` are read: the
    event before the first one read (its stored hash and position)."""

    def start(first: Envelope) -> Head:
        if first.version == 1:
            return Head()
        before = (
            Event.objects.filter(stream=first.stream, version=first.version - 1)
            .values_list("position", "hash")
            .first()
        )
        if before is None:  # the link to a missing event cannot hold: reported as broken
            return Head(first.version - 1, "?")
        return Head(first.version - 1, before[1], before[0])

    return start


def archived_heads() -> dict[str, tuple[int, str]]:
    """Every stream's archived head - its last version detached and that event's hash -
    as the latest detach recorded it (each detach carries the earlier ones' forward, so
    the latest says it for the whole record); empty when nothing was ever detached."""
    payload = (
        Event.objects.filter(stream=DETACH_STREAM, type=DETACHED)
        .order_by("-version")
        .values_list("payload", flat=True)
        .first()
    )
    if payload is None:
        return {}
    return {
        stream: (int(version), digest) for stream, (version, digest) in payload["archived"].items()
    }


@dataclasses.dataclass(frozen=True)
class Archived:
    """The last detach that took events of a stream: its day and partition, the stream's
    versions it took, and the SHA-256 of the package's manifest that holds them."""

    day: str
    partition: str
    first: int
    last: int
    package_sha256: str


def last_detach_of(stream: str) -> Archived | None:
    """The latest recorded detach that took events of ``stream`` (None: none did)."""
    detaches = (
        Event.objects.filter(stream=DETACH_STREAM, type=DETACHED)
        .order_by("-version")
        .values_list("payload", flat=True)
    )
    for payload in detaches.iterator(chunk_size=100):
        span = payload["streams"].get(stream)
        if span is not None:
            return Archived(
                payload["day"],
                payload["partition"],
                int(span[0]),
                int(span[1]),
                payload["package_sha256"],
            )
    return None


def archived_starts(stream: str | None = None) -> tuple[dict[str, tuple[int, str]], list[Problem]]:
    """Where each archived stream's check starts (:func:`archived_heads`), the hash read
    from the key table, which keeps every event's; and a ``head_mismatch`` for each stream
    whose key disagrees with what its detach recorded (one of the two was changed)."""
    recorded = archived_heads()
    if stream is not None:
        recorded = {name: head for name, head in recorded.items() if name == stream}
    if not recorded or not keyed(connection):
        return recorded, []
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT k.stream, k.hash FROM {KEY_TABLE} k JOIN unnest(%s::text[], %s::bigint[]) "
            "AS a(stream, version) ON k.stream = a.stream AND k.version = a.version",
            [list(recorded), [version for version, _ in recorded.values()]],
        )
        keys = dict(cursor.fetchall())
    starts, problems = {}, []
    for name, (version, digest) in recorded.items():
        stored = keys.get(name)
        starts[name] = (version, stored or digest)
        if stored != digest:
            problems.append(
                Problem(
                    name,
                    version,
                    None,
                    "",
                    "head_mismatch",
                    (
                        f"its archived version {version} has hash {digest[:12]}... as its detach recorded it, but "
                        + ("no key" if stored is None else f"{stored[:12]}...")
                        + " in the key table"
                    ),
                )
            )
    return starts, problems


WRONG_KEY = (
    "; no seal in the store holds under this SEAL_KEY or its fallbacks: if the store was"
    " written under another key (another deployment's SEAL_KEY, another checkout's"
    " var/dev-seal-key, or - sealed before SEAL_KEY existed - its SECRET_KEY), add that key"
    " to SEAL_KEY_FALLBACKS"
)


def _envelopes(
    stream: str | None,
    since: datetime | None,
    chunk_size: int,
    progress: Callable[[int], None] | None,
    unsealed: list[Problem],
) -> Iterator[Envelope]:
    """The rows as envelopes; each row's server seal is checked on the way. Every row must
    hold one, in every stream - a new stream too, and rows stored before seals existed:
    each stream's first row without a valid seal is reported, with how many more of the
    stream's rows are so."""
    rows = Event.objects.order_by("stream", "version")
    if stream is not None:
        rows = rows.filter(stream=stream)
    if since is not None:
        rows = rows.filter(recorded_at__gte=since)
    found: dict[str, list[Any]] = {}  # stream -> [its first unsealed row's problem, how many rows]
    held = False  # a seal held: the key is right, whatever else fails
    missing = False  # a row without any seal: a forger's (or an old row), not a wrong key
    for count, row in enumerate(
        rows.values_list(*_COLUMNS, "principal", "seal").iterator(chunk_size=chunk_size), start=1
    ):
        envelope = Envelope(*row[:13])
        principal, seal = row[13], row[14]
        if seal_holds(envelope.hash, principal, seal):
            held = True
        else:
            name = envelope.stream
            missing = missing or not seal
            if name in found:
                found[name][1] += 1
            else:
                found[name] = [
                    Problem(
                        name,
                        envelope.version,
                        envelope.position,
                        str(envelope.id),
                        "unsealed",
                        (
                            "it has no server seal (a row written past the store)"
                            if not seal
                            else f"its server seal does not hold for its hash and principal {principal!r}"
                        ),
                    ),
                    1,
                ]
        yield envelope
        if progress is not None and count % chunk_size == 0:
            progress(chunk_size)
    wrong_key = bool(found) and not held and not missing
    for problem, many in found.values():
        more = (
            f"; {many - 1:,} more of the stream's events have none that holds" if many > 1 else ""
        )
        # not one seal holds anywhere: the likelier cause is the key, not a forger in every stream
        unsealed.append(
            dataclasses.replace(
                problem, detail=problem.detail + more + (WRONG_KEY if wrong_key else "")
            )
        )


def verify_chains(
    *,
    stream: str | None = None,
    since: datetime | None = None,
    chunk_size: int = 5000,
    progress: Callable[[int], None] | None = None,
    heads: Mapping[str, tuple[int, str]] | None = None,
) -> Report:
    """Verify every stream (or one), or only the events recorded since ``since`` (each
    stream's first one linked to the stored event before it); ``heads``: known stream
    heads (a signed head's), which name a cut tail or a re-hashed chain. A stream whose
    first versions a recorded detach archived starts after them (:func:`archived_starts`)."""
    if heads and stream is not None:
        heads = {name: head for name, head in heads.items() if name == stream}
    unsealed: list[Problem] = []
    starts, disagreeing = archived_starts(stream)
    report = verify(
        _envelopes(stream, since, chunk_size, progress, unsealed),
        start=_anchor(since) if since else None,
        heads=heads,
        starts=starts,
    )
    return Report(report.streams, report.events, report.problems + unsealed + disagreeing)


_SAYS = {
    "altered": "content does not match its hash",
    "broken_link": "prev_hash is not the hash of the event before it",
}


def chain_state(event: Event, previous_hash: str | None) -> tuple[bool, str]:
    """Whether a stored event still matches its hash and links to the one before it
    (``previous_hash``: that event's stored hash, None if it is missing - or archived, when
    a recorded detach took it: then its hash as recorded)."""
    if event.version > 1 and previous_hash is None:
        kept = archived_heads().get(event.stream)  # the version before archived (a day detached)?
        if kept is None or kept[0] != event.version - 1:
            return False, f"version {event.version - 1} of the stream is missing"
        previous_hash = kept[1]
    before = Head() if event.version == 1 else Head(event.version - 1, previous_hash or "")
    problem = Verifier(start=lambda first: before, check_payloads=False).check(envelope_of(event))
    if problem is None:
        return True, "intact"
    return False, _SAYS.get(problem.kind, problem.detail)
