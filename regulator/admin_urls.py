"""Game recall in the admin, beside the round's review, mounted at the site's root
(``casino.urls``): ``/admin/recall/<table>/<day>/<number>/`` and ``.pdf``. The package
requests' admin pages are the model admin's (:mod:`regulator.admin`); the REST endpoints
are in :mod:`regulator.urls`."""

from django.contrib import admin
from django.urls import re_path

from tables.urls import ROUND_KEY

from . import recall_views

urlpatterns = [
    re_path(
        rf"^admin/recall/{ROUND_KEY}/$",
        admin.site.admin_view(recall_views.recall_page),
        name="round-recall",
    ),
    re_path(
        rf"^admin/recall/{ROUND_KEY}\.pdf$",
        admin.site.admin_view(recall_views.recall_pdf_page),
        name="round-recall-pdf",
    ),
]
