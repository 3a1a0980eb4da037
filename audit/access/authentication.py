"""The API's token authentication: hashed tokens (audit.access.tokens), and token guessing
throttled per client address.

Every failed token authentication from an address is remembered in Django's cache for
``TOKEN_FAILURES_WINDOW_SECONDS``; once ``TOKEN_FAILURES_MAX`` of them are in the window,
every request from that address carrying a token is answered 429 with ``Retry-After``
until the oldest failure leaves the window - even one with a good token, or a guesser
would learn which guess was right. Successes do not count. A request without a token
is left to the next authenticator (the session) and to the 401 of the permission check.

A person whose authority does not hold its seal (:mod:`audit.access.authority_seal`: a token row,
a password hash, a group or a flag written past the application) is refused wherever they
come in: a right token gets 403 ``authority_unsealed`` saying what changed
(:class:`HashedTokenAuthentication`), a session the same on its every request, the
admin's page or the API's JSON (:class:`SealedSessionMiddleware`), and the admin's login
form says so instead of logging in (:class:`SealedAdminAuthenticationForm`). Each refusal
records the critical finding ``authority_unsealed``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from django import forms
from django.conf import settings
from django.contrib import admin
from django.contrib.admin.forms import AdminAuthenticationForm
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import exceptions
from rest_framework.authentication import BaseAuthentication, get_authorization_header
from rest_framework.throttling import UserRateThrottle

from .authority_seal import KIND as AUTHORITY_UNSEALED
from .authority_seal import authority_refusal
from .clients import client_address
from .tokens import TokenRefused, token_user


class AuthorityUnsealed(exceptions.PermissionDenied):
    """A right token of a person whose authority does not hold its seal (403)."""

    default_code = AUTHORITY_UNSEALED


class TokenGuessing(exceptions.Throttled):
    default_code = "token_guessing"
    default_detail = "Too many failed token authentications from this address."


def _failures_key(address: str) -> str:
    return f"token-failures:{address}"


def _recent_failures(address: str, now: float) -> list[float]:
    window = settings.TOKEN_FAILURES_WINDOW_SECONDS
    history: list[float] = cache.get(_failures_key(address), [])
    return [at for at in history if at > now - window]


def guessing_wait(address: str, *, now: float | None = None) -> float | None:
    """Seconds until ``address`` may try a token again, or None when it may now."""
    now = time.time() if now is None else now
    history = _recent_failures(address, now)
    if len(history) < settings.TOKEN_FAILURES_MAX:
        return None
    return max(
        1.0, history[-settings.TOKEN_FAILURES_MAX] + settings.TOKEN_FAILURES_WINDOW_SECONDS - now
    )


def guessing_record_failure(address: str, *, now: float | None = None) -> None:
    now = time.time() if now is None else now
    history = _recent_failures(address, now)
    history.append(now)
    # only as many as the limit needs: an address cannot grow the cache without bound
    cache.set(
        _failures_key(address),
        history[-settings.TOKEN_FAILURES_MAX :],
        settings.TOKEN_FAILURES_WINDOW_SECONDS,
    )


class HashedTokenAuthentication(BaseAuthentication):
    """``Authorization: Token <text>``: a hashed token (audit.access.tokens). 401 for a bad
    one, 429 for an address that has failed too often."""

    keyword = "Token"

    def authenticate(self, request: HttpRequest) -> tuple[Any, None] | None:  # type: ignore[override]
        parts = get_authorization_header(request).split()
        if not parts or parts[0].lower() != self.keyword.lower().encode():
            return None
        address = client_address(request)
        wait = guessing_wait(address)
        if wait is not None:
            raise TokenGuessing(wait=wait)
        try:
            if len(parts) != 2:
                raise TokenRefused(
                    "Invalid token header: expected 'Token <token>' with no spaces in the token."
                )
            try:
                text = parts[1].decode("ascii")
            except UnicodeDecodeError:
                raise TokenRefused("Invalid token header: the token is not ASCII.") from None
            user = token_user(text)
        except TokenRefused as refused:
            guessing_record_failure(address)
            raise exceptions.AuthenticationFailed(str(refused)) from None
        # a right token, not a guess: refused for what was written past the application
        refusal = authority_refusal(user)
        if refusal is not None:
            raise AuthorityUnsealed(refusal)
        return user, None

    def authenticate_header(self, request: HttpRequest) -> str:  # type: ignore[override]
        return self.keyword


class SealedSessionMiddleware:
    """Every request of a session (the admin's, the API's from a browser) whose person's
    authority does not hold its seal: 403 with what changed - JSON in the one error shape
    under /api/, a page elsewhere - except the admin's logout. After Django's
    AuthenticationMiddleware, inside the access log's (which records the refusal)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated and request.path != "/admin/logout/":
            refusal = authority_refusal(user)
            if refusal is not None:
                if request.path.startswith("/api/"):
                    return JsonResponse({"code": AUTHORITY_UNSEALED, "detail": refusal}, status=403)
                # the admin's look, but none of its menus: what they list is read from the
                # very rows that do not hold
                context = {
                    "site_header": admin.site.site_header,
                    "site_title": admin.site.site_title,
                    "has_permission": False,
                    "refusal": refusal,
                    "username": user.get_username(),
                }
                return render(request, "admin/audit/authority_refused.html", context, status=403)
        return self.get_response(request)


class SealedAdminAuthenticationForm(AdminAuthenticationForm):
    """The admin's login: a right password of a person whose authority does not hold its
    seal logs no one in, and the form says why."""

    def confirm_login_allowed(self, user: Any) -> None:
        super().confirm_login_allowed(user)
        refusal = authority_refusal(user)
        if refusal is not None:
            raise forms.ValidationError(refusal, code=AUTHORITY_UNSEALED)


class CallerRateThrottle(UserRateThrottle):
    """Every caller, device or person, at most ``API_REQUESTS_PER_MINUTE`` requests a
    minute (read when asked, so the setting is an ordinary one)."""

    def get_rate(self) -> str:
        return f"{settings.API_REQUESTS_PER_MINUTE}/min"


class HashedTokenScheme(OpenApiAuthenticationExtension):
    """The schema's security scheme: ``Authorization: Token <text>``, as DRF's own."""

    target_class = HashedTokenAuthentication
    name = "tokenAuth"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return {
            "type": "apiKey",
            "in": "header",
            "name": "Authorization",
            "description": 'A hashed API token with an expiry: "Token <text>" (manage.py create_device, api_token)',
        }
