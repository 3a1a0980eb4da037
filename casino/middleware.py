"""What the back-office does to every request before its view: the person's language,
and requests no address can mean refused.

:class:`PersonLanguageMiddleware`: the language a person chose in the admin's header
(:class:`casino.models.LanguagePreference`) wins over what the browser asked for
(Django's ``LocaleMiddleware`` before it); the view's money, numbers and percentages are
written in that language (:func:`audit.record.money.in_locale`). The API keeps the ISO
code form whatever the header: programs read it, and its text must not change with a
browser's settings.

:class:`RefuseNulMiddleware`: requests no address of the back-office can mean, refused
before any view or query.

A NUL byte (``%00``) in the path or the query string names nothing here - every code,
id and note of the record refuses control characters - and PostgreSQL cannot hold one
in a text value: a view that took it to the database would fail with a 5xx. So such a
request is answered 400 at once, JSON under ``/api/`` and Django's page elsewhere
(:func:`casino.api_errors.bad_request`). The middleware sits inside the access log's
(:class:`audit.access.log.AccessLogMiddleware`), which records the refused read with the
path written out printable.
"""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from django.utils import translation

from audit.record.money import in_locale

from .api_errors import bad_request


def chosen_language(request: HttpRequest) -> str | None:
    """The language the logged-in person chose, or None (not logged in, never chose)."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return None
    from .models import LanguagePreference

    return (
        LanguagePreference.objects.filter(user_id=user.pk)
        .values_list("language", flat=True)
        .first()
    )


class PersonLanguageMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.path.startswith("/api/") and not request.path.startswith("/api/docs/"):
            with in_locale(None):
                return self.get_response(request)
        language = chosen_language(request)
        if language is not None:
            translation.activate(language)
            request.LANGUAGE_CODE = language
        with in_locale(translation.get_language()):
            return self.get_response(request)


def nul_in(request: HttpRequest) -> str | None:
    """Where the request carries a NUL byte (``path`` or ``query``), or None."""
    if "\x00" in request.path:
        return "path"
    query = request.META.get("QUERY_STRING", "")
    if "\x00" in query or "%00" in query:
        return "query"
    return None


class RefuseNulMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        where = nul_in(request)
        if where is not None:
            return bad_request(
                request,
                detail=f"The request's {where} holds a NUL byte (%00), which no address "
                "or parameter of the back-office can contain.",
                field=where,
            )
        return self.get_response(request)
