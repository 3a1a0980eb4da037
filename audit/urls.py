"""The event store's and the findings' API, mounted at /api/ (see docs/api.md and
docs/back-office.md)."""

from django.urls import path, re_path

from audit.api.views import STREAM_REGEX, FeedView, StreamEventsView
from audit.findings.api import (
    FindingAcknowledgeView,
    FindingDetailView,
    FindingListView,
    FindingReopenView,
    FindingResolveView,
)

urlpatterns = [
    re_path(
        rf"^streams/(?P<stream>{STREAM_REGEX})/events$",
        StreamEventsView.as_view(),
        name="stream-events",
    ),
    path("events", FeedView.as_view(), name="events-feed"),
    path("findings", FindingListView.as_view(), name="findings"),
    re_path(r"^findings/(?P<pk>[0-9]{1,18})$", FindingDetailView.as_view(), name="finding"),
    re_path(
        r"^findings/(?P<pk>[0-9]{1,18})/acknowledge$",
        FindingAcknowledgeView.as_view(),
        name="finding-acknowledge",
    ),
    re_path(
        r"^findings/(?P<pk>[0-9]{1,18})/resolve$",
        FindingResolveView.as_view(),
        name="finding-resolve",
    ),
    re_path(
        r"^findings/(?P<pk>[0-9]{1,18})/reopen$", FindingReopenView.as_view(), name="finding-reopen"
    ),
]
