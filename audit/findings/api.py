"""Findings over REST (see docs/back-office.md): the list, filtered and paginated; one
finding; and its status changes - acknowledge, resolve (a note is required), reopen -
each of which is also an event in the stream ``audit.findings``. The views parse and
authorise; :mod:`audit.findings.workflow` does the rest."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.exceptions import NotFound
from rest_framework.generics import GenericAPIView
from rest_framework.permissions import BasePermission, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from audit.api.common import (
    GamingDayField,
    MayChangeFindings,
    MayViewFindings,
    Pages,
    StrictQuery,
    query,
)
from audit.api.parsers import BoundedJSONParser
from audit.api.views import (
    PERSON_AUTH_ERRORS,
    STREAM_REGEX,
    ErrorSerializer,
    FreeTextField,
    InvalidSerializer,
    StrictSerializer,
)
from audit.findings import workflow as service
from audit.models import Finding
from audit.record.findings import KINDS


class FindingQuery(StrictQuery):
    table = serializers.RegexField(
        rf"^{STREAM_REGEX}$", required=False, help_text="the table's code (its stream)"
    )
    day = GamingDayField(required=False, help_text="the gaming day, YYYY-MM-DD")
    kind = serializers.ChoiceField(choices=sorted(KINDS), required=False)
    severity = serializers.ChoiceField(choices=Finding.Severity.values, required=False)
    status = serializers.ChoiceField(choices=Finding.Status.values, required=False)
    round = serializers.IntegerField(min_value=1, required=False)
    superseded = serializers.BooleanField(
        required=False,
        allow_null=True,
        default=False,
        help_text="false (default): current findings; true: only superseded ones",
    )


class FindingSerializer(serializers.ModelSerializer):
    table = serializers.CharField(source="stream")
    run = serializers.IntegerField(
        source="run_id", help_text="the run (a replay's, the ledger's) that first produced it"
    )
    last_seen_run = serializers.IntegerField(source="last_seen_run_id")
    superseded_by = serializers.IntegerField(
        source="superseded_by_id", allow_null=True, help_text="the run that no longer produced it"
    )
    round_url = serializers.SerializerMethodField()

    class Meta:
        model = Finding
        fields = [
            "id",
            "fingerprint",
            "kind",
            "severity",
            "table",
            "gaming_day",
            "round",
            "box",
            "hand",
            "bet",
            "shift",
            "slip",
            "expected",
            "recorded",
            "message",
            "event_id",
            "event_version",
            "status",
            "note",
            "status_changed_by",
            "status_changed_at",
            "status_event_version",
            "run",
            "last_seen_run",
            "superseded_by",
            "created_at",
            "round_url",
        ]

    def get_round_url(self, obj: Finding) -> str | None:
        if obj.round is None or obj.gaming_day is None:
            return None
        path = f"/api/rounds/{obj.stream}/{obj.gaming_day.isoformat()}/{obj.round}"
        request = self.context.get("request")
        return request.build_absolute_uri(path) if request else path


class NoteSerializer(StrictSerializer):
    note = FreeTextField(required=False, allow_blank=True, help_text="why; required to resolve")


class ResolveNoteSerializer(StrictSerializer):
    """The body of a resolve as the schema documents it: a note saying how is required
    (the view reads NoteSerializer and the service answers its absence 400
    ``note_required``, the documented code)."""

    note = FreeTextField(
        words=True,
        help_text="how it was resolved",
        message="Resolving a finding needs a note saying how it was resolved, in free text "
        "(no control or format characters).",
    )


class FindingListView(GenericAPIView):
    permission_classes = (IsAuthenticated, MayViewFindings)
    pagination_class = Pages
    serializer_class = FindingSerializer

    @extend_schema(
        operation_id="findings_list",
        summary="Findings, filtered by table, gaming day, kind, severity and status",
        parameters=[
            FindingQuery,
            OpenApiParameter("page", int, description="page number, from 1"),
            OpenApiParameter(
                "page_size",
                int,
                description="findings per page (default 50, at most BACK_OFFICE_PAGE_MAX)",
            ),
        ],
        responses={
            200: FindingSerializer(many=True),
            400: OpenApiResponse(InvalidSerializer, description="a bad query parameter"),
            **PERSON_AUTH_ERRORS,
            404: OpenApiResponse(ErrorSerializer, description="a page past the last one"),
        },
    )
    def get(self, request: Request) -> Response:
        params = query(FindingQuery, request)
        found = service.findings_list(**params)
        page = self.paginate_queryset(found)
        return self.get_paginated_response(
            FindingSerializer(page, many=True, context={"request": request}).data
        )


def _finding(pk: str) -> Finding:
    finding = Finding.objects.filter(pk=int(pk)).first()
    if finding is None:
        raise NotFound(f"There is no finding {pk}.")
    return finding


class FindingDetailView(APIView):
    permission_classes = (IsAuthenticated, MayViewFindings)

    @extend_schema(
        operation_id="findings_read",
        summary="One finding",
        responses={
            200: FindingSerializer,
            **PERSON_AUTH_ERRORS,
            404: OpenApiResponse(ErrorSerializer, description="no such finding"),
        },
    )
    def get(self, request: Request, pk: str) -> Response:
        return Response(FindingSerializer(_finding(pk), context={"request": request}).data)


class _StatusChange(APIView):
    permission_classes = (IsAuthenticated, MayChangeFindings)
    parser_classes = (BoundedJSONParser,)
    action = staticmethod(service.finding_acknowledge)

    def get_permissions(self) -> list[BasePermission]:
        return [IsAuthenticated(), MayChangeFindings()]

    def post(self, request: Request, pk: str) -> Response:
        # the note is checked by the service (resolve needs one: 400 note_required)
        body = NoteSerializer(data=request.data if request.data is not None else {})
        body.is_valid(raise_exception=True)
        finding = _finding(pk)
        changed = type(self).action(
            finding_id=finding.pk, user=request.user, note=body.validated_data.get("note")
        )
        return Response(FindingSerializer(changed, context={"request": request}).data)


def _change_schema(
    operation: str, summary: str, description: str, request: type[StrictSerializer] = NoteSerializer
):
    return extend_schema(
        operation_id=operation,
        summary=summary,
        description=description,
        request=request,
        responses={
            200: FindingSerializer,
            400: OpenApiResponse(
                InvalidSerializer, description="a bad body, or resolve without a note"
            ),
            **PERSON_AUTH_ERRORS,
            404: OpenApiResponse(ErrorSerializer, description="no such finding"),
            409: OpenApiResponse(
                ErrorSerializer, description="the finding's status does not allow it"
            ),
        },
    )


class FindingAcknowledgeView(_StatusChange):
    action = staticmethod(service.finding_acknowledge)

    @_change_schema(
        "findings_acknowledge",
        "Acknowledge a finding",
        "open -> acknowledged; appends finding.acknowledged (who, when, the note) to audit.findings.",
    )
    def post(self, request: Request, pk: str) -> Response:
        return super().post(request, pk)


class FindingResolveView(_StatusChange):
    action = staticmethod(service.finding_resolve)

    @_change_schema(
        "findings_resolve",
        "Resolve a finding (a note is required)",
        "open or acknowledged -> resolved; appends finding.resolved to audit.findings.",
        request=ResolveNoteSerializer,
    )
    def post(self, request: Request, pk: str) -> Response:
        return super().post(request, pk)


class FindingReopenView(_StatusChange):
    action = staticmethod(service.finding_reopen)

    @_change_schema(
        "findings_reopen",
        "Reopen a finding",
        "acknowledged or resolved -> open; appends finding.reopened to audit.findings.",
    )
    def post(self, request: Request, pk: str) -> Response:
        return super().post(request, pk)
