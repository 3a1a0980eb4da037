"""The master game report (the "stiff sheet"): per gaming day, or per shift, one line per
table - its accounting state, opener, fills, credits, closer, the drop by instrument, the
chip-count win, hold, theoretical win and the variance the record does not explain - with
who counted and witnessed the opener and the closer and who counted the drop, and a
totals line per currency.

A line's figures are its own and foot: win = closer - opener + credits - fills + drop. A
signed day keeps its figures as signed; what arrived after signing is posted into the
table's first open day as an adjustment (docs/accounting.md, "States"), which that day's
line shows beside its own figures (``adjustment_win``, ``adjustment_drop``) and its hold
counts, as every report does.

Read from the ledger's stored rows (the reconciled periods, the inventory slips, the drop
boxes) and, for the count team's names, the ``drop.counted`` events they point at. The
figures are the reconciliation's, as stored: the chip-count win (13 Miss. Code R. 7-3.3(a):
closer - opener + credits - fills + drop), the theoretical win, the chip variance; the hold
and the totals' hold come from the one definition (:func:`ledger.books.stats.total`: the
chip-count win over the drop of the complete periods, the others counted as left out).
Nothing here computes a win, a hold or a theoretical win of its own.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import date
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from audit.models import Event
from audit.presenting.reports import Column, Report, totals_by_currency
from audit.store.event_ids import with_ids
from ledger.books import stats

from . import models as m
from . import reports, selectors

ALL_SHIFTS = "all"

COLUMNS = (
    Column("table", gettext_noop("table")),
    Column("pit", gettext_noop("pit")),
    Column("game", gettext_noop("game")),
    Column("shift", gettext_noop("shift")),
    Column("currency", gettext_noop("currency"), screen=False),
    Column("state", gettext_noop("state"), screen=False),
    Column("state_text", gettext_noop("state in words"), screen=False),
    Column("opener", gettext_noop("opener"), "money", total=True),
    Column("fills", gettext_noop("fills"), "money", total=True),
    Column("credits", gettext_noop("credits"), "money", total=True),
    Column("closer", gettext_noop("closer"), "money", total=True),
    Column("drop_cash", gettext_noop("drop: cash"), "money", total=True),
    Column("drop_markers", gettext_noop("drop: markers"), "money", total=True),
    Column("drop_chips", gettext_noop("drop: chips"), "money", total=True),
    Column("drop", gettext_noop("drop"), "money", total=True),
    Column("win", gettext_noop("chip-count win"), "signed", total=True),
    Column("hold", gettext_noop("hold"), "rate"),
    Column("in_hold", gettext_noop("in hold"), "int", screen=False),
    Column("left_out", gettext_noop("left out of hold"), "int", screen=False),
    Column("theoretical_win", gettext_noop("theoretical win"), "signed", total=True),
    Column("variance", gettext_noop("variance not explained"), "signed", total=True),
    Column("adjustment_win", gettext_noop("adjustments' win"), "signed", total=True, screen=False),
    Column(
        "adjustment_drop", gettext_noop("adjustments' drop"), "signed", total=True, screen=False
    ),
    Column("opener_counted_by", gettext_noop("opener counted by"), screen=False),
    Column("opener_witnessed_by", gettext_noop("opener witnessed by"), screen=False),
    Column("closer_counted_by", gettext_noop("closer counted by"), screen=False),
    Column("closer_witnessed_by", gettext_noop("closer witnessed by"), screen=False),
    Column("drop_counted_by", gettext_noop("drop counted by"), screen=False),
)
PEOPLE = (
    "opener_counted_by",
    "opener_witnessed_by",
    "closer_counted_by",
    "closer_witnessed_by",
    "drop_counted_by",
)


def periods(
    *,
    day: date,
    shift: str | None = None,
    table: str | None = None,
    game: str | None = None,
    pit: str | None = None,
) -> list[m.Reconciliation]:
    """The reconciled periods of the report: the whole gaming day of each table (``shift``
    None), every shift (``all``) or one shift (its label)."""
    rows = selectors.reconciliations(
        day=day, shifts=shift is not None, table=table, game=game, pit=pit
    )
    if shift is not None and shift != ALL_SHIFTS:
        rows = rows.filter(shift=shift)
    return list(rows)


def _counts(rows: Sequence[m.Reconciliation], day: date) -> dict[int, list[m.InventorySlip]]:
    out: dict[int, list[m.InventorySlip]] = {}
    for count in m.InventorySlip.objects.filter(
        table__in={r.table_id for r in rows}, gaming_day=day
    ).order_by("version"):
        out.setdefault(count.table_id, []).append(count)
    return out


def _drop_teams(rows: Sequence[m.Reconciliation], day: date) -> dict[tuple[int, str], list[str]]:
    """Per table and compartment (shift; "" for a whole day's box): who counted the drop -
    the count sheet's signer first, then the rest of the team - from its ``drop.counted``."""
    boxes = list(
        m.DropBox.objects.filter(
            table__in={r.table_id for r in rows}, gaming_day=day, count_event__isnull=False
        )
    )
    payloads = dict(
        Event.objects.filter(with_ids([str(b.count_event) for b in boxes])).values_list(
            "event_id", "payload"
        )
    )
    out: dict[tuple[int, str], list[str]] = {}
    for box in boxes:
        payload = payloads.get(box.count_event) or {}
        team = [payload.get("counted_by"), *(payload.get("team") or [])]
        out[(box.table_id, box.shift)] = [who for who in team if who]
    return out


def _people(
    row: m.Reconciliation, counts: list[m.InventorySlip], teams: dict[tuple[int, str], list[str]]
) -> dict[str, str | None]:
    """Who counted and witnessed the period's opener (its first opening count) and closer
    (its last closing count), and who counted its drop (the shift's compartment, or every
    box of the day for a whole day)."""
    mine = [c for c in counts if not row.shift or c.shift == row.shift]
    opener = next((c for c in mine if c.kind == "opening"), None)
    closer = next((c for c in reversed(mine) if c.kind == "closing"), None)
    if row.shift:  # its own compartment, or the day's one box where the shift's drop is the day's
        team = teams.get((row.table_id, row.shift)) or (
            teams.get((row.table_id, ""), []) if row.drop is not None else []
        )
    else:
        team = [
            who
            for (t, _), names in sorted(teams.items(), key=lambda item: item[0][1])
            if t == row.table_id
            for who in names
        ]
    return {
        "opener_counted_by": opener.counted_by if opener else None,
        "opener_witnessed_by": opener.witnessed_by if opener else None,
        "closer_counted_by": closer.counted_by if closer else None,
        "closer_witnessed_by": closer.witnessed_by if closer else None,
        "drop_counted_by": ", ".join(dict.fromkeys(team)) or None,
    }


def _hold(totals: stats.Totals) -> dict[str, Any]:
    return {"hold": totals.hold, "in_hold": totals.complete, "left_out": len(totals.left_out)}


def master_game(
    *,
    day: date,
    shift: str | None = None,
    table: str | None = None,
    game: str | None = None,
    pit: str | None = None,
) -> Report:
    """The master game report of gaming day ``day``: per table its whole day (``shift``
    None), each of its shifts (``all``) or one shift; a totals line per currency."""
    rows = periods(day=day, shift=shift, table=table, game=game, pit=pit)
    counts, teams = _counts(rows, day), _drop_teams(rows, day)
    out = []
    by_currency: dict[str, list[m.Reconciliation]] = {}
    for row in rows:
        by_currency.setdefault(row.currency, []).append(row)
        out.append(
            {
                "table": row.table.stream,
                "pit": row.table.pit or None,
                "game": row.ruleset or None,
                "shift": row.shift or None,
                "currency": row.currency,
                "state": row.state,
                "state_text": selectors.state_text(row),
                "opener": row.opener,
                "fills": row.fills,
                "credits": row.credits,
                "closer": row.closer,
                "drop_cash": row.drop_cash,
                "drop_markers": row.drop_markers,
                "drop_chips": row.drop_chips,
                "drop": row.drop,
                "win": row.chip_win,
                **_hold(stats.total(reports.stat_rows([row]))),
                "theoretical_win": row.theoretical_win,
                "variance": row.chip_variance,
                "unexplained": row.unexplained,
                "adjustment_win": row.adjustment_win,
                "adjustment_drop": row.adjustment_drop,
                **_people(row, counts.get(row.table_id, []), teams),
            }
        )
    which = (
        _("the whole gaming day")
        if shift is None
        else _("every shift")
        if shift == ALL_SHIFTS
        else _("shift %(shift)s") % {"shift": shift}
    )
    report = Report(
        "master_game",
        _("Master game report, gaming day %(day)s, %(which)s")
        % {"day": selectors.day_text(day), "which": which},
        COLUMNS,
        out,
        {"day": day.isoformat(), "shift": shift, "table": table, "game": game, "pit": pit},
    )
    if shift != ALL_SHIFTS:
        return report.with_totals(
            lambda currency, _: _hold(stats.total(reports.stat_rows(by_currency[currency or ""])))
        )
    return replace(report, totals=_shift_totals(report, rows))


def _shift_totals(report: Report, rows: list[m.Reconciliation]) -> list[dict[str, Any]]:
    """Every shift's totals, then the day's - whose opener and closer are left blank: one
    shift's closer is the next one's opener, the same chips (the whole day's report has
    the day's first opener and last closer)."""

    def held(periods: list[m.Reconciliation]) -> Any:
        return lambda currency, _: _hold(
            stats.total(reports.stat_rows([r for r in periods if r.currency == currency]))
        )

    out = []
    for label in sorted({r.shift for r in rows}):
        lines = [line for line in report.rows if line["shift"] == label]
        for total in totals_by_currency(
            lines, report.columns, more=held([r for r in rows if r.shift == label])
        ):
            out.append({**total, "shift": label})
    for total in totals_by_currency(report.rows, report.columns, more=held(rows)):
        out.append({k: v for k, v in total.items() if k not in ("opener", "closer")})
    return out
