"""The ledger's screens for accounting (Django admin).

- **Reconciliation** of a table-day (the Reconciliation's change view, template
  ``admin/ledger/reconciliation/review.html``): the four wins side by side - chip-count,
  recorded, replayed, theoretical (with its SD and 95% interval) - with the drop and
  hold; each variance with its explanations and the slips and counts behind it, a
  variance the record does not explain highlighted; the day's shifts; its findings; the
  sign-off, with the buttons to sign off or reopen for who may (``ledger.sign_off``).
- **Reports** (``/admin/ledger/reconciliation/reports/``): win against theoretical with
  its 95% band by day and hold % by table, drawn as inline SVG; the statistics by
  table, game, pit or casino for a day, month or year to date beside a year before; each
  with its CSV.
- Lists of reconciliations, fill and credit slips (with their state), inventory slips,
  drops, markers and sign-offs; tables, whose pit may be changed here.

Addresses are natural keys (a rebuild of the read models gives rows new ids): a
table-day's reconciliation is ``/admin/ledger/reconciliation/<table>/<gaming day>/``.
Everything but a table's pit is read-only: the read models are rebuilt from events,
and a sign-off is an event. Money is shown by the one formatter.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from datetime import date, timedelta
from fractions import Fraction
from typing import Any

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import NoReverseMatch, URLPattern, path, re_path, reverse
from django.utils.html import format_html, format_html_join
from django.utils.http import urlencode
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext_lazy

from audit.access.devices import device_of
from audit.admin import GAMING_DAY, ReadOnlyAdmin
from audit.presenting.reports import TOTAL
from audit.presenting.vocabulary import kind_sentence, kind_title, severity_text, status_text
from audit.record.findings import KINDS
from audit.record.money import format_money, not_available
from audit.store.errors import StoreError
from audit.store.streams import STREAM_REGEX
from ledger.books.stats import percent

from . import accounting_admin, charts, reports, selectors, signoff
from . import models as m
from .reconciliation import SIGNED, figures_hash, signed_figures


class NoDevices:
    """A device account sees none of the ledger, whatever it was given by mistake."""

    def has_module_permission(self, request: HttpRequest) -> bool:
        return device_of(request.user) is None and super().has_module_permission(request)  # type: ignore[misc]

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return device_of(request.user) is None and super().has_view_permission(request, obj)  # type: ignore[misc]

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return device_of(request.user) is None and super().has_change_permission(request, obj)  # type: ignore[misc]


_DAY = r"\d{4}-\d{2}-\d{2}"
TABLE = ("table__stream", admin.AllValuesFieldListFilter)


_day = selectors.day_text


def _money(amount: int | None, currency: str, *, signed: bool = False) -> str:
    return selectors.money(amount, currency, signed=signed)


_CODE_AND_AMOUNT = re.compile(r"\b([A-Z]{3}) (?=\d)")


def unbroken(text: str) -> str:
    """A finding's text with each amount held together (``EUR`` and its figure never on
    two lines); the locale's forms already hold theirs with non-breaking spaces."""
    return _CODE_AND_AMOUNT.sub("\\1\u00a0", text or "")


def one_line(text: str) -> str:
    """A list's figure kept on one line (an amount or a date never breaks inside)."""
    return format_html('<span class="nowrap">{}</span>', text)


def reconciliation_url(table: str, day: date | str) -> str:
    return reverse("admin:ledger_reconciliation_key", kwargs={"table": table, "day": str(day)})


def _event_url(position: int | None) -> str | None:
    if position is None:
        return None
    try:
        return reverse("admin:audit_event_change", args=[position])
    except NoReverseMatch:
        return None


class MoneyColumns:
    """List columns of money, by the one formatter."""

    @staticmethod
    def column(name: str, title: Any, *, signed: bool = False) -> Any:
        @admin.display(description=title, ordering=name)
        def show(self: Any, obj: Any) -> str:
            currency = obj.currency if hasattr(obj, "currency") else (obj.table.currency or "XXX")
            return one_line(_money(getattr(obj, name), currency, signed=signed))

        return show


class Unexplained(admin.SimpleListFilter):
    title = gettext_lazy("variances")
    parameter_name = "unexplained"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        # "none beyond the threshold" says nothing of a day's counts: its state does
        return [("yes", _("not explained")), ("no", _("none beyond the threshold"))]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        if self.value() in ("yes", "no"):
            return queryset.filter(unexplained=self.value() == "yes")
        return queryset


class State(admin.SimpleListFilter):
    title = gettext_lazy("state")
    parameter_name = "state"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return list(m.Reconciliation.State.choices)

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        return queryset.filter(state=self.value()) if self.value() else queryset


# the badge of each state on the screens: good, bad (something to do), quiet, signed
STATE_BADGE = {
    "reconciled": "ok",
    "counted": "bad",
    "incomplete": "bad",
    "open": "quiet",
    "replay_pending": "quiet",
    "no_drop_box": "quiet",
    "signed": "signed",
    "adjusted": "signed",
}


class Pit(admin.SimpleListFilter):
    title = gettext_lazy("pit")
    parameter_name = "pit"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [(p, p) for p in selectors.pits()]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        return queryset.filter(table__pit=self.value()) if self.value() else queryset


@admin.register(m.Reconciliation)
class ReconciliationAdmin(NoDevices, ReadOnlyAdmin):
    """The reconciled table-days; each opens its reconciliation page."""

    list_display = (
        "table_day",
        "pit",
        "ruleset",
        "drop_shown",
        "chip_win_shown",
        "recorded_win_shown",
        "replayed_win_shown",
        "theoretical_win_shown",
        "hold_shown",
        "variance_shown",
        "state_shown",
    )
    list_filter = (State, Unexplained, Pit, "ruleset", GAMING_DAY, TABLE)
    # the latest gaming day first: the list opens on the day an accountant works on
    ordering = ("-gaming_day", "table__stream")
    review_template = "admin/ledger/reconciliation/review.html"
    reports_template = "admin/ledger/reports.html"
    key_pattern = rf"(?P<table>{STREAM_REGEX})/(?P<day>{_DAY})"

    chip_win_shown = MoneyColumns.column("chip_win", gettext_lazy("chip-count win"), signed=True)
    recorded_win_shown = MoneyColumns.column(
        "recorded_win", gettext_lazy("recorded win"), signed=True
    )
    replayed_win_shown = MoneyColumns.column(
        "replayed_win", gettext_lazy("replayed win"), signed=True
    )
    theoretical_win_shown = MoneyColumns.column(
        "theoretical_win", gettext_lazy("theoretical win"), signed=True
    )

    def get_queryset(self, request: HttpRequest) -> QuerySet[m.Reconciliation]:
        return super().get_queryset(request).filter(shift="").select_related("table")

    def get_list_display(self, request: HttpRequest) -> Any:
        # a casino that names no pits has a column of dashes: left out
        shown = super().get_list_display(request)
        return shown if selectors.pits() else tuple(c for c in shown if c != "pit")

    @admin.display(description=gettext_lazy("table-day"), ordering="gaming_day")
    def table_day(self, obj: m.Reconciliation) -> str:
        return one_line(f"{obj.table.stream} {_day(obj.gaming_day)}")

    @admin.display(description=gettext_lazy("drop"), ordering="drop_cash")
    def drop_shown(self, obj: m.Reconciliation) -> str:
        return one_line(_money(obj.drop, obj.currency))

    @admin.display(description=gettext_lazy("pit"), ordering="table__pit")
    def pit(self, obj: m.Reconciliation) -> str:
        return obj.table.pit or "-"

    @admin.display(description=gettext_lazy("hold"))
    def hold_shown(self, obj: m.Reconciliation) -> str:
        return one_line(percent(selectors.hold_of(obj)))

    @admin.display(description=gettext_lazy("variance"), ordering="unexplained")
    def variance_shown(self, obj: m.Reconciliation) -> str:
        text = _money(obj.chip_variance, obj.currency, signed=True)
        if obj.unexplained:
            return format_html(
                '<strong class="unexplained" style="color:#b00020">'
                '<span class="amount nowrap">{}</span> {}</strong>',
                text,
                _("not explained"),
            )
        return one_line(text)

    @admin.display(description=gettext_lazy("state"), ordering="state")
    def state_shown(self, obj: m.Reconciliation) -> str:
        return format_html(
            '<span class="state state-{}" style="{}">{}</span>',
            obj.state,
            "color:#b00020;font-weight:bold" if STATE_BADGE.get(obj.state) == "bad" else "",
            selectors.state_text(obj),
        )

    # --- addresses by natural key ---------------------------------------------------------------

    def get_urls(self) -> list[URLPattern]:
        view = self.admin_site.admin_view
        return [
            path("reports/", view(self.reports_view), name="ledger_reports"),
            re_path(
                r"^reports/(?P<name>statistics|hold|daily|drop)\.csv$",
                view(self.report_csv),
                name="ledger_report_csv",
            ),
            *accounting_admin.urls(self),
            re_path(
                rf"^{self.key_pattern}/$", view(self.key_view), name="ledger_reconciliation_key"
            ),
            *super().get_urls(),
        ]

    def get_object(
        self, request: HttpRequest, object_id: str, from_field: str | None = None
    ) -> Any:
        match = re.fullmatch(self.key_pattern, object_id)
        if match is None:
            return (
                super().get_object(request, object_id, from_field) if object_id.isdigit() else None
            )
        try:
            day = date.fromisoformat(match["day"])
        except ValueError:
            return None
        return (
            self.get_queryset(request).filter(table__stream=match["table"], gaming_day=day).first()
        )

    def key_view(self, request: HttpRequest, table: str, day: str) -> HttpResponse:
        return self.change_view(request, f"{table}/{day}")

    def get_changelist(self, request: HttpRequest, **kwargs: Any) -> Any:
        from django.contrib.admin.views.main import ChangeList

        class ByKey(ChangeList):
            def url_for_result(self, result: m.Reconciliation) -> str:
                return reconciliation_url(result.table.stream, result.gaming_day)

        return ByKey

    # --- the reconciliation page ------------------------------------------------------------------

    def change_view(
        self,
        request: HttpRequest,
        object_id: str,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> HttpResponse:
        row = self.get_object(request, object_id)
        if row is None:
            raise Http404(f"No reconciliation {object_id!r}.")
        if not self.has_view_permission(request, row):
            raise PermissionDenied
        table, day = row.table.stream, row.gaming_day
        may_sign = request.user.has_perm("ledger.sign_off")
        if request.method == "POST":
            if not may_sign:
                raise PermissionDenied
            action, note = request.POST.get("action"), request.POST.get("note", "")
            try:
                if action == "sign_off":
                    signoff.day_sign_off(table=table, gaming_day=day, user=request.user, note=note)
                    self.message_user(
                        request,
                        _("%(table)s %(day)s signed off.") % {"table": table, "day": _day(day)},
                        messages.SUCCESS,
                    )
                elif action == "reopen":
                    signoff.day_reopen(table=table, gaming_day=day, user=request.user, note=note)
                    self.message_user(
                        request,
                        _("%(table)s %(day)s reopened.") % {"table": table, "day": _day(day)},
                        messages.SUCCESS,
                    )
                else:
                    self.message_user(
                        request,
                        _("Unknown action %(action)r.") % {"action": action},
                        messages.ERROR,
                    )
            except StoreError as error:
                self.message_user(request, str(error), messages.ERROR)
            return HttpResponseRedirect(reconciliation_url(table, day))
        detail = selectors.day_detail(table=table, day=day)
        assert detail is not None
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": _("Reconciliation of %(table)s, gaming day %(day)s")
            % {"table": table, "day": _day(day)},
            "subtitle": None,
            "original": row,
            "has_view_permission": True,
            "may_sign": may_sign,
            **accounting_admin.hub(request, day=day, table=table),
            **review_context(detail),
            **(extra_context or {}),
        }
        request.current_app = self.admin_site.name
        return TemplateResponse(request, self.review_template, context)

    # --- reports ------------------------------------------------------------------------------------

    def _report_parameters(self, request: HttpRequest) -> dict[str, Any]:
        today = selectors.latest_day_with_play()

        def day_of(name: str, default: date) -> date:
            try:
                return date.fromisoformat(request.GET.get(name) or default.isoformat())
            except ValueError:
                return default

        to = day_of("to", today)
        since = day_of("from", to - timedelta(days=29))
        since = min(since, to)
        filters = {k: request.GET.get(k) or None for k in ("table", "game", "pit")}
        group = request.GET.get("group") if request.GET.get("group") in reports.GROUPS else "table"
        period = (
            request.GET.get("period")
            if request.GET.get("period") in ("shift", "day", "mtd", "ytd")
            else "mtd"
        )
        return {
            "day_from": since,
            "day_to": to,
            "filters": filters,
            "group": group,
            "period": period,
        }

    def reports_view(self, request: HttpRequest) -> HttpResponse:
        if not self.has_view_permission(request):
            raise PermissionDenied
        p = self._report_parameters(request)
        daily = reports.daily(day_from=p["day_from"], day_to=p["day_to"], **p["filters"])
        hold = reports.hold(day_from=p["day_from"], day_to=p["day_to"], **p["filters"])
        statistics = reports.statistics(
            group=p["group"], period=p["period"], day=p["day_to"], **p["filters"]
        )
        currencies = sorted({r["currency"] for r in daily.rows})
        band = {
            c: charts.win_band(
                [
                    charts.DayPoint(
                        r["gaming_day"],
                        r["house_result"],
                        r["theoretical_win"],
                        r["interval_low"],
                        r["interval_high"],
                    )
                    for r in daily.rows
                    if r["currency"] == c
                ],
                c,
            )
            for c in currencies
        }
        bars = charts.hold_by_table(
            [
                charts.HoldBar(
                    r["table"],
                    r["hold"],
                    r["theoretical_hold"],
                    r["drop"],
                    r["win"],
                    r["currency"],
                    r["left_out"],
                )
                for r in hold.rows
            ]
        )
        query = {
            "from": p["day_from"].isoformat(),
            "to": p["day_to"].isoformat(),
            **{k: v for k, v in p["filters"].items() if v},
        }
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": _("Ledger reports"),
            "subtitle": None,
            "parameters": p,
            "query": query,
            "bands": band,
            "bars": bars,
            "tables": [paged_table(_report_table(r), request) for r in (statistics, hold, daily)],
            **accounting_admin.hub(request, day=p["day_to"], table=p["filters"]["table"]),
            "hub_current": "reports",
            "csv": {
                name: reverse("admin:ledger_report_csv", args=[name])
                + "?"
                + urlencode({**query, "group": p["group"], "period": p["period"]})
                for name in ("statistics", "hold", "daily", "drop")
            },
            "groups": [(g, _(GROUP_WORDS[g])) for g in reports.GROUPS],
            "periods": [(key, _(PERIOD_WORDS[key])) for key in ("shift", "day", "mtd", "ytd")],
            "games": selectors.games(),
            "pits": selectors.pits(),
            "table_codes": list(m.LedgerTable.objects.values_list("stream", flat=True)),
        }
        request.current_app = self.admin_site.name
        return TemplateResponse(request, self.reports_template, context)

    def report_csv(self, request: HttpRequest, name: str) -> HttpResponse:
        if not self.has_view_permission(request):
            raise PermissionDenied
        p = self._report_parameters(request)
        with accounting_admin.machine_read():
            if name == "statistics":
                report = reports.statistics(
                    group=p["group"], period=p["period"], day=p["day_to"], **p["filters"]
                )
            else:
                report = getattr(reports, name)(
                    day_from=p["day_from"], day_to=p["day_to"], **p["filters"]
                )
            text = report.as_csv()
        response = HttpResponse(text, content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = (
            f'attachment; filename="ledger-{name}-{p["day_to"].isoformat()}.csv"'
        )
        return response


GROUP_WORDS = {
    "table": gettext_lazy("table"),
    "game": gettext_lazy("game"),
    "pit": gettext_lazy("pit"),
    "casino": gettext_lazy("casino"),
}
PERIOD_WORDS = {
    "shift": gettext_lazy("each shift"),
    "day": gettext_lazy("the day"),
    "mtd": gettext_lazy("month to date"),
    "ytd": gettext_lazy("year to date"),
}


def paged_table(shown: dict[str, Any], request: HttpRequest) -> dict[str, Any]:
    """A report's screen table with only the rows of the page asked (its totals stay: they
    are of every row, as the CSV's)."""
    shown["rows"], shown["paging"] = accounting_admin.paged(shown["rows"], request)
    return shown


def _report_table(report: reports.Report) -> dict[str, Any]:
    """A report as the screen's table: its screen columns, but for those with nothing in
    them (the shift of a report not by shift)."""
    columns = [
        c
        for c in report.columns
        if c.screen and any(row.get(c.key) is not None for row in report.rows)
    ]
    columns = columns or [c for c in report.columns if c.screen]
    if len({row.get("currency") for row in report.rows}) <= 1:  # each amount names it
        columns = [c for c in columns if c.key != "currency"]
    # the table-days a row's hold leaves out, named under the table (the CSV and the API
    # have them in the row: left_out_days)
    label = next((c for c in report.columns if c.kind == "text"), None)
    left_out = []
    for row in report.rows:
        if row.get("left_out_days"):
            name = report.display(row, label) if label else ""
            left_out.append(
                ("" if row["left_out_days"].startswith(name) else name, row["left_out_days"])
            )
    return {
        "name": report.name,
        "title": report.title,
        "columns": [(_(c.title), c.kind) for c in columns],
        "left_out": left_out,
        "rows": [[(c.kind, shown(report, row, c)) for c in columns] for row in report.rows],
        "totals": [
            [(c.kind, shown(report, row, c, total=True)) for c in columns] for row in report.totals
        ],
    }


def shown(report: reports.Report, row: dict[str, Any], column: Any, *, total: bool = False) -> str:
    """A report's cell on the screen: a yes-or-no in words (``n/a`` where not known), the
    rest as the report shows it (money by the one formatter)."""
    if column.kind == "bool" and (not total or column.key in row):
        value = row.get(column.key)
        return not_available() if value is None else (_("yes") if value else _("no"))
    text = report.total_display(row, column) if total else report.display(row, column)
    if column.kind == "text":
        if text in (TOTAL, "casino"):
            return _(text)
        return accounting_admin.screen_words(text)
    return accounting_admin.counted(row, column, text)


def _figure(
    label: str, amount: int | None, currency: str, *, signed: bool = True, note: str = ""
) -> dict[str, Any]:
    return {
        "label": label,
        "text": _money(amount, currency, signed=signed),
        "known": amount is not None,
        "note": note,
    }


# The ledger imports nothing of the app that shows rounds, nor knows its URL names: the
# project registers where a table-day's rounds are (casino.apps). Without it, no link.
_ROUNDS: list[Callable[[str, date], str | None]] = []


def rounds_link_register(source: Callable[[str, date], str | None]) -> None:
    """``source(table, gaming_day) -> the address of that table-day's rounds, or None``;
    the last registered wins."""
    _ROUNDS[:] = [source]


def _rounds_url(table: str, day: date) -> str | None:
    return _ROUNDS[0](table, day) if _ROUNDS else None


def _chip_note(row: m.Reconciliation) -> str:
    """What the chip-count win is, or why there is none - in the record's own terms."""
    if row.chip_win is not None:
        return _("closer - opener + credits - fills + drop")
    if not row.drop_box:
        return _("none: a game without a chip tray or drop box")
    lacking = [
        k for k in row.missing if k in ("opener_missing", "closer_missing", "drop_not_counted")
    ]
    if lacking:
        return _("not computed: %(what)s") % {"what": selectors.missing_words(lacking)}
    held = [
        name
        for name, value in (
            (_("no opener"), row.opener),
            (_("no closer"), row.closer),
            (_("no drop count"), row.drop),
        )
        if value is None
    ]
    return _("not computed: %(what)s in this period") % {"what": ", ".join(held)}


def _theoretical_note(row: m.Reconciliation, sd: str, interval: str) -> str:
    """What the theoretical win is of: the initial stakes x the edge per initial stake,
    insurance by its own edge; or why there is none."""
    c = row.currency
    if row.theoretical_win is None:
        if not row.edge:
            return _("the engine knows no edge for this game")
        if row.initial_stakes is None:
            return _("n/a: folded before the books kept the initial stakes (fold the table again)")
        return _("n/a: insurance was staked and its edge is not known")
    text = _("initial stakes %(stakes)s x house edge %(edge)s") % {
        "stakes": _money(row.initial_stakes, c, signed=False),
        "edge": percent(Fraction(row.edge), 3),
    }
    if row.insurance_stakes and row.insurance_edge:
        text += _(" + insurance %(stakes)s x its edge %(edge)s") % {
            "stakes": _money(row.insurance_stakes, c, signed=False),
            "edge": percent(Fraction(row.insurance_edge), 2),
        }
    text += _(" (handle %(handle)s)") % {"handle": _money(row.handle, c, signed=False)}
    return "; ".join([text, sd, *([interval] if interval else [])])


_SLIP = re.compile(r"^slip (?P<slip>\S+) ")
_BET = re.compile(r" bet (?P<bet>\S+)")
_ROUND = re.compile(r" round (?P<round>\d+)")


def known_text(known: dict[str, Any], currency: str) -> str:
    """A known difference (``ledger.books.reconcile.Known``, as the read model keeps it)
    in the active language: what it is and the amount it names; a replay difference by
    its finding kind's title, with the bet and round. The record's own English words
    where the kind is not one of these."""
    kind, amount, what = known.get("kind", ""), known.get("amount") or 0, known.get("what", "")
    signed = _money(amount, currency, signed=True)
    if kind == "correction":
        return _(
            "corrections changed the recorded win by %(amount)s, paid or taken at the cage"
        ) % {"amount": signed}
    if kind == "duplicate_slip" and (slip := _SLIP.match(what)):
        return _("slip %(slip)s (%(amount)s) recorded twice, counted once") % {
            "slip": slip["slip"],
            "amount": _money(amount, currency),
        }
    if kind == "between_shifts":
        return _("the tray changed by %(amount)s between shifts") % {"amount": signed}
    if kind == "drop_chips":
        return _("chips found in the drop box (%(amount)s), from players' hands, not from play") % {
            "amount": _money(amount, currency)
        }
    if kind in KINDS:
        parts = [kind_title(kind)]
        if bet := _BET.search(what):
            parts.append(_("bet %(bet)s") % {"bet": bet["bet"]})
        if number := _ROUND.search(what):
            parts.append(_("round %(round)s") % {"round": number["round"]})
        return f"{', '.join(parts)}: {signed}"
    return what


def period_context(row: m.Reconciliation) -> dict[str, Any]:
    """One period's four wins, drop, hold and variances, as the page shows them."""
    c = row.currency
    sd = (
        _("SD n/a (no variance of the game yet)")
        if row.theoretical_sd is None
        else _("SD %(sd)s") % {"sd": _money(row.theoretical_sd, c)}
    )
    interval = (
        ""
        if row.interval_low is None
        else _("95%%: %(low)s to %(high)s")
        % {
            "low": _money(row.interval_low, c, signed=True),
            "high": _money(row.interval_high, c, signed=True),
        }
    )
    chip_open = any(f.get("kind") == "chip_variance" for f in row.findings)
    replay_open = any(f.get("kind") == "replay_variance" for f in row.findings)
    return {
        "row": row,
        "figures": [
            _figure(_("chip-count win"), row.chip_win, c, note=_chip_note(row)),
            _figure(
                _("recorded win"),
                row.recorded_win,
                c,
                note=_("the settlements as recorded, corrections applied"),
            ),
            _figure(
                _("replayed win"),
                row.replayed_win,
                c,
                note=_("the settlements the rules engine recomputes")
                if row.replayed_win is not None
                else _("no replay of this day yet"),
            ),
            _figure(
                _("theoretical win"),
                row.theoretical_win,
                c,
                note=_theoretical_note(row, sd, interval),
            ),
        ],
        "drop": _money(row.drop, c, signed=False),
        "hold": percent(selectors.hold_of(row)),
        "handle": _money(row.handle, c, signed=False),
        "variances": [
            {
                "name": _("chip-count against the record"),
                "amount": _money(row.chip_variance, c, signed=True),
                "open": chip_open,
                "known": [known_text(k, c) for k in row.explanations.get("chip", [])],
                "id": "chip",
            },
            {
                "name": _("replayed against recorded"),
                "amount": _money(row.replay_variance, c, signed=True),
                "open": replay_open,
                "known": [known_text(k, c) for k in row.explanations.get("replay", [])],
                "id": "replay",
            },
        ],
        "counts": [
            (_("opener"), _money(row.opener, c, signed=False)),
            (_("fills"), _money(row.fills, c, signed=False)),
            (_("credits"), _money(row.credits, c, signed=False)),
            (_("closer"), _money(row.closer, c, signed=False)),
            (_("drop: cash"), _money(row.drop_cash, c, signed=False)),
            (_("drop: markers"), _money(row.drop_markers, c, signed=False)),
            (_("drop: chips"), _money(row.drop_chips, c, signed=False)),
            (_("between shifts"), _money(row.between_shifts, c, signed=True)),
        ],
    }


def _chips(chips: dict[str, int] | None, currency: str) -> str:
    if not chips:
        return "-"
    return ", ".join(
        f"{n} x {format_money(int(d), currency)}"
        for d, n in sorted(chips.items(), key=lambda i: -int(i[0]))
    )


def _rate_text(rate: str) -> str:
    """An exact rate as a person reads it: ``1843/2000`` -> ``0.9215``; a rate with no
    finite decimal keeps its fraction beside eight decimals (``1/3 (0.33333333)``)."""
    value = Fraction(rate)
    denominator = value.denominator
    for prime in (2, 5):
        while denominator % prime == 0:
            denominator //= prime
    places = 8
    scaled = value * 10**places
    text = (
        f"{math.floor(scaled) // 10**places}.{math.floor(scaled) % 10**places:0{places}d}".rstrip(
            "0"
        ).rstrip(".")
    )
    return text if denominator == 1 else f"{rate} ({text})"


def review_context(detail: selectors.DayDetail) -> dict[str, Any]:
    """What the reconciliation page shows, shaped from :func:`selectors.day_detail`."""
    row = detail.day
    c = row.currency
    events = selectors.event_admin_urls(
        [step.get("event") for s in detail.slips for step in s.steps.values()]
        + [str(x.event_id) for x in detail.counts if x.event_id]
        + [
            str(e)
            for d in detail.drops
            for e in (d.removed_event, d.count_event, d.post_event)
            if e
        ]
    )
    slips = [
        {
            "slip": s,
            "value": _money(s.value, c, signed=False),
            "steps": [
                {
                    "name": word(name),
                    "chips": _chips(step.get("chips"), c),
                    "value": _money(step.get("value"), c, signed=False),
                    "url": _event_url(events.get(step.get("event") or "")),
                }
                for name, step in s.steps.items()
            ],
            "people": people_text(s.people),
            "kind": word(s.kind),
            "state": word(s.state),
        }
        for s in detail.slips
    ]
    counts = [
        {
            "count": x,
            "kind": word(x.kind),
            "chips": _chips(x.chips, c),
            "value": _money(x.value, c, signed=False),
            "url": _event_url(events.get(str(x.event_id))),
        }
        for x in detail.counts
    ]
    drops = [
        {
            "drop": d,
            "state": word(d.state),
            "counted": _money(d.counted, c, signed=False),
            "posted": _money(
                None
                if d.posted_cash is None
                else d.posted_cash + (d.posted_markers or 0) + (d.posted_chips or 0),
                c,
                signed=False,
            ),
            "cash": _money(d.counted_cash, c, signed=False),
            "markers": _money(d.counted_markers, c, signed=False),
            "chips": _money(d.counted_chips, c, signed=False),
            "url": _event_url(events.get(str(d.count_event)) if d.count_event else None),
        }
        for d in detail.drops
    ]
    findings = []
    for f in detail.findings:
        url = reverse("admin:audit_finding_change", args=[f.pk])
        findings.append(
            {
                "finding": f,
                "url": url,
                "kind": kind_title(f.kind),
                "sentence": kind_sentence(f.kind),
                "severity": severity_text(f.severity),
                "status": status_text(f.status),
                "expected": unbroken(f.expected),
                "recorded": unbroken(f.recorded),
            }
        )
    signed = detail.signoff
    table = row.table.stream
    return {
        "detail": detail,
        "table": table,
        "day": row.gaming_day,
        "currency": c,
        "whole": period_context(row),
        "shifts": [period_context(s) for s in detail.shifts],
        "slips": slips,
        "counts": counts,
        "drops": drops,
        # a marker in its own currency (a foreign one's is named by currency_mismatch or converted)
        "markers": [
            {
                "marker": mk,
                "amount": _money(mk.amount, mk.currency or c, signed=False),
                "redeemed": _money(mk.redeemed, mk.currency or c, signed=False),
                "outstanding": _money(mk.amount - mk.redeemed, mk.currency or c, signed=False),
            }
            for mk in detail.markers
        ],
        # amounts recorded in a foreign currency, booked at the day's rate: both amounts
        "conversions": [
            {
                "what": x["what"],
                "shift": x.get("shift") or "-",
                "recorded": _money(x["amount"], x["currency"], signed=False),
                "rate": f"1 {x['currency']} = {_rate_text(x['rate'])} {c}",
                "booked": _money(x["booked"], c, signed=False),
            }
            for x in row.conversions
        ],
        "findings": findings,
        "signoff": signed,
        "signed": signed is not None and signed.status == m.SignOff.Status.SIGNED,
        "state_text": selectors.state_text(row),
        "state_badge": STATE_BADGE.get(row.state, "quiet"),
        "exceptions": signoff.exceptions_of(row, detail.shifts),
        "exceptions_text": signoff.exceptions_text(signoff.exceptions_of(row, detail.shifts)),
        "signed_exceptions": signoff.exceptions_text(signed.exceptions)
        if signed is not None
        else "",
        "late": _late(row) if row.late else None,
        "day_text": _day(row.gaming_day),
        "previous_text": _day(detail.previous.gaming_day) if detail.previous else "",
        "next_text": _day(detail.next.gaming_day) if detail.next else "",
        "rounds_text": selectors.number_text(row.rounds),
        "bets_text": selectors.number_text(row.bets),
        "signed_at_text": _when(signed.signed_at) if signed is not None else "",
        "reopened_at_text": _when(signed.reopened_at) if signed is not None else "",
        "adjustments": [_adjustment(table, a, c) for a in row.adjustments],
        "adjustment_total": (
            _money(row.adjustment_win, c, signed=True),
            _money(row.adjustment_drop, c, signed=True),
            _money(row.adjustment_house_result, c, signed=True),
        ),
        "balance": [
            (selectors.account_label(account, c), _money(amount, c, signed=True))
            for account, amount in row.trial_balance.items()
        ],
        "balance_total": _money(sum(row.trial_balance.values()), c, signed=True),
        "previous_url": reconciliation_url(table, detail.previous.gaming_day)
        if detail.previous
        else None,
        "next_url": reconciliation_url(table, detail.next.gaming_day) if detail.next else None,
    }


_FIGURE_NAMES = {
    "opener": gettext_lazy("opener"),
    "closer": gettext_lazy("closer"),
    "fills": gettext_lazy("fills"),
    "credits": gettext_lazy("credits"),
    "drop": gettext_lazy("drop"),
    "handle": gettext_lazy("handle"),
    "chip_win": gettext_lazy("chip-count win"),
    "recorded_win": gettext_lazy("recorded win"),
    "replayed_win": gettext_lazy("replayed win"),
    "theoretical_win": gettext_lazy("theoretical win"),
}

# the people a slip names, by their role
_ROLES = {
    "requested_by": gettext_lazy("requested by"),
    "issued_by": gettext_lazy("issued by"),
    "carried_by": gettext_lazy("carried by"),
    "received_by": gettext_lazy("received by"),
    "dealer": gettext_lazy("dealer"),
    "supervisor": gettext_lazy("supervisor"),
    "voided_by": gettext_lazy("voided by"),
    "void_witnessed_by": gettext_lazy("void witnessed by"),
}


# the record's words for counts, slips and drop boxes (data in the record, shown in words)
_WORDS = {
    "opening": gettext_lazy("opening"),
    "closing": gettext_lazy("closing"),
    "fill": pgettext_lazy("slip kind", "fill"),
    "credit": pgettext_lazy("slip kind", "credit"),
    "requested": gettext_lazy("requested"),
    "issued": gettext_lazy("issued"),
    "received": gettext_lazy("received"),
    "released": gettext_lazy("released"),
    "voided": gettext_lazy("voided"),
    "complete": gettext_lazy("complete"),
    "removed": gettext_lazy("removed"),
    "counted": gettext_lazy("counted"),
    "posted": gettext_lazy("posted"),
}


def word(code: str) -> str:
    """One of the record's words (a count's kind, a slip's step or state, a drop box's
    state) in the active language; a word not known as it is."""
    return str(_WORDS.get(code, code))


def people_text(people: dict[str, str]) -> str:
    """``requested by D-1, issued by C-4``: who did what to a slip."""
    return ", ".join(
        f"{_ROLES.get(role, role.replace('_', ' '))} {who}" for role, who in people.items()
    )


def _moved(figures: dict[str, int], currency: str) -> str:
    """``recorded win -EUR 100.00, handle +EUR 50.00``: each figure's change."""
    return ", ".join(
        f"{_FIGURE_NAMES.get(n, n)} {_money(v, currency, signed=True)}" for n, v in figures.items()
    )


def _adjustment(table: str, adjustment: dict[str, Any], currency: str) -> dict[str, Any]:
    """An adjustment posted into a day, as its page shows it: from which signed day (a
    link back), what moved, the win and the drop it adds."""
    return {
        "day": adjustment["gaming_day"],
        "day_text": _day(date.fromisoformat(str(adjustment["gaming_day"]))),
        "url": reconciliation_url(table, adjustment["gaming_day"]),
        "moved": _moved(adjustment["figures"], currency),
        "win": _money(adjustment["win"], currency, signed=True),
        "drop": _money(adjustment["drop"], currency, signed=True),
        "house_result": _money(adjustment.get("house_result", 0), currency, signed=True),
    }


def _late(row: m.Reconciliation) -> dict[str, Any]:
    """A signed day's later events, as its page shows them: what moved and where it went."""
    c = row.currency
    into = row.adjusted_into
    return {
        "moved": _moved(row.late.get("figures", {}), c),
        "into": into,
        "into_text": _day(into) if into else "",
        "url": reconciliation_url(row.table.stream, into) if into else None,
    }


@admin.register(m.LedgerTable)
class LedgerTableAdmin(NoDevices, admin.ModelAdmin):
    """Tables as the ledger knows them; only the pit may be changed (then it stays,
    whatever ``LEDGER_PITS`` says)."""

    # the version folded is the ledger's own counter: on the table's page, not in the list
    list_display = ("stream", "pit", "pit_source", "currency", "ruleset", "days")
    list_filter = ("pit", "pit_source")
    fields = ("stream", "pit", "pit_source", "currency", "ruleset", "folded_version")
    readonly_fields = ("stream", "pit_source", "currency", "ruleset", "folded_version")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    @admin.display(description=gettext_lazy("gaming days"))
    def days(self, obj: m.LedgerTable) -> str:
        url = (
            reverse("admin:ledger_reconciliation_changelist")
            + "?"
            + urlencode({"table__stream": obj.stream})
        )
        return format_html('<a href="{}">{}</a>', url, obj.periods.filter(shift="").count())

    def save_model(self, request: HttpRequest, obj: m.LedgerTable, form: Any, change: bool) -> None:
        from .projection import table_set_pit

        table_set_pit(table=obj.stream, pit=obj.pit)


class _ByTable(NoDevices, ReadOnlyAdmin):
    def get_queryset(self, request: HttpRequest) -> QuerySet[Any]:
        return super().get_queryset(request).select_related("table")

    @admin.display(description=gettext_lazy("reconciliation"))
    def day_link(self, obj: Any) -> str:
        return format_html(
            '<a class="nowrap" href="{}">{} {}</a>',
            reconciliation_url(obj.table.stream, obj.gaming_day),
            obj.table.stream,
            _day(obj.gaming_day),
        )


@admin.register(m.Slip)
class SlipAdmin(_ByTable):
    list_display = (
        "number",
        "kind",
        "state_shown",
        "day_link",
        "shift",
        "value_shown",
        "people_shown",
        "void_reason",
    )
    list_filter = ("kind", "state", GAMING_DAY, TABLE)
    search_fields = ("number",)

    @admin.display(description=gettext_lazy("state"), ordering="state")
    def state_shown(self, obj: m.Slip) -> str:
        return word(obj.state)

    @admin.display(description=gettext_lazy("chips"), ordering="value")
    def value_shown(self, obj: m.Slip) -> str:
        return one_line(format_money(obj.value, obj.table.currency or "XXX"))

    @admin.display(description=gettext_lazy("people"))
    def people_shown(self, obj: m.Slip) -> str:
        return people_text(obj.people)


@admin.register(m.InventorySlip)
class InventorySlipAdmin(_ByTable):
    list_display = (
        "kind_shown",
        "day_link",
        "shift",
        "slip",
        "value_shown",
        "counted_by",
        "witnessed_by",
    )
    list_filter = ("kind", GAMING_DAY, TABLE)

    @admin.display(description=gettext_lazy("count"), ordering="kind")
    def kind_shown(self, obj: m.InventorySlip) -> str:
        return word(obj.kind)

    @admin.display(description=gettext_lazy("value"), ordering="value")
    def value_shown(self, obj: m.InventorySlip) -> str:
        return one_line(format_money(obj.value, obj.table.currency or "XXX"))


@admin.register(m.DropBox)
class DropBoxAdmin(_ByTable):
    list_display = ("day_link", "shift", "state_shown", "counted_shown", "cash", "markers", "chips")
    list_filter = ("state", GAMING_DAY, TABLE)

    @admin.display(description=gettext_lazy("state"), ordering="state")
    def state_shown(self, obj: m.DropBox) -> str:
        return word(obj.state)

    @admin.display(description=gettext_lazy("counted"))
    def counted_shown(self, obj: m.DropBox) -> str:
        return one_line(_money(obj.counted, obj.table.currency or "XXX"))

    cash = MoneyColumns.column("counted_cash", gettext_lazy("cash"))
    markers = MoneyColumns.column("counted_markers", gettext_lazy("markers"))
    chips = MoneyColumns.column("counted_chips", gettext_lazy("chips"))


@admin.register(m.Marker)
class MarkerAdmin(_ByTable):
    list_display = ("number", "day_link", "player", "amount_shown", "redeemed_shown")
    list_filter = (GAMING_DAY, TABLE)

    amount_shown = MoneyColumns.column("amount", gettext_lazy("amount"))
    redeemed_shown = MoneyColumns.column("redeemed", gettext_lazy("redeemed"))


@admin.register(m.SlipBook)
class SlipBookAdmin(NoDevices, ReadOnlyAdmin):
    """The books of fill and credit slips recorded as issued (recorded on the Accounting
    page's Slip sequence, each an event in audit.ledger)."""

    list_display = ("kind", "first_number", "last_number", "issued_by", "issued_at", "note")
    list_filter = ("kind",)
    search_fields = ("first_number", "last_number")


_when = selectors.when_text


@admin.register(m.SignOff)
class SignOffAdmin(NoDevices, ReadOnlyAdmin):
    """The sign-off of a table-day, as a person reads it: who signed and when, the day's
    state then and what the note signed over, the figures signed as money (each by the
    one formatter, in the table's currency), whether the day's kept figures still give
    their hash, the adjustments it carries; reopened by whom and why."""

    list_display = (
        "table",
        "gaming_day",
        "status",
        "state_shown",
        "signed_by",
        "signed_at",
        "note",
        "reopened_by",
        "reopen_note",
        "day",
    )
    list_filter = ("status", GAMING_DAY, "table")
    fieldsets = (
        (
            None,
            {
                "fields": (
                    "day",
                    "status",
                    "state_shown",
                    "signed_by",
                    "signed_at_shown",
                    "note",
                    "exceptions_shown",
                )
            },
        ),
        (
            gettext_lazy("Figures signed"),
            {"fields": ("figures_shown", "adjustments_shown", "hash_shown")},
        ),
        (
            gettext_lazy("Reopened"),
            {"fields": ("reopened_by", "reopened_at_shown", "reopen_note")},
        ),
    )

    def get_fieldsets(self, request: HttpRequest, obj: Any = None) -> Any:
        if obj is not None and not obj.reopened_by:  # never reopened: nothing to say of it
            return self.fieldsets[:2]
        return self.fieldsets

    @staticmethod
    def _row(obj: m.SignOff) -> m.Reconciliation | None:
        return (
            m.Reconciliation.objects.select_related("table")
            .filter(table__stream=obj.table, gaming_day=obj.gaming_day, shift="")
            .first()
        )

    def _currency(self, obj: m.SignOff) -> str:
        row = self._row(obj)
        if row is not None:
            return row.currency
        table = m.LedgerTable.objects.filter(stream=obj.table).first()
        return (table.currency if table is not None else "") or "XXX"

    @admin.display(description=gettext_lazy("signed at"), ordering="signed_at")
    def signed_at_shown(self, obj: m.SignOff) -> str:
        return _when(obj.signed_at)

    @admin.display(description=gettext_lazy("reopened at"))
    def reopened_at_shown(self, obj: m.SignOff) -> str:
        return _when(obj.reopened_at)

    @admin.display(description=gettext_lazy("table-day"))
    def day(self, obj: m.SignOff) -> str:
        return format_html(
            '<a class="nowrap" href="{}">{} {}</a>',
            reconciliation_url(obj.table, obj.gaming_day),
            obj.table,
            _day(obj.gaming_day),
        )

    @admin.display(description=gettext_lazy("state when signed"), ordering="state")
    def state_shown(self, obj: m.SignOff) -> str:
        if not obj.state:
            return _("not recorded (signed before states were)")
        return (
            m.Reconciliation.State(obj.state).label
            if obj.state in m.Reconciliation.State.values
            else obj.state
        )

    @admin.display(description=gettext_lazy("the note signed over"))
    def exceptions_shown(self, obj: m.SignOff) -> str:
        return (
            signoff.exceptions_text(obj.exceptions)
            if obj.exceptions
            else _("nothing: the day had no exception")
        )

    @admin.display(description=gettext_lazy("figures"))
    def figures_shown(self, obj: m.SignOff) -> str:
        c = self._currency(obj)
        signed = {"chip_win", "recorded_win", "replayed_win", "theoretical_win"}
        rows = format_html_join(
            "",
            '<tr><th>{}</th><td class="money" style="text-align:right">{}</td></tr>',
            (
                (_FIGURE_NAMES.get(name, name), _money(obj.figures[name], c, signed=name in signed))
                for name in SIGNED
                if name in obj.figures
            ),
        )
        return format_html('<table class="signed-figures">{}</table>', rows)

    @admin.display(description=gettext_lazy("adjustments carried"))
    def adjustments_shown(self, obj: m.SignOff) -> str:
        row = self._row(obj)
        if row is None or not row.adjustments:
            return _("none")
        c = row.currency
        return format_html_join(
            format_html("<br>"),
            '{} {} <a href="{}">{}</a>: {}',
            (
                (a["win"], _("from"), a["url"], a["day_text"], a["moved"])
                for a in (_adjustment(obj.table, x, c) for x in row.adjustments)
            ),
        )

    @admin.display(description=gettext_lazy("checked against its hash"))
    def hash_shown(self, obj: m.SignOff) -> str:
        row = self._row(obj)
        same = row is not None and figures_hash(signed_figures(row)) == obj.figures_hash
        kept = (
            _("the day's figures kept in the ledger give the signed hash")
            if same
            else _(
                "the day's figures in the ledger no longer give the signed hash: see its findings"
            )
        )
        return format_html(
            '{} <span class="muted" title="{}">(SHA-256 {}...)</span>',
            kept,
            _("SHA-256 of the figures signed"),
            obj.figures_hash[:12],
        )
