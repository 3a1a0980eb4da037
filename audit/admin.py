"""The admin of the event store, replay's runs and findings.

- **Events** and device accounts.
- **Replay runs**, read-only, so that a day's progress is visible while its chord runs.
- **Findings**: filtered by table, gaming day, kind, severity and status, each linking
  to its round's review - by the round's natural key (table, gaming day, number) and the
  URL name of the rounds' admin, so that the link survives a rebuild of the read models
  and audit imports nothing of the app that shows rounds. The bulk action *acknowledge*
  calls :func:`audit.findings.findings_acknowledge_bulk` (one event per finding) and is
  offered only to users who may change findings (the ``pit_boss`` group). Findings are
  otherwise read-only: they change only through :mod:`audit.findings`.
"""
from __future__ import annotations

import json

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.urls import NoReverseMatch, reverse
from django.utils.html import format_html

from .findings import findings_acknowledge_bulk
from .models import AccessRecord, DeviceAccount, Event, Finding, ReplayRun, SubscriberPosition
from .verify import chain_state

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


def round_review_url(*, table: str, day: str, number: int) -> str | None:
    """The admin address of a round's review, by its natural key; None where no admin
    shows rounds (the URL name is the rounds' admin's, ``admin:tables_round_key``)."""
    try:
        return reverse("admin:tables_round_key", kwargs={"table": table, "day": day, "number": number})
    except NoReverseMatch:
        return None


@admin.register(Event)
class EventAdmin(admin.ModelAdmin):
    """Events are shown, never added, changed or deleted (the database refuses it too)."""

    list_display = ("position", "stream", "version", "type", "occurred_at", "actor", "short_hash")
    list_filter = ("type", "stream")
    search_fields = ("stream", "event_id", "actor", "hash")
    date_hierarchy = "recorded_at"
    ordering = ("-position",)
    show_full_result_count = False
    list_per_page = 100
    fieldsets = (
        (None, {"fields": ("event_id", "stream", "version", "position", "type", "schema_version")}),
        ("When and who", {"fields": ("occurred_at", "recorded_at", "actor", "source")}),
        ("Payload", {"fields": ("payload_pretty",)}),
        ("Hash chain", {"fields": ("chain", "prev_hash", "hash", "neighbours")}),
    )
    readonly_fields = (
        "event_id", "stream", "version", "position", "type", "schema_version", "occurred_at",
        "recorded_at", "actor", "source", "payload_pretty", "chain", "prev_hash", "hash", "neighbours",
    )

    @admin.display(description="hash")
    def short_hash(self, obj: Event) -> str:
        return obj.hash[:12]

    @admin.display(description="payload (as stored)")
    def payload_pretty(self, obj: Event) -> str:
        return format_html("<pre>{}</pre>", json.dumps(obj.payload, indent=2, ensure_ascii=False))

    @admin.display(description="chain")
    def chain(self, obj: Event) -> str:
        before = Event.objects.filter(stream=obj.stream, version=obj.version - 1).values_list("hash", flat=True).first()
        ok, why = chain_state(obj, before)
        if ok:
            return format_html('<strong style="color:#1a7f37">intact</strong> - content matches its hash and links to the event before it')
        return format_html('<strong style="color:#cf222e">BROKEN</strong> - {}', why)

    @admin.display(description="in the stream")
    def neighbours(self, obj: Event) -> str:
        links = []
        for label, version in (("previous", obj.version - 1), ("next", obj.version + 1)):
            pk = Event.objects.filter(stream=obj.stream, version=version).values_list("pk", flat=True).first()
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
    list_display = ("id", "stream", "gaming_day", "mode", "trigger", "status", "tables_done", "tables_total",
                    "events", "rounds", "findings", "findings_new", "findings_superseded", "started_at", "finished_at")
    list_filter = ("status", "mode", "trigger", "gaming_day")


@admin.register(Finding)
class FindingAdmin(ReadOnlyAdmin):
    """Findings, read-only but for the bulk action *acknowledge* (pit bosses only)."""

    list_display = ("id", "kind", "severity", "status", "stream", "gaming_day", "round_link", "bet", "expected",
                    "recorded", "status_changed_by", "superseded_by")
    list_filter = ("stream", GAMING_DAY, "kind", "severity", "status")
    search_fields = ("bet", "message", "fingerprint")
    actions = ("acknowledge",)

    def get_queryset(self, request: HttpRequest) -> QuerySet[Finding]:
        return super().get_queryset(request).select_related("superseded_by")

    def get_readonly_fields(self, request: HttpRequest, obj: object = None) -> list[str]:
        return [f.name for f in self.opts.fields] + ["round_link"]

    def has_acknowledge_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("audit.change_finding")

    @admin.display(description="round", ordering="round")
    def round_link(self, obj: Finding) -> str:
        if obj.round is None:
            return "-"
        url = None if obj.gaming_day is None else round_review_url(
            table=obj.stream, day=obj.gaming_day.isoformat(), number=obj.round)
        if url is None:
            return str(obj.round)
        return format_html('<a class="round-review" href="{}">round {}</a>', url, obj.round)

    @admin.action(description="Acknowledge the selected findings", permissions=["acknowledge"])
    def acknowledge(self, request: HttpRequest, queryset: QuerySet[Finding]) -> None:
        done, refused = findings_acknowledge_bulk(
            finding_ids=list(queryset.order_by("id").values_list("id", flat=True)), user=request.user,
        )
        if done:
            self.message_user(request, f"Acknowledged {len(done)} finding(s).", messages.SUCCESS)
        for finding_id, why in refused:
            self.message_user(request, f"Finding {finding_id} not acknowledged: {why}", messages.WARNING)


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
