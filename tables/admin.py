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
from collections.abc import Callable, Sequence
from dataclasses import dataclass
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
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from audit.admin import GAMING_DAY, ReadOnlyAdmin, finding_actions, finding_amounts
from audit.presenting.vocabulary import event_title, kind_title, severity_text
from audit.record.money import format_number, money_text
from audit.store.streams import STREAM_REGEX

from . import models as m
from . import selectors, words
from .floor import result_of_handle_text

# rank and suit of a card as the engine writes it ("TD", "AS") -> what a card shows
RANKS = {"T": "10"}
SUITS = {"S": ("♠", "black"), "H": ("♥", "red"), "D": ("♦", "red"), "C": ("♣", "black")}


def card_face(code: str) -> dict[str, str]:
    """``{"rank", "suit", "colour", "code"}`` of a card code such as ``"QH"``."""
    rank, suit = code[:-1], code[-1:]
    symbol, colour = SUITS.get(suit, (suit, "black"))
    return {"code": code, "rank": RANKS.get(rank, rank), "suit": symbol, "colour": colour}


def _hand_cards(hand: m.Hand, *, finished: bool = False) -> list[dict[str, Any]]:
    """A hand's cards as they were finally seen: the dealer's hole card face up once
    revealed (a back if it never was); a player's card dealt face down (a double in some
    games) face up once the round is ``finished`` (settled or voided: it was turned over
    then). A card dealt face down keeps a mark of it (``hole``)."""
    cards = []
    for card in hand.cards:
        down = card.get("face") == "down"
        revealed = card.get("revealed_version")
        back = down and revealed is None and (hand.box == 0 or not finished)
        cards.append(
            {
                **card_face(card["card"]),
                "back": back,
                "hole": down,
                "version": card.get("version"),
                "revealed_version": revealed,
                "recorded": card.get("recorded"),
            }
        )
    return cards


def _timeline_card(event: Any) -> dict[str, Any] | None:
    """The card an event shows on the timeline: a dealt card (a back if dealt face down),
    a revealed one face up."""
    if event.type not in ("card.dealt", "card.revealed", "card.burned") or not isinstance(
        event.payload, dict
    ):
        return None
    code = event.payload.get("card")
    if not isinstance(code, str) or len(code) < 2:
        return None
    return {
        **card_face(code),
        "back": event.payload.get("face") == "down" or event.type == "card.burned",
    }


def _where(payload: dict[str, Any]) -> str:
    box = payload.get("box")
    if box is None:
        return gettext("dealer") if "box" in payload else ""
    if payload.get("hand"):
        return gettext("box %(box)s hand %(hand)s") % {"box": box, "hand": payload["hand"]}
    return gettext("box %(box)s") % {"box": box}


# settlements a round.settled line of the timeline lists (a live round has thousands)
SETTLEMENTS_LISTED = 6


def _timeline_detail(event: Any, currency: str = "") -> str:
    """A short reading of an event's payload for the timeline (the event page has it all),
    amounts in the table's currency."""
    p = event.payload if isinstance(event.payload, dict) else {}

    def amount(value: Any, signed: bool = False) -> str:
        return money_text(value, currency, signed=signed) if isinstance(value, int) else str(value)

    if event.type == "bet.placed":
        text = gettext("%(bet)s %(kind)s %(amount)s on %(where)s") % {
            "bet": p.get("bet"),
            "kind": words.bet_kind(str(p.get("kind"))),
            "amount": amount(p.get("amount")),
            "where": _where(p),
        }
        return text + (f" ({p['player']})" if p.get("player") else "")
    if event.type == "card.dealt":
        return (
            gettext("to %(where)s, face up")
            if p.get("face") == "up"
            else gettext("to %(where)s, face down")
        ) % {"where": _where(p) or gettext("dealer")}
    if event.type == "decision.made":
        return f"{_where(p)}: {words.action(str(p.get('action')))}"
    if event.type in ("round.settled", "correction.recorded"):
        settlements = [
            s
            for s in p.get("settlements") or []
            if isinstance(s, dict) and isinstance(s.get("net"), int)
        ]
        text = ", ".join(
            f"{s.get('bet')} {words.outcome(str(s.get('outcome')))} {amount(s.get('net'), True)}"
            for s in settlements[:SETTLEMENTS_LISTED]
        )
        if len(settlements) > SETTLEMENTS_LISTED:
            text += gettext(" and %(more)s more (every one under Payouts)") % {
                "more": format_number(len(settlements) - SETTLEMENTS_LISTED)
            }
        extra = f" - {p['reason']} ({p.get('authorised_by')})" if p.get("reason") else ""
        return text + extra
    if event.type == "round.voided":
        return f"{p.get('reason')} ({p.get('authorised_by')})"
    if event.type in ("cashout.offered", "cashout.accepted"):
        return f"{p.get('bet')} {amount(p.get('amount'))}"
    return ""


def rounds_of_day_url(table: str, day: date) -> str:
    """The rounds' list of one table's gaming day (what the ledger's reconciliation links)."""
    return (
        reverse("admin:tables_round_changelist")
        + "?"
        + urlencode({"table__stream": table, "gaming_day": day.isoformat()})
    )


def round_review_url(*, table: str, day: str, number: int) -> str:
    """The review of a round, by its natural key (what this app registers with audit's
    findings: ``audit.admin.round_review_register``)."""
    return reverse("admin:tables_round_key", kwargs={"table": table, "day": day, "number": number})


def round_url(round_: m.Round) -> str:
    """The review of a round, by its natural key."""
    return round_review_url(
        table=round_.table.stream, day=round_.gaming_day.isoformat(), number=round_.number
    )


# --- links of other apps on a round's review -----------------------------------------------------
# An app that shows something of a round (the regulator's recall) adds its links to the
# review from its AppConfig.ready(): this app knows nothing of it, not even its URL names.
RoundLink = tuple[str, str, str]  # the link's id on the page, its text, its address
_ROUND_LINKS: dict[str, Callable[[str, str, int], Sequence[RoundLink]]] = {}


def round_links_register(name: str, source: Callable[[str, str, int], Sequence[RoundLink]]) -> None:
    """``source(table, day, number) -> [(id, text, address), ...]``, shown on each round's
    review in the order registered; ``name`` registers it once however often it is called."""
    _ROUND_LINKS[name] = source


def round_links(round_: m.Round) -> list[dict[str, str]]:
    key = (round_.table.stream, round_.gaming_day.isoformat(), round_.number)
    return [
        {"id": id_, "text": text, "url": url}
        for source in _ROUND_LINKS.values()
        for id_, text, url in source(*key)
    ]


def shoe_url(shoe: m.Shoe) -> str:
    return reverse(
        "admin:tables_shoe_key",
        kwargs={"table": shoe.table.stream, "version": shoe.shuffled_version},
    )


def settlement_text(outcome: str, net: int | None, currency: str) -> str:
    """``win +EUR 25.00``; ``-`` when there is none."""
    if not outcome and net is None:
        return "-"
    shown = words.outcome(outcome) if outcome else "?"
    return f"{shown} {money_text(net, currency, signed=True)}".strip()


def natural_key(text: str) -> tuple[tuple[int, int, str], ...]:
    """Sort key reading the digits in a text as numbers: r41-16 before r41-156."""
    return tuple(
        (0, int(part), "") if part.isdigit() else (1, 0, part)
        for part in re.split(r"(\d+)", text)
        if part
    )


# bets per page of a round's review (a live round has thousands)
BETS_PER_PAGE = 50
# a run of this many events of one type in a row (a live round's bets) is one line of
# the timeline, unless every event is asked for (?events=all) or one of them is broken
FOLD_RUN = 20


@dataclass(frozen=True)
class BetsPage:
    rows: list[dict[str, Any]]
    number: int
    pages: int
    total: int  # bets listed (all of them, or only the mismatches)
    first: int  # the position (from 1) of the page's first bet
    only_mismatches: bool

    @property
    def last(self) -> int:
        return self.first + len(self.rows) - 1


def bets_page(review: selectors.RoundReview, currency: str, params: Any) -> BetsPage:
    """The page of a round's bets to show: mismatches and the bets of findings first,
    then the others in the numeric order of their ids; ``mismatches=1`` keeps only the
    first; ``bet=<id>`` opens the page holding that bet, else ``bets=<n>`` (from 1)."""
    named = {f.bet for f in review.findings if f.bet}
    ordered = sorted(review.bets, key=lambda b: (b.matches, b.bet not in named, natural_key(b.bet)))
    only = params.get("mismatches") == "1"
    listed = [b for b in ordered if not b.matches or b.bet in named] if only else ordered
    pages = max(1, -(-len(listed) // BETS_PER_PAGE))
    wanted = params.get("bet")
    place = next((i for i, b in enumerate(listed) if b.bet == wanted), None) if wanted else None
    if place is not None:
        number = place // BETS_PER_PAGE + 1
    else:
        try:
            number = min(max(int(params.get("bets", 1)), 1), pages)
        except ValueError:
            number = 1
    start = (number - 1) * BETS_PER_PAGE
    rows = [
        {
            "bet": b,
            "kind": words.bet_kind(b.kind),
            "amount": money_text(b.amount, currency),
            "finding": b.bet in named,
            "recorded": settlement_text(b.recorded_outcome, b.recorded_net, currency),
            "recomputed": settlement_text(b.expected_outcome, b.expected_net, currency),
        }
        for b in listed[start : start + BETS_PER_PAGE]
    ]
    return BetsPage(rows, number, pages, len(listed), start + 1, only)


def _page_url(base: str, **params: Any) -> str:
    kept = {k: v for k, v in params.items() if v not in (None, "", False)}
    return base + ("?" + urlencode(kept) if kept else "") + "#payouts"


# what the timeline never folds into a run of others: the deal, and the round's milestones
_OWN_LINE = ("card.", "round.", "shoe.", "betting.", "table.", "correction.")


def _family(event_type: str) -> str:
    """Events that fold together: the players' part of a live round - bets, decisions,
    cash-out offers and acceptances - in whatever order they came; every other type
    only with itself."""
    return event_type if event_type.startswith(_OWN_LINE) else "play"


def _timeline(
    reviewed: list[selectors.ReviewedEvent], *, everything: bool, currency: str = ""
) -> list[dict[str, Any]]:
    """The timeline's lines: one per event, but a run of FOLD_RUN or more intact events
    of one family (a live round's bets, its cash-out offers) as one line saying how many
    of each type and which versions."""
    lines: list[dict[str, Any]] = []
    run: list[selectors.ReviewedEvent] = []

    def flush() -> None:
        if len(run) >= FOLD_RUN and not everything and all(e.chain_ok for e in run):
            counts: dict[str, int] = {}
            for e in run:
                counts[e.event.type] = counts.get(e.event.type, 0) + 1
            lines.append(
                {
                    "run": True,
                    "types": ", ".join(
                        f"{event_title(t)} \u00d7 {format_number(n)}" for t, n in counts.items()
                    ),
                    "count": len(run),
                    "first": run[0].event,
                    "last": run[-1].event,
                }
            )
        else:
            lines.extend(
                {
                    "run": False,
                    "reviewed": e,
                    "title": event_title(e.event.type),
                    "card": _timeline_card(e.event),
                    "detail": _timeline_detail(e.event, currency),
                }
                for e in run
            )

    for item in reviewed:
        if run and _family(item.event.type) != _family(run[0].event.type):
            flush()
            run = []
        run.append(item)
    flush()
    return lines


def review_context(
    review: selectors.RoundReview, request: HttpRequest | None = None
) -> dict[str, Any]:
    """What the round-review template shows, shaped from :func:`selectors.round_review`;
    ``request``: its query (the page of bets, the filter) and who looks (the findings'
    forms)."""
    params = request.GET if request is not None else {}
    round_ = review.round
    currency = round_.table.currency
    finished = round_.status != m.Round.Status.OPEN
    bets_of: dict[tuple[int, int], list[m.Bet]] = {}
    for bet in review.bets:
        bets_of.setdefault((bet.box, bet.hand), []).append(bet)
    hands = []
    for hand in review.hands:
        mine = sorted(bets_of.get((hand.box, hand.number), []), key=lambda b: natural_key(b.bet))
        hands.append(
            {
                "hand": hand,
                "cards": _hand_cards(hand, finished=finished),
                "bets": [
                    {
                        "bet": b.bet,
                        "kind": words.bet_kind(b.kind),
                        "amount": money_text(b.amount, currency),
                        "player": b.player,
                    }
                    for b in mine[:HAND_BETS_LISTED]
                ],
                "actions": [words.action(a) for a in hand.actions],
                "bet_count": len(mine),
                "more_bets": max(len(mine) - HAND_BETS_LISTED, 0),
                "staked": money_text(sum(b.amount for b in mine), currency),
            }
        )
    everything = params.get("events") == "all"
    base = round_url(round_)
    page = bets_page(review, currency, params)
    mismatches = "1" if page.only_mismatches else None
    back = request.get_full_path() if request is not None else base
    findings = []
    for f in review.findings:
        item = {
            "finding": f,
            "url": reverse("admin:audit_finding_change", args=[f.pk]),
            "amounts": finding_amounts(f, currency),
            "kind": kind_title(f.kind),
            "severity": severity_text(f.severity),
            "bet_url": (base + "?" + urlencode({"bet": f.bet}) + f"#bet-{f.bet}")
            if f.bet
            else None,
        }
        if request is not None:
            item["work"] = finding_actions(request, f, back=back)
        findings.append(item)
    return {
        "review": review,
        "round": round_,
        "round_links": round_links(round_),
        "day_url": reverse(
            "admin:tables_tableday_key",
            kwargs={"table": round_.table.stream, "day": round_.gaming_day.isoformat()},
        ),
        "currency": currency,
        "figures": {
            "handle": money_text(round_.handle, currency),
            "house_recorded": money_text(
                None if round_.recorded_net is None else -round_.recorded_net, currency, signed=True
            ),
            "house_recomputed": money_text(-round_.expected_net, currency, signed=True),
        },
        "events": _timeline(review.events, everything=everything, currency=currency),
        "event_count": len(review.events),
        "all_events_url": base + "?" + urlencode({"events": "all"}) + "#timeline",
        "folded": not everything
        and any(line["run"] for line in _timeline(review.events, everything=False)),
        "dealer": {"hand": review.dealer, "cards": _hand_cards(review.dealer, finished=finished)}
        if review.dealer
        else None,
        "hands": hands,
        "bets_page": page,
        "bets_nav": {
            "previous": _page_url(base, bets=page.number - 1, mismatches=mismatches)
            if page.number > 1
            else None,
            "next": _page_url(base, bets=page.number + 1, mismatches=mismatches)
            if page.number < page.pages
            else None,
            "first": _page_url(base, mismatches=mismatches) if page.number > 2 else None,
            "last": _page_url(base, bets=page.pages, mismatches=mismatches)
            if page.number < page.pages - 1
            else None,
            "only_mismatches": _page_url(base, mismatches="1"),
            "all": _page_url(base),
        },
        "bet_count": len(review.bets),
        "mismatched": sum(1 for b in review.bets if not b.matches),
        "findings": findings,
        "previous_url": round_url(review.previous) if review.previous else None,
        "next_url": round_url(review.next) if review.next else None,
        "shoe_url": shoe_url(review.shoe) if review.shoe else None,
        "findings_url": reverse("admin:audit_finding_changelist")
        + "?"
        + urlencode(
            {
                "stream": round_.table.stream,
                "gaming_day": round_.gaming_day.isoformat(),
                "round": round_.number,
            }
        ),
    }


# a hand's bets listed by the cards; beyond that, their count and stake (the payouts
# below list every one)
HAND_BETS_LISTED = 3


# the tables' list filter by table code (a parameter ?table__stream=T1 that a rebuild
# does not invalidate, unlike the table's id)
TABLE = ("table__stream", admin.AllValuesFieldListFilter)
_DAY = r"\d{4}-\d{2}-\d{2}"


class _NaturalKeyChangeList(ChangeList):
    def url_for_result(self, result: Model) -> str:
        return self.model_admin.url_of(result)  # type: ignore[attr-defined,no-any-return]


@admin.display(description=_("gaming day"), ordering="gaming_day")
def day(obj: Any) -> str:
    return obj.gaming_day.isoformat()


class NaturalKeyAdmin(ReadOnlyAdmin):
    """A read model's admin that addresses its rows by their natural key: the key's own
    URL (``key_pattern``, named ``admin:<app>_<model>_key``) opens the row, the change
    URL takes the key too (``.../T1/2026-11-29/change/``), and the list links by it. A
    numeric id is still understood (Django's own pages, such as the history, use it).
    """

    key_pattern: str = ""  # a regex with one named group per part of the key, in order
    # on the row's page, a field shown by a display method instead (money as money)
    shown_as: dict[str, str] = {}

    class Media:
        css = {"all": ("tables/lists.css",)}

    def get_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        return self.get_readonly_fields(request, obj)

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        return [self.shown_as.get(f.name, f.name) for f in self.opts.fields if not f.primary_key]

    def key_of(self, obj: Any) -> dict[str, Any]:
        raise NotImplementedError

    def filter_of(self, key: dict[str, str]) -> dict[str, Any]:
        """The queryset filter of a parsed key; ValueError if a part is malformed."""
        raise NotImplementedError

    def url_of(self, obj: Any) -> str:
        info = (self.opts.app_label, self.opts.model_name)
        return reverse(
            "admin:{}_{}_key".format(*info),
            kwargs=self.key_of(obj),
            current_app=self.admin_site.name,
        )

    def get_urls(self) -> list[URLPattern]:
        info = (self.opts.app_label, self.opts.model_name)
        view = self.admin_site.admin_view(self.key_view)
        return [
            re_path(rf"^{self.key_pattern}/$", view, name="{}_{}_key".format(*info)),
            *super().get_urls(),
        ]

    def key_view(self, request: HttpRequest, **key: str) -> HttpResponse:
        object_id = "/".join(quote(part) for part in key.values())
        if self.get_object(request, unquote(object_id)) is None:
            # (Django's change view would redirect to the index with a message: a
            # link that names nothing is a 404)
            raise Http404(
                gettext("No %(what)s %(key)s.")
                % {"what": self.opts.verbose_name, "key": "/".join(key.values())}
            )
        return self.change_view(request, object_id)

    def get_changelist(self, request: HttpRequest, **kwargs: Any) -> type[ChangeList]:
        return _NaturalKeyChangeList

    def get_object(
        self, request: HttpRequest, object_id: str, from_field: str | None = None
    ) -> Any:
        match = re.fullmatch(self.key_pattern, object_id)
        if match is None:
            return (
                super().get_object(request, object_id, from_field) if object_id.isdigit() else None
            )
        try:
            lookup = self.filter_of(match.groupdict())
        except ValueError:
            return None
        return self.get_queryset(request).filter(**lookup).first()


@admin.register(m.Table)
class TableAdmin(NaturalKeyAdmin):
    list_display = (
        "stream",
        "ruleset",
        "currency",
        "limits",
        "day_count",
        "round_count",
        "bet_count",
        "finding_count",
    )
    key_pattern = rf"(?P<table>{STREAM_REGEX})"
    shown_as = {"min_bet": "min_bet_text", "max_bet": "max_bet_text"}

    @admin.display(description=_("min bet"))
    def min_bet_text(self, obj: m.Table) -> str:
        return money_text(obj.min_bet, obj.currency)

    @admin.display(description=_("max bet"))
    def max_bet_text(self, obj: m.Table) -> str:
        return money_text(obj.max_bet, obj.currency)

    def key_of(self, obj: m.Table) -> dict[str, Any]:
        return {"table": obj.stream}

    def filter_of(self, key: dict[str, str]) -> dict[str, Any]:
        return {"stream": key["table"]}

    def get_object(
        self, request: HttpRequest, object_id: str, from_field: str | None = None
    ) -> Any:
        # a table's code may be all digits: the code first, the id only when no table has it
        found = self.get_queryset(request).filter(stream=object_id).first()
        if found is None and object_id.isdigit():
            found = self.get_queryset(request).filter(pk=int(object_id)).first()
        return found

    def get_queryset(self, request: HttpRequest) -> QuerySet[m.Table]:
        return selectors.tables_list()

    def change_view(
        self,
        request: HttpRequest,
        object_id: str,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> HttpResponse:
        """The table's hub: its latest gaming day with play (``tables.table_pages``)."""
        from .table_pages import table_context

        table = self.get_object(request, unquote(object_id))
        if table is None:
            raise Http404(gettext("No table %(table)s.") % {"table": object_id})
        if not self.has_view_permission(request, table):
            raise PermissionDenied
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": gettext("Table %(table)s") % {"table": table.stream},
            "subtitle": None,
            "original": table,
            "has_view_permission": True,
            **table_context(table),
            **(extra_context or {}),
        }
        request.current_app = self.admin_site.name
        return TemplateResponse(request, "admin/tables/table/hub.html", context)

    @admin.display(description=_("limits"), ordering="min_bet")
    def limits(self, obj: m.Table) -> str:
        return gettext("%(low)s to %(high)s") % {
            "low": money_text(obj.min_bet, obj.currency),
            "high": money_text(obj.max_bet, obj.currency),
        }

    @admin.display(description=_("gaming days"), ordering="day_count")
    def day_count(self, obj: m.Table) -> str:
        url = (
            reverse("admin:tables_tableday_changelist")
            + "?"
            + urlencode({"table__stream": obj.stream})
        )
        return format_html('<a href="{}">{}</a>', url, obj.day_count)  # type: ignore[attr-defined]

    @admin.display(description=_("rounds"), ordering="round_count")
    def round_count(self, obj: m.Table) -> str:
        return format_number(obj.round_count)  # type: ignore[attr-defined]

    @admin.display(description=_("bets"), ordering="bet_count")
    def bet_count(self, obj: m.Table) -> str:
        return format_number(obj.bet_count)  # type: ignore[attr-defined]

    @admin.display(description=_("findings"), ordering="finding_count")
    def finding_count(self, obj: m.Table) -> str:
        url = reverse("admin:audit_finding_changelist") + "?" + urlencode({"stream": obj.stream})
        return format_html('<a href="{}">{}</a>', url, obj.finding_count)  # type: ignore[attr-defined]


@admin.register(m.TableDay)
class TableDayAdmin(NaturalKeyAdmin):
    list_display = (
        "table",
        day,
        "round_count",
        "bets_shown",
        "handle_text",
        "house_result",
        "house_result_recomputed",
        "result_of_handle",
        "finding_count",
        "open_finding_count",
    )
    list_filter = (GAMING_DAY, TABLE)
    key_pattern = rf"(?P<table>{STREAM_REGEX})/(?P<day>{_DAY})"
    shown_as = {
        "handle": "handle_text",
        "recorded_net": "house_result",
        "expected_net": "house_result_recomputed",
    }

    def key_of(self, obj: m.TableDay) -> dict[str, Any]:
        return {"table": obj.table.stream, "day": obj.gaming_day.isoformat()}

    def filter_of(self, key: dict[str, str]) -> dict[str, Any]:
        return {"table__stream": key["table"], "gaming_day": date.fromisoformat(key["day"])}

    def get_queryset(self, request: HttpRequest) -> QuerySet[m.TableDay]:
        return selectors.table_days()

    def change_view(
        self,
        request: HttpRequest,
        object_id: str,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> HttpResponse:
        """The table-day's hub (``tables.table_pages``); the stream's positions only in
        its Details fold."""
        from .table_pages import day_context, neighbours

        row = self.get_object(request, unquote(object_id))
        if row is None:
            raise Http404(gettext("No table-day %(key)s.") % {"key": object_id})
        if not self.has_view_permission(request, row):
            raise PermissionDenied
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": gettext("Table %(table)s, gaming day %(day)s")
            % {"table": row.table.stream, "day": row.gaming_day.isoformat()},
            "subtitle": None,
            "original": row,
            "has_view_permission": True,
            "hub": day_context(row),
            **neighbours(row),
            **(extra_context or {}),
        }
        request.current_app = self.admin_site.name
        return TemplateResponse(request, "admin/tables/tableday/hub.html", context)

    @admin.display(description=_("handle"), ordering="handle")
    def handle_text(self, obj: m.TableDay) -> str:
        return money_text(obj.handle, obj.table.currency)

    @admin.display(description=_("house result"), ordering="recorded_net")
    def house_result(self, obj: m.TableDay) -> str:
        """+ the house won: the players' recorded net, negated."""
        return money_text(-obj.recorded_net, obj.table.currency, signed=True)

    @admin.display(description=_("recomputed"), ordering="expected_net")
    def house_result_recomputed(self, obj: m.TableDay) -> str:
        return money_text(-obj.expected_net, obj.table.currency, signed=True)

    @admin.display(description=_("house result % of handle"))
    def result_of_handle(self, obj: m.TableDay) -> str:
        """The rounds' house result over their handle; not the hold (chip-count win over
        drop: the ledger's)."""
        return result_of_handle_text(-obj.recorded_net, obj.handle)

    @admin.display(description=_("rounds"), ordering="rounds")
    def round_count(self, obj: m.TableDay) -> str:
        url = (
            reverse("admin:tables_round_changelist")
            + "?"
            + urlencode(
                {"table__stream": obj.table.stream, "gaming_day": obj.gaming_day.isoformat()}
            )
        )
        return format_html('<a href="{}">{}</a>', url, format_number(obj.rounds))

    @admin.display(description=_("findings"), ordering="findings")
    def finding_count(self, obj: m.TableDay) -> str:
        url = (
            reverse("admin:audit_finding_changelist")
            + "?"
            + urlencode({"stream": obj.table.stream, "gaming_day": obj.gaming_day.isoformat()})
        )
        return format_html('<a href="{}">{}</a>', url, obj.findings)  # type: ignore[attr-defined]

    @admin.display(description=_("bets"), ordering="bets")
    def bets_shown(self, obj: m.TableDay) -> str:
        return format_number(obj.bets)

    @admin.display(description=_("open findings"), ordering="open_findings")
    def open_finding_count(self, obj: m.TableDay) -> int:
        return obj.open_findings  # type: ignore[attr-defined,no-any-return]


@admin.register(m.Shoe)
class ShoeAdmin(NaturalKeyAdmin):
    list_display = (
        "table",
        "gaming_day",
        "shoe",
        "shuffled_version",
        "decks",
        "method",
        "cut_card",
        "rounds",
    )
    list_filter = ("gaming_day", TABLE)
    key_pattern = rf"(?P<table>{STREAM_REGEX})/(?P<version>[0-9]{{1,18}})"

    def key_of(self, obj: m.Shoe) -> dict[str, Any]:
        return {"table": obj.table.stream, "version": obj.shuffled_version}

    def filter_of(self, key: dict[str, str]) -> dict[str, Any]:
        return {"table__stream": key["table"], "shuffled_version": int(key["version"])}

    def get_queryset(self, request: HttpRequest) -> QuerySet[m.Shoe]:
        return super().get_queryset(request).select_related("table")


class WithFindings(admin.SimpleListFilter):
    title = _("findings")
    parameter_name = "with_findings"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [("yes", gettext("with findings")), ("no", gettext("without findings"))]

    def queryset(self, request: HttpRequest, queryset: QuerySet[m.Round]) -> QuerySet[m.Round]:
        if self.value() in ("yes", "no"):
            return (
                queryset.filter(findings__gt=0)
                if self.value() == "yes"
                else queryset.filter(findings=0)
            )
        return queryset


@admin.register(m.Round)
class RoundAdmin(NaturalKeyAdmin):
    """The list of rounds, and each round's review page (its change view)."""

    list_display = (
        "__str__",
        "table",
        day,
        "number",
        "status",
        "handle_text",
        "house_result",
        "house_result_recomputed",
        "corrected",
        "finding_count",
        "mismatched_count",
    )
    list_display_links = ("__str__",)
    list_filter = (WithFindings, "status", GAMING_DAY, TABLE)
    review_template = "admin/tables/round/review.html"
    key_pattern = rf"(?P<table>{STREAM_REGEX})/(?P<day>{_DAY})/(?P<number>[0-9]{{1,18}})"

    def key_of(self, obj: m.Round) -> dict[str, Any]:
        return {"table": obj.table.stream, "day": obj.gaming_day.isoformat(), "number": obj.number}

    def filter_of(self, key: dict[str, str]) -> dict[str, Any]:
        return {
            "table__stream": key["table"],
            "gaming_day": date.fromisoformat(key["day"]),
            "number": int(key["number"]),
        }

    def get_queryset(self, request: HttpRequest) -> QuerySet[m.Round]:
        return selectors.rounds_list()

    @admin.display(description=_("handle"), ordering="handle")
    def handle_text(self, obj: m.Round) -> str:
        return money_text(obj.handle, obj.table.currency)

    @admin.display(description=_("house result"), ordering="recorded_net")
    def house_result(self, obj: m.Round) -> str:
        """+ the house won; - when never settled."""
        return money_text(
            None if obj.recorded_net is None else -obj.recorded_net, obj.table.currency, signed=True
        )

    @admin.display(description=_("recomputed"), ordering="expected_net")
    def house_result_recomputed(self, obj: m.Round) -> str:
        return money_text(-obj.expected_net, obj.table.currency, signed=True)

    @admin.display(description=_("findings"), ordering="findings")
    def finding_count(self, obj: m.Round) -> int:
        return obj.findings  # type: ignore[attr-defined,no-any-return]

    @admin.display(description=_("mismatched bets"), ordering="mismatched_bets")
    def mismatched_count(self, obj: m.Round) -> int:
        return obj.mismatched_bets  # type: ignore[attr-defined,no-any-return]

    def change_view(
        self,
        request: HttpRequest,
        object_id: str,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> HttpResponse:
        round_ = self.get_object(request, unquote(object_id))
        if round_ is None:
            raise Http404(gettext("No round %(key)s.") % {"key": object_id})
        if not self.has_view_permission(request, round_):
            raise PermissionDenied
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": gettext("Review of %(round)s") % {"round": round_},
            "subtitle": None,
            "original": round_,
            "has_view_permission": True,
            **review_context(selectors.round_review(round_), request),
            **(extra_context or {}),
        }
        request.current_app = self.admin_site.name
        return TemplateResponse(request, self.review_template, context)


@admin.register(m.Alert)
class AlertAdmin(ReadOnlyAdmin):
    """The floor's alerts, every one (the floor shows those waiting and the latest
    acknowledged); acknowledged on the floor's page, never changed here."""

    list_display = (
        "raised_at",
        "kind",
        "severity",
        "stream",
        "gaming_day",
        "message",
        "acknowledged_by",
        "acknowledged_at",
        "note",
    )
    list_filter = ("kind", "severity", ("acknowledged_at", admin.EmptyFieldListFilter), "stream")
    search_fields = ("message", "note", "key")
