"""The pit boss's floor: the figures of the gaming day per table, the open findings by
severity, and the alerts the floor must see now (see docs/back-office.md, "The floor").

**Alerts** are a read model (:class:`tables.models.Alert`), derived - never typed in:

- a **finding** of high or critical severity: :func:`alerts_from_findings`, run by the
  replay service right after it stored new findings (so on the worker that projects an
  append: a dealer's short pay reaches the floor before the next round), and again by
  the dashboard's poll and the periodic check for any it missed;
- a **table silent** longer than ``FLOOR_SILENT_AFTER_SECONDS`` while its gaming day is
  open (no ``table.closed`` yet): :func:`alerts_check_silent`, by the periodic check and
  the dashboard's poll;
- a **failed verification** of the record (the periodic ``audit.tasks.verify_chains``):
  :func:`alert_verify_failed`, from the task's result (``tables.apps``).

Each has a stable ``key`` (``finding:<fingerprint>``, ``silent:<table>:<version>``,
``verify:<digest of the problems>``), so deriving again adds nothing. Acknowledging one
(:func:`alert_acknowledge`) is an event ``alert.acknowledged`` in the server's stream
``audit.alerts``, written in the same durable transaction as the row's who, when and note.
"""

from __future__ import annotations

import hashlib
from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from fractions import Fraction
from typing import Any

from django.conf import settings
from django.db.models import Count, Exists, OuterRef, Q, QuerySet
from django.utils.translation import gettext as _

from audit.feed.derived import Derived, server_events
from audit.findings.workflow import server_change, server_event_append, username_of
from audit.models import Event, Finding
from audit.record.money import format_money, format_number, format_signed, not_available, percent
from audit.store.gaming_day import gaming_day

from . import accounts, selectors
from . import models as m

ALERTS_STREAM = "audit.alerts"
ALERT_SEVERITIES = ("critical", "high")
SEVERITIES = ("critical", "high", "medium", "low")


class AlertError(Exception):
    """An acknowledgement the alert does not allow (it is acknowledged already)."""


# --- figures ------------------------------------------------------------------------------


def result_of_handle_text(house_result: int, handle: int) -> str:
    """The house's result as a share of the handle - "house result % of handle", the
    rounds' actual edge; not the hold, which is the chip-count win over the drop (the
    ledger's) - ``2.35%`` (``-1.20%`` when the players won), rounded half away from zero;
    ``n/a`` without a handle. Exact (the one rate formatter's, as the ledger's reports
    show the same figure)."""
    return percent(Fraction(house_result, handle), 2) if handle > 0 else not_available()


def duration_text(seconds: int) -> str:
    """``45 s``, ``12 min``, ``3 h 05 min``."""
    if seconds < 120:
        return _("%(seconds)d s") % {"seconds": max(seconds, 0)}
    if seconds < 3600:
        return _("%(minutes)d min") % {"minutes": seconds // 60}
    return _("%(hours)d h %(minutes)02d min") % {
        "hours": seconds // 3600,
        "minutes": seconds % 3600 // 60,
    }


def floor_day(now: datetime) -> tuple[date, date]:
    """(today's gaming day, the day the floor shows): today's, or - when no table has
    played today - the latest gaming day with play, so the floor is never blank while
    there is something to see."""
    today = gaming_day(now)
    if m.TableDay.objects.filter(gaming_day=today).exists():
        return today, today
    latest = m.TableDay.objects.order_by("-gaming_day").values_list("gaming_day", flat=True).first()
    return today, latest or today


# how far back from a stream's head a table.closed still closes the day: after it come
# only the day's custody events (the drop's removal, count and posting, closing counts)
CLOSED_WITHIN = 50


@dataclass(frozen=True)
class LastEvent:
    type: str
    version: int
    recorded_at: datetime
    closed: bool  # a table.closed among the last CLOSED_WITHIN events: the day is over


def last_event(stream: str) -> LastEvent | None:
    """The head of a table's stream, and whether its gaming day is closed (the (stream,
    version) index: a few rows read from the end)."""
    rows = list(
        Event.objects.filter(stream=stream)
        .order_by("-version")
        .values_list("type", "version", "recorded_at")[:CLOSED_WITHIN]
    )
    if not rows:
        return None
    return LastEvent(*rows[0], closed=any(row[0] == "table.closed" for row in rows))


def _silent_after() -> timedelta:
    return timedelta(seconds=settings.FLOOR_SILENT_AFTER_SECONDS)


def floor_figures(*, day: date, today: date, now: datetime) -> dict[str, Any]:
    """The floor of gaming day ``day``: per table its rounds, bets, handle, house result
    (recorded: + the house won) and that result as a share of the handle, open and current findings, the head of its
    stream and how long it has been silent; the totals per currency; today's open
    findings by severity. Money as integers (minor units) and as text."""
    tables = []
    totals: dict[str, dict[str, Any]] = {}
    rows = list(selectors.table_days(day=day))
    pit_of = accounts.pits(row.table.stream for row in rows)
    for row in rows:
        currency = row.table.currency or "EUR"
        house = -row.recorded_net
        head = last_event(row.table.stream)
        closed = head is not None and head.closed
        silent = (
            int((now - head.recorded_at).total_seconds())
            if head and day == today and not closed
            else None
        )
        tables.append(
            {
                "table": row.table.stream,
                "pit": pit_of.get(row.table.stream, ""),
                "ruleset": row.table.ruleset,
                "currency": currency,
                "rounds": row.rounds,
                "bets": row.bets,
                "handle": row.handle,
                "house_result": house,
                "house_result_recomputed": -row.expected_net,
                "handle_text": format_money(row.handle, currency),
                "house_result_text": format_signed(house, currency),
                "house_result_recomputed_text": format_signed(-row.expected_net, currency),
                "result_of_handle_text": result_of_handle_text(house, row.handle),
                "findings": row.findings,
                "open_findings": row.open_findings,
                "closed": closed,
                "silent_seconds": silent,
                "silent_too_long": silent is not None
                and silent > settings.FLOOR_SILENT_AFTER_SECONDS,
                "silent_text": "" if silent is None else duration_text(silent),
                "last_event": None
                if head is None
                else {
                    "type": head.type,
                    "version": head.version,
                    "recorded_at": head.recorded_at.isoformat(),
                },
                "rounds_text": format_number(row.rounds),
                "bets_text": format_number(row.bets),
            }
        )
        total = totals.setdefault(
            currency,
            {
                "currency": currency,
                "tables": 0,
                "rounds": 0,
                "bets": 0,
                "handle": 0,
                "house_result": 0,
                "house_result_recomputed": 0,
            },
        )
        total["tables"] += 1
        for name in ("rounds", "bets", "handle", "house_result", "house_result_recomputed"):
            total[name] += tables[-1][name]
    for total in totals.values():
        total.update(
            rounds_text=format_number(total["rounds"]),
            bets_text=format_number(total["bets"]),
            handle_text=format_money(total["handle"], total["currency"]),
            house_result_text=format_signed(total["house_result"], total["currency"]),
            house_result_recomputed_text=format_signed(
                total["house_result_recomputed"], total["currency"]
            ),
            result_of_handle_text=result_of_handle_text(total["house_result"], total["handle"]),
        )
    return {
        "gaming_day": day.isoformat(),
        "today": today.isoformat(),
        "now": now.isoformat(),
        "tables": tables,
        # the pits the tables stand in (the ledger's); none known: no pit column at all
        "pits": sorted({t["pit"] for t in tables if t["pit"]}),
        "totals": [totals[c] for c in sorted(totals)],
        "open_findings": open_findings_by_severity(day),
        "open_findings_earlier": open_findings_before(day),
    }


def open_findings_by_severity(day: date) -> dict[str, int]:
    """Open, current (not superseded) findings of gaming day ``day`` by severity, every
    severity named (0 where none)."""
    counted = dict(
        Finding.objects.filter(
            gaming_day=day, status=Finding.Status.OPEN, superseded_by__isnull=True
        )
        .values_list("severity")
        .annotate(n=Count("id"))
        .values_list("severity", "n")
    )
    return {severity: counted.get(severity, 0) for severity in SEVERITIES}


def open_findings_before(day: date) -> int:
    """Open, current findings of the gaming days before ``day``: the tiles count the day's
    own, and a pit boss reading "1 high" must not think that is all that waits."""
    return Finding.objects.filter(
        gaming_day__lt=day, status=Finding.Status.OPEN, superseded_by__isnull=True
    ).count()


# --- alerts: derived --------------------------------------------------------------------


def alerts_from_findings(
    *, streams: list[str] | None = None, now: datetime | None = None
) -> list[m.Alert]:
    """An alert for every current finding of high or critical severity that has none
    yet (of ``streams``, or every table's). Returns the alerts raised."""
    now = now or datetime.now(UTC)
    findings = Finding.objects.filter(
        severity__in=ALERT_SEVERITIES, superseded_by__isnull=True
    ).exclude(Exists(m.Alert.objects.filter(finding=OuterRef("pk"))))
    if streams is not None:
        findings = findings.filter(stream__in=streams)
    raised = []
    for finding in findings.order_by("id"):
        alert, created = m.Alert.objects.get_or_create(
            key=f"finding:{finding.fingerprint}",
            defaults={
                "kind": m.Alert.Kind.FINDING,
                "severity": finding.severity,
                "stream": finding.stream,
                "gaming_day": finding.gaming_day,
                "finding": finding,
                "raised_at": now,
                "message": finding.message,
            },
        )
        if created:
            raised.append(alert)
    return raised


def alerts_check_silent(*, now: datetime | None = None) -> list[m.Alert]:
    """An alert for every table whose latest gaming day - today's or yesterday's (a day
    runs past midnight, and one left open overnight is what to catch) - is still open
    (no ``table.closed`` near the head of its stream) and whose stream has recorded
    nothing for longer than ``FLOOR_SILENT_AFTER_SECONDS``: one per silence (keyed by
    the version it stopped at). Returns the alerts raised."""
    now = now or datetime.now(UTC)
    today = gaming_day(now)
    latest: dict[str, m.TableDay] = {}
    for row in (
        m.TableDay.objects.filter(gaming_day__gte=today - timedelta(days=1))
        .select_related("table")
        .order_by("table__stream", "gaming_day")
    ):
        latest[row.table.stream] = row
    raised = []
    for row in latest.values():
        head = last_event(row.table.stream)
        if head is None or head.closed or now - head.recorded_at <= _silent_after():
            continue
        minutes = int((now - head.recorded_at).total_seconds() // 60)
        alert, created = m.Alert.objects.get_or_create(
            key=f"silent:{row.table.stream}:{head.version}",
            defaults={
                "kind": m.Alert.Kind.SILENT_TABLE,
                "severity": "medium",
                "stream": row.table.stream,
                "gaming_day": row.gaming_day,
                "raised_at": now,
                "message": f"Table {row.table.stream} has recorded nothing for {minutes} min (its last "
                f"event: {head.type}, version {head.version}, at "
                f"{head.recorded_at:%H:%M:%S} UTC); its gaming day is not closed.",
            },
        )
        if created:
            raised.append(alert)
    return raised


def alert_verify_failed(*, problems: list[str], now: datetime | None = None) -> m.Alert:
    """The alert of a verification of the record that found ``problems`` (the same
    problems found again raise nothing new)."""
    now = now or datetime.now(UTC)
    digest = hashlib.sha256("\n".join(sorted(problems)).encode()).hexdigest()[:24]
    first = problems[0] if problems else "no detail"
    alert, _created = m.Alert.objects.get_or_create(
        key=f"verify:{digest}",
        defaults={
            "kind": m.Alert.Kind.VERIFY_FAILED,
            "severity": "critical",
            "raised_at": now,
            "message": f"The verification of the record found {len(problems)} problem(s): {first}"
            + (" ..." if len(problems) > 1 else ""),
        },
    )
    return alert


def floor_check(*, now: datetime | None = None) -> dict[str, int]:
    """Everything derived that the appends do not bring on their own: findings missed,
    silent tables. The periodic task and the dashboard's poll run it; idempotent."""
    now = now or datetime.now(UTC)
    return {
        "findings": len(alerts_from_findings(now=now)),
        "silent": len(alerts_check_silent(now=now)),
    }


# --- alerts: read and acknowledged ----------------------------------------------------------


def alerts_list(*, acknowledged_limit: int = 10) -> list[m.Alert]:
    """Every alert not yet acknowledged (newest first), then the latest acknowledged
    ones with their trail."""
    rows = m.Alert.objects.select_related("finding")
    waiting = list(rows.filter(acknowledged_at__isnull=True).order_by("-raised_at", "-id"))
    done = list(
        rows.filter(acknowledged_at__isnull=False).order_by("-acknowledged_at", "-id")[
            :acknowledged_limit
        ]
    )
    return waiting + done


def alerts_waiting() -> QuerySet[m.Alert]:
    return m.Alert.objects.filter(acknowledged_at__isnull=True)


def alert_acknowledge(
    *, alert_id: int, user: object, note: str | None = None, now: datetime | None = None
) -> m.Alert:
    """Someone on the floor has seen it. An event ``alert.acknowledged`` in
    ``audit.alerts`` (who, when, the note) and the row's copy of it, in one durable
    transaction; an alert acknowledged already is refused (:class:`AlertError`)."""
    note = (note or "").strip() or None
    when = now or datetime.now(UTC)

    def work() -> m.Alert:
        # (no select_related: FOR UPDATE may not reach the nullable side of an outer join)
        alert = m.Alert.objects.select_for_update().get(pk=alert_id)
        if alert.acknowledged_at is not None:
            raise AlertError(
                _("This alert was acknowledged by %(by)s at %(at)s UTC.")
                % {"by": alert.acknowledged_by, "at": f"{alert.acknowledged_at:%Y-%m-%d %H:%M:%S}"}
            )
        return _acknowledged(alert, user=user, note=note, when=when)

    return server_change(work)


def _acknowledged(alert: m.Alert, *, user: object, note: str | None, when: datetime) -> m.Alert:
    """Inside a change's transaction, the alert locked: its ``alert.acknowledged`` event and
    the row as the event makes it."""
    stored = server_event_append(
        stream=ALERTS_STREAM,
        type="alert.acknowledged",
        user=user,
        now=when,
        payload={
            "alert": alert.key,
            "kind": alert.kind,
            "table": alert.stream or None,
            "finding": alert.finding.fingerprint if alert.finding else None,
            "by": username_of(user),
            "note": note,
        },
    )
    # the row as its event makes it: the same fold verify checks it by
    for name, value in acknowledgement_applied({}, stored).items():
        setattr(alert, name, value)
    alert.save(update_fields=list(ACKNOWLEDGEMENT_FIELDS))
    return alert


def alerts_acknowledge_of_finding(
    *, finding: Finding, user: object, note: str | None, now: datetime
) -> list[m.Alert]:
    """A finding resolved (audit.findings.workflow calls it in the resolution's transaction):
    its alerts still waiting are acknowledged by the same person with the same note, each
    an ``alert.acknowledged`` after the ``finding.resolved`` - no separate Acknowledge."""
    waiting = m.Alert.objects.select_for_update().filter(
        finding_id=finding.pk, acknowledged_at__isnull=True
    )
    return [_acknowledged(alert, user=user, note=note, when=now) for alert in waiting]


# --- the acknowledgement as its events make it (audit.feed.derived) -------------------------------

ACKNOWLEDGEMENT_FIELDS = ("acknowledged_by", "acknowledged_at", "note", "event_version")
NOT_ACKNOWLEDGED: dict[str, object] = {
    "acknowledged_by": "",
    "acknowledged_at": None,
    "note": "",
    "event_version": None,
}


def acknowledgement_applied(fields: dict[str, object], event: Event) -> dict[str, object]:
    """An alert's acknowledgement fields after its ``alert.acknowledged`` event: who,
    when, the note, and the event's version."""
    payload = event.payload
    return {
        **fields,
        "acknowledged_by": payload.get("by") or "",
        "acknowledged_at": event.occurred_at,
        "note": payload.get("note") or "",
        "event_version": event.version,
    }


def acknowledgements_from_events() -> dict[str, dict[str, object]]:
    """Every acknowledged alert's fields by its key, as ``audit.alerts`` makes them."""
    acknowledged: dict[str, dict[str, object]] = {}
    for event in server_events(ALERTS_STREAM, ["alert.acknowledged"]):
        key = str(event.payload.get("alert"))
        acknowledged[key] = acknowledgement_applied(acknowledged.get(key, {}), event)
    return acknowledged


def _acknowledged_or_named(derived: Mapping[Hashable, object]) -> QuerySet[m.Alert]:
    touched = (
        Q(acknowledged_at__isnull=False)
        | ~Q(acknowledged_by="")
        | ~Q(note="")
        | Q(event_version__isnull=False)
    )
    return m.Alert.objects.filter(touched | Q(key__in=list(derived)))


ALERT_ACKNOWLEDGEMENT = Derived(
    name="alert",
    model=m.Alert,
    fields=ACKNOWLEDGEMENT_FIELDS,
    derive=acknowledgements_from_events,
    key=lambda alert: alert.key,
    describe=lambda alert: f"{alert.pk} ({alert.key})",
    describe_key=lambda key: f"with key {key}",
    unevented=NOT_ACKNOWLEDGED,
    candidates=_acknowledged_or_named,
)
