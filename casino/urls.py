"""The project's URLs. The admin's home page is the floor (tables.floor_views.dashboard);
Django's own index of every app's screens moves to /admin/apps/; the site's root leads
to the floor (the admin's "View site" too). The floor's poll lives outside /admin/: the
page that opened it is the read the access log records, not each second's refresh."""
from django.contrib import admin
from django.contrib.auth.decorators import login_required
from django.urls import include, path, re_path
from django.views.generic import RedirectView
from drf_spectacular.views import SpectacularJSONAPIView, SpectacularSwaggerSplitView

from audit.authentication import SealedAdminAuthenticationForm
from audit.store import STREAM_REGEX
from regulator import package_api, recall_views
from tables import floor_views
from tables.analytics import views as analytics_views

admin.site.site_header = "Blackjack back-office"
admin.site.site_title = "Blackjack back-office"
admin.site.index_title = "Every screen"
admin.site.site_url = "/admin/"
# the floor links every screen; the lists get the whole width of a 1400 px screen
admin.site.enable_nav_sidebar = False
# a person whose authority does not hold its seal is told so, not logged in (audit.authority_seal)
admin.site.login_form = SealedAdminAuthenticationForm

# a round by its natural key, as the rounds' own endpoint has it
_ROUND = rf"(?P<table>{STREAM_REGEX})/(?P<day>\d{{4}}-\d{{2}}-\d{{2}})/(?P<number>[0-9]{{1,18}})"

urlpatterns = [
    path("", RedirectView.as_view(pattern_name="floor", permanent=False)),
    path("admin/", admin.site.admin_view(floor_views.dashboard), name="floor"),
    path("admin/apps/", admin.site.admin_view(admin.site.index), name="floor-apps"),
    path("admin/floor/alerts/<int:pk>/acknowledge/", admin.site.admin_view(floor_views.acknowledge),
         name="floor-acknowledge"),
    path("floor/figures", admin.site.admin_view(floor_views.figures), name="floor-figures"),
    path("admin/analytics/<slug:name>/", admin.site.admin_view(analytics_views.analytics_view), name="analytics"),
    path("admin/analytics/<slug:name>.csv", admin.site.admin_view(analytics_views.analytics_csv), name="analytics-csv"),
    re_path(rf"^admin/recall/{_ROUND}/$", admin.site.admin_view(recall_views.recall_page), name="round-recall"),
    re_path(rf"^admin/recall/{_ROUND}\.pdf$", admin.site.admin_view(recall_views.recall_pdf_page),
            name="round-recall-pdf"),
    path("admin/", admin.site.urls),
    path("api/", include("audit.urls")),
    path("api/", include("tables.urls")),
    path("api/ledger/", include("ledger.urls")),
    re_path(rf"^api/rounds/{_ROUND}/recall\.html$", recall_views.RecallHTMLView.as_view(), name="round-recall-html"),
    re_path(rf"^api/rounds/{_ROUND}/recall\.pdf$", recall_views.RecallPDFView.as_view(), name="round-recall-pdf-api"),
    path("api/packages", package_api.PackageListView.as_view(), name="packages"),
    path("api/packages/<int:package>", package_api.PackageDetailView.as_view(), name="package"),
    path("api/packages/<int:package>/download", package_api.PackageDownloadView.as_view(), name="package-download"),
    path("api/schema/", SpectacularJSONAPIView.as_view(), name="api-schema"),
    # a page for people: who is not logged in goes to the admin's login first; its setup
    # is a script of its own (?script), not inline, as the Content-Security-Policy asks
    path("api/docs/", login_required(SpectacularSwaggerSplitView.as_view(url_name="api-schema"),
                                     login_url="/admin/login/"), name="api-docs"),
]

# JSON under /api/, the admin's pages elsewhere (casino.api_errors)
handler400 = "casino.api_errors.bad_request"
handler404 = "casino.api_errors.not_found"
handler500 = "casino.api_errors.server_failed"
