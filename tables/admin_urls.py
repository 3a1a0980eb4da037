"""The tables' pages for people, mounted at the site's root (``casino.urls``). The
admin's home page is the floor (:func:`tables.floor_views.dashboard`); Django's own
index of every app's screens moves to /admin/apps/. The floor's poll lives outside
/admin/: the page that opened it is the read the access log records, not each second's
refresh. The analytics' screens and their CSV are the admin's pages too. The REST
endpoints are in :mod:`tables.urls`."""

from django.contrib import admin
from django.urls import path

from . import floor_views
from .analytics import views as analytics_views

urlpatterns = [
    path("admin/", admin.site.admin_view(floor_views.dashboard), name="floor"),
    path("admin/apps/", admin.site.admin_view(admin.site.index), name="floor-apps"),
    path(
        "admin/floor/alerts/<int:pk>/acknowledge/",
        admin.site.admin_view(floor_views.acknowledge),
        name="floor-acknowledge",
    ),
    path("floor/figures", admin.site.admin_view(floor_views.figures), name="floor-figures"),
    path(
        "admin/analytics/",
        admin.site.admin_view(analytics_views.analytics_index),
        name="analytics-index",
    ),
    path(
        "admin/analytics/<slug:name>/",
        admin.site.admin_view(analytics_views.analytics_view),
        name="analytics",
    ),
    path(
        "admin/analytics/<slug:name>.csv",
        admin.site.admin_view(analytics_views.analytics_csv),
        name="analytics-csv",
    ),
]
