"""One place where application errors become HTTP responses."""
from __future__ import annotations

from typing import Any

from rest_framework import status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from audit.errors import StoreError


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, StoreError):
        return Response(exc.as_dict(), status=exc.http_status)
    return drf_exception_handler(exc, context)
