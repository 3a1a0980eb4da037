"""The review of a round with hundreds of bets (the live game): mismatches and the bets
of findings first, then every bet in the numeric order of its id, 50 a page, the page
of a linked bet opened, a "mismatches only" filter; every card as it was finally seen."""

from __future__ import annotations

import copy
import re

import pytest

from audit.models import Finding
from audit.record.events import REGISTRY
from tables import models as m
from tables.admin import BETS_PER_PAGE, _hand_cards, natural_key
from tables.engine.presets import PRESETS
from tables.engine.simulate import deal_table
from tables.replay_service import replay_table

from .helpers import DAY, START, append, dealt, plant_short_pay

pytestmark = pytest.mark.django_db


@pytest.fixture
def live(settings) -> dict:
    """A live table (it-live), 7 boxes of 30 bettors: 210 bets a round, one short-paid."""
    settings.PROJECT_ON_APPEND = False
    events = copy.deepcopy(
        deal_table(
            PRESETS["it-live"], seed="live", rounds=3, boxes=7, bettors=30, table="L1", start=START
        ).events
    )
    fault = plant_short_pay(events, skip=1)
    append("L1", events)
    replay_table(stream="L1")
    return fault


def _review(client, number: int, **query: str):
    return client.get(f"/admin/tables/round/L1/{DAY.isoformat()}/{number}/", query)


def test_bet_ids_sort_by_their_numbers():
    ids = ["r41-156", "r41-16", "r41-163", "r41-2", "r41-1b", "r41-10"]
    assert sorted(ids, key=natural_key) == [
        "r41-1b",
        "r41-2",
        "r41-10",
        "r41-16",
        "r41-156",
        "r41-163",
    ]


def test_the_short_paid_bet_comes_first_and_the_rest_follow_in_numeric_order(admin_client, live):
    response = _review(admin_client, live["round"])
    page = response.context["bets_page"]
    round_ = m.Round.objects.get(table__stream="L1", number=live["round"])
    assert round_.bets.count() > 4 * BETS_PER_PAGE // 2  # hundreds of bets, pages of them
    assert page.number == 1 and page.pages == -(-round_.bets.count() // BETS_PER_PAGE)
    rows = [row["bet"] for row in page.rows]
    assert rows[0].bet == live["bet"] and not rows[0].matches and page.rows[0]["finding"]
    rest = [b.bet for b in rows[1:]]
    assert rest == sorted(rest, key=natural_key) and len(rows) == BETS_PER_PAGE
    html = response.content.decode()
    assert html.index(f'id="bet-{live["bet"]}"') < html.index('class="bet"')
    # the finding links to its bet's row, on the page that holds it
    finding = Finding.objects.get()
    assert (
        f'href="/admin/tables/round/L1/{DAY.isoformat()}/{live["round"]}/?bet={finding.bet}#bet-{finding.bet}"'
        in html
    )


def test_a_linked_bet_opens_its_page_and_the_pages_move_on(admin_client, live):
    round_ = m.Round.objects.get(table__stream="L1", number=live["round"])
    last = max((b.bet for b in round_.bets.all()), key=natural_key)
    page = _review(admin_client, live["round"], bet=last).context["bets_page"]
    assert page.number == page.pages and page.rows[-1]["bet"].bet == last
    second = _review(admin_client, live["round"], bets="2").context["bets_page"]
    assert second.number == 2 and second.first == BETS_PER_PAGE + 1
    assert (
        _review(admin_client, live["round"], bets="999").context["bets_page"].number == page.pages
    )
    assert _review(admin_client, live["round"], bets="x").context["bets_page"].number == 1


def test_mismatches_only_keeps_the_bets_that_differ_or_have_a_finding(admin_client, live):
    response = _review(admin_client, live["round"], mismatches="1")
    page = response.context["bets_page"]
    assert [row["bet"].bet for row in page.rows] == [live["bet"]] and page.pages == 1
    assert 'id="all-bets"' in response.content.decode()


def test_the_thousands_of_bets_are_one_line_of_the_timeline_unless_asked(admin_client, live):
    round_ = m.Round.objects.get(table__stream="L1", number=live["round"])
    html = _review(admin_client, live["round"]).content.decode()
    # each type by its title in the catalogue, its count in the locale's digits
    placed = re.escape(REGISTRY["bet.placed"].title)
    assert int(re.search(placed + r" \u00d7 ([\d,]+)", html).group(1).replace(",", "")) >= 210
    folded = sum(int(n.replace(",", "")) for n in re.findall(r"\u00d7 ([\d,]+)", html))
    assert html.count('class="event"') + folded == len(round_.versions)
    every = _review(admin_client, live["round"], events="all").content.decode()
    assert every.count('class="event"') == len(round_.versions)


def test_a_card_dealt_face_down_is_shown_turned_once_the_round_is_over(settings):
    """it-classic deals a double's card face down: the review shows its face (it was
    turned at the settlement) with the mark that it was dealt face down; the dealer's
    hole card stays a back while never revealed."""
    settings.PROJECT_ON_APPEND = False
    append("T1", dealt("it-classic", rounds=60))
    replay_table(stream="T1")
    down = [
        h
        for h in m.Hand.objects.filter(round__table__stream="T1").exclude(box=0)
        if any(c["face"] == "down" for c in h.cards)
    ]
    assert down, "no face-down double in 60 rounds of it-classic"
    cards = _hand_cards(down[0], finished=True)
    turned = [c for c in cards if c["hole"]]
    assert turned and not any(c["back"] for c in turned)
    assert all(c["back"] for c in _hand_cards(down[0], finished=False) if c["hole"])
    dealer = m.Hand(
        box=0,
        number=0,
        total=10,
        soft=False,
        bust=False,
        cards=[{"card": "6S", "face": "down", "version": 5, "revealed_version": None}],
    )
    assert _hand_cards(dealer, finished=True)[0]["back"]
