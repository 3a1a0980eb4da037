"""The admin of the event store, replay's runs and findings.

- **Events** and device accounts.
- **Replay runs**, read-only, so that a day's progress is visible while its chord runs.
- **Findings**: filtered by table, gaming day, kind, severity and status, each linking
  to its round's review - by the round's natural key (table, gaming day, number), so that
  the link survives a rebuild of the read models, and through the address the app that
  shows rounds registers (:func:`round_review_register`): audit knows nothing of it,
  not even its URL names. Pit bosses (``audit.change_finding``)
  acknowledge, resolve and reopen them with a note - bulk actions on the list, forms on a
  finding's page and on its round's review - through :mod:`audit.findings.workflow` only (one
  event per change); the page shows the trail. Amounts are money in the table's
  currency (:func:`currencies_register`: the tables' app says which).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.helpers import ActionForm
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseNotAllowed
from django.shortcuts import redirect
from django.urls import URLPattern, re_path, reverse
from django.utils.formats import date_format
from django.utils.html import format_html, format_html_join
from django.utils.http import url_has_allowed_host_and_scheme, urlencode
from django.utils.text import capfirst
from django.utils.timezone import localtime
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from audit.access import token_admin  # noqa: F401 - the API tokens' screen registers itself
from audit.findings.workflow import (
    ACTIONS,
    FindingError,
    NoteRequired,
    finding_trail,
    findings_change_bulk,
)
from audit.integrity.chains import chain_state

from .models import AccessRecord, DeviceAccount, Event, Finding, ReplayRun, SubscriberPosition
from .presenting.payloads import WORDS, payload_fields
from .presenting.vocabulary import (
    change_text,
    event_title,
    kind_sentence,
    kind_title,
    severity_text,
    status_text,
)
from .record.events import REGISTRY
from .record.money import format_money, format_signed, not_available

# filter by the gaming days there are (not by "today", "past 7 days")
GAMING_DAY = ("gaming_day", admin.AllValuesFieldListFilter)


class ReadOnlyAdmin(admin.ModelAdmin):
    """Shown, never added, changed or deleted here."""

    def has_add_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False


# --- money in findings ------------------------------------------------------------------------
# A finding names its table, not the table's currency; the app that projects tables says
# which currency each is in (it registers a source from its AppConfig.ready(): audit
# imports nothing of it). Without one, amounts stay in minor units.
_CURRENCY_SOURCE: list[Callable[[Iterable[str]], dict[str, str]]] = []


def currencies_register(source: Callable[[Iterable[str]], dict[str, str]]) -> None:
    """``source(tables) -> {table: ISO 4217 code}``; the last registered wins."""
    _CURRENCY_SOURCE[:] = [source]


def currencies_of(tables: Iterable[str]) -> dict[str, str]:
    return _CURRENCY_SOURCE[0](list(tables)) if _CURRENCY_SOURCE else {}


# the kinds whose expected and recorded texts are amounts of money (the engine writes
# them in minor units: "win +2500", "2500", "500-50000", "<= 1250", "2500 on box 3")
MONEY_KINDS = frozenset(
    {"wrong_payout", "missing_settlement", "illegal_bet", "wrong_cashout_offer"}
)
_OUTCOME = re.compile(r"^(?P<word>[a-z_]+) (?P<net>[+-]\d+)$")
_RANGE = re.compile(r"^(?P<low>\d+)-(?P<high>\d+)$")
_AMOUNT = re.compile(r"^(?P<prefix><= )?(?P<amount>\d+)(?P<rest> on box \d+)?$")


def amount_text(kind: str, text: str, currency: str | None) -> str:
    """A finding's expected or recorded text with its amounts as money in ``currency``
    (``win +2500`` -> ``win +EUR 25.00``); unchanged where it holds no amount, where the
    kind's texts are not money, or where the currency is unknown."""
    if not text or currency is None or kind not in MONEY_KINDS:
        return text
    if match := _OUTCOME.match(text):
        word = WORDS.get(match["word"], match["word"])
        return f"{word} {format_signed(int(match['net']), currency)}"
    if match := _RANGE.match(text):
        return f"{format_money(int(match['low']), currency)} - {format_money(int(match['high']), currency)}"
    if match := _AMOUNT.match(text):
        return f"{match['prefix'] or ''}{format_money(int(match['amount']), currency)}{match['rest'] or ''}"
    return text


def finding_amounts(finding: Finding, currency: str | None) -> str:
    """``bet r41-23: expected win +EUR 100.00, recorded win +EUR 95.00`` - only what the
    finding has; a single ``-`` when it has none of them."""
    return ", ".join(finding_amount_parts(finding, currency)) or "-"


def finding_amount_parts(finding: Finding, currency: str | None) -> list[str]:
    """The parts of :func:`finding_amounts`, each a line of its own on the list (an amount
    never breaks across two)."""
    parts = []
    if finding.bet:
        parts.append(_("bet %(bet)s") % {"bet": finding.bet})
    if finding.expected:
        parts.append(
            _("expected %(amount)s")
            % {"amount": amount_text(finding.kind, finding.expected, currency)}
        )
    if finding.recorded:
        parts.append(
            _("recorded %(amount)s")
            % {"amount": amount_text(finding.kind, finding.recorded, currency)}
        )
    return parts


def day_text(day: object) -> str:
    """A gaming day in the active language's date format (as the templates' ``day``
    filter writes it); n/a for none."""
    return date_format(day, "DATE_FORMAT") if day else not_available()


def moment_text(moment: object) -> str:
    """A moment in the casino's time zone, the active language's 24-hour date and time (as
    the templates' ``when`` filter writes it); n/a for none."""
    return date_format(localtime(moment), "DATETIME_FORMAT") if moment else not_available()


# --- a round's review --------------------------------------------------------------------------
# The app that shows rounds says where a round's review is (it registers its address from
# its AppConfig.ready(), as it does the currencies). Without one, findings link no round.
_ROUND_REVIEW: list[Callable[..., str | None]] = []


def round_review_register(source: Callable[..., str | None]) -> None:
    """``source(*, table, day, number) -> the review's address or None``; the last
    registered wins."""
    _ROUND_REVIEW[:] = [source]


def round_review_url(*, table: str, day: str, number: int) -> str | None:
    """The admin address of a round's review, by its natural key; None where no admin
    shows rounds."""
    return _ROUND_REVIEW[0](table=table, day=day, number=number) if _ROUND_REVIEW else None


class EventTypeFilter(admin.SimpleListFilter):
    """Filter by event type, each named by its title in the catalogue."""

    title = gettext_lazy("what happened")
    parameter_name = "type"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return sorted(((t, event_title(t)) for t in REGISTRY), key=lambda pair: pair[1])

    def queryset(self, request: HttpRequest, queryset: QuerySet[Event]) -> QuerySet[Event]:
        return queryset.filter(type=self.value()) if self.value() else queryset


@admin.register(Event)
class EventAdmin(admin.ModelAdmin):
    """Events are shown, never added, changed or deleted (the database refuses it too)."""

    list_display = (
        "position",
        "stream",
        "version",
        "type_title",
        "occurred_at",
        "actor",
        "short_hash",
    )
    list_filter = (EventTypeFilter, "stream")
    search_fields = ("stream", "event_id", "actor", "hash")
    date_hierarchy = "recorded_at"
    ordering = ("-position",)
    show_full_result_count = False
    list_per_page = 100
    fieldsets = (
        (
            None,
            {
                "fields": (
                    "event_id",
                    "stream",
                    "version",
                    "position",
                    "type_title",
                    "type",
                    "schema_version",
                )
            },
        ),
        (
            gettext_lazy("When and who"),
            {"fields": ("occurred_at", "recorded_at", "actor", "source")},
        ),
        (gettext_lazy("Payload"), {"fields": ("payload_fields", "payload_pretty")}),
        (gettext_lazy("Hash chain"), {"fields": ("chain", "prev_hash", "hash", "neighbours")}),
    )
    readonly_fields = (
        "event_id",
        "stream",
        "version",
        "position",
        "type_title",
        "type",
        "schema_version",
        "occurred_at",
        "recorded_at",
        "actor",
        "source",
        "payload_fields",
        "payload_pretty",
        "chain",
        "prev_hash",
        "hash",
        "neighbours",
    )

    @admin.display(description=gettext_lazy("hash"))
    def short_hash(self, obj: Event) -> str:
        return obj.hash[:12]

    @admin.display(description=gettext_lazy("what happened"), ordering="type")
    def type_title(self, obj: Event) -> str:
        return event_title(obj.type)

    @admin.display(description=gettext_lazy("what it records"))
    def payload_fields(self, obj: Event) -> str:
        currency = currencies_of([obj.stream]).get(obj.stream)
        rows = payload_fields(obj.type, obj.schema_version, obj.payload, currency)
        return format_html(
            '<table class="payload-fields">{}</table>',
            format_html_join(
                "", "<tr><th>{}</th><td>{}</td></tr>", ((capfirst(k), v) for k, v in rows)
            ),
        )

    @admin.display(description=gettext_lazy("payload (as stored)"))
    def payload_pretty(self, obj: Event) -> str:
        return format_html("<pre>{}</pre>", json.dumps(obj.payload, indent=2, ensure_ascii=False))

    @admin.display(description=gettext_lazy("chain"))
    def chain(self, obj: Event) -> str:
        before = (
            Event.objects.filter(stream=obj.stream, version=obj.version - 1)
            .values_list("hash", flat=True)
            .first()
        )
        ok, why = chain_state(obj, before)
        if ok:
            return format_html(
                '<strong style="color:#1a7f37">{}</strong> - {}',
                _("intact"),
                _("content matches its hash and links to the event before it"),
            )
        return format_html('<strong style="color:#cf222e">{}</strong> - {}', _("BROKEN"), why)

    @admin.display(description=gettext_lazy("in the stream"))
    def neighbours(self, obj: Event) -> str:
        links = []
        for label, version in ((_("previous"), obj.version - 1), (_("next"), obj.version + 1)):
            pk = (
                Event.objects.filter(stream=obj.stream, version=version)
                .values_list("pk", flat=True)
                .first()
            )
            if pk is not None:
                url = reverse("admin:audit_event_change", args=[pk])
                links.append(format_html('<a href="{}">{} (v{})</a>', url, label, version))
        return format_html(" &middot; ".join(["{}"] * len(links)), *links) if links else "-"

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(DeviceAccount)
class DeviceAccountAdmin(admin.ModelAdmin):
    list_display = ("user", "stream", "description")
    search_fields = ("user__username", "stream")


@admin.register(SubscriberPosition)
class SubscriberPositionAdmin(ReadOnlyAdmin):
    """How far each subscriber of the feed has got, and its last failure."""

    list_display = ("name", "position", "updated_at", "failed_at", "error")


@admin.register(ReplayRun)
class ReplayRunAdmin(ReadOnlyAdmin):
    list_display = (
        "id",
        "stream",
        "gaming_day",
        "mode",
        "trigger",
        "status",
        "tables_done",
        "tables_total",
        "events",
        "rounds",
        "findings",
        "findings_new",
        "findings_superseded",
        "started_at",
        "finished_at",
    )
    list_filter = ("status", "mode", "trigger", "gaming_day")


class NoteActionForm(ActionForm):
    """The list's action bar, with the note the status changes carry."""

    note = forms.CharField(
        required=False,
        max_length=2000,
        label=gettext_lazy("note"),
        widget=forms.TextInput(
            attrs={"placeholder": gettext_lazy("note (required to resolve)"), "size": 40}
        ),
    )


def _back(request: HttpRequest, default: str) -> str:
    wanted = request.POST.get("next") or default
    return (
        wanted
        if url_has_allowed_host_and_scheme(wanted, allowed_hosts={request.get_host()})
        else default
    )


class TableFilter(admin.SimpleListFilter):
    title = gettext_lazy("table")
    parameter_name = "stream"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        tables = Finding.objects.order_by("stream").values_list("stream", flat=True).distinct()
        return [(t, t or str(_("the whole record"))) for t in tables]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Finding]) -> QuerySet[Finding]:
        return queryset.filter(stream=self.value()) if self.value() is not None else queryset


class GamingDayFilter(admin.AllValuesFieldListFilter):
    """The gaming days there are, named in the reader's language."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.title = gettext_lazy("gaming day")


class KindFilter(admin.SimpleListFilter):
    """Filter by kind, each named by its title (the kinds there are findings of)."""

    title = gettext_lazy("kind")
    parameter_name = "kind"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        kinds = Finding.objects.order_by().values_list("kind", flat=True).distinct()
        return sorted(((k, kind_title(k)) for k in kinds), key=lambda pair: pair[1])

    def queryset(self, request: HttpRequest, queryset: QuerySet[Finding]) -> QuerySet[Finding]:
        return queryset.filter(kind=self.value()) if self.value() else queryset


class SeverityFilter(admin.SimpleListFilter):
    title = gettext_lazy("severity")
    parameter_name = "severity"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [(s, severity_text(s)) for s in Finding.Severity.values]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Finding]) -> QuerySet[Finding]:
        return queryset.filter(severity=self.value()) if self.value() else queryset


class StatusFilter(admin.SimpleListFilter):
    title = gettext_lazy("status")
    parameter_name = "status"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [(s, status_text(s)) for s in Finding.Status.values]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Finding]) -> QuerySet[Finding]:
        return queryset.filter(status=self.value()) if self.value() else queryset


@admin.register(Finding)
class FindingAdmin(ReadOnlyAdmin):
    """Findings, worked on screen by pit bosses: acknowledged, resolved (with a note) or
    reopened - from the list (bulk actions with a note), from a finding's page and from
    its round's review (forms posting to :meth:`change_status_view`). Every change goes
    through :mod:`audit.findings.workflow` (an event in ``audit.findings``); only users with
    ``audit.change_finding`` are offered them. A finding's page reads as a page, not the
    row's fields: its kind's title and sentence, where it is (its round once, linked to
    the review), the amounts as money, the handling and its trail; the row's names for
    machines (fingerprint, event, runs) in a folded "Details"."""

    list_display = (
        "id",
        "kind_text",
        "severity_text",
        "status_text",
        "where",
        "amounts",
        "message_text",
    )
    list_display_links = ("id",)
    list_filter = (
        TableFilter,
        ("gaming_day", GamingDayFilter),
        KindFilter,
        SeverityFilter,
        StatusFilter,
    )
    search_fields = ("bet", "message", "fingerprint")
    actions = ("acknowledge", "resolve", "reopen")
    action_form = NoteActionForm
    change_form_template = "admin/audit/finding/change_form.html"

    class Media:
        css = {"all": ("audit/findings.css",)}

    def get_queryset(self, request: HttpRequest) -> QuerySet[Finding]:
        return super().get_queryset(request).select_related("superseded_by")

    def changelist_view(
        self, request: HttpRequest, extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        return super().changelist_view(request, {"title": _("Findings"), **(extra_context or {})})

    def get_fields(self, request: HttpRequest, obj: object = None) -> list[str]:
        return self.get_readonly_fields(request, obj)

    def get_readonly_fields(self, request: HttpRequest, obj: object = None) -> list[str]:
        # (the page draws its own layout: change_form.html; these keep the admin's view of
        # the row complete for its history and permissions)
        shown = {"expected": "expected_text", "recorded": "recorded_text"}
        return [shown.get(f.name, f.name) for f in self.opts.fields if f.name != "identity"] + [
            "round_link"
        ]

    @admin.display(description=gettext_lazy("expected"))
    def expected_text(self, obj: Finding) -> str:
        return amount_text(obj.kind, obj.expected, self.currency_of(obj)) or "-"

    @admin.display(description=gettext_lazy("recorded"))
    def recorded_text(self, obj: Finding) -> str:
        return amount_text(obj.kind, obj.recorded, self.currency_of(obj)) or "-"

    def has_acknowledge_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("audit.change_finding")

    has_resolve_permission = has_reopen_permission = has_acknowledge_permission

    def get_changelist_instance(self, request: HttpRequest) -> Any:
        changelist = super().get_changelist_instance(request)
        # the tables' currencies, once for the page (amounts are formatted in them)
        self._currencies = currencies_of({f.stream for f in changelist.result_list})
        return changelist

    def currency_of(self, obj: Finding) -> str | None:
        known = getattr(self, "_currencies", None)
        if known is None or obj.stream not in known:
            known = currencies_of([obj.stream])
        return known.get(obj.stream)

    @admin.display(description=gettext_lazy("kind"), ordering="kind")
    def kind_text(self, obj: Finding) -> str:
        return format_html(
            '<span class="kind" title="{}">{}</span>', kind_sentence(obj.kind), kind_title(obj.kind)
        )

    @admin.display(description=gettext_lazy("severity"), ordering="severity")
    def severity_text(self, obj: Finding) -> str:
        return severity_text(obj.severity)

    @admin.display(description=gettext_lazy("status"), ordering="status")
    def status_text(self, obj: Finding) -> str:
        return format_html(
            "{}{}{}",
            status_text(obj.status),
            format_html(
                '<div class="trail">{} {}</div>',
                obj.status_changed_by,
                moment_text(obj.status_changed_at),
            )
            if obj.status_changed_at
            else "",
            format_html('<div class="superseded">{}</div>', _("no longer found by a later check"))
            if obj.superseded_by_id
            else "",
        )

    @admin.display(description=gettext_lazy("table, gaming day, round"), ordering="stream")
    def where(self, obj: Finding) -> str:
        return format_html(
            '{} <span class="day">{}</span><div>{}</div>',
            obj.stream or _("the whole record"),
            day_text(obj.gaming_day),
            self.round_link(obj),
        )

    @admin.display(description=gettext_lazy("bet: expected / recorded"))
    def amounts(self, obj: Finding) -> str:
        parts = finding_amount_parts(obj, self.currency_of(obj))
        if not parts:
            return "-"
        return format_html_join("", '<div class="nowrap">{}</div>', ((part,) for part in parts))

    @admin.display(description=gettext_lazy("message"))
    def message_text(self, obj: Finding) -> str:
        return obj.message or kind_sentence(obj.kind)

    @admin.display(description=gettext_lazy("round"), ordering="round")
    def round_link(self, obj: Finding) -> str:
        if obj.round is None:
            return "-"
        url = finding_round_url(obj)
        text = _("round %(number)s") % {"number": obj.round}
        if url is None:
            return text
        return format_html('<a class="round-review" href="{}">{}</a>', url, text)

    def _bulk(self, request: HttpRequest, queryset: QuerySet[Finding], action: str) -> None:
        note = request.POST.get("note", "").strip() or None
        if action == "resolve" and note is None:
            self.message_user(
                request,
                _("Resolving needs a note saying how: write it in the note box."),
                messages.ERROR,
            )
            return
        done, refused = findings_change_bulk(
            action=action,
            finding_ids=list(queryset.order_by("id").values_list("id", flat=True)),
            user=request.user,
            note=note,
        )
        if done:
            self.message_user(request, DONE[action](len(done)), messages.SUCCESS)
        for finding_id, why in refused:
            self.message_user(
                request,
                _("Finding %(id)s not changed: %(why)s") % {"id": finding_id, "why": why},
                messages.WARNING,
            )

    @admin.action(
        description=gettext_lazy("Acknowledge the selected findings"), permissions=["acknowledge"]
    )
    def acknowledge(self, request: HttpRequest, queryset: QuerySet[Finding]) -> None:
        self._bulk(request, queryset, "acknowledge")

    @admin.action(
        description=gettext_lazy("Resolve the selected findings (with the note)"),
        permissions=["resolve"],
    )
    def resolve(self, request: HttpRequest, queryset: QuerySet[Finding]) -> None:
        self._bulk(request, queryset, "resolve")

    @admin.action(description=gettext_lazy("Reopen the selected findings"), permissions=["reopen"])
    def reopen(self, request: HttpRequest, queryset: QuerySet[Finding]) -> None:
        self._bulk(request, queryset, "reopen")

    # --- one finding: its page, and the forms that change it ---------------------------------

    def get_urls(self) -> list[URLPattern]:
        view = self.admin_site.admin_view(self.change_status_view)
        return [
            re_path(
                r"^(?P<pk>[0-9]{1,18})/(?P<action>acknowledge|resolve|reopen)/$",
                view,
                name="audit_finding_status",
            ),
            *super().get_urls(),
        ]

    def change_status_view(self, request: HttpRequest, pk: str, action: str) -> HttpResponse:
        """POST: acknowledge, resolve or reopen one finding with the form's note; back to
        ``next`` (the page the form was on) with what happened."""
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        if not request.user.has_perm("audit.change_finding"):
            raise PermissionDenied(
                _(
                    "Changing a finding needs the permission audit.change_finding (the pit_boss group)."
                )
            )
        finding = Finding.objects.filter(pk=int(pk)).first()
        if finding is None:
            raise Http404(_("There is no finding %(id)s.") % {"id": pk})
        try:
            ACTIONS[action](
                finding_id=finding.pk, user=request.user, note=request.POST.get("note", "")[:2000]
            )
        except (FindingError, NoteRequired) as error:
            self.message_user(
                request,
                _("Finding %(id)s not changed: %(why)s") % {"id": finding.pk, "why": error},
                messages.ERROR,
            )
        else:
            self.message_user(request, PAST[action] % {"id": finding.pk}, messages.SUCCESS)
        return redirect(_back(request, reverse("admin:audit_finding_change", args=[finding.pk])))

    def change_view(
        self,
        request: HttpRequest,
        object_id: str,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> HttpResponse:
        finding = Finding.objects.filter(pk=int(object_id)).first() if object_id.isdigit() else None
        extra = dict(extra_context or {})
        if finding is not None:
            extra.update(finding_actions(request, finding, back=request.get_full_path()))
            extra.update(finding_page(finding, self.currency_of(finding)))
            # the breadcrumbs' and the title's name of it (the page says the rest once)
            extra["crumb"] = (
                f"{kind_title(finding.kind)} - {finding.stream or _('the whole record')}"
            )
            extra["subtitle"] = None
            extra["title"] = _("Finding")
        return super().change_view(request, object_id, form_url, extra)


# status change -> how a message says it was done (one finding; several)
PAST = {
    "acknowledge": gettext_lazy("Finding %(id)s acknowledged."),
    "resolve": gettext_lazy("Finding %(id)s resolved."),
    "reopen": gettext_lazy("Finding %(id)s reopened."),
}
DONE: dict[str, Callable[[int], str]] = {
    "acknowledge": lambda n: (
        ngettext("Acknowledged %(count)d finding.", "Acknowledged %(count)d findings.", n)
        % {"count": n}
    ),
    "resolve": lambda n: (
        ngettext("Resolved %(count)d finding.", "Resolved %(count)d findings.", n) % {"count": n}
    ),
    "reopen": lambda n: (
        ngettext("Reopened %(count)d finding.", "Reopened %(count)d findings.", n) % {"count": n}
    ),
}
# the buttons of the forms
_LABELS = {
    "acknowledge": gettext_lazy("Acknowledge"),
    "resolve": gettext_lazy("Resolve"),
    "reopen": gettext_lazy("Reopen"),
}
# status -> the changes it allows, as the forms offer them (audit.findings.workflow decides)
_OFFERED = {
    Finding.Status.OPEN: ("acknowledge", "resolve"),
    Finding.Status.ACKNOWLEDGED: ("resolve", "reopen"),
    Finding.Status.RESOLVED: ("reopen",),
}


def finding_actions(request: HttpRequest, finding: Finding, *, back: str) -> dict[str, Any]:
    """What the forms of one finding need (its page, its round's review): the changes its
    status allows - none for a person without ``audit.change_finding`` - where they post,
    where they come back to, and the trail of changes so far (each step's change and
    former status as words, its moment in the casino's time)."""
    allowed = request.user.has_perm("audit.change_finding")
    return {
        "finding": finding,
        "found_at": moment_text(finding.created_at),
        "trail": [
            {
                "action": step.action,
                "action_text": change_text(step.action),
                "by": step.by,
                "at": moment_text(step.at),
                "previous": status_text(step.previous).lower(),
                "note": step.note,
                "version": step.version,
            }
            for step in finding_trail(finding)
        ],
        "may_change": allowed,
        "offered": [
            {
                "action": action,
                "label": _LABELS[action],
                "url": reverse(
                    "admin:audit_finding_status", kwargs={"pk": finding.pk, "action": action}
                ),
            }
            for action in (_OFFERED[Finding.Status(finding.status)] if allowed else ())
        ],
        "back": back,
    }


def finding_page(finding: Finding, currency: str | None) -> dict[str, Any]:
    """A finding's page as people read it: its kind's title and sentence, its severity and
    status as words, where it is - each place once, the round linked to its review - and
    the amounts as money; ``details``: what names it to machines (fingerprint, the event
    that showed it, the runs), for the folded "Details"."""
    facts: list[tuple[str, object]] = [
        (_("table"), finding.stream or _("the whole record")),
        (_("gaming day"), day_text(finding.gaming_day)),
    ]
    if finding.round is not None:
        url = finding_round_url(finding)
        text = _("round %(number)s") % {"number": finding.round}
        link = format_html('<a class="round-review" href="{}">{}</a>', url, text) if url else text
        facts.append((_("round"), link))
    for label, value in (
        (_("box"), finding.box),
        (_("hand"), finding.hand),
        (_("bet"), finding.bet),
        (_("shift"), finding.shift),
        (_("slip"), finding.slip),
    ):
        if value not in (None, ""):
            facts.append((label, value))
    if finding.expected:
        facts.append((_("expected"), amount_text(finding.kind, finding.expected, currency)))
    if finding.recorded:
        facts.append((_("recorded"), amount_text(finding.kind, finding.recorded, currency)))
    if finding.superseded_by_id:
        facts.append(
            (_("no longer found"), moment_text(finding.superseded_by.started_at))  # type: ignore[union-attr]
        )
    details: list[tuple[str, object]] = [
        (_("fingerprint"), finding.fingerprint),
        (_("event that showed it"), finding.event_id or not_available()),
        (_("its version in the table's record"), finding.event_version or not_available()),
        (_("found by run"), finding.run_id),
        (_("last found by run"), finding.last_seen_run_id),
        (_("no longer found by run"), finding.superseded_by_id or not_available()),
    ]
    return {
        "kind_title": kind_title(finding.kind),
        "kind_sentence": kind_sentence(finding.kind),
        "severity_text": severity_text(finding.severity),
        "status_text": status_text(finding.status),
        "facts": facts,
        "details": details,
    }


def finding_round_url(finding: Finding) -> str | None:
    """The review of the finding's round, opened at its bet (the page of bets holding it)."""
    if finding.round is None or finding.gaming_day is None:
        return None
    url = round_review_url(
        table=finding.stream, day=finding.gaming_day.isoformat(), number=finding.round
    )
    if url is not None and finding.bet:
        url += "?" + urlencode({"bet": finding.bet}) + f"#bet-{finding.bet}"
    return url


@admin.register(AccessRecord)
class AccessRecordAdmin(admin.ModelAdmin):
    """Who read what, when, from where, with what outcome: searched by compliance, never
    changed (the database refuses an UPDATE; the rows are sealed into the record)."""

    list_display = ("at", "principal", "method", "path", "what", "status", "address")
    list_filter = ("method", "status", "principal")
    search_fields = ("principal", "path", "query", "what", "address")
    date_hierarchy = "at"
    ordering = ("-id",)
    show_full_result_count = False
    list_per_page = 100
    readonly_fields = ("at", "principal", "method", "path", "query", "what", "status", "address")

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
