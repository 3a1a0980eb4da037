"""The admin of the read models: the pit bosses' screens.

- **Round review** (the Round's change view, ``admin/tables/round/review.html``): the
  round's events as a timeline with their hash-chain state, the dealer's and each box's
  cards drawn as cards (face-down ones as a back until revealed), bets and decisions per
  hand, the payout recorded and the one the rules give side by side, the round's
  findings, and links to the previous and next round and to the shoe. The data comes
  from :func:`tables.selectors.round_review`; this module only shapes it for display.
- **Tables** and **gaming days** with their counts of rounds, bets and findings.
- Findings and replay runs are audit's (``audit.admin``).

Addresses are natural keys, never surrogate ids (a rebuild of the read models gives
every row a new id): a round is ``/admin/tables/round/<table>/<gaming day>/<number>/``,
a table's day ``/admin/tables/tableday/<table>/<gaming day>/``, a shoe
``/admin/tables/shoe/<table>/<version of its shoe.shuffled>/``, a table
``/admin/tables/table/<table>/``. Every link these pages make uses them.

Everything is read-only: projections are rebuilt from events.
"""
from __future__ import annotations

import re
from datetime import date
from typing import Any

from django.contrib import admin
from django.contrib.admin.utils import quote, unquote
from django.contrib.admin.views.main import ChangeList
from django.core.exceptions import PermissionDenied
from django.db.models import Model, QuerySet
from django.http import Http404, HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.urls import URLPattern, re_path, reverse
from django.utils.html import format_html
from django.utils.http import urlencode

from audit.admin import GAMING_DAY, ReadOnlyAdmin, round_review_url
from audit.store import STREAM_REGEX

from . import models as m
from . import selectors

# rank and suit of a card as the engine writes it ("TD", "AS") -> what a card shows
RANKS = {"T": "10"}
SUITS = {"S": ("♠", "black"), "H": ("♥", "red"), "D": ("♦", "red"), "C": ("♣", "black")}


def card_face(code: str) -> dict[str, str]:
    """``{"rank", "suit", "colour", "code"}`` of a card code such as ``"QH"``."""
    rank, suit = code[:-1], code[-1:]
    symbol, colour = SUITS.get(suit, (suit, "black"))
    return {"code": code, "rank": RANKS.get(rank, rank), "suit": symbol, "colour": colour}


def _hand_cards(hand: m.Hand) -> list[dict[str, Any]]:
    cards = []
    for card in hand.cards:
        down = card.get("face") == "down"
        revealed = card.get("revealed_version")
        cards.append({
            **card_face(card["card"]), "back": down and revealed is None, "hole": down,
            "version": card.get("version"), "revealed_version": revealed, "recorded": card.get("recorded"),
        })
    return cards


def _timeline_card(event: Any) -> dict[str, Any] | None:
    """The card an event shows on the timeline: a dealt card (a back if dealt face down),
    a revealed one face up."""
    if event.type not in ("card.dealt", "card.revealed", "card.burned") or not isinstance(event.payload, dict):
        return None
    code = event.payload.get("card")
    if not isinstance(code, str) or len(code) < 2:
        return None
    return {**card_face(code), "back": event.payload.get("face") == "down" or event.type == "card.burned"}


def _where(payload: dict[str, Any]) -> str:
    box = payload.get("box")
    if box is None:
        return "dealer" if "box" in payload else ""
    return f"box {box}" + (f" hand {payload['hand']}" if payload.get("hand") else "")


def _timeline_detail(event: Any) -> str:
    """A short reading of an event's payload for the timeline (the event page has it all)."""
    p = event.payload if isinstance(event.payload, dict) else {}
    if event.type == "bet.placed":
        return f"{p.get('bet')} {p.get('kind')} {p.get('amount')} on {_where(p)}" + (
            f" ({p['player']})" if p.get("player") else "")
    if event.type == "card.dealt":
        return f"to {_where(p) or 'dealer'}, face {p.get('face')}"
    if event.type == "decision.made":
        return f"{_where(p)}: {p.get('action')}"
    if event.type in ("round.settled", "correction.recorded"):
        text = ", ".join(f"{s.get('bet')} {s.get('outcome')} {s.get('net'):+}" for s in p.get("settlements") or []
                         if isinstance(s, dict) and isinstance(s.get("net"), int))
        extra = f" - {p['reason']} ({p.get('authorised_by')})" if p.get("reason") else ""
        return text + extra
    if event.type == "round.voided":
        return f"{p.get('reason')} ({p.get('authorised_by')})"
    if event.type in ("cashout.offered", "cashout.accepted"):
        return f"{p.get('bet')} {p.get('amount')}"
    return ""


def round_url(round_: m.Round) -> str:
    """The review of a round, by its natural key."""
    url = round_review_url(table=round_.table.stream, day=round_.gaming_day.isoformat(), number=round_.number)
    assert url is not None  # this module is the rounds' admin
    return url


def shoe_url(shoe: m.Shoe) -> str:
    return reverse("admin:tables_shoe_key", kwargs={"table": shoe.table.stream, "version": shoe.shuffled_version})


def review_context(review: selectors.RoundReview) -> dict[str, Any]:
    """What the round-review template shows, shaped from :func:`selectors.round_review`."""
    round_ = review.round
    bets_of: dict[tuple[int, int], list[m.Bet]] = {}
    for bet in review.bets:
        bets_of.setdefault((bet.box, bet.hand), []).append(bet)
    hands = [
        {"hand": hand, "cards": _hand_cards(hand), "bets": bets_of.get((hand.box, hand.number), [])}
        for hand in review.hands
    ]
    events = [
        {"reviewed": e, "card": _timeline_card(e.event), "detail": _timeline_detail(e.event)} for e in review.events
    ]
    return {
        "review": review,
        "round": round_,
        "events": events,
        "dealer": {"hand": review.dealer, "cards": _hand_cards(review.dealer)} if review.dealer else None,
        "hands": hands,
        "bets": review.bets,
        "mismatched": sum(1 for b in review.bets if not b.matches),
        "findings": [
            {"finding": f, "url": reverse("admin:audit_finding_change", args=[f.pk])} for f in review.findings
        ],
        "previous_url": round_url(review.previous) if review.previous else None,
        "next_url": round_url(review.next) if review.next else None,
        "shoe_url": shoe_url(review.shoe) if review.shoe else None,
        "findings_url": reverse("admin:audit_finding_changelist") + "?" + urlencode(
            {"stream": round_.table.stream, "gaming_day": round_.gaming_day.isoformat(), "round": round_.number}
        ),
    }


# the tables' list filter by table code (a parameter ?table__stream=T1 that a rebuild
# does not invalidate, unlike the table's id)
TABLE = ("table__stream", admin.AllValuesFieldListFilter)
_DAY = r"\d{4}-\d{2}-\d{2}"


class _NaturalKeyChangeList(ChangeList):
    def url_for_result(self, result: Model) -> str:
        return self.model_admin.url_of(result)  # type: ignore[attr-defined,no-any-return]


class NaturalKeyAdmin(ReadOnlyAdmin):
    """A read model's admin that addresses its rows by their natural key: the key's own
    URL (``key_pattern``, named ``admin:<app>_<model>_key``) opens the row, the change
    URL takes the key too (``.../T1/2026-11-29/change/``), and the list links by it. A
    numeric id is still understood (Django's own pages, such as the history, use it).
    """

    key_pattern: str = ""  # a regex with one named group per part of the key, in order

    def key_of(self, obj: Any) -> dict[str, Any]:
        raise NotImplementedError

    def filter_of(self, key: dict[str, str]) -> dict[str, Any]:
        """The queryset filter of a parsed key; ValueError if a part is malformed."""
        raise NotImplementedError

    def url_of(self, obj: Any) -> str:
        info = (self.opts.app_label, self.opts.model_name)
        return reverse("admin:{}_{}_key".format(*info), kwargs=self.key_of(obj), current_app=self.admin_site.name)

    def get_urls(self) -> list[URLPattern]:
        info = (self.opts.app_label, self.opts.model_name)
        view = self.admin_site.admin_view(self.key_view)
        return [re_path(rf"^{self.key_pattern}/$", view, name="{}_{}_key".format(*info)), *super().get_urls()]

    def key_view(self, request: HttpRequest, **key: str) -> HttpResponse:
        object_id = "/".join(quote(part) for part in key.values())
        if self.get_object(request, unquote(object_id)) is None:
            # (Django's change view would redirect to the index with a message: a
            # link that names nothing is a 404)
            raise Http404(f"No {self.opts.verbose_name} {'/'.join(key.values())}.")
        return self.change_view(request, object_id)

    def get_changelist(self, request: HttpRequest, **kwargs: Any) -> type[ChangeList]:
        return _NaturalKeyChangeList

    def get_object(self, request: HttpRequest, object_id: str, from_field: str | None = None) -> Any:
        match = re.fullmatch(self.key_pattern, object_id)
        if match is None:
            return super().get_object(request, object_id, from_field) if object_id.isdigit() else None
        try:
            lookup = self.filter_of(match.groupdict())
        except ValueError:
            return None
        return self.get_queryset(request).filter(**lookup).first()


@admin.register(m.Table)
class TableAdmin(NaturalKeyAdmin):
    list_display = ("stream", "ruleset", "currency", "min_bet", "max_bet", "day_count", "round_count",
                    "bet_count", "finding_count", "projected_version")
    key_pattern = rf"(?P<table>{STREAM_REGEX})"

    def key_of(self, obj: m.Table) -> dict[str, Any]:
        return {"table": obj.stream}

    def filter_of(self, key: dict[str, str]) -> dict[str, Any]:
        return {"stream": key["table"]}

    def get_object(self, request: HttpRequest, object_id: str, from_field: str | None = None) -> Any:
        # a table's code may be all digits: the code first, the id only when no table has it
        found = self.get_queryset(request).filter(stream=object_id).first()
        if found is None and object_id.isdigit():
            found = self.get_queryset(request).filter(pk=int(object_id)).first()
        return found

    def get_queryset(self, request: HttpRequest) -> QuerySet[m.Table]:
        return selectors.tables_list()

    @admin.display(description="gaming days", ordering="day_count")
    def day_count(self, obj: m.Table) -> str:
        url = reverse("admin:tables_tableday_changelist") + "?" + urlencode({"table__stream": obj.stream})
        return format_html('<a href="{}">{}</a>', url, obj.day_count)  # type: ignore[attr-defined]

    @admin.display(description="rounds", ordering="round_count")
    def round_count(self, obj: m.Table) -> int:
        return obj.round_count  # type: ignore[attr-defined,no-any-return]

    @admin.display(description="bets", ordering="bet_count")
    def bet_count(self, obj: m.Table) -> int:
        return obj.bet_count  # type: ignore[attr-defined,no-any-return]

    @admin.display(description="findings", ordering="finding_count")
    def finding_count(self, obj: m.Table) -> str:
        url = reverse("admin:audit_finding_changelist") + "?" + urlencode({"stream": obj.stream})
        return format_html('<a href="{}">{}</a>', url, obj.finding_count)  # type: ignore[attr-defined]


@admin.register(m.TableDay)
class TableDayAdmin(NaturalKeyAdmin):
    list_display = ("table", "gaming_day", "round_count", "bets", "handle", "recorded_net", "expected_net",
                    "finding_count", "open_finding_count")
    list_filter = (GAMING_DAY, TABLE)
    key_pattern = rf"(?P<table>{STREAM_REGEX})/(?P<day>{_DAY})"

    def key_of(self, obj: m.TableDay) -> dict[str, Any]:
        return {"table": obj.table.stream, "day": obj.gaming_day.isoformat()}

    def filter_of(self, key: dict[str, str]) -> dict[str, Any]:
        return {"table__stream": key["table"], "gaming_day": date.fromisoformat(key["day"])}

    def get_queryset(self, request: HttpRequest) -> QuerySet[m.TableDay]:
        return selectors.table_days()

    @admin.display(description="rounds", ordering="rounds")
    def round_count(self, obj: m.TableDay) -> str:
        url = reverse("admin:tables_round_changelist") + "?" + urlencode(
            {"table__stream": obj.table.stream, "gaming_day": obj.gaming_day.isoformat()})
        return format_html('<a href="{}">{}</a>', url, obj.rounds)

    @admin.display(description="findings", ordering="findings")
    def finding_count(self, obj: m.TableDay) -> str:
        url = reverse("admin:audit_finding_changelist") + "?" + urlencode(
            {"stream": obj.table.stream, "gaming_day": obj.gaming_day.isoformat()})
        return format_html('<a href="{}">{}</a>', url, obj.findings)  # type: ignore[attr-defined]

    @admin.display(description="open findings", ordering="open_findings")
    def open_finding_count(self, obj: m.TableDay) -> int:
        return obj.open_findings  # type: ignore[attr-defined,no-any-return]


@admin.register(m.Shoe)
class ShoeAdmin(NaturalKeyAdmin):
    list_display = ("table", "gaming_day", "shoe", "shuffled_version", "decks", "method", "cut_card", "rounds")
    list_filter = ("gaming_day", TABLE)
    key_pattern = rf"(?P<table>{STREAM_REGEX})/(?P<version>[0-9]{{1,18}})"

    def key_of(self, obj: m.Shoe) -> dict[str, Any]:
        return {"table": obj.table.stream, "version": obj.shuffled_version}

    def filter_of(self, key: dict[str, str]) -> dict[str, Any]:
        return {"table__stream": key["table"], "shuffled_version": int(key["version"])}

    def get_queryset(self, request: HttpRequest) -> QuerySet[m.Shoe]:
        return super().get_queryset(request).select_related("table")


class WithFindings(admin.SimpleListFilter):
    title = "findings"
    parameter_name = "with_findings"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [("yes", "with findings"), ("no", "without findings")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[m.Round]) -> QuerySet[m.Round]:
        if self.value() in ("yes", "no"):
            return queryset.filter(findings__gt=0) if self.value() == "yes" else queryset.filter(findings=0)
        return queryset


@admin.register(m.Round)
class RoundAdmin(NaturalKeyAdmin):
    """The list of rounds, and each round's review page (its change view)."""

    list_display = ("__str__", "table", "gaming_day", "number", "status", "handle", "recorded_net",
                    "expected_net", "corrected", "finding_count", "mismatched_count")
    list_display_links = ("__str__",)
    list_filter = (WithFindings, "status", GAMING_DAY, TABLE)
    review_template = "admin/tables/round/review.html"
    key_pattern = rf"(?P<table>{STREAM_REGEX})/(?P<day>{_DAY})/(?P<number>[0-9]{{1,18}})"

    def key_of(self, obj: m.Round) -> dict[str, Any]:
        return {"table": obj.table.stream, "day": obj.gaming_day.isoformat(), "number": obj.number}

    def filter_of(self, key: dict[str, str]) -> dict[str, Any]:
        return {"table__stream": key["table"], "gaming_day": date.fromisoformat(key["day"]),
                "number": int(key["number"])}

    def get_queryset(self, request: HttpRequest) -> QuerySet[m.Round]:
        return selectors.rounds_list()

    @admin.display(description="findings", ordering="findings")
    def finding_count(self, obj: m.Round) -> int:
        return obj.findings  # type: ignore[attr-defined,no-any-return]

    @admin.display(description="mismatched bets", ordering="mismatched_bets")
    def mismatched_count(self, obj: m.Round) -> int:
        return obj.mismatched_bets  # type: ignore[attr-defined,no-any-return]

    def change_view(self, request: HttpRequest, object_id: str, form_url: str = "",
                    extra_context: dict[str, Any] | None = None) -> HttpResponse:
        round_ = self.get_object(request, unquote(object_id))
        if round_ is None:
            raise Http404(f"No round {object_id!r}.")
        if not self.has_view_permission(request, round_):
            raise PermissionDenied
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": f"Review of {round_}",
            "subtitle": None,
            "original": round_,
            "has_view_permission": True,
            **review_context(selectors.round_review(round_)),
            **(extra_context or {}),
        }
        request.current_app = self.admin_site.name
        return TemplateResponse(request, self.review_template, context)
