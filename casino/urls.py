"""The project's URLs: each app's own, included, and what is the project's - the admin
site, the API's schema and its docs page, the error handlers. The site's root leads to
the floor, the admin's home page (``tables.admin_urls``; the admin's "View site" too)."""

from django.contrib import admin
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, HttpResponsePermanentRedirect
from django.templatetags.static import static
from django.urls import include, path
from django.utils.translation import gettext_lazy as _
from django.views.generic import RedirectView
from drf_spectacular.views import SpectacularJSONAPIView, SpectacularSwaggerSplitView

from audit.access.authentication import SealedAdminAuthenticationForm

from .language import choose_language


def favicon(request: HttpRequest) -> HttpResponse:
    """The house's icon where browsers look for it (static's name resolved per request:
    a deployment's manifest is read only once collectstatic has made it)."""
    return HttpResponsePermanentRedirect(static("casino/favicon.svg"))


admin.site.site_header = _("Blackjack back-office")
admin.site.site_title = _("Blackjack back-office")
admin.site.index_title = _("Every screen")
admin.site.site_url = "/admin/"
# the floor links every screen; the lists get the whole width of a 1400 px screen
admin.site.enable_nav_sidebar = False
# a person whose authority does not hold its seal is told so, not logged in (audit.access.authority_seal)
admin.site.login_form = SealedAdminAuthenticationForm

urlpatterns = [
    path("", RedirectView.as_view(pattern_name="floor", permanent=False)),
    # browsers ask for /favicon.ico whatever the page's <link rel="icon"> says
    path("favicon.ico", favicon),
    path("language/", choose_language, name="choose-language"),
    # the apps' pages for people, before the admin's own: its last pattern takes any path
    path("", include("tables.admin_urls")),
    path("", include("regulator.admin_urls")),
    path("admin/", admin.site.urls),
    path("api/", include("audit.urls")),
    path("api/", include("tables.urls")),
    path("api/ledger/", include("ledger.urls")),
    path("api/", include("regulator.urls")),
    path("api/schema/", SpectacularJSONAPIView.as_view(), name="api-schema"),
    # a page for people: who is not logged in goes to the admin's login first; its setup
    # is a script of its own (?script), not inline, as the Content-Security-Policy asks
    path(
        "api/docs/",
        login_required(
            SpectacularSwaggerSplitView.as_view(url_name="api-schema"), login_url="/admin/login/"
        ),
        name="api-docs",
    ),
]

# JSON under /api/, the admin's pages elsewhere (casino.api_errors)
handler400 = "casino.api_errors.bad_request"
handler404 = "casino.api_errors.not_found"
handler500 = "casino.api_errors.server_failed"
