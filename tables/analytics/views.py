"""The analytics' screens in the admin: their index (``/admin/analytics/``), counter
detection, strategy accuracy, dealer performance and what-if re-settlement - each a chart
drawn on the server, its tables (a page of rows at a time, ``?page=N``), and its CSV (every
row). The views parse and authorise; the reports are :mod:`tables.analytics.reports`, the
charts :mod:`tables.analytics.charts`. Every view is wrapped by the admin site: any staff
member may read them, as any staff member may read the rounds over REST
(``tables.api.MayViewRounds``); the access log records each read like any other admin
page."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Any

from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.formats import date_format, number_format
from django.utils.functional import Promise
from django.utils.html import format_html, format_html_join
from django.utils.http import urlencode
from django.utils.safestring import SafeString
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext, pgettext, pgettext_lazy

from audit.presenting.reports import TOTAL, Column, Report
from audit.presenting.vocabulary import kind_title
from audit.record.money import format_money, format_number, not_available
from tables import models as m
from tables.admin import round_review_url

from . import charts, reports


@dataclass(frozen=True)
class Screen:
    name: str  # its address: /admin/analytics/<name>/
    title: Promise
    shows: Promise  # one line on the index: what a person reads there
    paged: str  # the report whose rows ?page=N pages (the screen's long list)


SCREENS_SHOWN = (
    Screen(
        "counters",
        gettext_lazy("Counter detection"),
        gettext_lazy(
            "Each player's bet against the Hi-Lo true count of the shoe: who raises the bet "
            "when the count favours the player, flagged when the link is too strong to be chance."
        ),
        "counters",
    ),
    Screen(
        "accuracy",
        gettext_lazy("Strategy accuracy"),
        gettext_lazy(
            "Each player's hits, stands, doubles, splits and surrenders against the basic "
            "strategy of the table's rules, and the expected value each mistake gave up."
        ),
        "strategy_errors",
    ),
    Screen(
        "dealers",
        gettext_lazy("Dealer performance"),
        gettext_lazy(
            "Each dealer by shift: hours and rounds dealt, and the errors the replay found "
            "in those rounds, per hour and per 100 rounds."
        ),
        "dealers",
    ),
    Screen(
        "what-if",
        gettext_lazy("What-if re-settlement"),
        gettext_lazy(
            "The day's rounds, the same cards and plays, settled again with other payouts "
            "(6:5 naturals, ...): what the house would have won, by table and by player. A "
            "report only: nothing is written to the record."
        ),
        "what_if_players",
    ),
)
SCREEN = {s.name: s for s in SCREENS_SHOWN}
# rows of a table on one page; the CSV has them all
PAGE_SIZE = 50
# the payouts the what-if screen offers (any ratio works over REST)
WHAT_IF_CHOICES = {
    "natural_pays": ("6:5", "7:5", "1:1", "3:2", "2:1"),
    "insurance_pays": ("2:1", "3:2", "1:1"),
}
WHAT_IF_LABELS = {
    "natural_pays": pgettext_lazy("analytics", "natural pays"),
    "insurance_pays": pgettext_lazy("analytics", "insurance pays"),
}
WHAT_IF_DEFAULT = {"natural_pays": "6:5"}
Made = tuple[list[Report], list[tuple[str, SafeString]]]


def words() -> dict[str, str]:
    """The analytics templates' words, translated here: the templates live under
    tables/templates, outside the analytics' own catalogue (tables/analytics/locale), which
    ``makemessages`` run in tables/analytics makes from this package's Python alone."""
    return {
        "floor": pgettext("analytics", "The floor"),
        "analytics": pgettext("analytics", "Analytics"),
        "gaming_day": pgettext("analytics", "gaming day"),
        "table": pgettext("analytics", "table"),
        "all": pgettext("analytics", "all"),
        "as_the_table": pgettext("analytics", "as the table"),
        "show": pgettext("analytics", "Show"),
        "nothing_yet": _("No gaming day has been played yet."),
        "nothing_on_day": pgettext("analytics", "Nothing on the day."),
        "csv_title": pgettext("analytics", "every row, as CSV"),
        "previous": pgettext("analytics", "previous"),
        "next": pgettext("analytics", "next"),
    }


def _query(request: HttpRequest) -> tuple[date | None, str | None]:
    """The day asked for (else the latest gaming day with play) and the table."""
    wanted = request.GET.get("day")
    day = reports.latest_day()
    if wanted:
        try:
            day = date.fromisoformat(wanted)
        except ValueError:
            raise Http404(
                _("%(day)s is not a gaming day (YYYY-MM-DD).") % {"day": repr(wanted)}
            ) from None
    table = request.GET.get("table") or None
    return day, table


def _whole(n: int) -> str:
    """A count (bets, rounds) as the locale writes it: 8,976 in English, 8.976 in Italian."""
    return format_number(n)


def _decimal(value: Any, places: int = 2) -> str:
    """A measure that is not money (hours, a rate per hour, rho) as the locale writes it
    (0.73, 0,73); the reports' text (``"0.731"``) keeps its digits; n/a where not known."""
    if value is None or value == "":
        return not_available()
    if isinstance(value, str):
        number = Decimal(value)
        places = max(-int(number.as_tuple().exponent), 0)
    else:
        number = Decimal(f"{float(value):.{places}f}")
    return number_format(number, decimal_pos=places, use_l10n=True)


# the players' plays, as the engine names them (decision.made's action)
PLAYS = {
    "hit": pgettext_lazy("analytics", "hit"),
    "stand": pgettext_lazy("analytics", "stand"),
    "double": pgettext_lazy("analytics", "double"),
    "split": pgettext_lazy("analytics", "split"),
    "surrender": pgettext_lazy("analytics", "surrender"),
}
# the pure counter detection's verdicts (tables.analytics.counters), as a person reads them
VERDICTS = {
    "flat bet: the stake never changes": gettext_lazy("flat bet: the stake never changes"),
    "the count never changed": gettext_lazy("the count never changed"),
    "bets rise with the true count": gettext_lazy("bets rise with the true count"),
    "no link between bet and count": gettext_lazy("no link between bet and count"),
}
DECIMAL_COLUMNS = frozenset(
    ("rho", "p_value", "hours", "rounds_per_hour", "errors_per_hour", "errors_per_100_rounds")
)
# the text columns that hold a figure (lined up to the right, as the numbers are)
NUMBERS = DECIMAL_COLUMNS | {"spread"}


def _counted(text: str, name: Callable[[str], str]) -> str:
    """``"hit 3, stand 1"`` (a report's counts by name) with each name as a person reads it."""
    if not text:
        return pgettext("analytics", "none")
    out = []
    for part in text.split(", "):
        key, _space, n = part.rpartition(" ")
        out.append(f"{name(key)} {_whole(int(n))}" if n.isdigit() else part)
    return ", ".join(out)


def _cell(report: Report, row: dict[str, Any], column: Column) -> str:
    """One cell of a screen's table: counts and measures in the locale's digits, words
    translated, n/a where a figure is not known; money and rates by the one formatter."""
    value = row.get(column.key)
    key = column.key
    if key == "round" and value is not None and row.get("table"):  # to the round's review
        return format_html(
            '<a class="round" href="{}">{}</a>',
            round_review_url(table=row["table"], day=report.parameters["day"], number=value),
            value,
        )
    if key in ("box", "hand"):  # numbers that name, not count
        return str(value)
    if column.kind == "int":
        return not_available() if value is None else _whole(value)
    if key in DECIMAL_COLUMNS:
        return _decimal(value)
    if key == "spread" and value:
        return _decimal(str(value).rstrip("x")) + "x"
    if key == "flagged":
        return pgettext("analytics", "yes") if value == "yes" else pgettext("analytics", "no")
    if key == "verdict":
        if str(value).startswith("too few bets"):
            return _("too few bets to tell (fewer than %(bets)s)") % {"bets": reports.MIN_BETS}
        return str(VERDICTS.get(value, value))
    if key in ("action", "chart"):
        return str(PLAYS.get(value, value))
    if key == "errors_by_play":
        return _counted(value or "", lambda play: str(PLAYS.get(play, play)))
    if key == "kinds":  # "wrong_payout 2, ...": each kind by its title, a count after it
        return (
            "; ".join(
                f"{kind_title(kind)} ({_whole(int(n))})"
                for kind, _space, n in (part.rpartition(" ") for part in value.split(", "))
            )
            if value
            else pgettext("analytics", "none")
        )
    if key in ("table", "tables") and value:  # codes kept whole: "BJ-01, BJ-02", never "BJ-⏎01"
        return format_html_join(
            ", ", '<span class="code">{}</span>', ((code,) for code in str(value).split(", "))
        )
    if key == "player" and value == reports.NO_PLAYER:
        return _("(no player: the live game's bettors)")
    shown = report.display(row, column)
    return shown if shown != "" else not_available()


def _total_cell(
    report: Report, row: dict[str, Any], column: Column, every_page: bool = False
) -> str:
    """A totals row's cell: "total" first, blank in a column it does not total."""
    if column.key not in row:
        return ""
    if row[column.key] == TOTAL:
        return (
            pgettext("analytics", "total of every page")
            if every_page
            else pgettext("analytics", "total")
        )
    return _cell(report, row, column)


def _aligned(column: Column) -> str:
    """How a column's cells line up: figures to the right, words to the left."""
    return "num" if column.kind != "text" or column.key in NUMBERS else "text"


def screen_table(
    report: Report, rows: list[dict[str, Any]] | None = None, *, every_page: bool = False
) -> dict[str, Any]:
    """A report as the screen's table (``rows``: the page of them shown; ``every_page``:
    its totals are of rows on other pages too): its screen columns, each cell as a
    person reads it."""
    columns = [c for c in report.columns if c.screen]
    return {
        "name": report.name,
        "title": report.title,
        "columns": [
            {"key": c.key, "title": c.title, "number": c.kind != "text" or c.key in NUMBERS}
            for c in columns
        ],
        "rows": [
            {
                "flagged": row.get("flagged") == "yes",
                "cells": [(_aligned(c), _cell(report, row, c)) for c in columns],
            }
            for row in (report.rows if rows is None else rows)
        ],
        "totals": [
            [(_aligned(c), _total_cell(report, row, c, every_page)) for c in columns]
            for row in report.totals
        ],
    }


def _counters(day: date, table: str | None, options: dict[str, str]) -> Made:
    found = reports.counters(day=day, table=table)
    return [found.report], [(_("Mean bet by true count"), charts.bet_against_count(found.players))]


def _accuracy(day: date, table: str | None, options: dict[str, str]) -> Made:
    found = reports.accuracy(day=day, table=table)
    costly = [p for p in found.players if p.errors][:15]
    bars = charts.bars(
        [
            (
                p.player,
                p.cost,
                _(
                    "%(player)s: %(errors)s of %(decisions)s decisions off the chart, "
                    "%(cost)s of expected value given up"
                )
                % {
                    "player": p.player,
                    "errors": _whole(p.errors),
                    "decisions": _whole(p.decisions),
                    "cost": format_money(p.cost, found.currency),
                },
            )
            for p in costly
        ],
        name="cost-by-player",
        title=_("Expected value the errors gave up"),
        money=found.currency,
    )
    return [found.report, found.errors], [(_("Expected value lost to errors, by player"), bars)]


def _dealers(day: date, table: str | None, options: dict[str, str]) -> Made:
    found = reports.dealers(day=day, table=table)
    ranked = [r for r in found.rows if r.errors and r.errors_per_hour is not None][:20]
    if ranked:
        drawn = charts.bars(
            [
                (
                    f"{r.dealer} {r.shift}",
                    r.errors,
                    _(
                        "%(dealer)s, shift %(shift)s: errors %(errors)s, rounds %(rounds)s, "
                        "hours dealt %(hours)s (errors an hour: %(rate)s)"
                    )
                    % {
                        "dealer": r.dealer,
                        "shift": r.shift,
                        "errors": _whole(r.errors),
                        "rounds": _whole(r.rounds),
                        "hours": _decimal(r.hours),
                        "rate": _decimal(r.errors_per_hour),
                    },
                )
                for r in ranked
            ],
            name="errors-by-dealer",
            title=_("Errors found in each dealer's rounds"),
        )
    else:  # a bar of nothing per dealer says less than a sentence
        dealt = sum(r.rounds for r in found.rows)
        drawn = SafeString(
            '<p class="chart-empty" id="no-dealer-errors">'
            + ngettext(
                "The replay found no dealer's error in the one round of the day.",
                "The replay found no dealer's error in the %(rounds)s rounds of the day.",
                dealt,
            )
            % {"rounds": _whole(dealt)}
            + "</p>"
        )
    return [found.report], [(_("Errors by dealer and shift (the most per hour first)"), drawn)]


def what_if_changes(params: Any) -> dict[str, str]:
    """The payouts asked for (a screen without any: 6:5 naturals); the table's own
    payout where one is left out."""
    changes = {k: params[k] for k in WHAT_IF_CHOICES if params.get(k)}
    return changes or dict(WHAT_IF_DEFAULT)


def _what_if(day: date, table: str | None, options: dict[str, str]) -> Made:
    found = reports.what_if(day=day, table=table, changes=options)
    changes = ", ".join(f"{WHAT_IF_LABELS[k]} {v}" for k, v in options.items())
    bars = charts.bars(
        [
            (
                row["table"],
                row["difference"],
                (
                    _(
                        "%(table)s: %(changed)s of %(bets)s bets paid otherwise; "
                        "the house gains %(amount)s"
                    )
                    if row["difference"] >= 0
                    else _(
                        "%(table)s: %(changed)s of %(bets)s bets paid otherwise; "
                        "the house loses %(amount)s"
                    )
                )
                % {
                    "table": row["table"],
                    "changed": _whole(row["changed"]),
                    "bets": _whole(row["bets"]),
                    "amount": format_money(abs(row["difference"]), row["currency"]),
                },
            )
            for row in found.tables.rows
        ],
        name="what-if-by-table",
        title=_("Difference for the house by table"),
        money=found.currency,
        above="#0b6b3a",
        below="#b00020",
    )  # the house result's colours: green, the house wins
    return [found.tables, found.players], [
        (
            _("What if %(changes)s: the difference for the house, by table") % {"changes": changes},
            bars,
        )
    ]


SCREENS: dict[str, Callable[[date, str | None, dict[str, str]], Made]] = {
    "counters": _counters,
    "accuracy": _accuracy,
    "dealers": _dealers,
    "what-if": _what_if,
}


def _page_parameter(screen: Screen, report: Report) -> str:
    """``page`` for the screen's long list, ``<report>_page`` for any other table of it."""
    return "page" if report.name == screen.paged else f"{report.name}_page"


def _paged(request: HttpRequest, screen: Screen, report: Report) -> dict[str, Any]:
    """The page of the report's rows asked for (the first; the last past the end) and
    links to the pages before and after it, the rest of the query kept."""
    parameter = _page_parameter(screen, report)
    page = Paginator(report.rows, PAGE_SIZE).get_page(request.GET.get(parameter))

    def link(number: int) -> str:
        query = request.GET.copy()
        query[parameter] = str(number)
        return "?" + query.urlencode() + f"#report-{report.name}"

    table = screen_table(report, list(page.object_list), every_page=page.paginator.num_pages > 1)
    table["page"] = {
        "where": _("page %(number)s of %(pages)s (rows %(first)s-%(last)s of %(rows)s)")
        % {
            "number": _whole(page.number),
            "pages": _whole(page.paginator.num_pages),
            "first": _whole(page.start_index()),
            "last": _whole(page.end_index()),
            "rows": _whole(page.paginator.count),
        },
        "shown": page.paginator.num_pages > 1,
        "number": page.number,
        "previous": link(page.previous_page_number()) if page.has_previous() else None,
        "next": link(page.next_page_number()) if page.has_next() else None,
    }
    return table


def analytics_index(request: HttpRequest) -> HttpResponse:
    """The analytics' screens, a line each on what they show, opened on the latest
    gaming day with play."""
    day = reports.latest_day()
    query = "?" + urlencode({"day": day.isoformat()}) if day else ""
    context = {
        **_site_context(request),
        "title": pgettext("analytics", "Analytics"),
        "words": words(),
        "introduction": _(
            "The pit's analytics, each read from the record of a gaming day: a chart, its "
            "tables and their CSV."
        ),
        "which_day": _(
            "Each opens on %(day)s, the latest gaming day with play; choose another day on "
            "the screen."
        )
        % {"day": date_format(day)}
        if day
        else _("No gaming day has been played yet."),
        "screens": [(s, reverse("analytics", args=[s.name]) + query) for s in SCREENS_SHOWN],
    }
    return TemplateResponse(request, "admin/analytics/index.html", context)


def analytics_view(request: HttpRequest, name: str) -> HttpResponse:
    if name not in SCREENS:
        raise Http404(_("No analytics report %(name)s.") % {"name": repr(name)})
    screen = SCREEN[name]
    day, table = _query(request)
    options = what_if_changes(request.GET) if name == "what-if" else {}
    shown: list[Report] = []
    drawn: list[tuple[str, SafeString]] = []
    problem = None
    if day is not None:
        try:
            shown, drawn = SCREENS[name](day, table, options)
        except reports.AnalyticsError as error:
            problem = str(error)
    query = {"day": day.isoformat() if day else "", **({"table": table} if table else {})}
    own = {**query, **options}
    context = {
        **_site_context(request),
        "title": screen.title,
        "name": name,
        "shows": screen.shows,
        "pages": [
            (s.name, s.title, reverse("analytics", args=[s.name]) + "?" + urlencode(query))
            for s in SCREENS_SHOWN
        ],
        "words": words(),
        "day": day,
        "which_day": (
            _("Gaming day %(day)s, the latest with play.")
            if day == reports.latest_day()
            else _("Gaming day %(day)s.")
        )
        % {"day": date_format(day)}
        if day
        else "",
        "table": table,
        "problem": problem,
        "options": options,
        "choices": [(k, WHAT_IF_LABELS[k], values) for k, values in WHAT_IF_CHOICES.items()]
        if name == "what-if"
        else [],
        "tables_played": list(
            m.TableDay.objects.filter(gaming_day=day)
            .values_list("table__stream", flat=True)
            .order_by("table__stream")
        )
        if day
        else [],
        "charts": drawn,
        "reports": [_paged(request, screen, r) for r in shown],
        "csv": {
            r.name: reverse("analytics-csv", args=[name]) + "?" + urlencode({**own, "part": r.name})
            for r in shown
        },
    }
    return TemplateResponse(request, "admin/analytics/report.html", context)


def analytics_csv(request: HttpRequest, name: str) -> HttpResponse:
    if name not in SCREENS:
        raise Http404(_("No analytics report %(name)s.") % {"name": repr(name)})
    day, table = _query(request)
    if day is None:
        raise Http404(_("No gaming day has been played yet."))
    try:
        shown, _drawn = SCREENS[name](
            day, table, what_if_changes(request.GET) if name == "what-if" else {}
        )
    except reports.AnalyticsError as error:
        raise Http404(str(error)) from None
    part = request.GET.get("part") or shown[0].name
    report = next((r for r in shown if r.name == part), None)
    if report is None:
        raise Http404(
            _("The %(report)s report has no part %(part)s.") % {"report": name, "part": repr(part)}
        )
    response = HttpResponse(report.as_csv(), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = (
        f'attachment; filename="{report.name}-{day.isoformat()}{"-" + table if table else ""}.csv"'
    )
    return response


def admin_module() -> dict[str, Any]:
    """The analytics' screens as a module of the admin's index of every screen
    (``tables/templatetags/analytics_screens.py``): a row each, what it shows as the row's
    tooltip, the analytics' index in the caption."""
    return {
        "caption": _("Analytics: counters, strategy, dealers, what-if"),
        "index": reverse("analytics-index"),
        "index_title": _("Every analytics screen, a line each on what it shows"),
        "view": pgettext("analytics", "View"),
        "screens": [
            (s.name, s.title, s.shows, reverse("analytics", args=[s.name])) for s in SCREENS_SHOWN
        ],
    }


def _site_context(request: HttpRequest) -> dict[str, Any]:
    from django.contrib import admin

    return admin.site.each_context(request)
