"""What the back-office's REST modules (``audit.findings_api`` and the apps above audit,
such as ``tables.api``) share: who may read and change, pagination, strict query
parameters. It lives here, at the bottom of the Django apps, so that every app can use
it and audit imports nothing above it."""
from __future__ import annotations

from typing import Any

from django.conf import settings
from rest_framework import serializers
from rest_framework.pagination import PageNumberPagination
from rest_framework.permissions import BasePermission
from rest_framework.request import Request
from rest_framework.views import APIView

from .devices import device_of


class PersonWith(BasePermission):
    """A person (never a device account) with ``perm``; ``staff_reads``: any staff
    member may also read (GET)."""

    perm = ""
    staff_reads = False

    def has_permission(self, request: Request, view: APIView) -> bool:
        if device_of(request.user) is not None:
            self.message = "A device account may only append to and read its own table's stream."
            return False
        self.message = f"This needs the permission {self.perm}."
        user = request.user
        if self.staff_reads and request.method in ("GET", "HEAD", "OPTIONS") and user.is_staff:
            return True
        return bool(user.has_perm(self.perm))


class MayViewFindings(PersonWith):
    perm = "audit.view_finding"
    staff_reads = True


class MayChangeFindings(PersonWith):
    """Pit bosses (the ``pit_boss`` group has ``audit.change_finding``)."""

    perm = "audit.change_finding"


class Pages(PageNumberPagination):
    page_size = 50
    page_size_query_param = "page_size"

    def get_page_size(self, request: Request) -> int:
        self.max_page_size = settings.BACK_OFFICE_PAGE_MAX
        return int(super().get_page_size(request) or self.page_size)


class StrictQuery(serializers.Serializer):
    """Query parameters: unknown ones are refused, naming each."""

    allowed_extra = frozenset({"page", "page_size", "format"})

    def to_internal_value(self, data: Any) -> Any:
        unknown = {str(k): ["Unknown query parameter."] for k in data if k not in self.fields and k not in self.allowed_extra}
        if unknown:
            raise serializers.ValidationError(unknown)
        return super().to_internal_value(data)


def query(serializer_class: type[serializers.Serializer], request: Request) -> dict[str, Any]:
    parsed = serializer_class(data=request.query_params)
    parsed.is_valid(raise_exception=True)
    return {k: v for k, v in parsed.validated_data.items() if v is not None}
