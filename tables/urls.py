"""The rounds' REST endpoints, mounted at /api/ (see docs/back-office.md); findings are
audit's (``audit.urls``)."""

from django.urls import path, re_path

from audit.api.views import STREAM_REGEX

from .analytics import api as analytics_api
from .api import RoundDetailView, RoundListView

# a round by its natural key in a path: the rounds' endpoint's, and any page of a round beside it
ROUND_KEY = rf"(?P<table>{STREAM_REGEX})/(?P<day>\d{{4}}-\d{{2}}-\d{{2}})/(?P<number>[0-9]{{1,18}})"

urlpatterns = [
    path("analytics/counters", analytics_api.CountersView.as_view(), name="analytics-counters"),
    path("analytics/accuracy", analytics_api.AccuracyView.as_view(), name="analytics-accuracy"),
    path("analytics/dealers", analytics_api.DealersView.as_view(), name="analytics-dealers"),
    path("analytics/what-if", analytics_api.WhatIfView.as_view(), name="analytics-what-if"),
    path(
        "analytics/strategy-errors",
        analytics_api.StrategyErrorsView.as_view(),
        name="analytics-strategy-errors",
    ),
    path("rounds", RoundListView.as_view(), name="rounds"),
    re_path(rf"^rounds/{ROUND_KEY}$", RoundDetailView.as_view(), name="round"),
]
