from __future__ import annotations

from django.contrib import admin

from .models import DeviceAccount, Event


@admin.register(Event)
class EventAdmin(admin.ModelAdmin):
    """Events are shown, never added, changed or deleted (the database refuses it too)."""

    list_display = ("position", "stream", "version", "type", "occurred_at", "recorded_at", "actor", "short_hash")
    list_filter = ("type", "stream")
    search_fields = ("stream", "event_id", "actor", "hash")
    date_hierarchy = "recorded_at"
    ordering = ("-position",)
    show_full_result_count = False

    @admin.display(description="hash")
    def short_hash(self, obj: Event) -> str:
        return obj.hash[:12]

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
