"""What the back-office's REST modules (``audit.findings.api`` and the apps above audit,
such as ``tables.api``) share: who may read and change, pagination, strict query
parameters. It lives here, at the bottom of the Django apps, so that every app can use
it and audit imports nothing above it."""

from __future__ import annotations

from datetime import date
from typing import Any

from django.conf import settings
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.pagination import PageNumberPagination
from rest_framework.permissions import BasePermission
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.views import APIView

from audit.access.devices import device_of
from audit.record.chain import EARLIEST, LATEST


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


def _whole_from_one(name: str, text: str) -> int:
    """A page or page size as asked: a whole number from 1, else a 400 naming it."""
    if not text.isascii() or not text.isdigit() or int(text) < 1:
        raise serializers.ValidationError({name: ["A whole number from 1."]})
    return int(text)


class Pages(PageNumberPagination):
    """``page`` and ``page_size`` are whole numbers from 1 (anything else is a 400 naming
    it, not a quiet default); a page size over ``BACK_OFFICE_PAGE_MAX`` is that many; a
    page past the last is a 404."""

    page_size = 50
    page_size_query_param = "page_size"

    def get_page_size(self, request: Request) -> int:
        self.max_page_size = settings.BACK_OFFICE_PAGE_MAX
        text = request.query_params.get(self.page_size_query_param)
        if text is None:
            return self.page_size
        return min(_whole_from_one(self.page_size_query_param, text), self.max_page_size)

    def paginate_queryset(
        self, queryset: Any, request: Request, view: APIView | None = None
    ) -> list[Any] | None:
        text = request.query_params.get(self.page_query_param)
        if text is not None and text not in self.last_page_strings:
            _whole_from_one(self.page_query_param, text)
        return super().paginate_queryset(queryset, request, view)

    def get_schema_operation_parameters(self, view: APIView) -> list[dict[str, Any]]:
        parameters = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            parameter["schema"]["minimum"] = 1
        return parameters


class StrictQuery(serializers.Serializer):
    """Query parameters: unknown ones are refused, naming each."""

    allowed_extra = frozenset({"page", "page_size", "format"})

    def to_internal_value(self, data: Any) -> Any:
        unknown = {
            str(k): ["Unknown query parameter."]
            for k in data
            if k not in self.fields and k not in self.allowed_extra
        }
        if unknown:
            raise serializers.ValidationError(unknown)
        return super().to_internal_value(data)


# the years the record holds (audit.record.chain: 1900 to 9998), as the schema's pattern
DAY_PATTERN = r"^(19[0-9]{2}|[2-8][0-9]{3}|9[0-8][0-9]{2}|99[0-8][0-9]|999[0-8])-[0-9]{2}-[0-9]{2}$"


@extend_schema_field({"type": "string", "format": "date", "pattern": DAY_PATTERN})
class GamingDayField(serializers.DateField):
    """A gaming day asked for (a query's ``day``, ``from``, ``to``; a package's period):
    YYYY-MM-DD within the years the record can hold, else a 400 naming the field - a day
    out of them could not be turned into the moments it spans."""

    default_error_messages = {
        "out_of_range": f"A gaming day from {EARLIEST.date().isoformat()} to {LATEST.date().isoformat()} "
        "(the years the record holds).",
    }

    def to_internal_value(self, value: Any) -> date:
        day: date = super().to_internal_value(value)
        if not EARLIEST.date() <= day <= LATEST.date():
            self.fail("out_of_range")
        return day


def query(serializer_class: type[serializers.Serializer], request: Request) -> dict[str, Any]:
    parsed = serializer_class(data=request.query_params)
    parsed.is_valid(raise_exception=True)
    return {k: v for k, v in parsed.validated_data.items() if v is not None}


# --- reports (the ledger's, the tables' analytics): JSON, or CSV with ?format=csv ---------


class CSVRenderer(BaseRenderer):
    """A report as CSV: the view hands over the text (:meth:`audit.presenting.reports.Report.as_csv`)."""

    media_type = "text/csv"
    format = "csv"
    charset = "utf-8"

    def render(
        self, data: Any, accepted_media_type: str | None = None, renderer_context: Any = None
    ) -> bytes:
        if isinstance(data, str):
            return data.encode()
        # an error body (the project's JSON shape) is written as one line of CSV-safe JSON
        return JSONRenderer().render(data)


class ReportColumnSerializer(serializers.Serializer):
    key = serializers.CharField()
    title = serializers.CharField()
    kind = serializers.ChoiceField(
        choices=["text", "money", "signed", "amount", "rate", "int", "bool"]
    )


class ReportSerializer(serializers.Serializer):
    report = serializers.CharField()
    title = serializers.CharField()
    parameters = serializers.DictField()
    columns = ReportColumnSerializer(many=True)
    rows = serializers.ListField(
        child=serializers.DictField(),
        help_text="amounts in minor units, rates as text; display: each amount's text",
    )


# --- the schema: every refusal documented ----------------------------------------------------

# a free-text parameter (a pit's or a game's name): not only white space (which is
# blank once trimmed), and no NUL byte (casino.middleware refuses one anywhere)
FREE_TEXT = r"^[^\x00]*[^\s\x00][^\x00]*$"

_REFUSED = {
    "400": (
        (
            "a request the back-office cannot read: a body that is not JSON, a NUL byte in the path "
            "or query, a ?format= the operation does not have"
        ),
        "Invalid",
    ),
    "404": (
        "no such address (a path parameter that is not of its form), or a page past the last",
        "Error",
    ),
}


def document_refusals(
    result: dict[str, Any], generator: Any, request: Any, public: bool
) -> dict[str, Any]:
    """drf-spectacular's post-processing hook: every operation documents the 400 any
    request may meet before its view reads it (with the errors naming what is wrong), and
    every operation with a path parameter or a page the 404 of an address or a page that
    is not there - so that the schema says every answer the API gives (docs/api.md). A
    page and a page size are declared whole numbers from 1, as :class:`Pages` reads them,
    and a free-text parameter what the API takes (:data:`FREE_TEXT`)."""
    for item in result.get("paths", {}).values():
        for operation in item.values():
            if not isinstance(operation, dict) or "responses" not in operation:
                continue
            parameters = operation.get("parameters", [])
            paged = any(p.get("in") == "path" or p.get("name") == "page" for p in parameters)
            for parameter in parameters:
                schema = parameter.get("schema", {})
                if parameter.get("in") == "query" and parameter.get("name") in (
                    "page",
                    "page_size",
                ):
                    schema["minimum"] = 1  # as Pages reads them: whole numbers from 1
                elif schema.get("type") == "string" and not {"pattern", "enum", "format"} & set(
                    schema
                ):
                    schema["pattern"] = (
                        FREE_TEXT  # a name or a code typed in: something, and no NUL
                    )
            for status, (description, component) in _REFUSED.items():
                if status in operation["responses"] or (status == "404" and not paged):
                    continue
                operation["responses"][status] = {
                    "description": description,
                    "content": {
                        "application/json": {
                            "schema": {"$ref": f"#/components/schemas/{component}"}
                        }
                    },
                }
    return result
