"""Where a request comes from, as far as the server may believe it."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest


def client_address(request: HttpRequest) -> str:
    """The client's address: the proxy's ``X-Forwarded-For`` (its first address) only
    when ``TRUST_PROXY_HEADERS`` says a proxy in front sets it and drops a client's own;
    otherwise the connection's. The access log records it; the throttles count by it."""
    if getattr(settings, "TRUST_PROXY_HEADERS", False):
        forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "")
        if forwarded:
            return str(forwarded).split(",")[0].strip()[:64]
    return str(request.META.get("REMOTE_ADDR", ""))[:64]
