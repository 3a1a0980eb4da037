"""The analytics' screens in the admin: counter detection, strategy accuracy (and, as
they land, dealer performance and what-if re-settlement) - each a chart drawn on the
server, its tables, and its CSV. The views parse and authorise; the reports are
:mod:`tables.analytics.reports`, the charts :mod:`tables.analytics.charts`. Every view
is wrapped by the admin site: any staff member may read them, as any staff member may
read the rounds over REST (``tables.api.MayViewRounds``); the access log records each
read like any other admin page."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from typing import Any

from django.http import Http404, HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.http import urlencode
from django.utils.safestring import SafeString

from audit.presenting.reports import Report
from audit.record.money import format_money
from tables import models as m

from . import charts, reports

PAGES = (
    ("counters", "Counter detection"),
    ("accuracy", "Strategy accuracy"),
    ("dealers", "Dealer performance"),
    ("what-if", "What-if re-settlement"),
)
# the payouts the what-if screen offers (any ratio works over REST)
WHAT_IF_CHOICES = {
    "natural_pays": ("6:5", "7:5", "1:1", "3:2", "2:1"),
    "insurance_pays": ("2:1", "3:2", "1:1"),
}
WHAT_IF_DEFAULT = {"natural_pays": "6:5"}
Made = tuple[list[Report], list[tuple[str, SafeString]]]


def _query(request: HttpRequest) -> tuple[date | None, str | None]:
    wanted = request.GET.get("day")
    day = reports.latest_day()
    if wanted:
        try:
            day = date.fromisoformat(wanted)
        except ValueError:
            raise Http404(f"{wanted!r} is not a gaming day (YYYY-MM-DD).") from None
    table = request.GET.get("table") or None
    return day, table


def screen_table(report: Report) -> dict[str, Any]:
    """A report as the screen's table: its screen columns, each cell as a person reads it."""
    columns = [c for c in report.columns if c.screen]
    return {
        "name": report.name,
        "title": report.title,
        "columns": columns,
        "rows": [
            {
                "flagged": row.get("flagged") == "yes",
                "cells": [(c.kind, report.display(row, c)) for c in columns],
            }
            for row in report.rows
        ],
        "totals": [
            [(c.kind, report.total_display(row, c)) for c in columns] for row in report.totals
        ],
    }


def _counters(day: date, table: str | None, options: dict[str, str]) -> Made:
    found = reports.counters(day=day, table=table)
    return [found.report], [("Mean bet by true count", charts.bet_against_count(found.players))]


def _accuracy(day: date, table: str | None, options: dict[str, str]) -> Made:
    found = reports.accuracy(day=day, table=table)
    costly = [p for p in found.players if p.errors][:15]
    bars = charts.bars(
        [
            (
                p.player,
                p.cost,
                (
                    f"{p.player}: {p.errors} errors in {p.decisions} decisions, "
                    f"{format_money(p.cost, found.currency)} of expected value given up"
                ),
            )
            for p in costly
        ],
        name="cost-by-player",
        title="Expected value the errors gave up",
        money=found.currency,
    )
    return [found.report, found.errors], [("Expected value lost to errors, by player", bars)]


def _dealers(day: date, table: str | None, options: dict[str, str]) -> Made:
    found = reports.dealers(day=day, table=table)
    ranked = [r for r in found.rows if r.errors_per_hour is not None][:20]
    bars = charts.bars(
        [
            (
                f"{r.dealer} {r.shift}",
                r.errors,
                (
                    f"{r.dealer}, shift {r.shift}: {r.errors} errors in {r.rounds} rounds, "
                    f"{float(r.hours):.2f} h dealt ({float(r.errors_per_hour or 0):.2f} an hour)"
                ),
            )
            for r in ranked
        ],
        name="errors-by-dealer",
        title="Errors found in each dealer's rounds",
    )
    return [found.report], [("Errors by dealer and shift (the most per hour first)", bars)]


def what_if_changes(params: Any) -> dict[str, str]:
    """The payouts asked for (a screen without any: 6:5 naturals); the table's own
    payout where one is left out."""
    changes = {k: params[k] for k in WHAT_IF_CHOICES if params.get(k)}
    return changes or dict(WHAT_IF_DEFAULT)


def _what_if(day: date, table: str | None, options: dict[str, str]) -> Made:
    found = reports.what_if(day=day, table=table, changes=options)
    changes = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in options.items())
    bars = charts.bars(
        [
            (
                row["table"],
                row["difference"],
                (
                    f"{row['table']}: {row['changed']} of {row['bets']} bets paid otherwise; the house "
                    f"{'gains' if row['difference'] >= 0 else 'loses'} "
                    f"{format_money(abs(row['difference']), row['currency'])}"
                ),
            )
            for row in found.tables.rows
        ],
        name="what-if-by-table",
        title="Difference for the house by table",
        money=found.currency,
        above="#0b6b3a",
        below="#b00020",
    )  # the house result's colours: green, the house wins
    return [found.tables, found.players], [
        (f"What if {changes}: the difference for the house, by table", bars)
    ]


SCREENS: dict[str, Callable[[date, str | None, dict[str, str]], Made]] = {
    "counters": _counters,
    "accuracy": _accuracy,
    "dealers": _dealers,
    "what-if": _what_if,
}


def analytics_view(request: HttpRequest, name: str) -> HttpResponse:
    if name not in SCREENS:
        raise Http404(f"No analytics report {name!r}.")
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
        "title": dict(PAGES)[name],
        "name": name,
        "pages": [
            (n, t, reverse("analytics", args=[n]) + "?" + urlencode(query)) for n, t in PAGES
        ],
        "day": day,
        "table": table,
        "problem": problem,
        "options": options,
        "choices": [(k, k.replace("_", " "), values) for k, values in WHAT_IF_CHOICES.items()]
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
        "reports": [screen_table(r) for r in shown],
        "csv": {
            r.name: reverse("analytics-csv", args=[name]) + "?" + urlencode({**own, "part": r.name})
            for r in shown
        },
    }
    return TemplateResponse(request, "admin/analytics/report.html", context)


def analytics_csv(request: HttpRequest, name: str) -> HttpResponse:
    if name not in SCREENS:
        raise Http404(f"No analytics report {name!r}.")
    day, table = _query(request)
    if day is None:
        raise Http404("No gaming day has been played yet.")
    try:
        shown, _ = SCREENS[name](
            day, table, what_if_changes(request.GET) if name == "what-if" else {}
        )
    except reports.AnalyticsError as error:
        raise Http404(str(error)) from None
    part = request.GET.get("part") or shown[0].name
    report = next((r for r in shown if r.name == part), None)
    if report is None:
        raise Http404(f"The {name} report has no part {part!r}.")
    response = HttpResponse(report.as_csv(), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = (
        f'attachment; filename="{report.name}-{day.isoformat()}{"-" + table if table else ""}.csv"'
    )
    return response


def _site_context(request: HttpRequest) -> dict[str, Any]:
    from django.contrib import admin

    return admin.site.each_context(request)
