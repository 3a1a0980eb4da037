"""The event store's API, mounted at /api/ (see docs/api.md)."""

from django.urls import path, re_path

from .api import STREAM_REGEX, FeedView, StreamEventsView

urlpatterns = [
    re_path(
        rf"^streams/(?P<stream>{STREAM_REGEX})/events$",
        StreamEventsView.as_view(),
        name="stream-events",
    ),
    path("events", FeedView.as_view(), name="events-feed"),
]
