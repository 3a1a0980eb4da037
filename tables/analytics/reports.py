"""The analytics as reports (``audit.presenting.reports.Report``: the screens, the API and the CSV
show the same rows), read from the record: each table's gaming day is handed, as the
events the store holds, to the pure analytics (:mod:`tables.analytics`). Nothing here
writes anything.

- :func:`counters` - counter detection per player (bet against the Hi-Lo true count);
- :func:`accuracy` - strategy accuracy per player, and each decision off the chart with
  its cost;
- :func:`dealers` - dealer performance per dealer and shift (the shift plan of
  ``LEDGER_SHIFTS``): rounds and errors (the engine's findings in force) per hour;
- :func:`what_if` - the day's rounds settled again with other payouts (6:5 naturals ...),
  the difference per table and per player. It reads the record and writes nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date
from fractions import Fraction
from typing import Any

from django.conf import settings
from django.utils.translation import gettext, pgettext_lazy
from django.utils.translation import gettext_lazy as _

from audit.models import Finding
from audit.presenting.reports import Column, Report
from audit.record.findings import kinds_of
from audit.record.shifts import ShiftPlan
from audit.store.reading import stream_events
from tables import models as m
from tables.analytics import accuracy as accuracy_
from tables.analytics import counters as counters_
from tables.analytics import dealers as dealers_
from tables.analytics import whatif as whatif_
from tables.analytics.counting import counted_bets

# the what-if's row of the live game's bets, which no player holds (the screens translate it)
NO_PLAYER = "(no player: the live game's bettors)"
MIN_BETS = counters_.MIN_BETS


class AnalyticsError(ValueError):
    """A report asked of something the record does not hold (the API's 400 or 404)."""


class NotPlayed(AnalyticsError):
    """The table named did not play on the day (the API's 404)."""


def latest_day() -> date | None:
    """The last gaming day on which a table dealt a round (the screens' default): a day
    whose tables have opened but dealt nothing yet has nothing to analyse."""
    return (
        m.TableDay.objects.filter(rounds__gt=0)
        .order_by("-gaming_day")
        .values_list("gaming_day", flat=True)
        .first()
    )


def table_days(day: date, table: str | None = None) -> list[m.TableDay]:
    rows = (
        m.TableDay.objects.filter(gaming_day=day).select_related("table").order_by("table__stream")
    )
    if table:
        rows = rows.filter(table__stream=table)
    return list(rows)


def day_events(table_day: m.TableDay) -> Iterator[dict[str, Any]]:
    """A table's gaming day as the folds read it (:func:`audit.store.reading.stream_events`:
    each payload in its type's current form)."""
    return stream_events(table_day.table.stream, table_day.first_version, table_day.last_version)


def played(day: date, table: str | None) -> list[m.TableDay]:
    """The table-days of ``day`` (of one table); a table that did not play is an error."""
    days = table_days(day, table)
    if table and not days:
        raise NotPlayed(
            gettext("table %(table)s did not play on %(day)s")
            % {"table": table, "day": day.isoformat()}
        )
    return days


def _currencies(days: list[m.TableDay]) -> dict[str, str]:
    return {d.table.stream: d.table.currency or "EUR" for d in days}


def _parameters(day: date, table: str | None) -> dict[str, Any]:
    return {"day": day.isoformat(), "table": table}


# --- counter detection ---------------------------------------------------------------------

COUNTER_COLUMNS = (
    Column("player", pgettext_lazy("analytics", "player")),
    Column("tables", pgettext_lazy("analytics", "table")),
    Column("currency", pgettext_lazy("analytics", "currency"), screen=False),
    Column("bets", pgettext_lazy("analytics", "bets"), "int"),
    Column("min_bet", pgettext_lazy("analytics", "smallest bet"), "money"),
    Column("max_bet", pgettext_lazy("analytics", "largest bet"), "money"),
    Column("spread", pgettext_lazy("analytics", "spread")),
    Column("mean_low", pgettext_lazy("analytics", "mean bet, count < +1"), "money"),
    Column("mean_high", pgettext_lazy("analytics", "mean bet, count ≥ +2"), "money"),
    Column("high_bets", pgettext_lazy("analytics", "bets at ≥ +2"), "int"),
    Column("rho", pgettext_lazy("analytics", "Spearman ρ")),
    Column("p_value", pgettext_lazy("analytics", "p (one-sided)")),
    Column("flagged", pgettext_lazy("analytics", "flagged")),
    Column("verdict", pgettext_lazy("analytics", "verdict")),
)


@dataclass(frozen=True)
class CounterReport:
    report: Report
    players: list[counters_.PlayerCount]
    currency: str


def counters(*, day: date, table: str | None = None) -> CounterReport:
    days = played(day, table)
    currency = _currencies(days)
    bets = [b for d in days for b in counted_bets(day_events(d))]
    players = counters_.assess(bets)
    rows = []
    for p in players:
        rows.append(
            {
                "player": p.player,
                "tables": ", ".join(p.tables),
                "currency": currency.get(p.tables[0], "EUR"),
                "bets": p.bets,
                "min_bet": p.min_bet,
                "max_bet": p.max_bet,
                "spread": f"{float(p.spread):.1f}x",
                "mean_low": p.mean_low,
                "mean_high": p.mean_high,
                "high_bets": p.high_bets,
                "rho": "" if p.rho is None else f"{p.rho:.3f}",
                "p_value": "" if p.p_value is None else f"{p.p_value:.4f}",
                "flagged": "yes" if p.flagged else "no",
                "verdict": p.verdict,
            }
        )
    report = Report(
        "counters",
        _("Counter detection: bet against the Hi-Lo true count"),
        COUNTER_COLUMNS,
        rows,
        {**_parameters(day, table), "alpha": counters_.ALPHA, "min_bets": counters_.MIN_BETS},
    )
    return CounterReport(report, players, next(iter(currency.values()), "EUR"))


# --- strategy accuracy ---------------------------------------------------------------------

ACCURACY_COLUMNS = (
    Column("player", pgettext_lazy("analytics", "player")),
    Column("tables", pgettext_lazy("analytics", "table")),
    Column("currency", pgettext_lazy("analytics", "currency"), screen=False),
    Column("decisions", pgettext_lazy("analytics", "decisions"), "int", total=True),
    Column("errors", pgettext_lazy("analytics", "errors"), "int", total=True),
    Column("accuracy", pgettext_lazy("analytics", "accuracy"), "rate"),
    Column("cost", pgettext_lazy("analytics", "expected value lost"), "money", total=True),
    Column("errors_by_play", pgettext_lazy("analytics", "errors by the play made")),
)

ERROR_COLUMNS = (
    Column("table", pgettext_lazy("analytics", "table")),
    Column("round", pgettext_lazy("analytics", "round"), "int"),
    Column("box", pgettext_lazy("analytics", "box"), "int"),
    Column("hand", pgettext_lazy("analytics", "hand"), "int"),
    Column("player", pgettext_lazy("analytics", "player")),
    Column("currency", pgettext_lazy("analytics", "currency"), screen=False),
    Column("cards", pgettext_lazy("analytics", "cards")),
    Column("up", pgettext_lazy("analytics", "dealer shows")),
    Column("action", pgettext_lazy("analytics", "played")),
    Column("chart", pgettext_lazy("analytics", "chart says")),
    Column("stake", pgettext_lazy("analytics", "stake"), "money", total=True),
    Column("cost", pgettext_lazy("analytics", "expected value lost"), "money", total=True),
)


@dataclass(frozen=True)
class AccuracyReport:
    report: Report
    errors: Report
    players: list[accuracy_.PlayerAccuracy]
    currency: str


def accuracy(*, day: date, table: str | None = None) -> AccuracyReport:
    days = played(day, table)
    currency = _currencies(days)
    made = [d for td in days for d in accuracy_.decisions(day_events(td))]
    players = accuracy_.accuracy(made)
    rows = [
        {
            "player": p.player,
            "tables": ", ".join(p.tables),
            "currency": currency.get(p.tables[0], "EUR"),
            "decisions": p.decisions,
            "errors": p.errors,
            "accuracy": p.accuracy,
            "cost": p.cost,
            "errors_by_play": ", ".join(f"{action} {n}" for action, n in p.by_action),
        }
        for p in players
    ]
    error_rows = [
        {
            "table": d.table,
            "round": d.round,
            "box": d.box,
            "hand": d.hand,
            "player": d.player,
            "currency": currency.get(d.table, "EUR"),
            "cards": " ".join(d.cards),
            "up": d.up,
            "action": d.action,
            "chart": d.chart,
            "stake": d.stake,
            "cost": d.cost,
        }
        for d in sorted(
            (d for d in made if d.error), key=lambda d: (-d.cost, d.table, d.round, d.box, d.hand)
        )
    ]
    parameters = _parameters(day, table)
    return AccuracyReport(
        Report(
            "accuracy",
            _("Strategy accuracy: decisions against the table's chart"),
            ACCURACY_COLUMNS,
            rows,
            parameters,
        ).with_totals(_accuracy_of_sums),
        Report(
            "strategy_errors",
            _("Decisions off the chart, the costliest first"),
            ERROR_COLUMNS,
            error_rows,
            parameters,
        ).with_totals(),
        players,
        next(iter(currency.values()), "EUR"),
    )


def _accuracy_of_sums(currency: str | None, rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The totals row's accuracy: the share of all its decisions that were the chart's
    (from the sums, as each player's is)."""
    decisions = sum(r["decisions"] for r in rows)
    return {
        "accuracy": Fraction(decisions - sum(r["errors"] for r in rows), decisions)
        if decisions
        else None
    }


# --- dealer performance ----------------------------------------------------------------------

DEALER_COLUMNS = (
    Column("dealer", pgettext_lazy("analytics", "dealer")),
    Column("shift", pgettext_lazy("analytics", "shift")),
    Column("tables", pgettext_lazy("analytics", "tables")),
    Column("hours", pgettext_lazy("analytics", "hours dealt")),
    Column("rounds", pgettext_lazy("analytics", "rounds"), "int", total=True),
    Column("rounds_per_hour", pgettext_lazy("analytics", "rounds / hour")),
    Column("errors", pgettext_lazy("analytics", "errors"), "int", total=True),
    Column("errors_per_hour", pgettext_lazy("analytics", "errors / hour")),
    Column("errors_per_100_rounds", pgettext_lazy("analytics", "errors / 100 rounds")),
    Column("kinds", pgettext_lazy("analytics", "errors by kind")),
)


@dataclass(frozen=True)
class DealerReport:
    report: Report
    rows: list[dealers_.DealerShift]


def shift_plan() -> ShiftPlan:
    """The shifts of the gaming day, as the ledger splits it (``LEDGER_SHIFTS`` from
    ``GAMING_DAY_CUTOFF_HOUR``, checked when the settings load)."""
    return ShiftPlan.parse(
        settings.LEDGER_SHIFTS,
        day_start=f"{settings.GAMING_DAY_CUTOFF_HOUR:02d}:00",
        zone=settings.TIME_ZONE,
    )


def _rate(value: Any) -> str:
    return "" if value is None else f"{float(value):.2f}"


def dealers(*, day: date, table: str | None = None) -> DealerReport:
    days = played(day, table)
    findings = Finding.objects.filter(
        stream__in=[d.table.stream for d in days],
        gaming_day=day,
        round__isnull=False,
        superseded_by__isnull=True,
        kind__in=kinds_of("engine"),
    ).values_list("stream", "round", "kind")
    rows = dealers_.performance(
        [list(day_events(d)) for d in days],
        [dealers_.RoundFinding(*f) for f in findings],
        shift_plan(),
    )
    out = [
        {
            "dealer": r.dealer,
            "shift": r.shift,
            "tables": ", ".join(sorted(r.tables)),
            "hours": f"{float(r.hours):.2f}",
            "rounds": r.rounds,
            "rounds_per_hour": _rate(r.rounds_per_hour),
            "errors": r.errors,
            "errors_per_hour": _rate(r.errors_per_hour),
            "errors_per_100_rounds": _rate(r.errors_per_100_rounds),
            "kinds": ", ".join(f"{k} {n}" for k, n in sorted(r.kinds.items())),
        }
        for r in rows
    ]
    return DealerReport(
        Report(
            "dealers",
            _("Dealer performance: rounds and errors per hour dealt, by shift"),
            DEALER_COLUMNS,
            out,
            _parameters(day, table),
        ).with_totals(),
        rows,
    )


# --- what-if re-settlement ---------------------------------------------------------------------

WHAT_IF_COLUMNS = (
    Column("currency", pgettext_lazy("analytics", "currency"), screen=False),
    Column("bets", pgettext_lazy("analytics", "bets"), "int", total=True),
    Column("changed", pgettext_lazy("analytics", "bets paid otherwise"), "int", total=True),
    Column("house", pgettext_lazy("analytics", "house result as played"), "signed", total=True),
    Column(
        "what_if_house", pgettext_lazy("analytics", "house result, what if"), "signed", total=True
    ),
    Column(
        "difference", pgettext_lazy("analytics", "difference for the house"), "signed", total=True
    ),
)


@dataclass(frozen=True)
class WhatIfReport:
    tables: Report
    players: Report
    currency: str


def what_if(*, day: date, table: str | None = None, changes: dict[str, str]) -> WhatIfReport:
    """The house result (+: the house won) of each table and player as the table's rules
    settle the day, and as the changed payouts would have."""
    if not changes:
        raise AnalyticsError(
            gettext("name a payout to change (%(payouts)s)")
            % {"payouts": ", ".join(whatif_.PAYOUTS)}
        )
    days = played(day, table)
    currency = _currencies(days)
    try:
        rows = [r for d in days for r in whatif_.resettle(day_events(d), changes)]
    except whatif_.WhatIfError as error:
        raise AnalyticsError(str(error)) from None
    table_of = {r.player: r.table for r in rows}

    def report(by: str, title: str) -> Report:
        columns = (
            (Column("table", pgettext_lazy("analytics", "table")),)
            if by == "table"
            else (
                Column("player", pgettext_lazy("analytics", "player")),
                Column("table", pgettext_lazy("analytics", "table")),
            )
        ) + WHAT_IF_COLUMNS
        out = [
            {
                "player": t.key or NO_PLAYER,
                "table": t.key if by == "table" else table_of.get(t.key, ""),
                "currency": currency.get(
                    t.key if by == "table" else table_of.get(t.key, ""), "EUR"
                ),
                "bets": t.bets,
                "changed": t.changed,
                "house": -t.net,
                "what_if_house": -t.what_if_net,
                "difference": t.difference,
            }
            for t in whatif_.totals(rows, by)
        ]
        return Report(
            f"what_if_{by}s", title, columns, out, {**_parameters(day, table), **changes}
        ).with_totals()

    return WhatIfReport(
        report("table", _("What if: per table")),
        report("player", _("What if: per player")),
        next(iter(currency.values()), "EUR"),
    )
