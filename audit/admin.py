from __future__ import annotations

import json

from django.contrib import admin
from django.urls import reverse
from django.utils.html import format_html

from .chain import event_hash
from .models import DeviceAccount, Event


def _chain_state(event: Event) -> tuple[bool, str]:
    """Whether the stored event still matches its hash and links to its predecessor."""
    computed = event_hash(
        id=event.event_id, stream=event.stream, version=event.version, type=event.type,
        schema_version=event.schema_version, occurred_at=event.occurred_at,
        recorded_at=event.recorded_at, actor=event.actor, source=event.source,
        payload=event.payload, prev_hash=event.prev_hash,
    )
    if computed != event.hash:
        return False, f"content does not match its hash (computed {computed[:16]}...)"
    if event.version > 1:
        before = Event.objects.filter(stream=event.stream, version=event.version - 1).values_list("hash", flat=True).first()
        if before is None:
            return False, f"version {event.version - 1} of the stream is missing"
        if before != event.prev_hash:
            return False, "prev_hash is not the hash of the event before it"
    return True, "content matches its hash and links to the event before it"


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
        ok, why = _chain_state(obj)
        colour = "#1a7f37" if ok else "#cf222e"
        return format_html('<strong style="color:{}">{}</strong> - {}', colour, "intact" if ok else "BROKEN", why)

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
