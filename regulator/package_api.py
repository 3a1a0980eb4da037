"""The regulator's package over REST (docs/api.md, docs/regulator.md), mounted at /api/:

- ``POST /api/packages`` ``{"day": "YYYY-MM-DD", "to": ..., "tables": [...]}``: checks the
  input as ``manage.py export_package`` does and queues the build (202, the request);
- ``GET /api/packages``, ``GET /api/packages/{package}``: the requests and their status;
- ``GET /api/packages/{package}/download``: the zip once ready (409 before).

Who: the regulator group and compliance (``casino.add_packagerequest`` to ask,
``casino.view_packagerequest`` to see and download) and superusers - never a device.
"""

from __future__ import annotations

from typing import Any

from django.http import FileResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import APIException, NotFound, ValidationError
from rest_framework.generics import GenericAPIView
from rest_framework.parsers import JSONParser
from rest_framework.permissions import IsAuthenticated
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from audit.access.clients import client_address
from audit.access.log import principal_of
from audit.api.common import GamingDayField, Pages, PersonWith
from audit.api.views import (
    PERSON_AUTH_ERRORS,
    STREAM_REGEX,
    ErrorSerializer,
    InvalidSerializer,
    StrictSerializer,
)

from .models import PackageRequest
from .package import PackageError
from .package_requests import package_file, package_request
from .recall_views import ErrorsAsJSON

_PACKAGE = OpenApiParameter("package", int, OpenApiParameter.PATH, description="the request's id")


class MayRequestPackages(PersonWith):
    perm = "casino.add_packagerequest"


class MayViewPackages(PersonWith):
    perm = "casino.view_packagerequest"


class PackageAskSerializer(StrictSerializer):
    day = GamingDayField(help_text="the (first) gaming day, YYYY-MM-DD")
    to = GamingDayField(required=False, help_text="the last gaming day (default: day)")
    tables = serializers.ListField(
        child=serializers.RegexField(rf"^{STREAM_REGEX}$"),
        required=False,
        max_length=500,
        help_text="the tables' codes (default: every table open in the period)",
    )


class PackageRequestSerializer(serializers.ModelSerializer):
    download = serializers.SerializerMethodField(help_text="the zip's URL once ready, else null")

    class Meta:
        model = PackageRequest
        fields = (
            "id",
            "status",
            "day_from",
            "day_to",
            "tables",
            "requested_by",
            "requested_at",
            "via",
            "message",
            "finished_at",
            "sha256",
            "size",
            "events",
            "keep_until",
            "download",
        )

    def get_download(self, row: PackageRequest) -> str | None:
        if row.status != PackageRequest.Status.READY:
            return None
        return f"/api/packages/{row.pk}/download"


class NotReady(APIException):
    status_code = status.HTTP_409_CONFLICT
    default_code = "not_ready"


def _row(package: str) -> PackageRequest:
    # an id past the database's integers is none of them (not a 5xx)
    row = PackageRequest.objects.filter(pk=int(package)).first() if int(package) < 2**63 else None
    if row is None:
        raise NotFound(f"There is no package request {package}.")
    return row


class PackageListView(GenericAPIView):
    pagination_class = Pages
    parser_classes = (JSONParser,)

    def get_permissions(self) -> list[Any]:
        return [
            IsAuthenticated(),
            MayRequestPackages() if self.request.method == "POST" else MayViewPackages(),
        ]

    @extend_schema(
        operation_id="packages_list",
        summary="The package requests, newest first",
        responses={
            200: PackageRequestSerializer(many=True),
            **PERSON_AUTH_ERRORS,
            404: OpenApiResponse(ErrorSerializer, description="a page past the last"),
        },
    )
    def get(self, request: Request) -> Response:
        page = self.paginate_queryset(PackageRequest.objects.all())
        return self.get_paginated_response(PackageRequestSerializer(page, many=True).data)

    @extend_schema(
        operation_id="packages_create",
        summary="Ask for the regulator's package of gaming days",
        description="Checks the input as manage.py export_package does (an unknown table, a period with no table "
        "open: 404; a bad date or an end before the start: 400, naming the field), then a Celery task builds the "
        "package; follow the request's status, download it when ready.",
        request=PackageAskSerializer,
        responses={
            202: PackageRequestSerializer,
            400: OpenApiResponse(InvalidSerializer, description="a bad body: the field named"),
            **PERSON_AUTH_ERRORS,
            404: OpenApiResponse(
                ErrorSerializer, description="an unknown table, or no table open then"
            ),
        },
    )
    def post(self, request: Request) -> Response:
        body = PackageAskSerializer(data=request.data if request.data is not None else {})
        body.is_valid(raise_exception=True)
        asked = body.validated_data
        try:
            row = package_request(
                principal=principal_of(request) or "",
                day_from=asked["day"],
                day_to=asked.get("to") or asked["day"],
                tables=asked.get("tables") or [],
                via=PackageRequest.Via.API,
                address=client_address(request),
            )
        except PackageError as error:
            if error.missing:
                raise NotFound(str(error)) from None
            raise ValidationError({error.field or "day": [str(error)]}) from None
        row.refresh_from_db()
        return Response(
            PackageRequestSerializer(row).data,
            status=status.HTTP_202_ACCEPTED,
            headers={"Location": f"/api/packages/{row.pk}"},
        )


class PackageDetailView(APIView):
    permission_classes = (IsAuthenticated, MayViewPackages)

    @extend_schema(
        operation_id="packages_read",
        summary="One package request and its status",
        parameters=[_PACKAGE],
        responses={
            200: PackageRequestSerializer,
            **PERSON_AUTH_ERRORS,
            404: OpenApiResponse(ErrorSerializer, description="no such request"),
        },
    )
    def get(self, request: Request, package: str) -> Response:
        return Response(PackageRequestSerializer(_row(package)).data)


class ZipRenderer(BaseRenderer):
    """The package's zip (the view answers with the file itself); an error as JSON."""

    media_type = "application/zip"
    format = "zip"

    def render(
        self, data: Any, accepted_media_type: str | None = None, renderer_context: Any = None
    ) -> bytes:
        return JSONRenderer().render(data)


class PackageDownloadView(ErrorsAsJSON):
    permission_classes = (IsAuthenticated, MayViewPackages)
    renderer_classes = (JSONRenderer, ZipRenderer)

    @extend_schema(
        operation_id="packages_download",
        summary="The package's zip, once built",
        description="Verify it offline with blackjack-audit verify PACKAGE (docs/regulator.md).",
        parameters=[_PACKAGE],
        responses={
            (200, "application/zip"): OpenApiTypes.BINARY,
            **PERSON_AUTH_ERRORS,
            404: OpenApiResponse(ErrorSerializer, description="no such request, or its file gone"),
            409: OpenApiResponse(ErrorSerializer, description="not built yet, or failed"),
        },
    )
    def get(self, request: Request, package: str) -> Any:
        row = _row(package)
        if row.status != PackageRequest.Status.READY:
            detail = f"Package {row.pk} is {row.status}" + (
                f": {row.message}" if row.message else "; try again later."
            )
            raise NotReady(detail)
        path = package_file(row)
        if path is None:
            raise NotFound(f"Package {row.pk}'s file {row.file} is no longer in PACKAGE_DIR.")
        return FileResponse(
            path.open("rb"), as_attachment=True, filename=row.file, content_type="application/zip"
        )
