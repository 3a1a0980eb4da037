"""The language chooser in the admin's header: the person's choice is kept
(:class:`casino.models.LanguagePreference`) and wins on every later page; the cookie
Django's ``LocaleMiddleware`` reads carries it for a page not logged in."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest, HttpResponseRedirect
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from .models import LanguagePreference


@require_POST
def choose_language(request: HttpRequest) -> HttpResponse:
    language = request.POST.get("language", "")
    known = dict(settings.LANGUAGES)
    if language not in known:
        return HttpResponseBadRequest(
            _("Unknown language %(language)r: choose one of %(known)s.")
            % {"language": language, "known": ", ".join(known)},
            content_type="text/plain; charset=utf-8",
        )
    target = request.POST.get("next", "")
    if not url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        target = "/admin/"
    if request.user.is_authenticated:
        LanguagePreference.objects.update_or_create(
            user_id=request.user.pk, defaults={"language": language}
        )
    response = HttpResponseRedirect(target)
    response.set_cookie(
        settings.LANGUAGE_COOKIE_NAME,
        language,
        max_age=365 * 86400,
        samesite="Lax",
        secure=request.is_secure(),
        httponly=True,
    )
    return response
