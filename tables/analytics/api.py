"""The analytics over REST (see docs/analytics.md), each as JSON or, with ``?format=csv``,
CSV - the same rows the screens show (:mod:`tables.analytics.reports`):

- ``GET /api/analytics/counters?day=YYYY-MM-DD[&table=CODE]`` - counter detection;
- ``GET /api/analytics/accuracy?day=...`` - strategy accuracy per player;
- ``GET /api/analytics/strategy-errors?day=...`` - each decision off the chart;
- ``GET /api/analytics/dealers?day=...`` - dealer performance by shift;
- ``GET /api/analytics/what-if?day=...&natural_pays=6:5[&insurance_pays=3:2][&by=player]`` -
  the day settled again with other payouts, per table (or player); writes nothing.

Who: a person with ``tables.view_round`` or any staff member (as the rounds); never a
device account. Errors in the project's one JSON shape (``casino.api_errors``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from datetime import date
from typing import Any

from django.utils import translation
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.permissions import IsAuthenticated
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from audit.api.common import CSVRenderer, GamingDayField, ReportSerializer, StrictQuery
from audit.api.views import STREAM_REGEX, ErrorSerializer, InvalidSerializer
from audit.presenting.reports import Report
from tables.api import MayViewRounds

from . import reports


def english(get: Callable[..., Response]) -> Callable[..., Response]:
    """The API's words in English whatever the browser asks for (docs/languages.md): programs
    read them, and a report's titles and messages do not change with a browser's settings."""

    @functools.wraps(get)
    def answer(*args: Any, **kwargs: Any) -> Response:
        with translation.override("en"):
            return get(*args, **kwargs)

    return answer


def plain_json(report: Report) -> dict[str, Any]:
    """The report as JSON, its titles made text now (in the API's English), not when the
    answer is rendered in the request's language."""
    data = report.as_json()
    data["title"] = str(data["title"])
    data["columns"] = [{**c, "title": str(c["title"])} for c in data["columns"]]
    return data


class AnalyticsQuery(StrictQuery):
    day = GamingDayField(help_text="the gaming day, YYYY-MM-DD")
    table = serializers.RegexField(
        rf"^{STREAM_REGEX}$", required=False, help_text="one table's code (default: every table)"
    )


_CSV = OpenApiParameter(
    "format", str, enum=["json", "csv"], description="csv: the same rows as CSV"
)


class _AnalyticsView(APIView):
    permission_classes = (IsAuthenticated, MayViewRounds)
    renderer_classes = (JSONRenderer, CSVRenderer)
    make: Callable[[date, str | None], Report]

    @english
    def get(self, request: Request) -> Response:
        parsed = AnalyticsQuery(data=request.query_params)
        parsed.is_valid(raise_exception=True)
        p = parsed.validated_data
        try:
            report = type(self).make(p["day"], p.get("table"))
        except reports.AnalyticsError as error:
            raise NotFound(str(error)) from None
        if getattr(request.accepted_renderer, "format", "") == "csv":
            return Response(report.as_csv(), content_type="text/csv")
        return Response(plain_json(report))


def _schema(operation: str, summary: str) -> Callable[..., object]:
    return extend_schema(
        operation_id=operation,
        summary=summary,
        parameters=[AnalyticsQuery, _CSV],
        responses={
            (200, "application/json"): ReportSerializer,
            (200, "text/csv"): OpenApiTypes.STR,
            400: OpenApiResponse(InvalidSerializer, description="a bad or missing query parameter"),
            401: OpenApiResponse(ErrorSerializer, description="no or bad credentials"),
            403: OpenApiResponse(
                ErrorSerializer, description="a device account, or a person without the permission"
            ),
            404: OpenApiResponse(ErrorSerializer, description="the table did not play on the day"),
        },
    )


def _report_view(
    operation: str, summary: str, make: Callable[[date, str | None], Report]
) -> type[_AnalyticsView]:
    """A view answering one report, documented under ``operation``."""

    class View(_AnalyticsView):
        @_schema(operation, summary)
        def get(self, request: Request) -> Response:
            return super().get(request)

    View.make = staticmethod(make)  # type: ignore[assignment]
    View.__name__ = View.__qualname__ = (
        "".join(part.title() for part in operation.split("_")) + "View"
    )
    return View


CountersView = _report_view(
    "analytics_counters",
    "Counter detection: each player's bet against the Hi-Lo true count, flagged",
    lambda day, table: reports.counters(day=day, table=table).report,
)
AccuracyView = _report_view(
    "analytics_accuracy",
    "Strategy accuracy: each player's decisions against the chart, and their cost",
    lambda day, table: reports.accuracy(day=day, table=table).report,
)
StrategyErrorsView = _report_view(
    "analytics_strategy_errors",
    "Each decision off the chart, with the expected value it gave up",
    lambda day, table: reports.accuracy(day=day, table=table).errors,
)
DealersView = _report_view(
    "analytics_dealers",
    "Dealer performance: rounds and errors (findings) per hour dealt, by shift",
    lambda day, table: reports.dealers(day=day, table=table).report,
)


class WhatIfQuery(AnalyticsQuery):
    natural_pays = serializers.RegexField(
        r"^[1-9][0-9]{0,2}:[1-9][0-9]{0,2}$",
        required=False,
        help_text="e.g. 6:5 (the default when insurance_pays is not given either)",
    )
    insurance_pays = serializers.RegexField(
        r"^[1-9][0-9]{0,2}:[1-9][0-9]{0,2}$", required=False, help_text="e.g. 3:2"
    )
    by = serializers.ChoiceField(choices=["table", "player"], default="table")

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if not attrs.get("natural_pays") and not attrs.get("insurance_pays"):
            attrs["natural_pays"] = (
                "6:5"  # as the screen does: the commonest change a casino weighs
            )
        return attrs


class WhatIfView(_AnalyticsView):
    @extend_schema(
        operation_id="analytics_what_if",
        summary="The day's rounds settled again with other payouts (never written)",
        parameters=[WhatIfQuery, _CSV],
        responses={
            (200, "application/json"): ReportSerializer,
            (200, "text/csv"): OpenApiTypes.STR,
            400: OpenApiResponse(InvalidSerializer, description="a bad or missing query parameter"),
            401: OpenApiResponse(ErrorSerializer, description="no or bad credentials"),
            403: OpenApiResponse(
                ErrorSerializer, description="a device account, or a person without the permission"
            ),
            404: OpenApiResponse(ErrorSerializer, description="the table did not play on the day"),
        },
    )
    @english
    def get(self, request: Request) -> Response:
        parsed = WhatIfQuery(data=request.query_params)
        parsed.is_valid(raise_exception=True)
        p = parsed.validated_data
        changes = {k: p[k] for k in ("natural_pays", "insurance_pays") if p.get(k)}
        try:
            found = reports.what_if(day=p["day"], table=p.get("table"), changes=changes)
        except reports.AnalyticsError as error:
            if isinstance(error, reports.NotPlayed):
                raise NotFound(str(error)) from None
            raise ValidationError({"query": [str(error)]}) from None
        report = found.tables if p["by"] == "table" else found.players
        if getattr(request.accepted_renderer, "format", "") == "csv":
            return Response(report.as_csv(), content_type="text/csv")
        return Response(plain_json(report))
