"""The ledger over REST (see docs/accounting.md): the reconciliations (list, one
table-day in full), sign-off and reopen, the custody lists and the reports - each report
and the list of reconciliations also as CSV (``?format=csv``). The views parse and
authorise; :mod:`ledger.selectors`, :mod:`ledger.reports` and :mod:`ledger.signoff` do
the rest. Errors have the project's shape (``casino.api_errors``).

Who: reading needs ``ledger.view_reconciliation`` (the ``accounting`` group has it);
signing off and reopening ``ledger.sign_off``; setting a day's exchange rate
``ledger.add_fxrate``; device accounts never.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import date
from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_field,
)
from rest_framework import serializers
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.generics import GenericAPIView
from rest_framework.parsers import JSONParser
from rest_framework.permissions import IsAuthenticated
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from audit.api.common import (
    CSVRenderer,
    GamingDayField,
    Pages,
    PersonWith,
    ReportSerializer,
    StrictQuery,
    query,
)
from audit.api.views import (
    PERSON_AUTH_ERRORS,
    STREAM_REGEX,
    ErrorSerializer,
    FreeTextField,
    InvalidSerializer,
    StrictSerializer,
)

from . import (
    fx,
    general_ledger,
    master_game,
    receivables,
    reports,
    selectors,
    signoff,
    slip_books,
    slip_sequence,
)
from . import models as m


class MayViewLedger(PersonWith):
    perm = "ledger.view_reconciliation"


class MaySignOff(PersonWith):
    perm = "ledger.sign_off"


_RENDERERS = (JSONRenderer, CSVRenderer)
_CSV = OpenApiParameter(
    "format", str, enum=["json", "csv"], description="csv: the same rows as CSV"
)


def _csv(request: Request) -> bool:
    return getattr(request.accepted_renderer, "format", "") == "csv"


class LedgerQuery(StrictQuery):
    table = serializers.RegexField(rf"^{STREAM_REGEX}$", required=False, help_text="a table's code")
    game = serializers.CharField(required=False, max_length=64, help_text="a rule set, e.g. hoyle")
    pit = serializers.CharField(required=False, max_length=32)

    def get_fields(self) -> dict[str, Any]:
        # "from" is a Python keyword: a subclass declares ``from_``, the parameter is "from"
        fields = super().get_fields()
        if "from_" in fields:
            fields["from"] = fields.pop("from_")
        return fields

    def filters(self) -> dict[str, Any]:
        return {
            k: v
            for k, v in self.validated_data.items()
            if k in ("table", "game", "pit") and v is not None
        }


class RangeQuery(LedgerQuery):
    from_ = GamingDayField(required=True, help_text="the first gaming day, YYYY-MM-DD")
    to = GamingDayField(required=True, help_text="the last gaming day, YYYY-MM-DD")

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if attrs["from"] > attrs["to"]:
            raise ValidationError(
                {"from": [f"{attrs['from'].isoformat()} is after to ({attrs['to'].isoformat()})."]}
            )
        return attrs


class ReconciliationQuery(LedgerQuery):
    day = GamingDayField(required=False, help_text="one gaming day, YYYY-MM-DD")
    from_ = GamingDayField(required=False, help_text="from this gaming day")
    to = GamingDayField(required=False, help_text="to this gaming day")
    shifts = serializers.BooleanField(
        required=False, default=False, help_text="true: the shifts, not the days"
    )
    unexplained = serializers.BooleanField(
        required=False,
        allow_null=True,
        default=None,
        help_text="true: only periods with a variance beyond the threshold",
    )
    state = serializers.ChoiceField(
        choices=m.Reconciliation.State.values,
        required=False,
        help_text="only periods in this accounting state",
    )


# --- documentation of the bodies (the views return plain dicts) ------------------------------


class DisplaySerializer(serializers.Serializer):
    opener = serializers.CharField()
    closer = serializers.CharField()
    fills = serializers.CharField()
    credits = serializers.CharField()
    drop = serializers.CharField()
    handle = serializers.CharField()
    chip_count_win = serializers.CharField(help_text="e.g. +EUR 4,000.00")
    recorded_win = serializers.CharField()
    replayed_win = serializers.CharField()
    theoretical_win = serializers.CharField()
    theoretical_sd = serializers.CharField(help_text="n/a where the game's variance is not known")
    chip_variance = serializers.CharField()
    replay_variance = serializers.CharField()
    hold = serializers.CharField(help_text="e.g. 44.4%; - without a drop")
    missing = serializers.CharField(allow_null=True, help_text="what the record lacks, in words")
    adjustment_win = serializers.CharField()
    adjustment_drop = serializers.CharField()
    adjustment_house_result = serializers.CharField()


class LedgerFindingSerializer(serializers.Serializer):
    id = serializers.IntegerField(required=False)
    kind = serializers.CharField()
    severity = serializers.CharField(required=False)
    status = serializers.CharField(required=False)
    shift = serializers.CharField(allow_null=True)
    slip = serializers.CharField(allow_null=True)
    expected = serializers.CharField(allow_null=True)
    recorded = serializers.CharField(allow_null=True)
    message = serializers.CharField()


class SignedOffSerializer(serializers.Serializer):
    status = serializers.ChoiceField(choices=m.SignOff.Status.values)
    by = serializers.CharField()
    at = serializers.DateTimeField()
    note = serializers.CharField()
    figures_hash = serializers.CharField()
    reopened_by = serializers.CharField(allow_null=True)
    reopened_at = serializers.DateTimeField(allow_null=True)
    reopen_note = serializers.CharField(allow_null=True)
    state = serializers.CharField(
        allow_null=True, help_text="the day's accounting state when it was signed"
    )
    exceptions = serializers.ListField(
        child=serializers.CharField(),
        help_text="what the note signs over: closer_missing, chip_variance, not_final, ...",
    )


class ReconciliationSerializer(serializers.Serializer):
    table = serializers.CharField()
    gaming_day = serializers.DateField()
    shift = serializers.CharField(allow_null=True, help_text="null: the whole gaming day")
    currency = serializers.CharField()
    game = serializers.CharField(help_text="the rule set")
    pit = serializers.CharField()
    final = serializers.BooleanField(
        help_text="the record is complete for the day (a later day opened)"
    )
    opener = serializers.IntegerField(allow_null=True, help_text="minor units")
    closer = serializers.IntegerField(allow_null=True)
    fills = serializers.IntegerField()
    credits = serializers.IntegerField()
    drop = serializers.IntegerField(allow_null=True)
    drop_cash = serializers.IntegerField(allow_null=True)
    drop_markers = serializers.IntegerField(allow_null=True)
    drop_chips = serializers.IntegerField(allow_null=True)
    handle = serializers.IntegerField()
    initial_stakes = serializers.IntegerField(
        allow_null=True,
        help_text="main bets and the bets behind them: what the "
        "theoretical win is of (null: folded before they were kept)",
    )
    insurance_stakes = serializers.IntegerField(help_text="valued by insurance's own edge")
    conversions = serializers.ListField(
        child=serializers.DictField(),
        help_text="amounts recorded in a foreign currency and booked at the day's "
        "rate, both kept: event, what, shift, currency, amount (its minor units), rate (exact), booked (the table's)",
    )
    rounds = serializers.IntegerField()
    bets = serializers.IntegerField()
    chip_count_win = serializers.IntegerField(
        allow_null=True, help_text="house result: + the house won"
    )
    recorded_win = serializers.IntegerField()
    replayed_win = serializers.IntegerField(allow_null=True)
    theoretical_win = serializers.IntegerField(
        allow_null=True,
        help_text="initial stakes x the house edge per initial stake, insurance by its own edge",
    )
    theoretical_sd = serializers.IntegerField(allow_null=True)
    theoretical_interval = serializers.ListField(child=serializers.IntegerField(), allow_null=True)
    hold = serializers.CharField(allow_null=True, help_text="win-to-drop, e.g. 44.4%")
    hold_bp = serializers.IntegerField(allow_null=True, help_text="hold in basis points")
    variances = serializers.DictField(
        child=serializers.IntegerField(allow_null=True),
        help_text="chip, replay: what the known differences leave unexplained",
    )
    explanations = serializers.DictField(child=serializers.ListField(child=serializers.DictField()))
    unexplained = serializers.BooleanField()
    state = serializers.ChoiceField(
        choices=m.Reconciliation.State.values,
        help_text="open, incomplete, no_drop_box, counted, reconciled, signed, adjusted",
    )
    state_text = serializers.CharField(help_text="the state in words, with what is missing")
    drop_box = serializers.BooleanField(
        help_text="the game has a chip tray and a drop box by design"
    )
    missing = serializers.ListField(
        child=serializers.CharField(),
        help_text="what the record lacks, as the kinds of the findings that name it",
    )
    late = serializers.DictField(
        allow_null=True,
        help_text="a signed day: what events after signing changed "
        "(figures: now - signed; win; drop), posted into adjusted_into",
    )
    adjusted_into = serializers.DateField(allow_null=True)
    adjustments = serializers.ListField(
        child=serializers.DictField(),
        help_text="posted into this day from signed days: gaming_day, figures, win, drop",
    )
    adjustment_win = serializers.IntegerField(
        help_text="the chip-count win the adjustments add (the reports count it)"
    )
    adjustment_drop = serializers.IntegerField()
    adjustment_house_result = serializers.IntegerField(
        help_text="the house result the adjustments add"
    )
    findings = LedgerFindingSerializer(many=True)
    trial_balance = serializers.DictField(child=serializers.IntegerField())
    reconciled_version = serializers.IntegerField()
    display = DisplaySerializer()
    signed_off = SignedOffSerializer(allow_null=True, required=False)


class SlipSerializer(serializers.Serializer):
    table = serializers.CharField(source="table.stream")
    number = serializers.CharField()
    kind = serializers.CharField()
    gaming_day = serializers.DateField()
    shift = serializers.CharField()
    state = serializers.CharField()
    value = serializers.IntegerField()
    steps = serializers.DictField(child=serializers.DictField())
    people = serializers.DictField(child=serializers.CharField())
    void_reason = serializers.CharField()


class CountSerializer(serializers.Serializer):
    table = serializers.CharField(source="table.stream")
    gaming_day = serializers.DateField()
    shift = serializers.CharField()
    kind = serializers.CharField()
    slip = serializers.CharField()
    chips = serializers.DictField(child=serializers.IntegerField())
    value = serializers.IntegerField()
    counted_by = serializers.CharField()
    witnessed_by = serializers.CharField()
    version = serializers.IntegerField(allow_null=True)


class DropSerializer(serializers.Serializer):
    gaming_day = serializers.DateField()
    shift = serializers.CharField()
    state = serializers.CharField()
    counted_cash = serializers.IntegerField(allow_null=True)
    counted_markers = serializers.IntegerField(allow_null=True)
    counted_chips = serializers.IntegerField(allow_null=True)
    posted_cash = serializers.IntegerField(allow_null=True)
    posted_markers = serializers.IntegerField(allow_null=True)
    posted_chips = serializers.IntegerField(allow_null=True)


class MarkerSerializer(serializers.Serializer):
    number = serializers.CharField()
    player = serializers.CharField()
    amount = serializers.IntegerField()
    redeemed = serializers.IntegerField()


class DayDetailSerializer(ReconciliationSerializer):
    shifts = ReconciliationSerializer(many=True)
    slips = SlipSerializer(many=True)
    inventory_slips = CountSerializer(many=True)
    drops = DropSerializer(many=True)
    markers = MarkerSerializer(many=True)


# --- views -----------------------------------------------------------------------------------


def _day(day: str) -> date:
    try:
        return date.fromisoformat(day)
    except ValueError:
        raise NotFound(f"{day!r} is not a gaming day (YYYY-MM-DD).") from None


class ReconciliationListView(GenericAPIView):
    permission_classes = (IsAuthenticated, MayViewLedger)
    pagination_class = Pages
    renderer_classes = _RENDERERS
    serializer_class = ReconciliationSerializer

    @extend_schema(
        operation_id="ledger_reconciliations_list",
        summary="Reconciled table-days (or shifts), filtered by table, game, pit and days",
        parameters=[
            ReconciliationQuery,
            _CSV,
            OpenApiParameter(
                "page", int, description="page number, from 1 (not with csv: every row)"
            ),
            OpenApiParameter(
                "page_size",
                int,
                description="rows per page (default 50, at most BACK_OFFICE_PAGE_MAX)",
            ),
        ],
        responses={
            (200, "application/json"): ReconciliationSerializer(many=True),
            (200, "text/csv"): OpenApiTypes.STR,
            400: OpenApiResponse(InvalidSerializer, description="a bad query parameter"),
            **PERSON_AUTH_ERRORS,
        },
    )
    def get(self, request: Request) -> Response:
        params = query(ReconciliationQuery, request)
        rows = selectors.reconciliations(
            table=params.get("table"),
            day=params.get("day"),
            day_from=params.get("from"),
            day_to=params.get("to"),
            pit=params.get("pit"),
            game=params.get("game"),
            shifts=params.get("shifts", False),
            unexplained=params.get("unexplained"),
            state=params.get("state"),
        )
        if _csv(request):
            report = reports.Report(
                "reconciliations",
                "Reconciliations",
                RECONCILIATION_COLUMNS,
                [selectors.as_dict(r) for r in rows],
            ).with_totals()
            return Response(report.as_csv(), content_type="text/csv")
        page = self.paginate_queryset(rows)
        return self.get_paginated_response([selectors.as_dict(r) for r in page])


RECONCILIATION_COLUMNS = (
    reports.Column("table", "table"),
    reports.Column("gaming_day", "gaming day"),
    reports.Column("shift", "shift"),
    reports.Column("pit", "pit"),
    reports.Column("game", "game"),
    reports.Column("currency", "currency"),
    reports.Column("opener", "opener", "money"),
    reports.Column("closer", "closer", "money"),
    reports.Column("fills", "fills", "money", total=True),
    reports.Column("credits", "credits", "money", total=True),
    reports.Column("drop", "drop", "money", total=True),
    reports.Column("chip_count_win", "chip-count win", "signed", total=True),
    reports.Column("recorded_win", "recorded win", "signed", total=True),
    reports.Column("replayed_win", "replayed win", "signed", total=True),
    reports.Column("theoretical_win", "theoretical win", "signed", total=True),
    reports.Column("theoretical_sd", "theoretical SD", "money"),
    reports.Column("hold", "hold"),
    reports.Column("unexplained", "unexplained"),
    reports.Column("state", "state"),
    reports.Column("state_text", "state in words"),
    reports.Column("adjustment_win", "adjustment: chip-count win", "signed", total=True),
    reports.Column("adjustment_drop", "adjustment: drop", "signed", total=True),
    reports.Column("adjustment_house_result", "adjustment: house result", "signed", total=True),
)


class ReconciliationDetailView(APIView):
    permission_classes = (IsAuthenticated, MayViewLedger)

    @extend_schema(
        operation_id="ledger_reconciliations_read",
        summary="One table's gaming day in full",
        description="The day's and each shift's figures and four-way reconciliation, the variances with their "
        "explanations, the current findings, the fill and credit slips with each step, the inventory slips, the "
        "drops, the markers and the sign-off.",
        parameters=[
            OpenApiParameter("table", str, OpenApiParameter.PATH, pattern=f"^{STREAM_REGEX}$"),
            OpenApiParameter(
                "day", str, OpenApiParameter.PATH, description="the gaming day, YYYY-MM-DD"
            ),
        ],
        responses={
            200: DayDetailSerializer,
            **PERSON_AUTH_ERRORS,
            404: OpenApiResponse(ErrorSerializer, description="the ledger has no figures for it"),
        },
    )
    def get(self, request: Request, table: str, day: str) -> Response:
        return Response(day_body(table, _day(day)))


def day_body(table: str, day: date) -> dict[str, Any]:
    detail = selectors.day_detail(table=table, day=day)
    if detail is None:
        raise NotFound(f"The ledger has no figures for table {table!r} on {day.isoformat()}.")
    return {
        **selectors.as_dict(detail.day, findings=detail.findings, signoff=detail.signoff),
        "shifts": [selectors.as_dict(s) for s in detail.shifts],
        "slips": SlipSerializer(detail.slips, many=True).data,
        "inventory_slips": CountSerializer(detail.counts, many=True).data,
        "drops": DropSerializer(detail.drops, many=True).data,
        "markers": MarkerSerializer(detail.markers, many=True).data,
    }


class SignOffNoteSerializer(StrictSerializer):
    note = FreeTextField(
        required=False,
        allow_blank=True,
        help_text="why; required to reopen, and to sign off a day with an unexplained variance "
        "or not complete yet",
    )


class _SignOffAction(APIView):
    permission_classes = (IsAuthenticated, MaySignOff)
    parser_classes = (JSONParser,)

    def act(self, request: Request, table: str, day: str) -> Response:
        body = SignOffNoteSerializer(data=request.data if request.data is not None else {})
        body.is_valid(raise_exception=True)
        when = _day(day)
        note = body.validated_data.get("note")
        if isinstance(self, ReopenView):
            signoff.day_reopen(table=table, gaming_day=when, user=request.user, note=note or "")
        else:
            signoff.day_sign_off(table=table, gaming_day=when, user=request.user, note=note)
        return Response(day_body(table, when))


def _action_schema(operation: str, summary: str, description: str) -> Any:
    return extend_schema(
        operation_id=operation,
        summary=summary,
        description=description,
        request=SignOffNoteSerializer,
        parameters=[
            OpenApiParameter("table", str, OpenApiParameter.PATH, pattern=f"^{STREAM_REGEX}$"),
            OpenApiParameter(
                "day", str, OpenApiParameter.PATH, description="the gaming day, YYYY-MM-DD"
            ),
        ],
        responses={
            200: DayDetailSerializer,
            400: OpenApiResponse(InvalidSerializer, description="a bad body, or a note required"),
            **PERSON_AUTH_ERRORS,
            404: OpenApiResponse(ErrorSerializer, description="the ledger has no figures for it"),
            409: OpenApiResponse(
                ErrorSerializer, description="signed off already / not signed off"
            ),
        },
    )


class SignOffView(_SignOffAction):
    @_action_schema(
        "ledger_sign_off",
        "Sign a table's gaming day off",
        "Appends ledger.signed_off (the figures and their hash, who, the note, the day's state and the "
        "exceptions the note signs over) to audit.ledger; the day is then closed: later events for it "
        "are posted as an adjustment into the first open day. A day with an exception (something "
        "missing, a difference not explained, not final) needs a note (400 note_required, naming them).",
    )
    def post(self, request: Request, table: str, day: str) -> Response:
        return self.act(request, table, day)


class ReopenView(_SignOffAction):
    @_action_schema(
        "ledger_reopen",
        "Reopen a signed-off gaming day (a note is required)",
        "Appends ledger.reopened to audit.ledger and folds the day again: its rows are the record as it "
        "is now. Refused (409) while a signed day carries its later events.",
    )
    def post(self, request: Request, table: str, day: str) -> Response:
        return self.act(request, table, day)


class SlipQuery(StrictQuery):
    table = serializers.RegexField(rf"^{STREAM_REGEX}$", required=False)
    day = GamingDayField(required=False)
    kind = serializers.ChoiceField(choices=m.Slip.Kind.values, required=False)
    state = serializers.ChoiceField(
        choices=["requested", "issued", "released", "received", "complete", "voided"],
        required=False,
    )


class SlipListView(GenericAPIView):
    permission_classes = (IsAuthenticated, MayViewLedger)
    pagination_class = Pages
    serializer_class = SlipSerializer

    @extend_schema(
        operation_id="ledger_slips_list",
        summary="Fill and credit slips with their state and steps",
        parameters=[SlipQuery, OpenApiParameter("page", int), OpenApiParameter("page_size", int)],
        responses={
            200: SlipSerializer(many=True),
            400: OpenApiResponse(InvalidSerializer, description="a bad query parameter"),
            **PERSON_AUTH_ERRORS,
        },
    )
    def get(self, request: Request) -> Response:
        params = query(SlipQuery, request)
        page = self.paginate_queryset(selectors.slips(**params))
        return self.get_paginated_response(SlipSerializer(page, many=True).data)


_CONSOLIDATE = (
    "true: every table-day in the house currency (LEDGER_HOUSE_CURRENCY) at its day's rate; those "
    "without a rate counted and named apart (no_rate, no_rate_days)"
)


class ConsolidatedRangeQuery(RangeQuery):
    consolidate = serializers.BooleanField(required=False, default=False, help_text=_CONSOLIDATE)


class StatisticsQuery(LedgerQuery):
    consolidate = serializers.BooleanField(required=False, default=False, help_text=_CONSOLIDATE)
    group = serializers.ChoiceField(choices=reports.GROUPS, default="table")
    period = serializers.ChoiceField(
        choices=reports.PERIODS,
        default="day",
        help_text="shift, day, mtd, ytd (of day) or range (from, to)",
    )
    day = GamingDayField(required=False, help_text="the day the period ends on")
    from_ = GamingDayField(required=False)
    to = GamingDayField(required=False)


class _ReportView(APIView):
    permission_classes = (IsAuthenticated, MayViewLedger)
    renderer_classes = _RENDERERS

    def answer(self, request: Request, make: Any, **kwargs: Any) -> Response:
        try:
            report = make(**kwargs)
        except reports.ReportError as error:
            raise ValidationError({"query": [str(error)]}) from None
        if _csv(request):
            return Response(report.as_csv(), content_type="text/csv")
        return Response(report.as_json())


def _report_schema(operation: str, summary: str, parameters: type[StrictQuery]) -> Any:
    return extend_schema(
        operation_id=operation,
        summary=summary,
        parameters=[parameters, _CSV],
        responses={
            (200, "application/json"): ReportSerializer,
            (200, "text/csv"): OpenApiTypes.STR,
            400: OpenApiResponse(InvalidSerializer, description="a bad query parameter"),
            **PERSON_AUTH_ERRORS,
        },
    )


class StatisticsView(_ReportView):
    @_report_schema(
        "ledger_reports_statistics",
        "Drop, win, hold and theoretical hold per table, game, pit or casino, beside a year before",
        StatisticsQuery,
    )
    def get(self, request: Request) -> Response:
        parsed = StatisticsQuery(data=request.query_params)
        parsed.is_valid(raise_exception=True)
        p = parsed.validated_data
        return self.answer(
            request,
            reports.statistics,
            group=p["group"],
            period=p["period"],
            day=p.get("day"),
            day_from=p.get("from"),
            day_to=p.get("to"),
            consolidate=p["consolidate"],
            **parsed.filters(),
        )


class _RangeReport(_ReportView):
    make: Any = None
    parameters: type[RangeQuery] = RangeQuery

    def get(self, request: Request) -> Response:
        parsed = self.parameters(data=request.query_params)
        parsed.is_valid(raise_exception=True)
        p = parsed.validated_data
        more = {"consolidate": p["consolidate"]} if "consolidate" in p else {}
        return self.answer(
            request, type(self).make, day_from=p["from"], day_to=p["to"], **more, **parsed.filters()
        )


class HoldView(_RangeReport):
    make = staticmethod(reports.hold)
    parameters = ConsolidatedRangeQuery

    @_report_schema(
        "ledger_reports_hold",
        "Drop, win, hold and theoretical hold per table over days",
        ConsolidatedRangeQuery,
    )
    def get(self, request: Request) -> Response:
        return super().get(request)


class DailyView(_RangeReport):
    make = staticmethod(reports.daily)
    parameters = ConsolidatedRangeQuery

    @_report_schema(
        "ledger_reports_daily",
        "Win against the theoretical win and its 95% interval, by gaming day",
        ConsolidatedRangeQuery,
    )
    def get(self, request: Request) -> Response:
        return super().get(request)


class DropView(_RangeReport):
    make = staticmethod(reports.drop)

    @_report_schema("ledger_reports_drop", "The drop by instrument per table-day", RangeQuery)
    def get(self, request: Request) -> Response:
        return super().get(request)


# --- the reports an accountant files (master game, ...) --------------------------------------

_SHIFT = r"^[A-Za-z0-9][A-Za-z0-9._:-]*\Z"


class MasterGameQuery(LedgerQuery):
    day = GamingDayField(required=True, help_text="the gaming day, YYYY-MM-DD")
    shift = serializers.RegexField(
        _SHIFT,
        max_length=32,
        required=False,
        help_text="a shift's label (06:00, swing), or all: every shift; none: the whole day",
    )


class MasterGameView(_ReportView):
    @_report_schema(
        "ledger_reports_master_game",
        "The master game report (stiff sheet): per table opener, fills, credits, closer, drop by "
        "instrument, win, hold, theoretical win, variance and who counted, with totals",
        MasterGameQuery,
    )
    def get(self, request: Request) -> Response:
        p = query(MasterGameQuery, request)
        return self.answer(
            request,
            master_game.master_game,
            day=p["day"],
            shift=p.get("shift"),
            table=p.get("table"),
            game=p.get("game"),
            pit=p.get("pit"),
        )


class AsOfQuery(StrictQuery):
    day = GamingDayField(required=True, help_text="as of the end of this gaming day, YYYY-MM-DD")
    table = serializers.RegexField(rf"^{STREAM_REGEX}$", required=False, help_text="a table's code")
    pit = serializers.CharField(required=False, max_length=32)


class MarkerQuery(AsOfQuery):
    every = serializers.BooleanField(
        required=False,
        default=False,
        help_text="markers: true lists every marker issued, paid or not",
    )


class MarkerAgingView(_ReportView):
    @_report_schema(
        "ledger_reports_marker_aging",
        "Marker receivables aged as of a day: per currency and bucket (0-30, 31-60, 61-90, 90+ days "
        "since issue) the markers issued, redeemed and outstanding, with totals",
        AsOfQuery,
    )
    def get(self, request: Request) -> Response:
        p = query(AsOfQuery, request)
        return self.answer(
            request,
            lambda **kw: receivables.marker_aging(**kw)[0],
            day=p["day"],
            table=p.get("table"),
            pit=p.get("pit"),
        )


class MarkerListView(_ReportView):
    @_report_schema(
        "ledger_reports_markers",
        "The markers outstanding as of a day (every=true: every marker issued), the oldest first: "
        "issued, redeemed, outstanding, age, bucket",
        MarkerQuery,
    )
    def get(self, request: Request) -> Response:
        p = query(MarkerQuery, request)
        return self.answer(
            request,
            lambda **kw: receivables.marker_aging(**kw)[1],
            day=p["day"],
            table=p.get("table"),
            pit=p.get("pit"),
            outstanding_only=not p.get("every"),
        )


class ChipsQuery(AsOfQuery):
    from_ = GamingDayField(
        required=False, help_text="the movement from this gaming day (default: day)"
    )

    def get_fields(self) -> dict[str, Any]:
        fields = super().get_fields()
        fields["from"] = fields.pop("from_")
        return fields

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if attrs.get("from") and attrs["from"] > attrs["day"]:
            raise ValidationError(
                {
                    "from": [
                        f"{attrs['from'].isoformat()} is after day ({attrs['day'].isoformat()})."
                    ]
                }
            )
        return attrs


class ChipsOutstandingView(_ReportView):
    @_report_schema(
        "ledger_reports_chips_outstanding",
        "Chips each table's books put into players' hands, net: brought forward, moved in the days "
        "from-day, the net at the end of day. Not the chip float: chips sold or cashed at the cage are "
        "not on record",
        ChipsQuery,
    )
    def get(self, request: Request) -> Response:
        p = query(ChipsQuery, request)
        return self.answer(
            request,
            receivables.chips_outstanding,
            day=p["day"],
            day_from=p.get("from"),
            table=p.get("table"),
            pit=p.get("pit"),
        )


class GeneralLedgerQuery(StrictQuery):
    day = GamingDayField(required=True, help_text="the gaming day, YYYY-MM-DD")
    table = serializers.RegexField(
        rf"^{STREAM_REGEX}$", required=False, help_text="one table's code"
    )


class JournalView(_ReportView):
    @_report_schema(
        "ledger_general_ledger_journal",
        "The general ledger export of a gaming day: one line per journal line (gaming day, table, "
        "shift, entry, line, account, debit, credit in currency units, currency, memo, event). The CSV "
        "has every line; JSON a page of them (page, page_size; count, next, previous) with the "
        "totals, and agreement: whether the journal sums to the stored trial balance",
        GeneralLedgerQuery,
    )
    def get(self, request: Request) -> Response:
        p = query(GeneralLedgerQuery, request)
        folds = general_ledger.folded(day=p["day"], table=p.get("table"))
        report = general_ledger.journal(day=p["day"], table=p.get("table"), folds=folds)
        if _csv(request):
            return Response(report.as_csv(), content_type="text/csv")
        pages = Pages()
        rows = pages.paginate_queryset(report.rows, request, view=self) or []
        found = general_ledger.agreement(day=p["day"], folds=folds)
        return Response(
            {
                **replace(report, rows=list(rows)).as_json(),
                "count": len(report.rows),
                "next": pages.get_next_link(),
                "previous": pages.get_previous_link(),
                "agreement": {
                    "agrees": found.agrees,
                    "differences": {
                        table: {
                            account: {"journal": j, "stored": s}
                            for account, (j, s) in accounts.items()
                        }
                        for table, accounts in found.differences.items()
                    },
                },
            }
        )


class TrialBalanceView(_ReportView):
    @_report_schema(
        "ledger_general_ledger_trial_balance",
        "The trial balance of a gaming day: each account's debit or credit in currency units, debits "
        "equal to credits per currency",
        GeneralLedgerQuery,
    )
    def get(self, request: Request) -> Response:
        p = query(GeneralLedgerQuery, request)
        return self.answer(
            request, general_ledger.trial_balance, day=p["day"], table=p.get("table")
        )


# --- slip books and the slip sequence --------------------------------------------------------


class MayRecordSlipBooks(PersonWith):
    perm = "ledger.add_slipbook"


# what the schema promises is taken (a subset of what ledger.slip_books and ledger.fx read):
# a slip number ending in digits; a positive rate of few enough digits to be exact
_SLIP_NUMBER = r"^(?:[0-9]|[A-Za-z0-9][A-Za-z0-9._:@/-]{0,62}[0-9])\Z"
_RATE = (
    r"^(?:0{0,8}[1-9][0-9]{0,8}(?:\.[0-9]{1,6})?|0{1,9}\.[0-9]{0,5}[1-9][0-9]{0,5}"
    r"|0{0,8}[1-9][0-9]{0,8}/0{0,8}[1-9][0-9]{0,8})\Z"
)


@extend_schema_field({"type": "string", "pattern": _SLIP_NUMBER, "maxLength": 64})
class SlipNumberField(serializers.RegexField):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(r"^[A-Za-z0-9][A-Za-z0-9._:@/-]*\Z", max_length=64, **kwargs)


@extend_schema_field({"type": "string", "pattern": _RATE, "maxLength": 64})
class RateField(serializers.CharField):
    pass


class SlipBookSerializer(StrictSerializer):
    kind = serializers.ChoiceField(choices=m.SlipBook.Kind.values, help_text="fill or credit")
    first = SlipNumberField(help_text="the book's first slip number, e.g. F-0100001")
    last = SlipNumberField(
        help_text="its last, of the same prefix and as many digits, e.g. F-0100050"
    )
    note = FreeTextField(required=False, allow_blank=True, help_text="e.g. where the book went")


class SlipBookRecordedSerializer(serializers.Serializer):
    kind = serializers.CharField()
    first = serializers.CharField()
    last = serializers.CharField()
    numbers = serializers.IntegerField()
    issued_by = serializers.CharField()
    issued_at = serializers.DateTimeField()
    note = serializers.CharField()
    event_version = serializers.IntegerField(
        help_text="its ledger.slip_book_issued in audit.ledger"
    )


def slip_book_body(book: m.SlipBook) -> dict[str, Any]:
    return {
        "kind": book.kind,
        "first": book.first_number,
        "last": book.last_number,
        "numbers": book.size,
        "issued_by": book.issued_by,
        "issued_at": book.issued_at.isoformat(),
        "note": book.note,
        "event_version": book.event_version,
    }


class SlipBookView(APIView):
    permission_classes = (IsAuthenticated, MayRecordSlipBooks)
    parser_classes = (JSONParser,)

    @extend_schema(
        operation_id="ledger_slip_books_create",
        summary="Record a book of fill or credit slips issued for use",
        description="Appends ledger.slip_book_issued to audit.ledger. A book overlapping one of the same kind "
        "recorded already is refused (409).",
        request=SlipBookSerializer,
        responses={
            201: SlipBookRecordedSerializer,
            400: OpenApiResponse(InvalidSerializer, description="a bad body: the field named"),
            **PERSON_AUTH_ERRORS,
            409: OpenApiResponse(
                ErrorSerializer, description="it overlaps a book recorded already"
            ),
        },
    )
    def post(self, request: Request) -> Response:
        body = SlipBookSerializer(data=request.data if request.data is not None else {})
        body.is_valid(raise_exception=True)
        p = body.validated_data
        book = slip_books.slip_book_issue(
            kind=p["kind"], first=p["first"], last=p["last"], user=request.user, note=p.get("note")
        )
        return Response(slip_book_body(book), status=201)


class SlipQueryKind(StrictQuery):
    kind = serializers.ChoiceField(
        choices=m.Slip.Kind.values, required=False, help_text="fill or credit"
    )


class SlipBooksReportView(_ReportView):
    @_report_schema(
        "ledger_reports_slip_books",
        "Per slip book (and per series of slips with no book recorded): its numbers used, voided, "
        "under way, skipped and not used yet",
        SlipQueryKind,
    )
    def get(self, request: Request) -> Response:
        p = query(SlipQueryKind, request)
        return self.answer(request, slip_sequence.slip_books, kind=p.get("kind"))


class SlipSequenceView(_ReportView):
    @_report_schema(
        "ledger_reports_slip_sequence",
        "The slip numbers not simply used: voided, under way, gaps, not used yet, used at several "
        "tables, in a book of the other kind, outside every book",
        SlipQueryKind,
    )
    def get(self, request: Request) -> Response:
        p = query(SlipQueryKind, request)
        return self.answer(request, slip_sequence.slip_sequence, kind=p.get("kind"))


# --- exchange rates ----------------------------------------------------------------------------


class MaySetFxRates(PersonWith):
    perm = "ledger.add_fxrate"


class FxRateSerializer(StrictSerializer):
    gaming_day = GamingDayField(help_text="the gaming day the rate is for, YYYY-MM-DD")
    currency = serializers.RegexField(
        r"^[A-Z]{3}\Z", help_text="the foreign currency taken, ISO 4217 (USD)"
    )
    house = serializers.RegexField(
        r"^[A-Z]{3}\Z",
        required=False,
        help_text="the currency it is taken into (default: LEDGER_HOUSE_CURRENCY)",
    )
    rate = RateField(
        max_length=64, help_text="units of house per unit of currency, exact: 0.9215 or 9215/10000"
    )
    note = FreeTextField(
        required=False, allow_blank=True, help_text="e.g. where the rate comes from"
    )


class FxRateRecordedSerializer(serializers.Serializer):
    gaming_day = serializers.DateField()
    currency = serializers.CharField()
    house = serializers.CharField()
    rate = serializers.CharField(help_text="an exact fraction, e.g. 1843/2000")
    set_by = serializers.CharField()
    set_at = serializers.DateTimeField()
    note = serializers.CharField()
    event_version = serializers.IntegerField(help_text="its fx.rate_set in audit.ledger")


def fx_rate_body(row: m.FxRate) -> dict[str, Any]:
    return {
        "gaming_day": row.gaming_day.isoformat(),
        "currency": row.currency,
        "house": row.house,
        "rate": f"{row.numerator}/{row.denominator}",
        "set_by": row.set_by,
        "set_at": row.set_at.isoformat(),
        "note": row.note,
        "event_version": row.event_version,
    }


class FxRateQuery(StrictQuery):
    from_ = serializers.DateField(required=False, help_text="from this gaming day")
    to = serializers.DateField(required=False, help_text="to this gaming day")

    def get_fields(self) -> dict[str, Any]:
        fields = super().get_fields()
        fields["from"] = fields.pop("from_")  # "from" is a Python keyword
        return fields


class FxRateView(APIView):
    parser_classes = (JSONParser,)

    def get_permissions(self) -> list[Any]:
        may = MayViewLedger if self.request.method == "GET" else MaySetFxRates
        return [IsAuthenticated(), may()]

    @extend_schema(
        operation_id="ledger_fx_rates_list",
        summary="The exchange rates of gaming days",
        parameters=[FxRateQuery],
        responses={
            200: FxRateRecordedSerializer(many=True),
            400: OpenApiResponse(InvalidSerializer, description="a bad query parameter"),
            **PERSON_AUTH_ERRORS,
        },
    )
    def get(self, request: Request) -> Response:
        p = query(FxRateQuery, request)
        rows = m.FxRate.objects.all()
        if "from" in p:
            rows = rows.filter(gaming_day__gte=p["from"])
        if "to" in p:
            rows = rows.filter(gaming_day__lte=p["to"])
        return Response([fx_rate_body(r) for r in rows.order_by("gaming_day", "currency", "house")])

    @extend_schema(
        operation_id="ledger_fx_rates_create",
        summary="Set the rate at which a foreign currency is taken on a day",
        description="Appends fx.rate_set to audit.ledger; the tables whose books the rate changes are folded again "
        "(an amount recorded in that currency that day is booked at it, both amounts kept). A later rate for the "
        "same day and pair replaces it.",
        request=FxRateSerializer,
        responses={
            201: FxRateRecordedSerializer,
            400: OpenApiResponse(InvalidSerializer, description="a bad body: the field named"),
            **PERSON_AUTH_ERRORS,
        },
    )
    def post(self, request: Request) -> Response:
        body = FxRateSerializer(data=request.data if request.data is not None else {})
        body.is_valid(raise_exception=True)
        p = body.validated_data
        row = fx.fx_rate_set(
            gaming_day=p["gaming_day"],
            currency=p["currency"],
            house=p.get("house"),
            rate=fx.parse_rate(p["rate"]),
            user=request.user,
            note=p.get("note"),
        )
        return Response(fx_rate_body(row), status=201)
