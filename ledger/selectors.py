"""Reads of the ledger (plain functions for the admin, the REST views and the commands):
the reconciliations, one table-day in full, the custody lists, and a reconciliation as
the machine-readable dict the command's ``--json`` and the API give.

Money in a dict is an integer of minor units, with its text by the one money formatter
beside it (``display``); wins and variances as house results (``+EUR 40.00``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime
from fractions import Fraction
from functools import partial
from typing import Any

from django.db.models import QuerySet
from django.utils.formats import date_format
from django.utils.timezone import localtime
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from audit.models import Event, Finding
from audit.presenting.reports import NOT_KNOWN
from audit.record.findings import kinds_of
from audit.record.money import format_money, format_number, money_text
from audit.store.event_ids import with_ids
from ledger.books.reconcile import missing_text
from ledger.books.stats import basis_points, hold, percent

from . import models as m

LEDGER_KINDS = sorted(kinds_of("ledger"))


def reconciliations(
    *,
    table: str | None = None,
    day: date | None = None,
    day_from: date | None = None,
    day_to: date | None = None,
    pit: str | None = None,
    game: str | None = None,
    shifts: bool = False,
    unexplained: bool | None = None,
    state: str | None = None,
) -> QuerySet[m.Reconciliation]:
    """The reconciled periods: whole days (``shifts`` False) or shifts (True), filtered."""
    rows = m.Reconciliation.objects.select_related("table")
    rows = rows.exclude(shift="") if shifts else rows.filter(shift="")
    filters: dict[str, Any] = {}
    for name, value in (
        ("table__stream", table),
        ("gaming_day", day),
        ("gaming_day__gte", day_from),
        ("gaming_day__lte", day_to),
        ("table__pit", pit),
        ("ruleset", game),
        ("unexplained", unexplained),
        ("state", state),
    ):
        if value is not None:
            filters[name] = value
    return rows.filter(**filters).order_by("gaming_day", "table__stream", "shift")


def day_text(day: date) -> str:
    """A gaming day as the screens write it: the casino's one date format, in the active
    language (``casino/formats``)."""
    return date_format(day, "DATE_FORMAT")


def number_text(n: int) -> str:
    """A count (rounds, bets) with the active language's thousands separators."""
    return format_number(n)


def when_text(moment: datetime | None) -> str:
    """A moment in the casino's time zone, in the active language's date and 24-hour
    time, with the zone's name: ``2026-12-07 00:12 CET``; ``-`` where there is none."""
    if moment is None:
        return "-"
    local = localtime(moment)
    return f"{date_format(local, 'DATETIME_FORMAT')} {local.strftime('%Z')}"


def latest_day_with_play() -> date:
    """The gaming day the ledger's screens open on: the latest with rounds played at any
    table (a day only opened shows nothing), else the latest on record, else today."""
    days = m.Reconciliation.objects.filter(shift="").order_by("-gaming_day")
    return (
        days.filter(rounds__gt=0).values_list("gaming_day", flat=True).first()
        or days.values_list("gaming_day", flat=True).first()
        or date.today()
    )


def hold_of(row: m.Reconciliation) -> Fraction | None:
    """Win-to-drop of the chip-count win."""
    return hold(row.chip_win, row.drop) if row.chip_win is not None and row.drop else None


def reported_chip_win(row: m.Reconciliation) -> int | None:
    """The chip-count win the reports count for the period: its own plus what adjustments
    posted into it (the later events of signed days); None where it has none."""
    return None if row.chip_win is None else row.chip_win + row.adjustment_win


def reported_drop(row: m.Reconciliation) -> int | None:
    """The drop the reports count for the period: as counted plus what adjustments posted
    into it; None where none was counted."""
    return None if row.drop is None else row.drop + row.adjustment_drop


def reported_house_result(row: m.Reconciliation) -> int:
    """The house result (recorded win) the reports count: its own plus the adjustments'."""
    return row.recorded_win + row.adjustment_house_result


# what a day may lack, in the books' words (ledger.books.reconcile.MISSING_WORDS), marked
# here for the catalogues: the books are pure Python and know no translation
_MISSING = {
    "opener_missing": gettext_noop("no opening count"),
    "closer_missing": gettext_noop("no closing count"),
    "drop_not_counted": gettext_noop("the drop not counted"),
    "drop_not_posted": gettext_noop("the drop not posted"),
    "slip_unfinished": gettext_noop("a fill or credit slip neither finished nor voided"),
}


def missing_words(missing: Sequence[str]) -> str:
    """``no closing count, the drop not counted`` in the active language (empty: nothing
    missing); :func:`ledger.books.reconcile.missing_text` in English."""
    return ", ".join(_(_MISSING[k]) if k in _MISSING else missing_text([k]) for k in missing)


def state_text(row: m.Reconciliation) -> str:
    """A period's accounting state in words: ``incomplete: no closing count``,
    ``reconciled``, ``signed off, adjusted: later events posted into 2026-11-30``."""
    S = m.Reconciliation.State
    missing = missing_words(row.missing)
    if row.state == S.ADJUSTED:
        text = (
            _("signed off, adjusted: later events posted into %(day)s")
            % {"day": day_text(row.adjusted_into)}
            if row.adjusted_into
            else _("signed off, adjusted: later events to be posted into the table's next day")
        )
    else:
        text = {
            S.OPEN: _("open (the table has not opened a later day): %(missing)s"),
            S.INCOMPLETE: _("incomplete: %(missing)s"),
            S.REPLAY_PENDING: _(
                "the replay not yet available (the game's read models are behind the ledger)"
            ),
            S.NO_DROP_BOX: _("no drop box (a game without a chip tray)"),
            S.COUNTED: _("counted, a variance not explained"),
            S.RECONCILED: _("reconciled"),
            S.SIGNED: _("signed off"),
        }.get(row.state, row.state)
        if "%(missing)s" in text:
            text = text % {"missing": missing}
    if row.state in (S.SIGNED, S.ADJUSTED) and missing:
        text += _(" (over what is missing: %(missing)s)") % {"missing": missing}
    if row.unexplained and row.state not in (S.COUNTED,):
        text += _("; a variance not explained")
    return text


money = partial(money_text, none=NOT_KNOWN)  # the ledger's name for it


def account_label(account: str, currency: str) -> str:
    """An account of the plan as an accountant reads it: ``tray:BJ-01:100000`` is the
    tray's EUR 1,000.00 chips."""
    place, _colon, rest = account.partition(":")
    table, _colon, part = rest.partition(":")
    if place == "tray":
        if part == "unsorted":
            return _("tray %(table)s: chips not yet sorted by a count") % {"table": table}
        return _("tray %(table)s: %(value)s chips") % {
            "table": table,
            "value": format_money(int(part), currency),
        }
    names = {
        "drop": _("drop box %(table)s: %(part)s")
        % {"table": table, "part": _(part) if part else part},
        "layout": _("layout %(table)s: stakes in play") % {"table": table},
        "transit": _("in transit %(table)s: fills and credits under way") % {"table": table},
        "over_short": _("over/short %(table)s") % {"table": table},
        "cage": _("cage"),
        "players": _("players' chips"),
        "markers_receivable": _("markers receivable"),
        "world": _("outside world (cash in)"),
    }
    return names.get(place, account)


_WINS = (
    "chip_win",
    "recorded_win",
    "replayed_win",
    "theoretical_win",
    "chip_variance",
    "replay_variance",
)


def as_dict(
    row: m.Reconciliation,
    *,
    findings: list[Finding] | None = None,
    signoff: m.SignOff | None = None,
) -> dict[str, Any]:
    """One period as the command's JSON and the API give it."""
    c = row.currency
    rate = hold_of(row)
    data: dict[str, Any] = {
        "table": row.table.stream,
        "gaming_day": row.gaming_day.isoformat(),
        "shift": row.shift or None,
        "currency": c,
        "game": row.ruleset,
        "pit": row.table.pit,
        "final": row.final,
        "opener": row.opener,
        "closer": row.closer,
        "fills": row.fills,
        "credits": row.credits,
        "drop": row.drop,
        "drop_cash": row.drop_cash,
        "drop_markers": row.drop_markers,
        "drop_chips": row.drop_chips,
        "handle": row.handle,
        "initial_stakes": row.initial_stakes,
        "insurance_stakes": row.insurance_stakes,
        "conversions": row.conversions,
        "rounds": row.rounds,
        "bets": row.bets,
        "chip_count_win": row.chip_win,
        "recorded_win": row.recorded_win,
        "replayed_win": row.replayed_win,
        "theoretical_win": row.theoretical_win,
        "theoretical_sd": row.theoretical_sd,
        "theoretical_interval": None
        if row.interval_low is None
        else [row.interval_low, row.interval_high],
        "hold": percent(rate) if rate is not None else None,
        "hold_bp": basis_points(rate) if rate is not None else None,
        "variances": {"chip": row.chip_variance, "replay": row.replay_variance},
        "explanations": row.explanations,
        "unexplained": row.unexplained,
        "state": row.state,
        "state_text": state_text(row),
        "drop_box": row.drop_box,
        "missing": row.missing,
        "late": row.late or None,
        "adjusted_into": row.adjusted_into.isoformat() if row.adjusted_into else None,
        "adjustments": row.adjustments,
        "adjustment_win": row.adjustment_win,
        "adjustment_drop": row.adjustment_drop,
        "adjustment_house_result": row.adjustment_house_result,
        "findings": row.findings if findings is None else [finding_dict(f) for f in findings],
        "trial_balance": row.trial_balance,
        "reconciled_version": row.reconciled_version,
        "display": {
            "opener": money(row.opener, c),
            "closer": money(row.closer, c),
            "fills": money(row.fills, c),
            "credits": money(row.credits, c),
            "drop": money(row.drop, c),
            "handle": money(row.handle, c),
            "chip_count_win": money(row.chip_win, c, signed=True),
            "recorded_win": money(row.recorded_win, c, signed=True),
            "replayed_win": money(row.replayed_win, c, signed=True),
            "theoretical_win": money(row.theoretical_win, c, signed=True),
            "theoretical_sd": money(row.theoretical_sd, c),
            "chip_variance": money(row.chip_variance, c, signed=True),
            "replay_variance": money(row.replay_variance, c, signed=True),
            "hold": percent(rate),
            "missing": missing_text(row.missing) or None,
            "adjustment_win": money(row.adjustment_win, c, signed=True),
            "adjustment_drop": money(row.adjustment_drop, c, signed=True),
            "adjustment_house_result": money(row.adjustment_house_result, c, signed=True),
        },
    }
    if not row.shift:
        data["signed_off"] = (
            None
            if signoff is None
            else {
                "status": signoff.status,
                "by": signoff.signed_by,
                "at": signoff.signed_at.isoformat(),
                "note": signoff.note,
                "figures_hash": signoff.figures_hash,
                "reopened_by": signoff.reopened_by or None,
                "reopened_at": signoff.reopened_at.isoformat() if signoff.reopened_at else None,
                "reopen_note": signoff.reopen_note or None,
                "state": signoff.state or None,
                "exceptions": signoff.exceptions,
            }
        )
    return data


def finding_dict(f: Finding) -> dict[str, Any]:
    return {
        "id": f.pk,
        "kind": f.kind,
        "severity": f.severity,
        "status": f.status,
        "shift": f.shift or None,
        "slip": f.slip or None,
        "expected": f.expected,
        "recorded": f.recorded,
        "message": f.message,
        "event_version": f.event_version,
    }


def findings_of_day(*, table: str, day: date, superseded: bool = False) -> QuerySet[Finding]:
    """The ledger's findings of a table-day (current ones unless ``superseded``)."""
    found = Finding.objects.filter(stream=table, gaming_day=day, kind__in=LEDGER_KINDS)
    found = found.filter(superseded_by__isnull=not superseded)
    return found.order_by("shift", "id")


@dataclass(frozen=True)
class DayDetail:
    """One table-day in full, for the reconciliation page and the API."""

    day: m.Reconciliation
    shifts: list[m.Reconciliation]
    slips: list[m.Slip]
    counts: list[m.InventorySlip]
    drops: list[m.DropBox]
    markers: list[m.Marker]
    findings: list[Finding]
    signoff: m.SignOff | None
    previous: m.Reconciliation | None
    next: m.Reconciliation | None


def day_detail(*, table: str, day: date) -> DayDetail | None:
    rows = list(
        m.Reconciliation.objects.select_related("table")
        .filter(table__stream=table, gaming_day=day)
        .order_by("shift")
    )
    whole = next((r for r in rows if not r.shift), None)
    if whole is None:
        return None
    # shifts in the order of their first round or count (labels sort by time only for HH:MM)
    shifts = sorted(
        (r for r in rows if r.shift), key=lambda r: (min(r.round_numbers or [0]), r.shift)
    )
    days = m.Reconciliation.objects.filter(table=whole.table, shift="")
    return DayDetail(
        day=whole,
        shifts=shifts,
        slips=list(
            m.Slip.objects.filter(table=whole.table, gaming_day=day).order_by("kind", "number")
        ),
        counts=list(
            m.InventorySlip.objects.filter(table=whole.table, gaming_day=day).order_by("version")
        ),
        drops=list(m.DropBox.objects.filter(table=whole.table, gaming_day=day)),
        markers=list(m.Marker.objects.filter(table=whole.table, gaming_day=day)),
        findings=list(findings_of_day(table=table, day=day)),
        signoff=m.SignOff.objects.filter(table=table, gaming_day=day).first(),
        previous=days.filter(gaming_day__lt=day).order_by("-gaming_day").first(),
        next=days.filter(gaming_day__gt=day).order_by("gaming_day").first(),
    )


def slips(
    *,
    table: str | None = None,
    day: date | None = None,
    kind: str | None = None,
    state: str | None = None,
) -> QuerySet[m.Slip]:
    rows = m.Slip.objects.select_related("table")
    if table:
        rows = rows.filter(table__stream=table)
    if day:
        rows = rows.filter(gaming_day=day)
    if kind:
        rows = rows.filter(kind=kind)
    if state:
        rows = rows.filter(state=state)
    return rows.order_by("gaming_day", "table__stream", "number")


def event_admin_urls(event_ids: list[Any]) -> dict[str, int]:
    """Event id (text) -> the event's position (the event admin's key)."""
    ids = [i for i in event_ids if i]
    return {
        str(e): p
        for e, p in Event.objects.filter(with_ids(ids)).values_list("event_id", "position")
    }


def tables(*, pit: str | None = None) -> QuerySet[m.LedgerTable]:
    rows = m.LedgerTable.objects.all()
    if pit is not None:
        rows = rows.filter(pit=pit)
    return rows.order_by("stream")


def games() -> list[str]:
    return sorted(
        set(m.Reconciliation.objects.exclude(ruleset="").values_list("ruleset", flat=True))
    )


def pits() -> list[str]:
    return sorted(set(m.LedgerTable.objects.exclude(pit="").values_list("pit", flat=True)))


# --- markers: issued, redeemed, outstanding, aged ----------------------------------------------

AGE_BUCKETS = ((0, 30, "0-30"), (31, 60, "31-60"), (61, 90, "61-90"), (91, None, "90+"))


@dataclass(frozen=True)
class MarkerAge:
    """One marker as of a gaming day: what was issued, what redemptions recorded on or
    before that day paid, what is outstanding, and its age in days since its issue (its
    bucket of :data:`AGE_BUCKETS`). Amounts in minor units of ``currency``."""

    table: str
    number: str
    player: str
    currency: str
    issued_on: date
    amount: int
    redeemed: int
    outstanding: int
    age_days: int
    bucket: str
    last_redeemed_on: date | None


@dataclass(frozen=True)
class MarkerAging:
    """Marker receivables as of ``as_of``: every marker issued on or before it (or only
    those outstanding), and per currency the sums issued, redeemed and outstanding, and
    the outstanding per age bucket (every bucket named, 0 where none)."""

    as_of: date
    markers: list[MarkerAge]
    issued: dict[str, int]
    redeemed: dict[str, int]
    outstanding: dict[str, int]
    by_bucket: dict[str, dict[str, int]]


def age_bucket(days: int) -> str:
    """The bucket of an age in days: 0-30, 31-60, 61-90, 90+ (days after the issue day)."""
    for low, high, name in AGE_BUCKETS:
        if days >= low and (high is None or days <= high):
            return name
    raise ValueError(f"a marker cannot be {days} days old")


def marker_aging(
    as_of: date, *, table: str | None = None, pit: str | None = None, outstanding_only: bool = False
) -> MarkerAging:
    """Markers issued on or before gaming day ``as_of`` (of one ``table`` or ``pit``), each
    with the redemptions of it recorded on or before ``as_of`` in its table's stream (where
    the cage records them), whatever day they came; its outstanding amount and its age
    (``as_of`` minus its issue day). A redemption in another currency than the marker's is
    not subtracted (the fold's ``currency_mismatch`` names it). The screens, the CSV and the
    API of the aging report are built on this."""
    rows = m.Marker.objects.select_related("table").filter(gaming_day__lte=as_of)
    if table is not None:
        rows = rows.filter(table__stream=table)
    if pit is not None:
        rows = rows.filter(table__pit=pit)
    markers = list(rows.order_by("gaming_day", "table__stream", "number"))
    paid: dict[tuple[int, str, str], int] = {}
    last: dict[tuple[int, str], date] = {}
    redemptions = m.MarkerRedemption.objects.filter(
        table__in={mk.table_id for mk in markers},
        gaming_day__lte=as_of,
        marker__in={mk.number for mk in markers},
    )
    for table_id, number, currency, amount, day in redemptions.values_list(
        "table_id", "marker", "currency", "amount", "gaming_day"
    ):
        paid[(table_id, number, currency)] = paid.get((table_id, number, currency), 0) + amount
        last[(table_id, number)] = max(day, last.get((table_id, number), day))
    out: list[MarkerAge] = []
    issued: dict[str, int] = {}
    redeemed: dict[str, int] = {}
    outstanding: dict[str, int] = {}
    by_bucket: dict[str, dict[str, int]] = {}
    for mk in markers:
        currency = mk.currency or mk.table.currency
        done = paid.get((mk.table_id, mk.number, currency), 0)
        age = (as_of - mk.gaming_day).days
        row = MarkerAge(
            mk.table.stream,
            mk.number,
            mk.player,
            currency,
            mk.gaming_day,
            mk.amount,
            done,
            mk.amount - done,
            age,
            age_bucket(age),
            last.get((mk.table_id, mk.number)),
        )
        if outstanding_only and row.outstanding == 0:
            continue
        out.append(row)
        issued[currency] = issued.get(currency, 0) + row.amount
        redeemed[currency] = redeemed.get(currency, 0) + row.redeemed
        outstanding[currency] = outstanding.get(currency, 0) + row.outstanding
        buckets = by_bucket.setdefault(currency, {name: 0 for _, _, name in AGE_BUCKETS})
        buckets[row.bucket] += row.outstanding
    return MarkerAging(as_of, out, issued, redeemed, outstanding, by_bucket)
