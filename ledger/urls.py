"""The ledger's REST endpoints, mounted at /api/ledger/ (see docs/accounting.md)."""

from django.urls import path, re_path

from audit.api.views import STREAM_REGEX

from . import api

_DAY = r"(?P<day>\d{4}-\d{2}-\d{2})"
_TABLE_DAY = rf"^reconciliations/(?P<table>{STREAM_REGEX})/{_DAY}"

urlpatterns = [
    path("reconciliations", api.ReconciliationListView.as_view(), name="ledger-reconciliations"),
    re_path(
        rf"{_TABLE_DAY}$", api.ReconciliationDetailView.as_view(), name="ledger-reconciliation"
    ),
    re_path(rf"{_TABLE_DAY}/sign-off$", api.SignOffView.as_view(), name="ledger-sign-off"),
    re_path(rf"{_TABLE_DAY}/reopen$", api.ReopenView.as_view(), name="ledger-reopen"),
    path("slips", api.SlipListView.as_view(), name="ledger-slips"),
    path("reports/statistics", api.StatisticsView.as_view(), name="ledger-report-statistics"),
    path("reports/hold", api.HoldView.as_view(), name="ledger-report-hold"),
    path("reports/daily", api.DailyView.as_view(), name="ledger-report-daily"),
    path("reports/drop", api.DropView.as_view(), name="ledger-report-drop"),
    path("reports/master-game", api.MasterGameView.as_view(), name="ledger-report-master-game"),
    path("reports/marker-aging", api.MarkerAgingView.as_view(), name="ledger-report-marker-aging"),
    path("reports/markers", api.MarkerListView.as_view(), name="ledger-report-markers"),
    path(
        "reports/chips-outstanding",
        api.ChipsOutstandingView.as_view(),
        name="ledger-report-chips-outstanding",
    ),
    path("general-ledger/journal", api.JournalView.as_view(), name="ledger-journal"),
    path("slip-books", api.SlipBookView.as_view(), name="ledger-slip-books"),
    path("reports/slip-books", api.SlipBooksReportView.as_view(), name="ledger-report-slip-books"),
    path(
        "reports/slip-sequence", api.SlipSequenceView.as_view(), name="ledger-report-slip-sequence"
    ),
    path(
        "general-ledger/trial-balance", api.TrialBalanceView.as_view(), name="ledger-trial-balance"
    ),
    path("fx-rates", api.FxRateView.as_view(), name="ledger-fx-rates"),
]
