"""Findings: what the checks found, kept and handled by people.

Services (HackSoft style, keyword-only): :func:`findings_record` stores one replay's
findings for the part of a table's gaming day that replay owned;
:func:`findings_record_scope` stores the findings another check (the ledger's
reconciliation) produced for a whole scope - a table's gaming day, or a shift of it -
and supersedes that check's stored findings of the scope it no longer produces. Each
check's recording touches only findings of the kinds it owns (the vocabulary's
owners). :func:`finding_acknowledge`,
:func:`finding_resolve` and :func:`finding_reopen` change a finding's status and append
the change as an event to the stream ``audit.findings`` in the same transaction (Zulip's
actions: ``transaction.atomic(durable=True)``, the audit record written with the change).

Severity comes from the kind, as the one findings vocabulary declares it
(:mod:`audit.record.findings`).

A finding's **identity** (SHA-256 of table, gaming day, kind, round, box, hand, bet,
expected, recorded, the event that showed it, a ledger finding's shift and slip, and its
rank among findings alike in all these) is what names it across runs: checking again
finds the same rows. Not its message: a check may say the same finding in other words (the
engine's messages gave amounts in minor units, now in the table's currency) without it
becoming another finding, and the stored message is brought up to the words of the run
that finds it again. A row's **fingerprint** is its name for good (the ``audit.findings``
stream's events and the floor's alerts name it): the identity it was created with, or,
for a row created before identities, the hash of those fields with its message. A
finding that a later run of the same part no longer produces is not deleted: it is marked
``superseded_by`` that run (and un-marked should a later run produce it again). A run is a
:class:`~audit.models.ReplayRun`: a replay's, or the ledger's (trigger ``ledger``).
"""

from __future__ import annotations

import hashlib
import json
import uuid
from collections import Counter
from collections.abc import Callable, Collection, Hashable, Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import TypeVar

from django.db import transaction
from django.db.models import Q, QuerySet
from django.utils.translation import gettext

from audit.access.authority import require_person
from audit.feed.derived import Derived, server_events
from audit.models import Event, Finding, ReplayRun
from audit.presenting.vocabulary import status_text
from audit.record.findings import KINDS, Owner, kinds_of
from audit.store.errors import StoreError, VersionConflict
from audit.store.gaming_day import gaming_day
from audit.store.streams import NewEvent, events_append, stream_version

FINDINGS_STREAM = "audit.findings"
T = TypeVar("T")


def severity_of(kind: str) -> str:
    """The kind's severity in the one vocabulary (a kind outside it is refused)."""
    return KINDS[kind].severity


class FindingError(StoreError):
    """A status change that the finding's status does not allow (HTTP 409)."""

    http_status = 409
    code = "finding_status"


class NoteRequired(StoreError):
    code = "note_required"

    def __init__(self) -> None:
        super().__init__(gettext("Resolving a finding needs a note saying how it was resolved."))

    def as_dict(self) -> dict[str, object]:
        return {**super().as_dict(), "errors": {"note": [str(self)]}}


# --- recording the findings of a check ------------------------------------------------------


def _where(finding: object) -> list[object]:
    """Where a finding is beyond the round: a ledger finding's shift and slip (nothing for
    replay's, so that their fingerprints stay what they were)."""
    shift, slip = getattr(finding, "shift", None), getattr(finding, "slip", None)
    return [shift, slip] if shift or slip else []


Key = tuple[object, ...]


def key_of(finding: object) -> Key:
    """What a finding is and where, as its row stores it: everything but its message
    (``bet``, ``expected``, ``recorded`` blank rather than none, the event as a UUID's text)."""
    f = finding
    event = f.event  # type: ignore[attr-defined]
    return (
        f.kind,
        f.round,
        f.box,
        f.hand,
        f.bet or "",
        (f.expected or "")[:200],  # type: ignore[attr-defined]
        (f.recorded or "")[:200],
        str(uuid.UUID(str(event))) if event else None,
        *_where(f),
    )  # type: ignore[attr-defined]


def identity(*, stream: str, gaming_day: date | None, key: Key, rank: int) -> str:
    """The finding's identity: its table, gaming day, :func:`key_of` and rank among the
    findings of one check alike in all of these (first, second, ...)."""
    data = [stream, gaming_day.isoformat() if gaming_day else None, *key, rank]
    return hashlib.sha256(json.dumps(data, separators=(",", ":")).encode()).hexdigest()


def _produced(
    stream: str, gaming_day: date, findings: Iterable[tuple[object, int | None]]
) -> dict[str, tuple[object, int | None]]:
    """The findings by identity, alike ones told apart by their rank."""
    ranks: Counter[Key] = Counter()
    produced: dict[str, tuple[object, int | None]] = {}
    for finding, version in findings:
        key = key_of(finding)
        ranks[key] += 1
        produced[identity(stream=stream, gaming_day=gaming_day, key=key, rank=ranks[key])] = (
            finding,
            version,
        )
    return produced


def _store(
    *,
    stream: str,
    gaming_day: date | None,
    produced: dict[str, tuple[object, int | None]],
    existing: QuerySet[Finding],
    run: ReplayRun,
    now: datetime,
) -> tuple[int, int, int]:
    """Add the produced findings not stored yet; mark the stored ones of the scope
    (``existing``) that were not produced superseded by ``run``, and the ones produced
    again current."""
    stored = {row.identity: row for row in existing}
    new = []
    reworded = []
    for print_, (f, version) in produced.items():
        row = stored.get(print_)
        if row is not None:
            if row.message != f.message:  # type: ignore[attr-defined]
                row.message = f.message  # type: ignore[attr-defined]
                reworded.append(row)
            continue
        new.append(
            Finding(
                fingerprint=print_,
                identity=print_,
                kind=f.kind,
                severity=severity_of(f.kind),
                stream=stream,  # type: ignore[attr-defined]
                gaming_day=gaming_day,
                round=f.round,
                box=f.box,
                hand=f.hand,
                bet=f.bet or "",  # type: ignore[attr-defined]
                shift=getattr(f, "shift", None) or "",
                slip=getattr(f, "slip", None) or "",
                expected=(f.expected or "")[:200],
                recorded=(f.recorded or "")[:200],
                message=f.message,  # type: ignore[attr-defined]
                event_id=uuid.UUID(f.event) if f.event else None,
                event_version=version,  # type: ignore[attr-defined]
                run=run,
                last_seen_run=run,
                created_at=now,
            )
        )
    Finding.objects.bulk_create(new, batch_size=1000)
    Finding.objects.bulk_update(reworded, ["message"], batch_size=1000)
    seen = [p for p in produced if p in stored]
    Finding.objects.filter(identity__in=seen).update(last_seen_run=run, superseded_by=None)
    gone = [p for p, row in stored.items() if p not in produced and row.superseded_by_id is None]
    Finding.objects.filter(identity__in=gone).update(superseded_by=run)
    return len(produced), len(new), len(gone)


def findings_record(
    *,
    stream: str,
    gaming_day: date,
    owned_from: int,
    owned_rounds: Iterable[int],
    findings: Iterable[tuple[object, int | None]],
    run: ReplayRun,
    now: datetime | None = None,
) -> tuple[int, int, int]:
    """Store the findings one replay produced for the part of ``stream``'s gaming day it
    owned (versions from ``owned_from``, and ``owned_rounds``); supersede the stored
    ones of that part it no longer produces (replay's kinds only: the other checks'
    findings of the day are theirs). Returns (produced, new, superseded). Runs inside the
    caller's transaction (the replay's)."""
    produced = _produced(stream, gaming_day, findings)
    existing = Finding.objects.filter(
        stream=stream, gaming_day=gaming_day, kind__in=kinds_of("engine")
    ).filter(
        Q(event_version__gte=owned_from)
        | Q(round__in=list(owned_rounds))
        | Q(identity__in=list(produced))
        | Q(event_version__isnull=True, round__isnull=True)
    )
    return _store(
        stream=stream,
        gaming_day=gaming_day,
        produced=produced,
        existing=existing,
        run=run,
        now=now or datetime.now(UTC),
    )


def findings_record_scope(
    *,
    owner: Owner,
    stream: str,
    gaming_day: date,
    findings: Iterable[tuple[object, int | None]],
    run: ReplayRun,
    shift: str | None = None,
    kinds: Collection[str] | None = None,
    now: datetime | None = None,
) -> tuple[int, int, int]:
    """Store the findings a check (``owner``, e.g. ``ledger``) produced for a whole scope
    - a table's gaming day, or one shift of it; only the kinds ``kinds`` of the owner's,
    where one part of the check runs without the other - and supersede the stored
    findings of that owner and scope it no longer produces (a correction explained a
    variance; a late count arrived). Each finding is ``(finding, version of the event
    that showed it)``; a finding of a kind outside the scope is refused. Returns
    (produced, new, superseded). Runs inside the caller's transaction."""
    findings = list(findings)
    kinds = kinds_of(owner) if kinds is None else kinds_of(owner) & frozenset(kinds)
    stray = sorted({f.kind for f, _ in findings if f.kind not in kinds})  # type: ignore[attr-defined]
    if stray:
        raise ValueError(f"{owner} does not report {', '.join(stray)}")
    produced = _produced(stream, gaming_day, findings)
    existing = Finding.objects.filter(stream=stream, gaming_day=gaming_day, kind__in=kinds)
    if shift is not None:
        existing = existing.filter(shift=shift)
    return _store(
        stream=stream,
        gaming_day=gaming_day,
        produced=produced,
        existing=existing,
        run=run,
        now=now or datetime.now(UTC),
    )


@dataclass(frozen=True, slots=True)
class IntegrityProblem:
    """One problem the verification of the store found (audit.integrity.verification)."""

    kind: str  # the integrity owner's
    stream: str  # blank: the whole store (a trigger, a signed head, the access log)
    version: int | None
    position: int | None
    event_id: str
    message: str

    def fingerprint(self) -> str:
        key = [
            "integrity",
            self.stream,
            self.kind,
            self.version,
            self.position,
            self.event_id,
            self.message,
        ]
        return hashlib.sha256(json.dumps(key, separators=(",", ":")).encode()).hexdigest()


def findings_record_integrity(
    *, problems: Iterable[IntegrityProblem], now: datetime | None = None, supersede: bool = True
) -> int:
    """Store the problems a verification of the store found as findings of a run of
    trigger ``verify`` (on the gaming day it found them); supersede the integrity
    findings it no longer finds. Nothing is written when nothing was found and nothing is
    current. Returns how many findings are new. ``supersede=False``: one problem found
    where it showed (a person refused at use, audit.access.authority_seal), not by a whole
    verification - the others stand."""
    now = now or datetime.now(UTC)
    produced = {p.fingerprint(): p for p in problems}
    stray = sorted({p.kind for p in produced.values()} - kinds_of("integrity"))
    if stray:
        raise ValueError(f"integrity does not report {', '.join(stray)}")
    current = Finding.objects.filter(kind__in=kinds_of("integrity"), superseded_by__isnull=True)
    if not produced and (not supersede or not current.exists()):
        return 0
    with transaction.atomic():
        run = ReplayRun.objects.create(
            mode=ReplayRun.Mode.FULL,
            trigger="verify",
            status=ReplayRun.Status.DONE,
            started_at=now,
            finished_at=now,
        )
        stored = set(
            Finding.objects.filter(identity__in=list(produced)).values_list("identity", flat=True)
        )
        day = gaming_day(now)
        Finding.objects.bulk_create(
            [
                Finding(
                    fingerprint=print_,
                    identity=print_,
                    kind=p.kind,
                    severity=severity_of(p.kind),
                    stream=p.stream[:64],
                    gaming_day=day,
                    message=p.message,
                    event_id=uuid.UUID(p.event_id) if p.event_id else None,
                    event_version=p.version,
                    run=run,
                    last_seen_run=run,
                    created_at=now,
                )
                for print_, p in produced.items()
                if print_ not in stored
            ]
        )
        Finding.objects.filter(identity__in=stored).update(last_seen_run=run, superseded_by=None)
        gone = (
            current.exclude(identity__in=list(produced)).update(superseded_by=run)
            if supersede
            else 0
        )
        new = len(produced) - len(stored)
        ReplayRun.objects.filter(pk=run.pk).update(
            findings=len(produced), findings_new=new, findings_superseded=gone
        )
    return new


def findings_record_feed(
    *,
    stream: str,
    subscriber: str,
    finding: object | None,
    version: int | None,
    now: datetime | None = None,
) -> None:
    """Store the finding of a table that the feed's subscriber ``subscriber`` set aside
    (``stream_set_aside``, owner ``feed``; its ``expected`` names the subscriber), or with
    ``finding`` None supersede the current one (the table was taken back). Under a run of
    trigger ``feed``; no gaming day (a table's stream, not a day of it)."""
    now = now or datetime.now(UTC)
    kinds = kinds_of("feed")
    if finding is not None and finding.kind not in kinds:  # type: ignore[attr-defined]
        raise ValueError(f"feed does not report {finding.kind}")  # type: ignore[attr-defined]
    current = Finding.objects.filter(
        stream=stream,
        gaming_day__isnull=True,
        kind__in=kinds,
        expected=subscriber,
        superseded_by__isnull=True,
    )
    if finding is None and not current.exists():
        return
    with transaction.atomic():
        run = ReplayRun.objects.create(
            mode=ReplayRun.Mode.FULL,
            trigger="feed",
            stream=stream,
            status=ReplayRun.Status.DONE,
            started_at=now,
            finished_at=now,
        )
        existing = Finding.objects.filter(
            stream=stream, gaming_day__isnull=True, kind__in=kinds, expected=subscriber
        )
        produced = (
            {}
            if finding is None
            else {
                identity(stream=stream, gaming_day=None, key=key_of(finding), rank=1): (
                    finding,
                    version,
                )
            }
        )
        found, new, gone = _store(
            stream=stream, gaming_day=None, produced=produced, existing=existing, run=run, now=now
        )
        ReplayRun.objects.filter(pk=run.pk).update(
            findings=found, findings_new=new, findings_superseded=gone
        )


# --- people's actions -----------------------------------------------------------------------

# status -> the statuses it may move to, and the event type of each move
_MOVES = {
    Finding.Status.OPEN: {
        Finding.Status.ACKNOWLEDGED: "finding.acknowledged",
        Finding.Status.RESOLVED: "finding.resolved",
    },
    Finding.Status.ACKNOWLEDGED: {
        Finding.Status.RESOLVED: "finding.resolved",
        Finding.Status.OPEN: "finding.reopened",
    },
    Finding.Status.RESOLVED: {Finding.Status.OPEN: "finding.reopened"},
}


def username_of(user: object) -> str:
    return getattr(user, "get_username", lambda: str(user))()


def server_event_append(
    *, stream: str, type: str, payload: dict[str, object], user: object, now: datetime
) -> Event:
    """Append one event to one of the server's own streams (``audit.findings``,
    ``audit.alerts``) at its head, as done by ``user`` (actor ``user:<name>``, source
    ``back-office``). Call it inside :func:`server_change`, which tries again when
    another change took the stream's next version first."""
    event = NewEvent(
        id=uuid.uuid4(),
        type=type,
        occurred_at=now,
        actor=f"user:{username_of(user)}"[:128],
        source="back-office",
        payload=payload,
    )
    return events_append(
        stream=stream,
        expected_version=stream_version(stream),
        events=[event],
        now=now,
        principal=f"user:{username_of(user)}"[:160],
    )[0]


def server_change(work: Callable[[], T]) -> T:
    """Run ``work`` - lock a row, append the change's event (:func:`server_event_append`),
    update the row - in one durable transaction (the audit record written with the
    change); again, up to five times, when another change took the stream's next
    version first."""
    for attempt in range(5):
        try:
            with transaction.atomic(durable=True):
                return work()
        except VersionConflict:
            if attempt == 4:
                raise
    raise AssertionError("unreachable")


# what else resolving a finding does, in the same transaction as its event: the apps above
# audit register it from their AppConfig.ready() (the floor acknowledges the finding's alerts,
# tables.floor.alerts_acknowledge_of_finding) - audit imports nothing of them
_ON_RESOLVED: list[Callable[..., object]] = []


def finding_resolved_register(hook: Callable[..., object]) -> None:
    """``hook(*, finding, user, note, now)``, run inside the durable transaction that
    resolves ``finding`` (after its ``finding.resolved`` event, under the same person), so
    that what it records is in the same trail and stands or falls with it."""
    if hook not in _ON_RESOLVED:
        _ON_RESOLVED.append(hook)


def _change(
    *, finding_id: int, to: str, user: object, note: str | None, now: datetime | None
) -> Finding:
    require_person(user, "audit.change_finding", "acknowledge, resolve or reopen a finding")
    username = username_of(user)
    note = (note or "").strip() or None
    if to == Finding.Status.RESOLVED and note is None:
        raise NoteRequired
    when = now or datetime.now(UTC)

    def work() -> Finding:
        finding = Finding.objects.select_for_update().get(pk=finding_id)
        moves = _MOVES[Finding.Status(finding.status)]
        if to not in moves:
            raise FindingError(
                gettext("Finding %(id)s is %(status)s; it cannot become %(to)s.")
                % {
                    "id": finding.pk,
                    "status": status_text(finding.status).lower(),
                    "to": status_text(to).lower(),
                }
            )
        stored = server_event_append(
            stream=FINDINGS_STREAM,
            type=moves[to],
            user=user,
            now=when,
            payload={
                "finding": finding.fingerprint,
                "table": finding.stream,
                "kind": finding.kind,
                "previous": finding.status,
                "by": username,
                "note": note,
            },
        )
        # the row as its events make it: the same fold verify checks it by
        for name, value in status_applied({}, stored).items():
            setattr(finding, name, value)
        finding.save(update_fields=list(STATUS_FIELDS))
        if to == Finding.Status.RESOLVED:
            for hook in _ON_RESOLVED:
                hook(finding=finding, user=user, note=note, now=when)
        return finding

    return server_change(work)


# --- the status as its events make it (audit.feed.derived) ----------------------------------------

# the row's fields that its events in audit.findings make, and what they are before any
STATUS_FIELDS = ("status", "note", "status_changed_by", "status_changed_at", "status_event_version")
UNTOUCHED: dict[str, object] = {
    "status": Finding.Status.OPEN,
    "note": "",
    "status_changed_by": "",
    "status_changed_at": None,
    "status_event_version": None,
}
_STATUS_OF = {
    "finding.acknowledged": Finding.Status.ACKNOWLEDGED,
    "finding.resolved": Finding.Status.RESOLVED,
    "finding.reopened": Finding.Status.OPEN,
}


def status_applied(fields: dict[str, object], event: Event) -> dict[str, object]:
    """A finding's status fields after one of its events (``finding.acknowledged``,
    ``.resolved``, ``.reopened``): the status it moved to, the note, who and when, and
    the event's version."""
    payload = event.payload
    return {
        **fields,
        "status": _STATUS_OF[event.type],
        "note": payload.get("note") or "",
        "status_changed_by": payload.get("by") or "",
        "status_changed_at": event.occurred_at,
        "status_event_version": event.version,
    }


def statuses_from_events() -> dict[str, dict[str, object]]:
    """Every finding's status fields by fingerprint, as the stream ``audit.findings``
    makes them (only the findings some event names)."""
    statuses: dict[str, dict[str, object]] = {}
    for event in server_events(FINDINGS_STREAM, _STATUS_OF):
        fingerprint = str(event.payload.get("finding"))
        statuses[fingerprint] = status_applied(statuses.get(fingerprint, {}), event)
    return statuses


def _acted_on(derived: Mapping[Hashable, object]) -> QuerySet[Finding]:
    """The findings worth comparing: those the events name, and those not as untouched."""
    touched = ~Q(status=Finding.Status.OPEN) | ~Q(note="") | ~Q(status_changed_by="")
    touched |= Q(status_changed_at__isnull=False) | Q(status_event_version__isnull=False)
    return Finding.objects.filter(touched | Q(fingerprint__in=list(derived)))


def _described(finding: Finding) -> str:
    day = f" {finding.gaming_day.isoformat()}" if finding.gaming_day else ""
    return f"{finding.pk} ({finding.stream or 'the store'}{day} {finding.kind}, fingerprint {finding.fingerprint[:12]})"


FINDING_STATUS = Derived(
    name="finding",
    model=Finding,
    fields=STATUS_FIELDS,
    derive=statuses_from_events,
    key=lambda finding: finding.fingerprint,
    describe=_described,
    describe_key=lambda fingerprint: f"with fingerprint {str(fingerprint)[:12]}",
    unevented=UNTOUCHED,
    candidates=_acted_on,
)


def finding_acknowledge(
    *, finding_id: int, user: object, note: str | None = None, now: datetime | None = None
) -> Finding:
    """Someone is looking into it. An event ``finding.acknowledged`` records who and why."""
    return _change(
        finding_id=finding_id, to=Finding.Status.ACKNOWLEDGED, user=user, note=note, now=now
    )


def finding_resolve(
    *, finding_id: int, user: object, note: str, now: datetime | None = None
) -> Finding:
    """Dealt with; the note says how (required). An event ``finding.resolved``, and what
    the apps registered for it (:func:`finding_resolved_register`: the floor's alert of the
    finding acknowledged with the same note, by the same person)."""
    return _change(finding_id=finding_id, to=Finding.Status.RESOLVED, user=user, note=note, now=now)


def finding_reopen(
    *, finding_id: int, user: object, note: str | None = None, now: datetime | None = None
) -> Finding:
    """Back to open. An event ``finding.reopened``."""
    return _change(finding_id=finding_id, to=Finding.Status.OPEN, user=user, note=note, now=now)


# what a person may do to a finding, by name (the admin's forms and actions)
ACTIONS: dict[str, Callable[..., Finding]] = {
    "acknowledge": finding_acknowledge,
    "resolve": finding_resolve,
    "reopen": finding_reopen,
}


def findings_change_bulk(
    *,
    action: str,
    finding_ids: Iterable[int],
    user: object,
    note: str | None = None,
    now: datetime | None = None,
) -> tuple[list[Finding], list[tuple[int, str]]]:
    """Acknowledge, resolve or reopen several findings (the admin's bulk actions): each in
    its own transaction with its own event, so one that may not change (already
    acknowledged, resolved without a note) is reported and the others go through.
    Returns (changed, [(id, why not)])."""
    change = ACTIONS[action]
    done, refused = [], []
    for finding_id in finding_ids:
        try:
            done.append(change(finding_id=finding_id, user=user, note=note, now=now))
        except (FindingError, NoteRequired, Finding.DoesNotExist) as error:
            refused.append((finding_id, str(error) or "no such finding"))
    return done, refused


def findings_acknowledge_bulk(
    *,
    finding_ids: Iterable[int],
    user: object,
    note: str | None = None,
    now: datetime | None = None,
) -> tuple[list[Finding], list[tuple[int, str]]]:
    """Acknowledge several findings (:func:`findings_change_bulk`). Returns
    (acknowledged, [(id, why not)])."""
    return findings_change_bulk(
        action="acknowledge", finding_ids=finding_ids, user=user, note=note, now=now
    )


# --- reads (selectors) -----------------------------------------------------------------------


@dataclass(frozen=True)
class TrailStep:
    """One status change of a finding, as its event in ``audit.findings`` records it."""

    at: datetime
    by: str
    action: str  # acknowledged, resolved, reopened
    previous: str
    note: str
    version: int


def finding_trail(finding: Finding) -> list[TrailStep]:
    """Every status change of ``finding``, oldest first: who, when, from what, and why."""
    events = Event.objects.filter(
        stream=FINDINGS_STREAM, payload__finding=finding.fingerprint
    ).order_by("version")
    return [
        TrailStep(
            at=e.occurred_at,
            by=e.payload.get("by", ""),
            action=e.type.removeprefix("finding."),
            previous=e.payload.get("previous", ""),
            note=e.payload.get("note") or "",
            version=e.version,
        )
        for e in events
    ]


def findings_list(
    *,
    table: str | None = None,
    day: date | None = None,
    kind: str | None = None,
    severity: str | None = None,
    status: str | None = None,
    round: int | None = None,
    superseded: bool | None = False,
) -> QuerySet[Finding]:
    """Findings by table, day, kind, severity, status; current ones only unless
    ``superseded`` is True (only superseded) or None (both)."""
    filters: dict[str, object] = {}
    for name, value in (
        ("stream", table),
        ("gaming_day", day),
        ("kind", kind),
        ("severity", severity),
        ("status", status),
        ("round", round),
    ):
        if value is not None:
            filters[name] = value
    findings = Finding.objects.filter(**filters)
    if superseded is not None:
        findings = findings.filter(superseded_by__isnull=not superseded)
    return findings.order_by("stream", "gaming_day", "round", "id")
