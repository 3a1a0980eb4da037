"""Rounds over REST, for the back-office (see docs/back-office.md): the list, filtered by
table, gaming day and findings, and one round in full. The views parse and authorise;
reads are :mod:`tables.selectors`."""

from __future__ import annotations

from datetime import date
from typing import Any

from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_field,
)
from rest_framework import serializers
from rest_framework.exceptions import NotFound
from rest_framework.generics import GenericAPIView
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from audit.api.common import GamingDayField, Pages, PersonWith, StrictQuery, query
from audit.api.views import (
    PERSON_AUTH_ERRORS,
    STREAM_REGEX,
    EnvelopeSerializer,
    ErrorSerializer,
    InvalidSerializer,
)
from audit.store.streams import envelope

from . import models as m
from . import selectors


class MayViewRounds(PersonWith):
    perm = "tables.view_round"
    staff_reads = True


class RoundQuery(StrictQuery):
    table = serializers.RegexField(
        rf"^{STREAM_REGEX}$", required=False, help_text="the table's code (its stream)"
    )
    day = GamingDayField(required=False, help_text="the gaming day, YYYY-MM-DD")
    with_findings = serializers.BooleanField(
        required=False,
        allow_null=True,
        default=None,
        help_text="true: only rounds with current findings; false: only without",
    )
    status = serializers.ChoiceField(choices=m.Round.Status.values, required=False)


class ShoeSerializer(serializers.ModelSerializer):
    class Meta:
        model = m.Shoe
        fields = [
            "shoe",
            "shuffled_version",
            "decks",
            "method",
            "order_known",
            "cut_card",
            "rounds",
        ]


class RoundSerializer(serializers.ModelSerializer):
    table = serializers.CharField(source="table.stream")
    shoe = serializers.CharField(source="shoe.shoe", allow_null=True, default=None)
    findings = serializers.IntegerField(help_text="current (not superseded) findings of the round")
    mismatched_bets = serializers.IntegerField(
        help_text="bets whose recorded settlement differs from the rules'"
    )
    currency = serializers.CharField(
        source="table.currency", help_text="ISO 4217: the unit of every amount"
    )
    house_result = serializers.SerializerMethodField(
        help_text="the house's result as recorded, minor units, + when the house won (recorded_net negated); null "
        "when the round was never settled"
    )
    house_result_recomputed = serializers.SerializerMethodField(
        help_text="the house's result as the rules give it (expected_net negated)"
    )
    url = serializers.SerializerMethodField()

    class Meta:
        model = m.Round
        fields = [
            "table",
            "gaming_day",
            "number",
            "status",
            "shoe",
            "started_at",
            "first_version",
            "last_version",
            "currency",
            "handle",
            "recorded_net",
            "expected_net",
            "house_result",
            "house_result_recomputed",
            "corrected",
            "dealer_total",
            "findings",
            "mismatched_bets",
            "url",
        ]

    def get_house_result(self, obj: m.Round) -> int | None:
        return None if obj.recorded_net is None else -obj.recorded_net

    def get_house_result_recomputed(self, obj: m.Round) -> int:
        return -obj.expected_net

    def get_url(self, obj: m.Round) -> str:
        path = f"/api/rounds/{obj.table.stream}/{obj.gaming_day.isoformat()}/{obj.number}"
        request = self.context.get("request")
        return request.build_absolute_uri(path) if request else path


class CardSerializer(serializers.Serializer):
    card = serializers.CharField(help_text="rank + suit, e.g. AS, TD")
    face = serializers.ChoiceField(choices=["up", "down"], help_text="as dealt")
    version = serializers.IntegerField(
        allow_null=True, help_text="the card.dealt event's stream version"
    )
    revealed_version = serializers.IntegerField(
        allow_null=True, help_text="a hole card: the card.revealed event's version"
    )
    recorded = serializers.CharField(
        required=False, help_text="only when the record named another card than the shoe's"
    )


class HandSerializer(serializers.ModelSerializer):
    cards = CardSerializer(many=True)
    actions = serializers.ListField(child=serializers.CharField())

    class Meta:
        model = m.Hand
        fields = [
            "box",
            "number",
            "cards",
            "actions",
            "total",
            "soft",
            "bust",
            "doubled",
            "surrendered",
            "from_split",
        ]


class BetSerializer(serializers.ModelSerializer):
    class Meta:
        model = m.Bet
        fields = [
            "bet",
            "box",
            "hand",
            "kind",
            "amount",
            "player",
            "parent",
            "recorded_outcome",
            "recorded_net",
            "expected_outcome",
            "expected_net",
            "matches",
        ]


class RoundEventSerializer(EnvelopeSerializer):
    chain_ok = serializers.BooleanField(
        help_text="matches its hash and links to the event before it"
    )
    chain = serializers.CharField(help_text="what the chain check found")


class RoundFindingSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    kind = serializers.CharField()
    severity = serializers.CharField()
    status = serializers.CharField()
    box = serializers.IntegerField(allow_null=True)
    hand = serializers.IntegerField(allow_null=True)
    bet = serializers.CharField()
    expected = serializers.CharField()
    recorded = serializers.CharField()
    message = serializers.CharField()


class RoundLinkSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    url = serializers.CharField()


class RoundDetailSerializer(RoundSerializer):
    shoe_detail = ShoeSerializer(source="_review.shoe", allow_null=True)
    dealer = HandSerializer(source="_review.dealer", allow_null=True)
    hands = HandSerializer(source="_review.hands", many=True)
    bets = BetSerializer(source="_review.bets", many=True)
    round_findings = RoundFindingSerializer(source="_review.findings", many=True)
    events = serializers.SerializerMethodField()
    chain_ok = serializers.BooleanField(source="_review.chain_ok")
    previous = serializers.SerializerMethodField()
    next = serializers.SerializerMethodField()

    class Meta(RoundSerializer.Meta):
        fields = [
            *RoundSerializer.Meta.fields,
            "shoe_detail",
            "dealer",
            "hands",
            "bets",
            "round_findings",
            "events",
            "chain_ok",
            "previous",
            "next",
        ]

    @extend_schema_field(RoundEventSerializer(many=True))
    def get_events(self, obj: m.Round) -> list[dict[str, Any]]:
        return [
            {**envelope(e.event), "chain_ok": e.chain_ok, "chain": e.chain}
            for e in obj._review.events
        ]

    def _link(self, other: m.Round | None) -> dict[str, Any] | None:
        if other is None:
            return None
        return {"number": other.number, "url": self.get_url(other)}

    @extend_schema_field(RoundLinkSerializer(allow_null=True))
    def get_previous(self, obj: m.Round) -> dict[str, Any] | None:
        return self._link(obj._review.previous)

    @extend_schema_field(RoundLinkSerializer(allow_null=True))
    def get_next(self, obj: m.Round) -> dict[str, Any] | None:
        return self._link(obj._review.next)


class RoundListView(GenericAPIView):
    permission_classes = (IsAuthenticated, MayViewRounds)
    pagination_class = Pages
    serializer_class = RoundSerializer

    @extend_schema(
        operation_id="rounds_list",
        summary="Rounds, filtered by table, gaming day, status and findings",
        parameters=[
            RoundQuery,
            OpenApiParameter("page", int, description="page number, from 1"),
            OpenApiParameter(
                "page_size",
                int,
                description="rounds per page (default 50, at most BACK_OFFICE_PAGE_MAX)",
            ),
        ],
        responses={
            200: RoundSerializer(many=True),
            400: OpenApiResponse(InvalidSerializer, description="a bad query parameter"),
            **PERSON_AUTH_ERRORS,
            404: OpenApiResponse(ErrorSerializer, description="a page past the last one"),
        },
    )
    def get(self, request: Request) -> Response:
        params = query(RoundQuery, request)
        rounds = selectors.rounds_list(**params)
        page = self.paginate_queryset(rounds)
        return self.get_paginated_response(
            RoundSerializer(page, many=True, context={"request": request}).data
        )


class RoundDetailView(APIView):
    permission_classes = (IsAuthenticated, MayViewRounds)

    @extend_schema(
        operation_id="rounds_read",
        summary="One round in full",
        description="Its events in stream order with their hash-chain state; the dealer's and each box's hands "
        "with their cards (face up or down); every bet with the settlement recorded and the one the rules give; "
        "its current findings; the previous and next round of the table's day; its shoe.",
        parameters=[
            OpenApiParameter("table", str, OpenApiParameter.PATH, pattern=f"^{STREAM_REGEX}$"),
            OpenApiParameter(
                "day", str, OpenApiParameter.PATH, description="the gaming day, YYYY-MM-DD"
            ),
            OpenApiParameter("number", int, OpenApiParameter.PATH),
        ],
        responses={
            200: RoundDetailSerializer,
            **PERSON_AUTH_ERRORS,
            404: OpenApiResponse(ErrorSerializer, description="no such round"),
        },
    )
    def get(self, request: Request, table: str, day: str, number: str) -> Response:
        try:
            when = date.fromisoformat(day)
        except ValueError:
            raise NotFound(f"{day!r} is not a gaming day (YYYY-MM-DD).") from None
        found = selectors.round_get(table=table, day=when, number=int(number))
        if found is None:
            raise NotFound(f"Table {table!r} has no round {number} on {day}.")
        found._review = selectors.round_review(found)  # type: ignore[attr-defined]
        return Response(RoundDetailSerializer(found, context={"request": request}).data)
