"""The admin of the read models, replay's runs and findings: the pit bosses' screens.

- **Round review** (the Round's change view, ``admin/tables/round/review.html``): the
  round's events as a timeline with their hash-chain state, the dealer's and each box's
  cards drawn as cards (face-down ones as a back until revealed), bets and decisions per
  hand, the payout recorded and the one the rules give side by side, the round's
  findings, and links to the previous and next round and to the shoe. The data comes
  from :func:`tables.selectors.round_review`; this module only shapes it for display.
- **Findings**: filtered by table, gaming day, kind, severity and status, each linking
  to its round's review; the bulk action *acknowledge* calls
  :func:`audit.findings.findings_acknowledge_bulk` (one event per finding) and is offered
  only to users who may change findings (the ``pit_boss`` group). Findings are otherwise
  read-only: they change only through :mod:`audit.findings`.
- **Tables** and **gaming days** with their counts of rounds, bets and findings.

Everything else is read-only: projections are rebuilt from events.
"""
from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db.models import OuterRef, QuerySet, Subquery
from django.http import Http404, HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.html import format_html
from django.utils.http import urlencode

from audit.findings import findings_acknowledge_bulk
from audit.models import Finding, ReplayRun

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

    def round_url(other: m.Round | None) -> str | None:
        return reverse("admin:tables_round_change", args=[other.pk]) if other else None

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
        "previous_url": round_url(review.previous),
        "next_url": round_url(review.next),
        "shoe_url": reverse("admin:tables_shoe_change", args=[review.shoe.pk]) if review.shoe else None,
        "findings_url": reverse("admin:audit_finding_changelist") + "?" + urlencode(
            {"stream": round_.table.stream, "gaming_day": round_.gaming_day.isoformat(), "round": round_.number}
        ),
    }


# filter by the gaming days there are (not by "today", "past 7 days")
GAMING_DAY = ("gaming_day", admin.AllValuesFieldListFilter)


class ReadOnly(admin.ModelAdmin):
    def has_add_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False


@admin.register(m.Table)
class TableAdmin(ReadOnly):
    list_display = ("stream", "ruleset", "currency", "min_bet", "max_bet", "day_count", "round_count",
                    "bet_count", "finding_count", "projected_version")

    def get_queryset(self, request: HttpRequest) -> QuerySet[m.Table]:
        return selectors.tables_list()

    @admin.display(description="gaming days", ordering="day_count")
    def day_count(self, obj: m.Table) -> str:
        url = reverse("admin:tables_tableday_changelist") + "?" + urlencode({"table__id__exact": obj.pk})
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
class TableDayAdmin(ReadOnly):
    list_display = ("table", "gaming_day", "round_count", "bets", "handle", "recorded_net", "expected_net",
                    "finding_count", "open_finding_count")
    list_filter = (GAMING_DAY, "table")

    def get_queryset(self, request: HttpRequest) -> QuerySet[m.TableDay]:
        return selectors.table_days()

    @admin.display(description="rounds", ordering="rounds")
    def round_count(self, obj: m.TableDay) -> str:
        url = reverse("admin:tables_round_changelist") + "?" + urlencode(
            {"table__id__exact": obj.table_id, "gaming_day": obj.gaming_day.isoformat()})
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
class ShoeAdmin(ReadOnly):
    list_display = ("table", "gaming_day", "shoe", "shuffled_version", "decks", "method", "cut_card", "rounds")
    list_filter = ("gaming_day", "table")


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
class RoundAdmin(ReadOnly):
    """The list of rounds, and each round's review page (its change view)."""

    list_display = ("__str__", "table", "gaming_day", "number", "status", "handle", "recorded_net",
                    "expected_net", "corrected", "finding_count", "mismatched_count")
    list_display_links = ("__str__",)
    list_filter = (WithFindings, "status", GAMING_DAY, "table")
    review_template = "admin/tables/round/review.html"

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
        round_ = self.get_object(request, object_id)
        if round_ is None:
            raise Http404(f"No round with id {object_id!r}.")
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


@admin.register(ReplayRun)
class ReplayRunAdmin(ReadOnly):
    list_display = ("id", "stream", "gaming_day", "mode", "trigger", "status", "tables_done", "tables_total",
                    "events", "rounds", "findings", "findings_new", "findings_superseded", "started_at", "finished_at")
    list_filter = ("status", "mode", "trigger", "gaming_day")


@admin.register(Finding)
class FindingAdmin(ReadOnly):
    """Findings, read-only but for the bulk action *acknowledge* (pit bosses only)."""

    list_display = ("id", "kind", "severity", "status", "stream", "gaming_day", "round_link", "bet", "expected",
                    "recorded", "status_changed_by", "superseded_by")
    list_filter = ("stream", GAMING_DAY, "kind", "severity", "status")
    search_fields = ("bet", "message", "fingerprint")
    actions = ("acknowledge",)

    def get_queryset(self, request: HttpRequest) -> QuerySet[Finding]:
        round_pk = m.Round.objects.filter(
            table__stream=OuterRef("stream"), gaming_day=OuterRef("gaming_day"), number=OuterRef("round"),
        ).values("pk")[:1]
        return super().get_queryset(request).select_related("superseded_by").annotate(round_pk=Subquery(round_pk))

    def get_readonly_fields(self, request: HttpRequest, obj: object = None) -> list[str]:
        return [f.name for f in self.opts.fields] + ["round_link"]

    def has_acknowledge_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("audit.change_finding")

    @admin.display(description="round", ordering="round")
    def round_link(self, obj: Finding) -> str:
        if obj.round is None:
            return "-"
        pk = getattr(obj, "round_pk", None)
        if pk is None:
            return str(obj.round)
        return format_html('<a class="round-review" href="{}">round {}</a>',
                           reverse("admin:tables_round_change", args=[pk]), obj.round)

    @admin.action(description="Acknowledge the selected findings", permissions=["acknowledge"])
    def acknowledge(self, request: HttpRequest, queryset: QuerySet[Finding]) -> None:
        done, refused = findings_acknowledge_bulk(
            finding_ids=list(queryset.order_by("id").values_list("id", flat=True)), user=request.user,
        )
        if done:
            self.message_user(request, f"Acknowledged {len(done)} finding(s).", messages.SUCCESS)
        for finding_id, why in refused:
            self.message_user(request, f"Finding {finding_id} not acknowledged: {why}", messages.WARNING)
