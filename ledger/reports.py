"""The ledger's reports (COMAR 36.05.03.25; 86 Ill. Adm. Code 3000.1010(c)(7)): each a
:class:`Report` of rows - plain values for the API, the CSV and the screens - built from
the reconciled periods with the pure statistics (:mod:`ledger.books.stats`).

- :func:`statistics` - drop, chip-count win, hold %, theoretical win and hold per table,
  game (rule set), pit or the whole casino, for a shift (each shift of the day), a gaming
  day, month to date, year to date or a range of days, beside the same period a year
  before;
- :func:`hold` - the same per table over a range of days, without the comparison;
- :func:`daily` - per gaming day: the hold, and the house result against the theoretical
  win and its 95% interval;
- :func:`drop` - per table-day: the drop by instrument (cash, markers, chips).

Two bases, named apart in every report: the **hold** is the chip-count win over the drop
of the *complete* table-days (both counted) only - each other table-day is counted as
left out and listed (``left_out_days``), never averaged in; the **house result** (the
recorded win), the handle, the "house result % of handle" and the theoretical win are of
every table-day's rounds.

Amounts are integers of minor units; currencies are never added (a group holds one
currency, and a report of several lists each apart). Each row carries the text of its
amounts by the one money formatter (the CSV writes text, currency units and minor
units). Each report ends with a totals row per currency, computed as its rows are (the
sums of the same periods, the rates from the sums: :func:`ledger.books.stats.total`).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from fractions import Fraction
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from audit.presenting.reports import TOTAL, Column, Report
from ledger.books import stats

from . import fx, selectors
from . import models as m

GROUPS = ("table", "game", "pit", "casino")
PERIODS = ("shift", "day", "mtd", "ytd", "range")


class ReportError(ValueError):
    """A report asked with parameters that do not make one (the API's 400, the command's 2)."""


def _fraction(text: str) -> Fraction | None:
    return Fraction(text) if text else None


def theoretical_of(row: m.Reconciliation) -> stats.Theoretical | None:
    """A stored period's theoretical win, exact, on the one basis (:class:`stats.Theoretical`:
    initial stakes x the edge per initial stake, insurance by its own edge); None where
    the game's edge is not known, or the period was folded before its initial stakes were
    kept (n/a until folded again)."""
    if not row.edge or row.initial_stakes is None:
        return None
    return stats.theoretical(
        row.initial_stakes,
        Fraction(row.edge),
        _fraction(row.game_variance),
        _fraction(row.game_covariance),
        hand_squares=int(row.hand_squares),
        round_squares=int(row.round_squares),
        insurance=row.insurance_stakes,
        insurance_squares=int(row.insurance_squares),
        insurance_edge=_fraction(row.insurance_edge),
        insurance_variance=_fraction(row.insurance_variance),
    )


def stat_rows(periods: Sequence[m.Reconciliation]) -> list[stats.TableDay]:
    """Reconciled periods as the statistics' rows: the chip-count win and the drop (None
    where not counted: the period stays out of every hold, and says what it lacks), the
    house result (the recorded win) and handle, the theoretical win and its variance
    (None where the game's edge, or its variance, is not known)."""
    out = []
    for row in periods:
        theory = theoretical_of(row)
        out.append(
            stats.TableDay(
                table=row.table.stream,
                gaming_day=row.gaming_day,
                game=row.ruleset or "-",
                pit=row.table.pit or "-",
                currency=row.currency,
                drop=selectors.reported_drop(row),
                chip_win=selectors.reported_chip_win(row),
                house_result=selectors.reported_house_result(row),
                handle=row.handle,
                theoretical=theory.mean if theory is not None else None,
                theoretical_variance=theory.variance if theory is not None else None,
                shift=row.shift or None,
                missing=stats.missing_counts(opener=row.opener, closer=row.closer, drop=row.drop),
            )
        )
    return out


def _filters(table: str | None, game: str | None, pit: str | None) -> dict[str, Any]:
    return {"table": table, "game": game, "pit": pit}


def _dimension(group: str) -> tuple[str, ...]:
    if group not in GROUPS:
        raise ReportError(f"group {group!r}: expected one of {', '.join(GROUPS)}")
    return () if group == "casino" else (group,)


def _by_currency(rows: list[stats.TableDay]) -> dict[str, list[stats.TableDay]]:
    out: dict[str, list[stats.TableDay]] = {}
    for row in rows:
        out.setdefault(row.currency, []).append(row)
    return dict(sorted(out.items()))


def _currencies(
    rows: list[stats.TableDay], consolidate: bool
) -> tuple[dict[str, list[stats.TableDay]], list[stats.TableDay] | None]:
    """The rows per currency; ``consolidate``: all in the house currency
    (``LEDGER_HOUSE_CURRENCY``) at each gaming day's rate (:mod:`ledger.fx`), and apart
    the table-days of a currency with no rate that day (None when not consolidating)."""
    if not consolidate:
        return _by_currency(rows), None
    from django.conf import settings

    house = settings.LEDGER_HOUSE_CURRENCY
    inside, missing = stats.consolidated(rows, house, fx.rates())
    return ({house: inside} if inside else {}), missing


def _no_rate(
    missing: list[stats.TableDay] | None, by: tuple[str, ...], key: tuple[object, ...]
) -> dict[str, Any]:
    """The table-days of a group left out of a consolidation for want of a rate: how many
    and which (None where the report is not consolidated)."""
    if missing is None:
        return {"no_rate": None, "no_rate_days": None}
    rows = [r for r in missing if tuple(getattr(r, name) for name in by) == key]
    groups: dict[tuple[str, str], list[date]] = {}
    for r in rows:
        groups.setdefault((r.table, r.currency), []).append(r.gaming_day)
    text = "; ".join(
        f"{table} {days[0].isoformat() if len(days) == 1 else f'{len(days)} days, {min(days)} to {max(days)}'} "
        f"({currency}: no rate)"
        for (table, currency), days in sorted(groups.items())
    )
    return {"no_rate": len(rows), "no_rate_days": text}


def _unconverted_rows(
    missing: list[stats.TableDay] | None, name: str, listed: set[object]
) -> list[dict[str, Any]]:
    """A row for each group a consolidation left wholly out (every table-day of it without
    a rate): no figures, only what is missing - so no group vanishes from the report."""
    if not missing:
        return []
    from django.conf import settings

    out = []
    for key in sorted({getattr(row, name) for row in missing} - listed, key=str):
        out.append(
            {
                name: key.isoformat() if isinstance(key, date) else key,
                "currency": settings.LEDGER_HOUSE_CURRENCY,
                **_no_rate(missing, (name,), (key,)),
            }
        )
    return out


# a consolidated report's table-days left out for want of a day's rate (ledger.fx)
NO_RATE = (
    Column("no_rate", gettext_noop("no rate"), "int", screen=False),
    Column("no_rate_days", gettext_noop("no rate of the day"), screen=False),
)


def _totals(totals: stats.Totals) -> dict[str, Any]:
    interval = totals.interval()
    return {
        "drop": totals.drop if totals.complete else None,
        "win": totals.win if totals.complete else None,
        "hold": totals.hold,
        "in_hold": totals.complete,
        "left_out": len(totals.left_out),
        "left_out_days": stats.left_out_text(totals.left_out),
        "house_result": totals.house_result,
        "handle": totals.handle,
        "result_of_handle": totals.result_of_handle,
        "theoretical_win": None if totals.theoretical is None else round(totals.theoretical),
        "theoretical_hold": totals.theoretical_hold,
        "theoretical_sd": totals.theoretical_sd,
        "interval_low": interval[0] if interval else None,
        "interval_high": interval[1] if interval else None,
        "inside": totals.inside(),
        "periods": totals.rows,
    }


# the hold's columns (chip-count win over drop, complete table-days only) and the rounds'
# (house result, handle, theoretical win: every table-day); the same words in every report
HOLD_BASIS = (
    Column("drop", gettext_noop("drop"), "money"),
    Column("win", gettext_noop("chip-count win"), "signed"),
    Column("hold", gettext_noop("hold"), "rate"),
    Column("in_hold", gettext_noop("days in hold"), "int"),
    Column("left_out", gettext_noop("left out"), "int"),
    Column("left_out_days", gettext_noop("left out of hold"), screen=False),
)
ROUNDS_BASIS = (
    Column("house_result", gettext_noop("house result"), "signed"),
    Column("handle", gettext_noop("handle"), "money"),
    # xgettext:no-python-format
    Column("result_of_handle", gettext_noop("house result % of handle"), "rate"),
)


def _total_row(first: str, currency: str, rows: list[stats.TableDay]) -> dict[str, Any]:
    """A currency's totals row: the sums of the rows' periods and the rates from them."""
    return {first: TOTAL, "currency": currency, **_totals(stats.total(rows, currency))}


STAT_COLUMNS = (
    Column("group", gettext_noop("group")),
    Column("shift", gettext_noop("shift")),
    Column("period", gettext_noop("period"), screen=False),
    Column("start", gettext_noop("from"), screen=False),
    Column("end", gettext_noop("to"), screen=False),
    Column("currency", gettext_noop("currency")),
    *HOLD_BASIS,
    *ROUNDS_BASIS,
    Column("theoretical_win", gettext_noop("theoretical win"), "signed"),
    Column("theoretical_hold", gettext_noop("theor. hold"), "rate"),
    Column("before_drop", gettext_noop("prior-year drop"), "money"),
    Column("before_win", gettext_noop("prior-year chip-count win"), "signed"),
    Column("before_hold", gettext_noop("prior-year hold"), "rate"),
    Column("before_left_out", gettext_noop("prior-year days left out"), "int", screen=False),
    *NO_RATE,
    Column("drop_change", gettext_noop("drop change"), "signed", screen=False),
    Column("win_change", gettext_noop("win change"), "signed"),
    Column("hold_change_bp", gettext_noop("hold change (bp)"), "int"),
)


def _compared_total(
    currency: str, rows: list[stats.TableDay], span: stats.Period, by: tuple[str, ...]
) -> dict[str, Any]:
    """The statistics' totals row: the groups listed (those with periods in ``span``)
    added up, beside the same groups a year before - so the row is the sum of the rows
    above it, and its rates are computed from those sums."""

    def key(row: stats.TableDay) -> tuple[object, ...]:
        return tuple(getattr(row, name) for name in by)

    listed = stats.within(rows, span)
    keys = {key(row) for row in listed}
    before = [row for row in stats.within(rows, span.year_before()) if key(row) in keys]
    c = stats.Comparison((), span, stats.total(listed, currency), stats.total(before, currency))
    now, was = _totals(c.now), _totals(c.before)
    return {
        "group": TOTAL,
        "period": span.name,
        "start": span.start.isoformat(),
        "end": span.end.isoformat(),
        "currency": currency,
        **now,
        "before_drop": was["drop"],
        "before_win": was["win"],
        "before_hold": was["hold"],
        "before_left_out": was["left_out"],
        "drop_change": c.drop_change,
        "win_change": c.win_change,
        "hold_change_bp": c.hold_change_bp,
    }


def _in_house(consolidate: bool) -> str:
    if not consolidate:
        return ""
    from django.conf import settings

    return _(", in %(currency)s at each day's rate") % {"currency": settings.LEDGER_HOUSE_CURRENCY}


def _dates(span: stats.Period) -> dict[str, str]:
    """A period's first and last day as a report's title writes them."""
    return {"start": selectors.day_text(span.start), "end": selectors.day_text(span.end)}


def _period(
    period: str, as_of: date | None, day_from: date | None, day_to: date | None
) -> stats.Period:
    if period not in PERIODS:
        raise ReportError(f"period {period!r}: expected one of {', '.join(PERIODS)}")
    if period == "range":
        if day_from is None or day_to is None:
            raise ReportError("a range needs from and to (YYYY-MM-DD)")
        if day_from > day_to:
            raise ReportError(f"from {day_from.isoformat()} is after to {day_to.isoformat()}")
        return stats.Period(f"{day_from.isoformat()} to {day_to.isoformat()}", day_from, day_to)
    if as_of is None:
        raise ReportError(f"the period {period!r} needs a day (YYYY-MM-DD)")
    return {
        "shift": stats.day,
        "day": stats.day,
        "mtd": stats.month_to_date,
        "ytd": stats.year_to_date,
    }[period](as_of)


def statistics(
    *,
    group: str = "table",
    period: str = "day",
    day: date | None = None,
    day_from: date | None = None,
    day_to: date | None = None,
    table: str | None = None,
    game: str | None = None,
    pit: str | None = None,
    consolidate: bool = False,
) -> Report:
    """Per group, the period's drop, win, hold and theoretical win and hold, beside the
    same period a year before (29 February becomes the 28th). ``consolidate``: every
    table-day in the house currency at its day's rate, those without one named apart."""
    by = _dimension(group)
    span = _period(period, day, day_from, day_to)
    before = span.year_before()
    by_shift = period == "shift"
    if by_shift:
        by = (*by, "shift")
    periods: list[m.Reconciliation] = []
    for window in (span, before):
        periods += selectors.reconciliations(
            day_from=window.start, day_to=window.end, shifts=by_shift, **_filters(table, game, pit)
        )
    rows, totals = [], []
    groups, missing = _currencies(stat_rows(periods), consolidate)
    for currency, group_rows in groups.items():
        if by:  # the casino's is its own row
            totals.append(_compared_total(currency, group_rows, span, by))
        for c in stats.compare(group_rows, span, by):
            key = c.key[: len(by) - 1] if by_shift else c.key
            now, was = (
                {
                    **_totals(c.now),
                    **_no_rate(
                        stats.within(missing, span) if missing is not None else None, by, c.key
                    ),
                },
                _totals(c.before),
            )
            rows.append(
                {
                    "group": "casino" if group == "casino" else str(key[0]),
                    "shift": c.key[-1] if by_shift else None,
                    "period": span.name,
                    "start": span.start.isoformat(),
                    "end": span.end.isoformat(),
                    "currency": currency,
                    **now,
                    "before_drop": was["drop"],
                    "before_win": was["win"],
                    "before_hold": was["hold"],
                    "before_left_out": was["left_out"],
                    "drop_change": c.drop_change,
                    "win_change": c.win_change,
                    "hold_change_bp": c.hold_change_bp,
                }
            )
    dates = _dates(span)
    when = {
        "shift": _("by shift, gaming day %(start)s"),
        "day": _("gaming day %(start)s"),
        "mtd": _("month to date, %(start)s to %(end)s"),
        "ytd": _("year to date, %(start)s to %(end)s"),
        "range": _("%(start)s to %(end)s"),
    }[period] % dates
    by_words = {
        "table": _("by table"),
        "game": _("by game"),
        "pit": _("by pit"),
        "casino": _("for the casino"),
    }
    return Report(
        "statistics",
        _("Drop, win and hold %(by)s, %(when)s, beside a year before")
        % {"by": by_words[group], "when": when}
        + _in_house(consolidate),
        STAT_COLUMNS,
        rows,
        {
            "group": group,
            "period": period,
            "day": day,
            "from": span.start,
            "to": span.end,
            "table": table,
            "game": game,
            "pit": pit,
            "consolidate": consolidate,
        },
        totals,
    )


HOLD_COLUMNS = (
    Column("table", gettext_noop("table")),
    Column("pit", gettext_noop("pit")),
    Column("game", gettext_noop("game")),
    Column("currency", gettext_noop("currency")),
    Column("periods", gettext_noop("days"), "int"),
    *HOLD_BASIS,
    Column("theoretical_hold", gettext_noop("theor. hold"), "rate"),
    *ROUNDS_BASIS,
    Column("theoretical_win", gettext_noop("theoretical win"), "signed"),
    *NO_RATE,
)


def hold(
    *,
    day_from: date,
    day_to: date,
    table: str | None = None,
    game: str | None = None,
    pit: str | None = None,
    consolidate: bool = False,
) -> Report:
    """Per table over the days ``day_from`` to ``day_to``: drop, chip-count win, hold and
    theoretical hold over the complete table-days (the others listed as left out), and the
    house result, handle and theoretical win of every day's rounds."""
    span = _period("range", None, day_from, day_to)
    periods = list(
        selectors.reconciliations(
            day_from=span.start, day_to=span.end, **_filters(table, game, pit)
        )
    )
    rows, totals = [], []
    groups, missing = _currencies(stat_rows(periods), consolidate)
    for currency, group_rows in groups.items():
        for (name,), sums in stats.aggregate(group_rows, ("table",)).items():
            first = next(r for r in group_rows if r.table == name)
            rows.append(
                {
                    "table": name,
                    "pit": first.pit,
                    "game": first.game,
                    "currency": currency,
                    **_totals(sums),
                    **_no_rate(missing, ("table",), (name,)),
                }
            )
        totals.append(_total_row("table", currency, group_rows))
    rows += _unconverted_rows(missing, "table", {row["table"] for row in rows})
    return Report(
        "hold",
        _("Hold by table, %(start)s to %(end)s") % _dates(span) + _in_house(consolidate),
        HOLD_COLUMNS,
        rows,
        {
            "from": day_from,
            "to": day_to,
            "table": table,
            "game": game,
            "pit": pit,
            "consolidate": consolidate,
        },
        totals,
    )


DAILY_COLUMNS = (
    Column("gaming_day", gettext_noop("gaming day")),
    Column("currency", gettext_noop("currency")),
    Column("periods", gettext_noop("tables"), "int"),
    *HOLD_BASIS,
    *ROUNDS_BASIS,
    Column("theoretical_win", gettext_noop("theoretical win"), "signed"),
    Column("theoretical_sd", gettext_noop("SD"), "money"),
    # xgettext:no-python-format
    Column("interval_low", gettext_noop("95% from"), "signed"),
    # xgettext:no-python-format
    Column("interval_high", gettext_noop("95% to"), "signed"),
    # xgettext:no-python-format
    Column("inside", gettext_noop("inside the 95% interval"), "bool"),
    *NO_RATE,
)


def daily(
    *,
    day_from: date,
    day_to: date,
    table: str | None = None,
    game: str | None = None,
    pit: str | None = None,
    consolidate: bool = False,
) -> Report:
    """Per gaming day (the tables selected together): the hold of the complete table-days,
    and the house result of every table's rounds against their theoretical win and its
    95% interval (none where the game's variance is not known)."""
    span = _period("range", None, day_from, day_to)
    periods = list(
        selectors.reconciliations(
            day_from=span.start, day_to=span.end, **_filters(table, game, pit)
        )
    )
    rows, totals = [], []
    groups, missing = _currencies(stat_rows(periods), consolidate)
    for currency, group_rows in groups.items():
        for (day,), sums in stats.aggregate(group_rows, ("gaming_day",)).items():
            rows.append(
                {
                    "gaming_day": day.isoformat(),
                    "currency": currency,
                    **_totals(sums),
                    **_no_rate(missing, ("gaming_day",), (day,)),
                }
            )
        totals.append(_total_row("gaming_day", currency, group_rows))
    rows += _unconverted_rows(
        missing, "gaming_day", {date.fromisoformat(row["gaming_day"]) for row in rows}
    )
    return Report(
        "daily",
        _("House result against theoretical win by gaming day, %(start)s to %(end)s") % _dates(span)
        + _in_house(consolidate),
        DAILY_COLUMNS,
        rows,
        {
            "from": day_from,
            "to": day_to,
            "table": table,
            "game": game,
            "pit": pit,
            "consolidate": consolidate,
        },
        totals,
    )


DROP_COLUMNS = (
    Column("table", gettext_noop("table")),
    Column("gaming_day", gettext_noop("gaming day")),
    Column("shift", gettext_noop("shift")),
    Column("pit", gettext_noop("pit")),
    Column("game", gettext_noop("game")),
    Column("currency", gettext_noop("currency")),
    Column("drop_cash", gettext_noop("cash"), "money", total=True),
    Column("drop_markers", gettext_noop("markers"), "money", total=True),
    Column("drop_chips", gettext_noop("chips"), "money", total=True),
    Column("drop", gettext_noop("drop"), "money", total=True),
)


def drop(
    *,
    day_from: date,
    day_to: date,
    table: str | None = None,
    game: str | None = None,
    pit: str | None = None,
    shifts: bool = False,
) -> Report:
    """Per table-day (or table-shift): the drop as counted, by instrument."""
    span = _period("range", None, day_from, day_to)
    rows = [
        {
            "table": r.table.stream,
            "gaming_day": r.gaming_day.isoformat(),
            "shift": r.shift or None,
            "pit": r.table.pit,
            "game": r.ruleset,
            "currency": r.currency,
            "drop_cash": r.drop_cash,
            "drop_markers": r.drop_markers,
            "drop_chips": r.drop_chips,
            "drop": r.drop,
        }
        for r in selectors.reconciliations(
            day_from=span.start, day_to=span.end, shifts=shifts, **_filters(table, game, pit)
        )
    ]
    return Report(
        "drop",
        _("Drop by table, %(start)s to %(end)s") % _dates(span),
        DROP_COLUMNS,
        rows,
        {
            "from": day_from,
            "to": day_to,
            "table": table,
            "game": game,
            "pit": pit,
            "shifts": shifts,
        },
    ).with_totals()
