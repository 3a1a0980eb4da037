"""The event store over REST: append a batch to a table's stream, read a stream from a
version, follow the global feed. See docs/api.md.

The views only parse and authorise: :mod:`audit.store.streams` validates payloads, appends and
reads; :mod:`casino.api_errors` turns every error (a :class:`audit.store.errors.StoreError` or
a serializer's ValidationError) into the response.

Serializers here check the *envelope* strictly - no unknown keys, no coercion of a
number into a string or of a string into a number, timestamps with an offset. The
*payload* is checked by the event catalogue inside the store, so an ingest file and
the API refuse the same events with the same messages.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Mapping
from typing import Any, ClassVar

from django.conf import settings
from django.core.validators import RegexValidator
from drf_spectacular.extensions import OpenApiSerializerExtension
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_field,
)
from rest_framework import serializers, status
from rest_framework.permissions import BasePermission, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.utils.urls import replace_query_param
from rest_framework.views import APIView

from audit.access.authority import check_append_authority, may_append_something
from audit.access.devices import SERVER_STREAM_PREFIX, check_device_actors, device_of, principal_of
from audit.models import Event
from audit.record.chain import parse_timestamp
from audit.record.envelope import LABEL_MAX, LABEL_PATTERN
from audit.record.events.fields import TEXT_MAX, TEXT_REFUSED
from audit.store import streams as store
from audit.store.errors import BatchTooLarge

from .parsers import BoundedJSONParser

# the largest version or position a query may name (a signed 64-bit integer)
_BIGINT_MAX = 2**63 - 1
_RFC3339 = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?(Z|[+-]\d{2}:\d{2})\Z")
STREAM_REGEX = store.STREAM_REGEX


# --- strict input fields ---------------------------------------------------------------------


class StrictCharField(serializers.CharField):
    """A string, and only a string (DRF's CharField would turn 5 into "5"), taken as
    sent (DRF's would trim white space: a newline is refused by the store, not dropped)."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("trim_whitespace", False)
        super().__init__(**kwargs)

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        return str(super().to_internal_value(data))


class IdentifierField(StrictCharField):
    """An ``actor`` or ``source``: the record's identifier rule (audit.record.envelope),
    declared in the schema as its pattern, so that a client sees the rule the store applies."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("max_length", LABEL_MAX)
        kwargs["validators"] = [
            RegexValidator(
                # the input's end as both engines read it: the schema's reader turns \Z into $, which
                # Python's re (Schemathesis) also matches before a last newline ("0\n" is no identifier)
                rf"^{LABEL_PATTERN.pattern}(?![\s\S])",
                "Expected an identifier: ASCII letters, digits and . _ : @ / + -, starting with a letter or digit "
                "(no spaces, control, format or non-ASCII characters).",
            ),
            *kwargs.get("validators", ()),
        ]
        super().__init__(**kwargs)


class FreeTextField(StrictCharField):
    """A note: the record's free-text rule (audit.record.events.fields.Text: no control
    characters but tab and newlines, no bidi or zero-width format characters), declared in
    the schema as its pattern. ``words=True``: it must also say something (not only white
    space, which the services strip to nothing)."""

    def __init__(self, *, words: bool = False, message: str | None = None, **kwargs: Any) -> None:
        kwargs.setdefault("max_length", TEXT_MAX)
        # one character at least (Text's min_length): a blank note the schema allows is its
        # own branch (maxLength 0), which must not match the pattern too
        pattern = (
            rf"^[^{TEXT_REFUSED}]*[^{TEXT_REFUSED}\s][^{TEXT_REFUSED}]*\Z"
            if words
            else rf"^[^{TEXT_REFUSED}]+\Z"
        )
        message = message or (
            "Free text may not hold control characters (but tab and newlines) or format characters "
            "(bidi overrides and isolates, zero-width spaces and joiners, the byte-order mark)."
        )
        kwargs["validators"] = [RegexValidator(pattern, message), *kwargs.get("validators", ())]
        super().__init__(**kwargs)


class StrictIntegerField(serializers.IntegerField):
    """A JSON integer, and only that (not "5", 5.0 or true)."""

    def to_internal_value(self, data: Any) -> int:
        if isinstance(data, bool) or not isinstance(data, int):
            self.fail("invalid")
        return int(super().to_internal_value(data))


class StrictUUIDField(serializers.UUIDField):
    """A UUID written as a string (DRF's UUIDField would also take an integer)."""

    def to_internal_value(self, data: Any) -> uuid.UUID:
        if not isinstance(data, str):
            self.fail("invalid", value=data)
        value: uuid.UUID = super().to_internal_value(data)
        return value


class TimestampField(serializers.DateTimeField):
    """An RFC 3339 timestamp with its UTC offset (``Z`` or ``+hh:mm``). A timestamp
    without one is refused, not read in the server's time zone."""

    default_error_messages: ClassVar[dict[str, str]] = {
        "invalid": "Expected an RFC 3339 timestamp with a UTC offset, such as "
        "2026-11-29T21:04:05.123+01:00 or 2026-11-29T20:04:05Z.",
    }

    def to_internal_value(self, value: Any) -> Any:
        if not isinstance(value, str) or not _RFC3339.match(value):
            self.fail("invalid")
        try:
            return parse_timestamp(value)
        except ValueError as error:  # a date that does not exist, or one out of range
            raise serializers.ValidationError(str(error)) from None


@extend_schema_field(OpenApiTypes.OBJECT)
class PayloadField(serializers.JSONField):
    """Any JSON here; the event catalogue checks it against the type's schema."""


class StrictSerializer(serializers.Serializer):
    """Refuses keys it does not declare, naming each one."""

    def to_internal_value(self, data: Any) -> Any:
        unknown: dict[str, list[str]] = {}
        if isinstance(data, Mapping):
            unknown = {str(key): ["Unknown field."] for key in data if key not in self.fields}
        try:
            value = super().to_internal_value(data)
        except serializers.ValidationError as error:
            detail = (
                error.detail
                if isinstance(error.detail, dict)
                else {"non_field_errors": error.detail}
            )
            raise serializers.ValidationError({**unknown, **detail}) from None
        if unknown:
            raise serializers.ValidationError(unknown)
        return value


class StrictSerializerSchema(OpenApiSerializerExtension):
    """The schema says what the serializer does: keys it does not declare are refused
    (``additionalProperties: false``), so a client - or Schemathesis - knows."""

    target_class = StrictSerializer
    match_subclasses = True

    def map_serializer(self, auto_schema: Any, direction: Any) -> Any:
        schema = auto_schema._map_basic_serializer(self.target, direction)
        schema["additionalProperties"] = False
        for name, field in self.target.fields.items():  # a list that may not be empty says so
            if (
                isinstance(field, serializers.ListSerializer)
                and not field.allow_empty
                and name in schema["properties"]
            ):
                schema["properties"][name].setdefault("minItems", 1)
        return schema


# --- requests --------------------------------------------------------------------------------


class NewEventSerializer(StrictSerializer):
    id = StrictUUIDField(help_text="chosen by the sender; sending it again is a safe retry")
    type = StrictCharField(
        min_length=1, max_length=64, help_text="an event type of the catalogue, e.g. card.dealt"
    )
    schema_version = StrictIntegerField(
        min_value=1,
        max_value=32767,
        required=False,
        help_text="the payload's schema version; the type's current version if omitted",
    )
    occurred_at = TimestampField(help_text="the table's clock, RFC 3339 with a UTC offset")
    actor = IdentifierField(help_text="who recorded it: dealer, user")
    source = IdentifierField(help_text="what recorded it: device, terminal")
    payload = PayloadField(help_text="the type's fields (see the catalogue)")


class AppendRequestSerializer(StrictSerializer):
    expected_version = StrictIntegerField(
        min_value=0,
        max_value=_BIGINT_MAX,
        help_text="the stream's current version, which the batch follows (0 for a new stream)",
    )
    events = NewEventSerializer(many=True, allow_empty=False)


class StreamQuerySerializer(serializers.Serializer):
    from_version = serializers.IntegerField(
        min_value=1, max_value=_BIGINT_MAX, default=1, help_text="the first version to return"
    )
    limit = serializers.IntegerField(
        min_value=1,
        required=False,
        help_text="events per page; at most EVENT_PAGE_MAX (larger values are capped)",
    )


class FeedQuerySerializer(serializers.Serializer):
    after = serializers.IntegerField(
        min_value=0,
        max_value=_BIGINT_MAX,
        default=0,
        help_text="return events with a greater position (the last_position of the previous page)",
    )
    limit = serializers.IntegerField(
        min_value=1,
        required=False,
        help_text="events per page; at most EVENT_PAGE_MAX (larger values are capped)",
    )


# --- responses (documentation only: the views return audit.store.streams.envelope dicts) ------------


class EnvelopeSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    stream = serializers.CharField()
    version = serializers.IntegerField(min_value=1)
    position = serializers.IntegerField(min_value=1)
    type = serializers.CharField()
    schema_version = serializers.IntegerField(
        help_text="always the type's current version (upcast)"
    )
    occurred_at = serializers.DateTimeField()
    recorded_at = serializers.DateTimeField()
    actor = serializers.CharField()
    source = serializers.CharField()
    payload = PayloadField()
    prev_hash = serializers.CharField(
        help_text="64 hex digits; 64 zeros for a stream's first event"
    )
    hash = serializers.CharField(help_text="SHA-256 of the canonical envelope (audit/chain.py)")


class AppendResponseSerializer(serializers.Serializer):
    stream = serializers.CharField()
    events = EnvelopeSerializer(many=True)


class StreamPageSerializer(serializers.Serializer):
    stream = serializers.CharField()
    events = EnvelopeSerializer(many=True)
    next = serializers.URLField(
        allow_null=True, help_text="the next page; null at the stream's end"
    )


class FeedPageSerializer(serializers.Serializer):
    events = EnvelopeSerializer(many=True)
    last_position = serializers.IntegerField(
        help_text="the last event's position, or `after` if the page is empty: the next `after`"
    )
    next = serializers.URLField(
        allow_null=True, help_text="the next page; null when caught up (poll again later)"
    )


class ErrorSerializer(serializers.Serializer):
    code = serializers.CharField()
    detail = serializers.CharField()


class InvalidSerializer(ErrorSerializer):
    errors = serializers.DictField(
        child=serializers.ListField(child=serializers.CharField()),
        help_text='field path -> messages, e.g. {"events[2].payload.amount": '
        '["Expected `int`, got `str`"]}',
    )


class ConflictSerializer(ErrorSerializer):
    stream = serializers.CharField(required=False, help_text="version_conflict only")
    expected_version = serializers.IntegerField(required=False, help_text="version_conflict only")
    current_version = serializers.IntegerField(required=False, help_text="version_conflict only")
    id = serializers.UUIDField(required=False, help_text="id_conflict only: the event id")


_AUTH_ERRORS = {
    401: OpenApiResponse(ErrorSerializer, description="no or bad credentials"),
    403: OpenApiResponse(ErrorSerializer, description="not allowed for this account"),
}
# what every endpoint for people only answers a caller who may not (their schema's 401, 403)
PERSON_AUTH_ERRORS = {
    401: OpenApiResponse(ErrorSerializer, description="no or bad credentials"),
    403: OpenApiResponse(
        ErrorSerializer, description="a device account, or a person without the permission"
    ),
}
_STREAM_PARAMETER = OpenApiParameter(
    "stream",
    str,
    OpenApiParameter.PATH,
    pattern=f"^{store.STREAM_REGEX}$",  # the schema's (ECMA) dialect
    description="the table's code",
)


# --- permissions -----------------------------------------------------------------------------


class _OwnStreamOrPermission(BasePermission):
    """A device account may act on its own table's stream only; a person needs
    ``permission``."""

    permission: ClassVar[str]
    verb: ClassVar[str]
    denied: ClassVar[str]

    def has_permission(self, request: Request, view: APIView) -> bool:
        stream = view.kwargs["stream"]
        device = device_of(request.user)
        if device is not None:
            self.message = (
                f"This device account records table {device.stream!r}; "
                f"it may not {self.verb} {stream!r}."
            )
            return device.stream == stream
        self.message = self.denied
        return bool(request.user.has_perm(self.permission))


class MayAppend(_OwnStreamOrPermission):
    """Appending: a device to its own table's stream, a person with the permission to
    append or to record a money-changing type (a pit boss's corrections and voids) or a
    type recorded away from the table (the count team's counts, the cage's steps,
    accounting's postings): which events of the batch each may record is checked with the
    batch, :func:`audit.access.authority.check_append_authority` - and nobody, through the API, to a
    server stream (``audit.*``: the findings' trail, the digests, the access log, written
    by the server's own services only)."""

    permission = "audit.append_event"
    verb = "append to"
    denied = (
        "Appending events needs the permission audit.append_event (or, for corrections and voids alone, "
        "audit.correct_round or audit.void_slip; for the count room's, the cage's or accounting's events "
        "alone, audit.record_count, audit.record_cage or audit.post_drop)."
    )

    def has_permission(self, request: Request, view: APIView) -> bool:
        if view.kwargs["stream"].startswith(SERVER_STREAM_PREFIX):
            self.message = (
                f"{view.kwargs['stream']!r} is a server stream: it is written by the back-office's own "
                "services, never through the API."
            )
            return False
        if device_of(request.user) is None:
            self.message = self.denied
            return may_append_something(request.user)
        return super().has_permission(request, view)


class MayReadStream(_OwnStreamOrPermission):
    permission = "audit.view_event"
    verb = "read"
    denied = "Reading events needs the permission audit.view_event."


class MayReadFeed(BasePermission):
    """The global feed spans every table: persons with ``audit.view_event`` only."""

    message = "Reading the event feed needs the permission audit.view_event."

    def has_permission(self, request: Request, view: APIView) -> bool:
        if device_of(request.user) is not None:
            self.message = (
                "A device account may read only its own table's stream, "
                "not the feed of every table."
            )
            return False
        return bool(request.user.has_perm("audit.view_event"))


# --- views -----------------------------------------------------------------------------------


def _page_limit(requested: int | None) -> int:
    cap: int = settings.EVENT_PAGE_MAX
    return cap if requested is None else min(requested, cap)


def _query(serializer_class: type[serializers.Serializer], request: Request) -> dict[str, Any]:
    query = serializer_class(data=request.query_params)
    query.is_valid(raise_exception=True)
    return dict(query.validated_data)


def _next_link(request: Request, **params: int) -> str:
    url = request.build_absolute_uri()
    for name, value in params.items():
        url = replace_query_param(url, name, value)
    return url


def _envelopes(rows: list[Event]) -> list[dict[str, Any]]:
    return [store.envelope(row) for row in rows]


class StreamEventsView(APIView):
    parser_classes = (BoundedJSONParser,)

    def get_permissions(self) -> list[BasePermission]:
        may = MayAppend() if self.request.method == "POST" else MayReadStream()
        return [IsAuthenticated(), may]

    @extend_schema(
        operation_id="stream_events_append",
        summary="Append a batch of events to a table's stream",
        description=(
            "All of the batch or nothing. `expected_version` must equal the stream's "
            "current version. Sending a stored batch again (same ids, same content) "
            "returns the stored events with 201 and writes nothing, so a client may "
            "retry after a lost response. At most EVENT_BATCH_MAX events (413 otherwise, "
            "checked before any validation)."
        ),
        parameters=[_STREAM_PARAMETER],
        request=AppendRequestSerializer,
        responses={
            201: OpenApiResponse(
                AppendResponseSerializer, description="stored (or already stored: a retry)"
            ),
            400: OpenApiResponse(
                InvalidSerializer, description="an invalid request or event; nothing stored"
            ),
            **_AUTH_ERRORS,
            409: OpenApiResponse(ConflictSerializer, description="version_conflict or id_conflict"),
            413: OpenApiResponse(
                ErrorSerializer,
                description="more than EVENT_BATCH_MAX events, "
                "or a body over DATA_UPLOAD_MAX_MEMORY_SIZE",
            ),
        },
    )
    def post(self, request: Request, stream: str) -> Response:
        data = request.data
        events = data.get("events") if isinstance(data, dict) else None
        if isinstance(events, list) and len(events) > settings.EVENT_BATCH_MAX:
            raise BatchTooLarge(len(events), settings.EVENT_BATCH_MAX)
        if isinstance(
            events, list
        ):  # who may record these types, before anything else of the batch
            check_append_authority(
                request.user,
                [e.get("type") if isinstance(e, dict) else None for e in events],
                device=device_of(request.user) is not None,
            )
        body = AppendRequestSerializer(data=data)
        body.is_valid(raise_exception=True)
        events = [store.NewEvent(**event) for event in body.validated_data["events"]]
        check_device_actors(request.user, stream, events)
        stored = store.events_append(
            stream=stream,
            expected_version=body.validated_data["expected_version"],
            events=events,
            principal=principal_of(request.user),
        )
        return Response(
            {"stream": stream, "events": _envelopes(stored)}, status=status.HTTP_201_CREATED
        )

    @extend_schema(
        operation_id="stream_events_read",
        summary="Read a table's stream from a version",
        description="Events in version order, payloads upcast to their type's current schema.",
        parameters=[_STREAM_PARAMETER, StreamQuerySerializer],
        responses={
            200: StreamPageSerializer,
            400: OpenApiResponse(InvalidSerializer, description="a bad query parameter"),
            **_AUTH_ERRORS,
        },
    )
    def get(self, request: Request, stream: str) -> Response:
        query = _query(StreamQuerySerializer, request)
        limit = _page_limit(query.get("limit"))
        rows = list(store.stream_rows(stream, from_version=query["from_version"], limit=limit + 1))
        page = rows[:limit]
        next_link = (
            _next_link(request, from_version=page[-1].version + 1, limit=limit)
            if len(rows) > limit
            else None
        )
        return Response({"stream": stream, "events": _envelopes(page), "next": next_link})


class FeedView(APIView):
    permission_classes = (IsAuthenticated, MayReadFeed)

    @extend_schema(
        operation_id="events_feed",
        summary="The global feed of every stream, after a position",
        description=(
            "Events in position order. Positions may have gaps (a rolled-back append "
            "used numbers that never appear) but an event never arrives late: once you "
            "have seen position P, no event with a smaller position commits afterwards. "
            "So a subscriber needs only the last position it processed."
        ),
        parameters=[FeedQuerySerializer],
        responses={
            200: FeedPageSerializer,
            400: OpenApiResponse(InvalidSerializer, description="a bad query parameter"),
            **_AUTH_ERRORS,
        },
    )
    def get(self, request: Request) -> Response:
        query = _query(FeedQuerySerializer, request)
        limit = _page_limit(query.get("limit"))
        rows = store.feed_after(query["after"], limit=limit + 1)
        page = rows[:limit]
        last_position = page[-1].position if page else query["after"]
        next_link = (
            _next_link(request, after=last_position, limit=limit) if len(rows) > limit else None
        )
        return Response(
            {"events": _envelopes(page), "last_position": last_position, "next": next_link}
        )
