"""One place where application errors become HTTP responses.

Every error body has the same shape: ``{"code": ..., "detail": ...}``, plus ``"errors"``
- a flat map from a field's path to its messages - when the request was invalid:

    {"code": "invalid_request", "detail": "events[2].occurred_at: ...",
     "errors": {"events[2].occurred_at": ["..."], "expected_version": ["..."]}}

Paths use dots for members and ``[i]`` for list items (0-based), the same notation as
:class:`audit.store.errors.InvalidEvent`, so a client handles a malformed envelope (found by a
serializer) and an invalid payload (found by the store) alike.
"""

from __future__ import annotations

import logging
import sys
import uuid
from typing import Any

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import RequestDataTooBig
from django.db import InterfaceError, OperationalError
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.views import defaults
from rest_framework import status
from rest_framework.exceptions import (
    APIException,
    NotFound,
    ParseError,
    PermissionDenied,
    ValidationError,
)
from rest_framework.response import Response
from rest_framework.settings import api_settings
from rest_framework.views import exception_handler as drf_exception_handler

from audit.store.errors import StoreError

log = logging.getLogger(__name__)


def flatten_errors(detail: Any, path: str = "") -> dict[str, list[str]]:
    """DRF's nested error detail as ``{"events[2].payload": ["..."]}``."""
    flat: dict[str, list[str]] = {}
    if isinstance(detail, dict):
        for key, value in detail.items():
            if key == api_settings.NON_FIELD_ERRORS_KEY:
                sub = path
            elif isinstance(key, int):  # a ListSerializer's errors, by item index
                sub = f"{path}[{key}]"
            else:
                sub = f"{path}.{key}" if path else str(key)
            for name, messages in flatten_errors(value, sub).items():
                flat.setdefault(name, []).extend(messages)
    elif isinstance(detail, list):
        if all(not isinstance(item, (dict, list)) for item in detail):
            flat[path or api_settings.NON_FIELD_ERRORS_KEY] = [str(item) for item in detail]
        else:
            for index, item in enumerate(detail):
                if item:  # a ListSerializer reports {} for the items that are valid
                    for name, messages in flatten_errors(item, f"{path}[{index}]").items():
                        flat.setdefault(name, []).extend(messages)
    else:
        flat[path or api_settings.NON_FIELD_ERRORS_KEY] = [str(detail)]
    return flat


# a database that does not answer: the client may retry after this many seconds
RETRY_AFTER = "5"


def database_unavailable() -> dict[str, str]:
    return {
        "code": "database_unavailable",
        "detail": "The database does not answer; nothing was stored. Retry shortly.",
    }


def server_error(exc: BaseException | None) -> tuple[dict[str, str], int]:
    """An unexpected error: logged with an id the client can quote, no trace shown."""
    if isinstance(exc, (OperationalError, InterfaceError)):
        return database_unavailable(), 503
    error_id = uuid.uuid4().hex[:12]
    log.error("API error %s", error_id, exc_info=exc is not None)
    return {
        "code": "server_error",
        "detail": f"An unexpected error (id {error_id}); it has been logged.",
        "id": error_id,
    }, 500


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, StoreError):
        return Response(exc.as_dict(), status=exc.http_status)
    if isinstance(exc, ValidationError):
        errors = flatten_errors(exc.detail)
        first = next(iter(errors.items()), ("request", ["invalid"]))
        return Response(
            {"code": "invalid_request", "detail": f"{first[0]}: {first[1][0]}", "errors": errors},
            status=exc.status_code,
        )
    if isinstance(exc, RequestDataTooBig):
        # raised while DRF reads the body; Django alone would answer a bare 400 page
        return Response(
            {
                "code": "request_too_large",
                "detail": "The request body is larger than DATA_UPLOAD_MAX_MEMORY_SIZE allows.",
            },
            status=status.HTTP_413_REQUEST_ENTITY_TOO_LARGE,
        )
    # Django's own, as DRF's handler turns them, so that their code is named below
    if isinstance(exc, Http404):
        exc = NotFound(*exc.args)
    elif isinstance(exc, DjangoPermissionDenied):
        exc = PermissionDenied(*exc.args)
    response = drf_exception_handler(exc, context)
    if response is not None and isinstance(exc, APIException) and isinstance(response.data, dict):
        detail = response.data.get("detail")
        response.data.setdefault("code", getattr(detail, "code", None) or exc.default_code)
        if isinstance(exc, ParseError):  # a body that is not JSON: the field is the body
            response.data.setdefault("errors", {"body": [str(detail)]})
    if response is None:
        body, status_code = server_error(exc)
        response = Response(body, status=status_code)
        if status_code == 503:
            response["Retry-After"] = RETRY_AFTER
    return response


# --- Django's own error views, for what never reaches a REST view ----------------------------


def _is_api(request: HttpRequest) -> bool:
    return request.path.startswith("/api/")


def bad_request(
    request: HttpRequest,
    exception: Exception | None = None,
    *,
    detail: str | None = None,
    field: str | None = None,
) -> HttpResponse:
    """400 before any view (a request Django itself refuses, e.g. a Host not allowed, or
    one :mod:`casino.middleware` refuses): JSON under /api/ naming what is wrong, the
    admin's page elsewhere."""
    if _is_api(request):
        text = detail or "The request cannot be read."
        return JsonResponse(
            {"code": "bad_request", "detail": text, "errors": {field or "request": [text]}},
            status=400,
        )
    return defaults.bad_request(request, exception or Exception(detail))  # type: ignore[arg-type]


def not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """404: JSON under /api/ (an unknown endpoint), the admin's page elsewhere."""
    if _is_api(request):
        return JsonResponse(
            {"code": "not_found", "detail": f"No API endpoint at {request.path}."}, status=404
        )
    return defaults.page_not_found(request, exception)  # type: ignore[arg-type]


def server_failed(request: HttpRequest) -> HttpResponse:
    """500 (or 503 when the database is down): JSON under /api/ with an error id; the
    admin's page elsewhere. Django calls it inside the ``except`` of what failed."""
    exc = sys.exc_info()[1]
    if _is_api(request):
        body, status_code = server_error(exc)
        response = JsonResponse(body, status=status_code)
        if status_code == 503:
            response["Retry-After"] = RETRY_AFTER
        return response
    return defaults.server_error(request)
