"""Game recall's pages (:mod:`regulator.recall`): in the admin beside the round's review
(``/admin/recall/<table>/<day>/<number>/``, ``.pdf``) for who may see rounds, and over
the API (``/api/rounds/<table>/<day>/<number>/recall.html``, ``recall.pdf``) for any
staff member, as the round's own endpoint. Read by a person, so in the access log."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date
from typing import Any

from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import translation
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.exceptions import NotFound
from rest_framework.permissions import IsAuthenticated
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from audit.access.devices import device_of
from audit.api.views import STREAM_REGEX, ErrorSerializer
from audit.record.money import in_locale
from tables.admin import round_review_url
from tables.api import MayViewRounds

from .recall import recall_context
from .recall_pdf import recall_pdf


def _context(table: str, day: str, number: str) -> dict[str, Any] | None:
    try:
        when = date.fromisoformat(day)
    except ValueError:
        return None
    return recall_context(table, when, int(number)) if int(number) < 2**63 else None


def _html(context: dict[str, Any], *, pdf_url: str, review_url: str | None) -> str:
    return render_to_string(
        "regulator/recall.html", {**context, "pdf_url": pdf_url, "review_url": review_url}
    )


@contextmanager
def _document_language() -> Iterator[None]:
    """The PDF in English, money in the ISO code form: its core fonts are Latin-1 (no €,
    no Czech letters), and it is the document the regulator's offline recall matches."""
    with translation.override("en"), in_locale(None):
        yield


def _pdf_response(context: dict[str, Any]) -> HttpResponse:
    name = f"recall-{context['table']}-{context['day']}-{context['number']}.pdf"
    response = HttpResponse(recall_pdf(context), content_type="application/pdf")
    response["Content-Disposition"] = f'inline; filename="{name}"'
    return response


# --- the admin -----------------------------------------------------------------------------------


def _admin_context(request: HttpRequest, table: str, day: str, number: str) -> dict[str, Any]:
    if device_of(request.user) is not None or not request.user.has_perm("tables.view_round"):
        raise PermissionDenied
    context = _context(table, day, number)
    if context is None:
        raise Http404(f"Table {table} has no round {number} on {day}.")
    return context


def recall_page(request: HttpRequest, table: str, day: str, number: str) -> HttpResponse:
    context = _admin_context(request, table, day, number)
    pdf_url = reverse("round-recall-pdf", kwargs={"table": table, "day": day, "number": number})
    return HttpResponse(
        _html(
            context,
            pdf_url=pdf_url,
            review_url=round_review_url(table=table, day=day, number=int(number)),
        )
    )


def recall_pdf_page(request: HttpRequest, table: str, day: str, number: str) -> HttpResponse:
    with _document_language():
        return _pdf_response(_admin_context(request, table, day, number))


# --- the API -------------------------------------------------------------------------------------


class HTMLRenderer(BaseRenderer):
    media_type = "text/html"
    format = "html"
    charset = "utf-8"

    def render(
        self, data: Any, accepted_media_type: str | None = None, renderer_context: Any = None
    ) -> bytes:
        return data.encode() if isinstance(data, str) else JSONRenderer().render(data)


class PDFRenderer(BaseRenderer):
    media_type = "application/pdf"
    format = "pdf"

    def render(
        self, data: Any, accepted_media_type: str | None = None, renderer_context: Any = None
    ) -> bytes:
        return data if isinstance(data, bytes) else JSONRenderer().render(data)


_ROUND = [
    OpenApiParameter("table", str, OpenApiParameter.PATH, pattern=f"^{STREAM_REGEX}$"),
    OpenApiParameter("day", str, OpenApiParameter.PATH, description="the gaming day, YYYY-MM-DD"),
    OpenApiParameter("number", int, OpenApiParameter.PATH),
]
_ERRORS = {
    401: OpenApiResponse(ErrorSerializer, description="no or bad credentials"),
    403: OpenApiResponse(
        ErrorSerializer, description="a device account, or a person without the permission"
    ),
    404: OpenApiResponse(ErrorSerializer, description="no such round"),
}
_WHAT = (
    "Game recall (AGCO 13.1): the round's cards, bets, decisions, settlements recorded and recomputed, "
    "its events with their chain state and the inclusion proof of its last event in the signed head."
)


def _api_context(table: str, day: str, number: str) -> dict[str, Any]:
    context = _context(table, day, number)
    if context is None:
        raise NotFound(f"Table {table!r} has no round {number} on {day}.")
    return context


class ErrorsAsJSON(APIView):
    """A view answering a document (HTML, PDF, zip): its errors are still JSON, whatever
    the client accepts (every API error is)."""

    def finalize_response(self, request: Request, response: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(response, Response):
            request.accepted_renderer = JSONRenderer()
            request.accepted_media_type = JSONRenderer.media_type
        return super().finalize_response(request, response, *args, **kwargs)


class RecallHTMLView(ErrorsAsJSON):
    permission_classes = (IsAuthenticated, MayViewRounds)
    renderer_classes = (HTMLRenderer, JSONRenderer)

    @extend_schema(
        operation_id="rounds_recall_html",
        summary="A round's recall, printable HTML",
        description=_WHAT,
        parameters=_ROUND,
        responses={(200, "text/html"): OpenApiTypes.STR, **_ERRORS},
    )
    def get(self, request: Request, table: str, day: str, number: str) -> HttpResponse:
        context = _api_context(table, day, number)
        return HttpResponse(
            _html(context, pdf_url=request.path.removesuffix(".html") + ".pdf", review_url=None),
            content_type="text/html; charset=utf-8",
        )


class RecallPDFView(ErrorsAsJSON):
    permission_classes = (IsAuthenticated, MayViewRounds)
    renderer_classes = (PDFRenderer, JSONRenderer)

    @extend_schema(
        operation_id="rounds_recall_pdf",
        summary="A round's recall, PDF",
        description=_WHAT,
        parameters=_ROUND,
        responses={(200, "application/pdf"): OpenApiTypes.BINARY, **_ERRORS},
    )
    def get(self, request: Request, table: str, day: str, number: str) -> HttpResponse:
        with _document_language():
            return _pdf_response(_api_context(table, day, number))
