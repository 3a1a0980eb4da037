"""The back-office's REST endpoints, mounted at /api/ (see docs/back-office.md)."""
from django.urls import path, re_path

from audit.api import STREAM_REGEX
from audit.findings_api import (
    FindingAcknowledgeView,
    FindingDetailView,
    FindingListView,
    FindingReopenView,
    FindingResolveView,
)

from .api import RoundDetailView, RoundListView

urlpatterns = [
    path("rounds", RoundListView.as_view(), name="rounds"),
    re_path(
        rf"^rounds/(?P<table>{STREAM_REGEX})/(?P<day>\d{{4}}-\d{{2}}-\d{{2}})/(?P<number>[0-9]{{1,18}})$",
        RoundDetailView.as_view(), name="round",
    ),
    path("findings", FindingListView.as_view(), name="findings"),
    re_path(r"^findings/(?P<pk>[0-9]{1,18})$", FindingDetailView.as_view(), name="finding"),
    re_path(r"^findings/(?P<pk>[0-9]{1,18})/acknowledge$", FindingAcknowledgeView.as_view(), name="finding-acknowledge"),
    re_path(r"^findings/(?P<pk>[0-9]{1,18})/resolve$", FindingResolveView.as_view(), name="finding-resolve"),
    re_path(r"^findings/(?P<pk>[0-9]{1,18})/reopen$", FindingReopenView.as_view(), name="finding-reopen"),
]
