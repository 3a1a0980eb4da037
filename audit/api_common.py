"""What the back-office's REST modules (``audit.findings_api`` and the apps above audit,
such as ``tables.api``) share: who may read and change, pagination, strict query
parameters. It lives here, at the bottom of the Django apps, so that every app can use
it and audit imports nothing above it."""
from __future__ import annotations

from typing import Any

from django.conf import settings
from rest_framework import serializers
from rest_framework.pagination import PageNumberPagination
from rest_framework.permissions import BasePermission
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.views import APIView

from .devices import device_of


class PersonWith(BasePermission):
    """A person (never a device account) with ``perm``; ``staff_reads``: any staff
    member may also read (GET)."""

    perm = ""
    staff_reads = False

    def has_permission(self, request: Request, view: APIView) -> bool:
        if device_of(request.user) is not None:
            self.message = "A device account may only append to and read its own table's stream."
            return False
        self.message = f"This needs the permission {self.perm}."
        user = request.user
        if self.staff_reads and request.method in ("GET", "HEAD", "OPTIONS") and user.is_staff:
            return True
        return bool(user.has_perm(self.perm))


class MayViewFindings(PersonWith):
    perm = "audit.view_finding"
    staff_reads = True


class MayChangeFindings(PersonWith):
    """Pit bosses (the ``pit_boss`` group has ``audit.change_finding``)."""

    perm = "audit.change_finding"


class Pages(PageNumberPagination):
    page_size = 50
    page_size_query_param = "page_size"

    def get_page_size(self, request: Request) -> int:
        self.max_page_size = settings.BACK_OFFICE_PAGE_MAX
        return int(super().get_page_size(request) or self.page_size)


class StrictQuery(serializers.Serializer):
    """Query parameters: unknown ones are refused, naming each."""

    allowed_extra = frozenset({"page", "page_size", "format"})

    def to_internal_value(self, data: Any) -> Any:
        unknown = {str(k): ["Unknown query parameter."] for k in data if k not in self.fields and k not in self.allowed_extra}
        if unknown:
            raise serializers.ValidationError(unknown)
        return super().to_internal_value(data)


def query(serializer_class: type[serializers.Serializer], request: Request) -> dict[str, Any]:
    parsed = serializer_class(data=request.query_params)
    parsed.is_valid(raise_exception=True)
    return {k: v for k, v in parsed.validated_data.items() if v is not None}


# --- reports (the ledger's, the tables' analytics): JSON, or CSV with ?format=csv ---------

class CSVRenderer(BaseRenderer):
    """A report as CSV: the view hands over the text (:meth:`audit.reports.Report.as_csv`)."""

    media_type = "text/csv"
    format = "csv"
    charset = "utf-8"

    def render(self, data: Any, accepted_media_type: str | None = None, renderer_context: Any = None) -> bytes:
        if isinstance(data, str):
            return data.encode()
        # an error body (the project's JSON shape) is written as one line of CSV-safe JSON
        return JSONRenderer().render(data)


class ReportColumnSerializer(serializers.Serializer):
    key = serializers.CharField()
    title = serializers.CharField()
    kind = serializers.ChoiceField(choices=["text", "money", "signed", "rate", "int"])


class ReportSerializer(serializers.Serializer):
    report = serializers.CharField()
    title = serializers.CharField()
    parameters = serializers.DictField()
    columns = ReportColumnSerializer(many=True)
    rows = serializers.ListField(child=serializers.DictField(),
                                 help_text="amounts in minor units, rates as text; display: each amount's text")
