from __future__ import annotations

import json

from django.contrib import admin
from django.urls import reverse
from django.utils.html import format_html

from .models import AccessRecord, DeviceAccount, Event
from .verify import chain_state


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
