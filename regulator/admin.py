"""The regulator's package in the admin (docs/regulator.md): the list of requests with
their status (``/admin/casino/packagerequest/``), a form to ask for one (compliance,
the regulator group, superusers: ``casino.add_packagerequest``), the action that asks
again for the selected requests' days and tables, and each ready package's download.

A request is never changed or deleted here: it is built by a Celery task
(:mod:`regulator.tasks`) and says what happened to it.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import FileResponse, Http404, HttpRequest
from django.urls import URLPattern, path, reverse
from django.utils.formats import date_format
from django.utils.html import format_html
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext_lazy

from audit.access.clients import client_address
from audit.access.devices import device_of
from audit.access.log import principal_of

from .models import PackageRequest
from .package import PackageError, table_slices
from .package_requests import package_file, package_request

_STATUS_COLOURS = {"queued": "#777", "building": "#b66d00", "ready": "#1a7f37", "failed": "#c62828"}
_STATUS_WORDS = {
    "queued": pgettext_lazy("package status", "queued"),
    "building": pgettext_lazy("package status", "building"),
    "ready": pgettext_lazy("package status", "ready"),
    "failed": pgettext_lazy("package status", "failed"),
}


class PackageAskForm(forms.ModelForm):
    tables_text = forms.CharField(
        label=gettext_lazy("tables"),
        required=False,
        help_text=gettext_lazy(
            "the tables' codes, separated by commas or spaces; blank: every table open in the period"
        ),
    )

    class Meta:
        model = PackageRequest
        fields = ("day_from", "day_to")
        labels = {
            "day_from": gettext_lazy("from gaming day"),
            "day_to": gettext_lazy("to gaming day"),
        }
        help_texts = {
            "day_from": gettext_lazy("YYYY-MM-DD"),
            "day_to": gettext_lazy("YYYY-MM-DD (the same day for one day)"),
        }

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        tables = sorted({t for t in (data.get("tables_text") or "").replace(",", " ").split() if t})
        data["tables"] = tables
        if data.get("day_from") and data.get("day_to"):
            try:
                table_slices(data["day_from"], data["day_to"], tables)
            except PackageError as error:
                where = {"to": "day_to", "table": "tables_text"}.get(error.field, "day_from")
                self.add_error(where, str(error))
        return data


@admin.register(PackageRequest)
class PackageRequestAdmin(admin.ModelAdmin):
    form = PackageAskForm
    list_display = (
        "id",
        "status_shown",
        "period",
        "tables_shown",
        "requested_by",
        "via",
        "requested_at",
        "events",
        "download",
        "keep_until",
        "why",
    )
    list_display_links = ("id",)
    list_filter = ("status", "via")
    search_fields = ("requested_by", "sha256")
    actions = ("ask_again",)
    readonly_fields = (
        "status_shown",
        "why",
        "period",
        "tables_shown",
        "requested_by",
        "via",
        "requested_at",
        "finished_at",
        "message",
        "events",
        "size_shown",
        "sha256",
        "download",
        "keep_until",
    )

    def get_fields(self, request: HttpRequest, obj: PackageRequest | None = None) -> Any:
        if obj is None:
            return ("day_from", "day_to", "tables_text")
        return self.readonly_fields

    def get_readonly_fields(self, request: HttpRequest, obj: PackageRequest | None = None) -> Any:
        return () if obj is None else self.readonly_fields

    # --- who ------------------------------------------------------------------------------------

    def has_module_permission(self, request: HttpRequest) -> bool:
        return device_of(request.user) is None and super().has_module_permission(request)

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return device_of(request.user) is None and super().has_view_permission(request, obj)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return device_of(request.user) is None and super().has_add_permission(request)

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    # --- asking -----------------------------------------------------------------------------------

    def save_model(
        self, request: HttpRequest, obj: PackageRequest, form: Any, change: bool
    ) -> None:
        data = form.cleaned_data
        row = package_request(
            principal=principal_of(request) or "",
            day_from=data["day_from"],
            day_to=data["day_to"],
            tables=data["tables"],
            via=PackageRequest.Via.ADMIN,
            address=client_address(request),
        )
        obj.pk = row.pk
        obj.refresh_from_db()

    @admin.action(
        description=gettext_lazy(
            "Ask again for the selected requests' packages (the same days and tables)"
        ),
        permissions=["add"],
    )
    def ask_again(self, request: HttpRequest, queryset: QuerySet[PackageRequest]) -> None:
        for row in queryset.order_by("id"):
            try:
                made = package_request(
                    principal=principal_of(request) or "",
                    day_from=row.day_from,
                    day_to=row.day_to,
                    tables=row.tables,
                    via=PackageRequest.Via.ADMIN,
                    address=client_address(request),
                )
            except PackageError as error:
                self.message_user(
                    request,
                    _("Request %(id)s: %(error)s") % {"id": row.pk, "error": error},
                    messages.ERROR,
                )
            else:
                self.message_user(
                    request,
                    _("Request %(id)s asked for %(what)s.") % {"id": made.pk, "what": made},
                    messages.SUCCESS,
                )

    # --- shown ------------------------------------------------------------------------------------

    @admin.display(description=gettext_lazy("status"), ordering="status")
    def status_shown(self, row: PackageRequest) -> str:
        return format_html(
            '<strong style="color:{}">{}</strong>',
            _STATUS_COLOURS.get(row.status, "#000"),
            _STATUS_WORDS.get(row.status, row.status),
        )

    @admin.display(description=gettext_lazy("why it failed"))
    def why(self, row: PackageRequest) -> str:
        return (
            format_html(
                '<span style="display:inline-block;max-width:16em;white-space:normal;overflow-wrap:anywhere">{}</span>',
                row.message,
            )
            if row.message
            else ""
        )

    @admin.display(description=gettext_lazy("gaming days"), ordering="day_from")
    def period(self, row: PackageRequest) -> str:
        first = date_format(row.day_from, "DATE_FORMAT")
        if row.day_to == row.day_from:
            return first
        return _("%(first)s to %(last)s") % {
            "first": first,
            "last": date_format(row.day_to, "DATE_FORMAT"),
        }

    @admin.display(description=gettext_lazy("tables"))
    def tables_shown(self, row: PackageRequest) -> str:
        return ", ".join(row.tables) or _("every table open")

    @admin.display(description=gettext_lazy("size"), ordering="size")
    def size_shown(self, row: PackageRequest) -> str:
        return (
            ""
            if row.size is None
            else f"{row.size / 1_048_576:,.2f} MB"
            if row.size >= 1_048_576
            else (f"{row.size / 1024:,.1f} kB")
        )

    @admin.display(description=gettext_lazy("package"))
    def download(self, row: PackageRequest) -> str:
        if row.status != PackageRequest.Status.READY:
            return "-"
        return format_html(
            '<a href="{}" title="{}">zip, {}</a>',
            reverse("admin:casino_packagerequest_download", args=[row.pk]),
            row.file,
            self.size_shown(row),
        )

    # --- the download -----------------------------------------------------------------------------

    def get_urls(self) -> list[URLPattern]:
        return [
            path(
                "<int:pk>/download/",
                self.admin_site.admin_view(self.download_view),
                name="casino_packagerequest_download",
            ),
            *super().get_urls(),
        ]

    def download_view(self, request: HttpRequest, pk: int) -> FileResponse:
        if not self.has_view_permission(request):
            raise PermissionDenied
        row = PackageRequest.objects.filter(pk=pk).first()
        path_ = package_file(row) if row is not None else None
        if row is None or path_ is None:
            raise Http404(_("No ready package with that id."))
        return FileResponse(
            path_.open("rb"), as_attachment=True, filename=row.file, content_type="application/zip"
        )
