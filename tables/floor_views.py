"""The floor's pages (see :mod:`tables.floor`): the dashboard that is the admin's home
page, its figures as JSON for the page's poll, and the acknowledgement of an alert.

The views parse, authorise and render; :mod:`tables.floor` reads and writes. Every view
is wrapped by the admin site (staff only, CSRF-protected); acknowledging needs
``tables.change_alert`` (the ``pit_boss`` group).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, date, datetime
from typing import Any

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect
from django.template.loader import render_to_string
from django.template.response import TemplateResponse
from django.urls import NoReverseMatch, reverse
from django.utils.http import url_has_allowed_host_and_scheme, urlencode
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from audit.presenting.vocabulary import kind_title, severity_text, status_text

from . import floor
from . import models as m
from .admin import round_links

# the page's poll, in milliseconds (the floor must see an alert within about a second)
POLL_MS = 1000

# the analytics' screens the floor links (tables.analytics.views), each on the floor's day
ANALYTICS = ("counters", "accuracy", "dealers", "what-if")

# the floor's links to pages that are not this app's (the API's docs, the project's):
# their owner registers each address from its AppConfig.ready()
_LINKS: dict[str, Callable[[], str]] = {}


def floor_link_register(name: str, address: Callable[[], str]) -> None:
    """The floor's link ``name`` (``api_docs``) leads to ``address()``."""
    _LINKS[name] = address


def _day(request: HttpRequest, now: datetime) -> tuple[date, date]:
    today, shown = floor.floor_day(now)
    wanted = request.GET.get("day")
    if wanted:
        try:
            shown = date.fromisoformat(wanted)
        except ValueError:
            raise Http404(
                _("%(day)r is not a gaming day (YYYY-MM-DD).") % {"day": wanted}
            ) from None
    return today, shown


def _address(name: str, *args: Any, query: dict[str, str] | None = None) -> str | None:
    """The address of another app's page by its URL name, or None where that app (or the
    page) is not installed: the floor links what there is and never fails for the rest."""
    try:
        url = reverse(name, args=args)
    except NoReverseMatch:
        return None
    return url + ("?" + urlencode(query) if query else "")


def _recall_link(day: date) -> str | None:
    """The game recall of the day's latest round, through the links other apps register
    for a round's review (the regulator's recall): this app knows no recall's URL name."""
    latest = (
        m.Round.objects.filter(gaming_day=day)
        .select_related("table")
        .order_by("-started_at", "-id")
        .first()
    )
    if latest is None:
        return None
    return next((link["url"] for link in round_links(latest) if link["id"] == "recall"), None)


def _links(day: date) -> dict[str, str | None]:
    """Where the floor leads: the lists behind its figures, filtered to the day, and every
    other screen a pit boss, an accountant or compliance works in."""
    on_day = {"gaming_day": day.isoformat()}
    findings = reverse("admin:audit_finding_changelist")
    return {
        "findings_open": findings + "?" + urlencode({**on_day, "status__exact": "open"}),
        "findings": findings + "?" + urlencode(on_day),
        "rounds": reverse("admin:tables_round_changelist") + "?" + urlencode(on_day),
        "rounds_with_findings": reverse("admin:tables_round_changelist")
        + "?"
        + urlencode({**on_day, "with_findings": "yes"}),
        "table_days": reverse("admin:tables_tableday_changelist") + "?" + urlencode(on_day),
        "tables": reverse("admin:tables_table_changelist"),
        "alerts": reverse("admin:tables_alert_changelist"),
        "runs": reverse("admin:audit_replayrun_changelist"),
        "events": reverse("admin:audit_event_changelist"),
        "alert_events": reverse("admin:audit_event_changelist")
        + "?"
        + urlencode({"stream": floor.ALERTS_STREAM}),
        "subscribers": reverse("admin:audit_subscriberposition_changelist"),
        "apps": reverse("floor-apps"),
        # the accounting's screens (the ledger's), by their URL names
        "reconciliations": _address("admin:ledger_reconciliation_changelist", query=on_day),
        "reconciliations_all": _address("admin:ledger_reconciliation_changelist"),
        "reports": _address("admin:ledger_reports"),
        "sign_offs": _address("admin:ledger_signoff_changelist"),
        "accounting": _address("admin:ledger_accounting", "master-game"),
        # the analytics' screens of the day, and their index
        "analytics": _address("analytics-index"),
        **{
            f"analytics_{name.replace('-', '_')}": _address(
                "analytics", name, query={"day": day.isoformat()}
            )
            for name in ANALYTICS
        },
        # the regulator's: its packages, a round's recall
        "packages": _address("admin:casino_packagerequest_changelist"),
        "recall": _recall_link(day),
        **{name: address() for name, address in _LINKS.items()},
    }


def _table_links(figures: dict[str, Any]) -> None:
    day = figures["gaming_day"]
    for row in figures["tables"]:
        table = row["table"]
        row["table_url"] = reverse("admin:tables_table_key", kwargs={"table": table})
        row["day_url"] = reverse("admin:tables_tableday_key", kwargs={"table": table, "day": day})
        row["rounds_url"] = (
            reverse("admin:tables_round_changelist")
            + "?"
            + urlencode({"table__stream": table, "gaming_day": day})
        )
        row["findings_url"] = (
            reverse("admin:audit_finding_changelist")
            + "?"
            + urlencode({"stream": table, "gaming_day": day, "status__exact": "open"})
        )


def _alert_rows(alerts: list[m.Alert]) -> list[dict[str, Any]]:
    rows = []
    for alert in alerts:
        url = None
        finding = alert.finding
        if finding is not None and finding.round is not None and finding.gaming_day is not None:
            url = reverse(
                "admin:tables_round_key",
                kwargs={
                    "table": finding.stream,
                    "day": finding.gaming_day.isoformat(),
                    "number": finding.round,
                },
            )
            if finding.bet:
                url += "?" + urlencode({"bet": finding.bet}) + f"#bet-{finding.bet}"
        elif finding is not None:
            url = reverse("admin:audit_finding_change", args=[finding.pk])
        elif alert.stream:
            url = reverse("admin:tables_table_key", kwargs={"table": alert.stream})
        rows.append(
            {
                "alert": alert,
                "severity": severity_text(alert.severity),
                "kind_text": kind_title(finding.kind) if finding else "",
                "finding_status": status_text(finding.status) if finding else "",
                "url": url,
                "finding_url": reverse("admin:audit_finding_change", args=[finding.pk])
                if finding
                else None,
            }
        )
    return rows


def _context(request: HttpRequest, now: datetime) -> dict[str, Any]:
    today, day = _day(request, now)
    floor.floor_check(
        now=now
    )  # what appends do not bring on their own: silent tables, findings missed
    figures = floor.floor_figures(day=day, today=today, now=now)
    _table_links(figures)
    alerts = floor.alerts_list()
    return {
        "figures": figures,
        "day": day,
        "today": today,
        "links": _links(day),
        "severities": [
            {
                "severity": s,
                "label": severity_text(s),
                "count": figures["open_findings"][s],
                "url": reverse("admin:audit_finding_changelist")
                + "?"
                + urlencode(
                    {"gaming_day": day.isoformat(), "severity__exact": s, "status__exact": "open"}
                ),
            }
            for s in floor.SEVERITIES
        ],
        "earlier": {
            "count": figures["open_findings_earlier"],
            "url": reverse("admin:audit_finding_changelist")
            + "?"
            + urlencode({"gaming_day__lt": day.isoformat(), "status__exact": "open"}),
        },
        "page_path": reverse("floor")
        + (f"?day={day.isoformat()}" if request.GET.get("day") else ""),
        "alerts": _alert_rows(alerts),
        "waiting": sum(1 for a in alerts if a.acknowledged_at is None),
        "may_acknowledge": request.user.has_perm("tables.change_alert"),
        "poll_ms": POLL_MS,
    }


_PARTS = {
    "severity": "admin/floor/_severity.html",
    "tables": "admin/floor/_tables.html",
    "alerts": "admin/floor/_alerts.html",
}


@require_GET
def dashboard(request: HttpRequest) -> HttpResponse:
    """The floor: the admin's home page."""
    context = _context(request, datetime.now(UTC))
    return TemplateResponse(
        request,
        "admin/floor/dashboard.html",
        {
            **admin.site.each_context(request),
            "title": _("The floor"),
            "subtitle": None,
            **context,
            "figures_url": reverse("floor-figures")
            + (f"?day={request.GET['day']}" if request.GET.get("day") else ""),
        },
    )


@require_GET
def figures(request: HttpRequest) -> JsonResponse:
    """The dashboard's figures, polled by its page: the numbers, and each part of the
    page rendered again (the page swaps a part in only when it changed)."""
    context = _context(request, datetime.now(UTC))
    html = {
        name: render_to_string(template, context, request=request)
        for name, template in _PARTS.items()
    }
    return JsonResponse({**context["figures"], "alerts_waiting": context["waiting"], "html": html})


@require_POST
def acknowledge(request: HttpRequest, pk: int) -> HttpResponse:
    """Acknowledge one alert with an optional note; back to where the form was."""
    if not request.user.has_perm("tables.change_alert"):
        raise PermissionDenied(
            _(
                "Acknowledging an alert needs the permission tables.change_alert (the pit_boss group)."
            )
        )
    if not m.Alert.objects.filter(pk=pk).exists():
        raise Http404(_("There is no alert %(alert)s.") % {"alert": pk})
    try:
        alert = floor.alert_acknowledge(
            alert_id=pk, user=request.user, note=request.POST.get("note", "")[:2000]
        )
    except floor.AlertError as error:
        messages.warning(request, str(error))
    else:
        messages.success(
            request,
            _("Alert acknowledged (%(kind)s on %(table)s).")
            % {"kind": alert.get_kind_display(), "table": alert.stream}
            if alert.stream
            else _("Alert acknowledged (%(kind)s).") % {"kind": alert.get_kind_display()},
        )
    back = request.POST.get("next") or reverse("floor")
    if not url_has_allowed_host_and_scheme(back, allowed_hosts={request.get_host()}):
        back = reverse("floor")
    return redirect(back)
