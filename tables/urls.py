"""The rounds' REST endpoints, mounted at /api/ (see docs/back-office.md); findings are
audit's (``audit.urls``)."""
from django.urls import path, re_path

from audit.api import STREAM_REGEX

from .api import RoundDetailView, RoundListView

urlpatterns = [
    path("rounds", RoundListView.as_view(), name="rounds"),
    re_path(
        rf"^rounds/(?P<table>{STREAM_REGEX})/(?P<day>\d{{4}}-\d{{2}}-\d{{2}})/(?P<number>[0-9]{{1,18}})$",
        RoundDetailView.as_view(), name="round",
    ),
]
