"""The regulator's REST endpoints, mounted at /api/ (see docs/api.md and
docs/regulator.md): the package requests and their download, and a round's recall as
HTML and PDF beside the round's own endpoint. The admin's pages are in
:mod:`regulator.admin_urls`."""

from django.urls import path, re_path

from tables.urls import ROUND_KEY

from . import package_api, recall_views

urlpatterns = [
    re_path(
        rf"^rounds/{ROUND_KEY}/recall\.html$",
        recall_views.RecallHTMLView.as_view(),
        name="round-recall-html",
    ),
    re_path(
        rf"^rounds/{ROUND_KEY}/recall\.pdf$",
        recall_views.RecallPDFView.as_view(),
        name="round-recall-pdf-api",
    ),
    path("packages", package_api.PackageListView.as_view(), name="packages"),
    path("packages/<int:package>", package_api.PackageDetailView.as_view(), name="package"),
    path(
        "packages/<int:package>/download",
        package_api.PackageDownloadView.as_view(),
        name="package-download",
    ),
]
