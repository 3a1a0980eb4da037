"""The answer to a login that django-axes has locked out: a readable page in the
admin's own style, status 429 with ``Retry-After`` (settings ``ADMIN_LOGIN_*``)."""

from __future__ import annotations

import math
from datetime import UTC, datetime
from typing import Any

from axes.helpers import get_client_username, get_cool_off, get_failure_limit
from django.contrib import admin
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone


def lockout_response(
    request: HttpRequest, original_response: Any, credentials: Any = None
) -> HttpResponse:
    cool_off = get_cool_off(request)
    seconds = math.ceil(cool_off.total_seconds()) if cool_off else 0
    context = {
        **admin.site.each_context(request),  # the site's header and title, as on every admin page
        "failure_limit": get_failure_limit(request, credentials),
        "username": get_client_username(request, credentials) or "",
        "cooloff_minutes": math.ceil(seconds / 60),
        "retry_at": timezone.localtime(datetime.now(UTC) + cool_off) if cool_off else None,
    }
    response = render(request, "admin/locked_out.html", context, status=429)
    if seconds:
        response["Retry-After"] = str(seconds)
    return response
