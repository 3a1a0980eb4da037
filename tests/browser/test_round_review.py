"""The pit boss's round review and findings list, in a real browser: a table dealt by the
engine with one short pay planted, appended and replayed."""

from __future__ import annotations

import pytest

from audit.models import Event, Finding
from audit.record.findings import KINDS
from audit.record.money import format_signed
from tables import models as m
from tables.replay_service import replay_table
from tests.back_office.helpers import append, dealt, plant_short_pay

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_pit_boss_reviews_a_short_paid_round_and_acknowledges_its_finding(
    pit_boss, live_server, settings
):
    settings.PROJECT_ON_APPEND = False
    events = dealt("hoyle", rounds=10)
    fault = plant_short_pay(events)
    append("T1", events)
    replay_table(stream="T1")
    round_ = m.Round.objects.get(number=fault["round"])
    dealer_first = round_.hands.get(box=0).cards[0]["card"]
    finding = Finding.objects.get()
    page = pit_boss

    # from the findings list, filtered, to the round's review
    page.goto(f"{live_server.url}/admin/audit/finding/?kind=wrong_payout&status=open")
    assert page.locator("#result_list tbody tr").count() == 1
    page.click("#result_list a.round-review")
    review = f"/admin/tables/round/T1/{round_.gaming_day.isoformat()}/{round_.number}/"
    # opened at the short-paid bet's row
    assert page.url.endswith(f"{review}?bet={fault['bet']}#bet-{fault['bet']}")
    assert f"round {fault['round']}" in page.locator("h1").inner_text()

    # cards: the dealer's up card as rank and suit, red or black; every card has a colour
    card = page.locator(f"#dealer .playing-card[data-card='{dealer_first}']")
    rank, suit = dealer_first[:-1], dealer_first[-1]
    assert card.locator(".rank").inner_text() == {"T": "10"}.get(rank, rank)
    assert card.locator(".suit").inner_text() == {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}[suit]
    assert (
        "red" in card.get_attribute("class")
        if suit in "HD"
        else "black" in card.get_attribute("class")
    )
    assert page.locator("#cards .playing-card.red, #cards .playing-card.black").count() >= 6
    # the hole card was dealt face down: a back on the timeline
    assert page.locator("#timeline .playing-card.back").count() >= 1

    # the payouts side by side, the short one highlighted
    row = page.locator(f"#payouts tr#bet-{fault['bet']}")
    assert "mismatch" in row.get_attribute("class")
    assert (
        row.locator("td.recorded").inner_text().strip()
        == f"win {format_signed(fault['wrong'], 'EUR')}"
    )
    assert (
        row.locator("td.recomputed").inner_text().strip()
        == f"win {format_signed(fault['right'], 'EUR')}"
    )
    assert page.locator("#payouts tr.mismatch").count() == 1

    # the finding and an intact chain
    findings = page.locator("#findings").inner_text()
    # the kind by its title (the findings vocabulary), never its code
    assert KINDS["wrong_payout"].title in findings and "wrong_payout" not in findings
    assert finding.message in findings and "Open" in findings
    assert "intact" in page.locator("#chain-summary").inner_text()
    page.screenshot(path=str(_artifacts() / "round_review.png"), full_page=True)
    # the next round of the table, and back
    page.click("#next-round")
    assert f"round {fault['round'] + 1}" in page.locator("h1").inner_text()
    page.click("#previous-round")
    assert page.url.endswith(review)

    # bulk acknowledge from the list
    page.goto(f"{live_server.url}/admin/audit/finding/")
    page.check(f"#result_list input[name=_selected_action][value='{finding.pk}']")
    page.select_option("select[name=action]", "acknowledge")
    page.click("button[name=index]")
    page.wait_for_selector("ul.messagelist")
    assert "Acknowledged 1 finding" in page.locator("ul.messagelist").inner_text()
    assert "Acknowledged" in page.locator("#result_list td.field-status_text").first.inner_text()
    page.screenshot(path=str(_artifacts() / "findings_acknowledged.png"), full_page=True)
    finding.refresh_from_db()
    assert (finding.status, finding.status_changed_by) == ("acknowledged", "pitboss")
    assert Event.objects.filter(stream="audit.findings", type="finding.acknowledged").count() == 1

    # the review shows the new status
    page.goto(f"{live_server.url}{review}")
    assert "Acknowledged" in page.locator("#findings td.status").inner_text()


def _artifacts():
    from tests.browser.conftest import ARTIFACTS

    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS
