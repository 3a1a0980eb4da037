"""The pit boss's floor in a real browser: an alert appears on the open dashboard when a
dealer short-pays, and is acknowledged with a note; a finding is worked from its round's
review; a live round's review shows its one short-paid bet first among hundreds.
Screenshots (1400 px wide) go to artifacts/."""

from __future__ import annotations

import copy

import pytest

from audit.models import Event
from audit.record.findings import KINDS
from tables import models as m
from tables.admin import natural_key
from tables.engine.presets import PRESETS
from tables.engine.simulate import deal_table
from tests.back_office.helpers import START, append, dealt, engine_findings, plant_short_pay

from .conftest import ARTIFACTS

pytestmark = pytest.mark.django_db(transaction=True)


def _shot(page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def test_a_short_pay_appears_on_the_open_floor_and_is_acknowledged_with_a_note(
    pit_boss, live_server
):
    """The floor is open (the landing page after login) on a table playing cleanly; the
    dealer short-pays a later round; the floor's poll shows the alert without a reload;
    the pit boss acknowledges it with a note; the trail says who, when and what."""
    events = dealt("hoyle", rounds=10)
    fault = plant_short_pay(events, skip=5)
    cut = next(
        i
        for i, e in enumerate(events)
        if e["type"] == "round.started" and e["payload"]["round"] == fault["round"]
    )
    append("T1", events[:cut])  # projected on append: the floor has figures, no alert
    page = pit_boss
    page.goto(f"{live_server.url}/admin/")
    assert page.locator("h1").inner_text().startswith("The floor")
    assert page.locator("#floor-alerts .no-alerts").count() == 1
    assert page.locator("#table-T1").count() == 1

    append("T1", events[cut:])  # the rest of the day, the short pay in it
    alert = page.locator("#floor-alerts li.alert.waiting")
    alert.wait_for(timeout=5000)  # the page polls every second
    # the finding's kind by its sentence (the findings vocabulary), its code only as data
    assert alert.get_attribute("data-finding-kind") == "wrong_payout"
    assert KINDS["wrong_payout"].title in alert.inner_text()
    assert "wrong_payout" not in alert.inner_text() and "on T1" in alert.inner_text()
    assert page.locator("#open-high .count").inner_text() == "1"
    assert page.url == f"{live_server.url}/admin/"  # never reloaded
    _shot(page, "floor_alert")

    alert.locator("input[name=note]").fill("dealer told; short pay of one unit refunded")
    alert.locator("button[type=submit]").click()
    page.wait_for_selector("ul.messagelist")
    done = page.locator("#floor-alerts li.alert.acknowledged")
    assert "pitboss" in done.locator(".trail .by").inner_text()
    assert (
        "dealer told; short pay of one unit refunded" in done.locator(".trail .note").inner_text()
    )
    event = Event.objects.get(stream="audit.alerts")
    assert (event.type, event.actor, event.payload["note"]) == (
        "alert.acknowledged",
        "user:pitboss",
        "dealer told; short pay of one unit refunded",
    )
    assert m.Alert.objects.get().acknowledged_by == "pitboss"
    _shot(page, "floor_acknowledged")


def test_a_finding_is_worked_from_its_round_review(pit_boss, live_server):
    """From the alert to the round, then acknowledge, resolve with a note and reopen on
    the review itself; each change is in the trail with who and the note."""
    events = dealt("hoyle", rounds=8)
    fault = plant_short_pay(events)
    append("T1", events)
    finding = engine_findings().get()
    page = pit_boss
    page.goto(f"{live_server.url}/admin/")
    page.click("#floor-alerts a.alert-open")
    assert f"round {fault['round']}" in page.locator("h1").inner_text()
    work = page.locator(f"#work-{finding.pk}")

    work.locator("input[name=note]").fill("checking the camera")
    work.locator("button.finding-acknowledge").click()
    page.wait_for_selector("ul.messagelist")
    assert "acknowledged" in page.locator("ul.messagelist").inner_text()
    assert "Acknowledged" in page.locator(f"#finding-{finding.pk} td.status").inner_text()

    work = page.locator(f"#work-{finding.pk}")
    work.locator("button.finding-resolve").click()  # no note: refused, nothing changes
    assert "needs a note" in page.locator("ul.messagelist").inner_text()
    work = page.locator(f"#work-{finding.pk}")
    work.locator("input[name=note]").fill("refunded, slip R-88")
    work.locator("button.finding-resolve").click()
    assert "Resolved" in page.locator(f"#finding-{finding.pk} td.status").inner_text()

    work = page.locator(f"#work-{finding.pk}")
    work.locator("input[name=note]").fill("slip never booked")
    work.locator("button.finding-reopen").click()
    assert "Open" in page.locator(f"#finding-{finding.pk} td.status").inner_text()
    trail = page.locator(f"#work-{finding.pk} ol.trail").inner_text()
    assert (
        trail.index("checking the camera")
        < trail.index("refunded, slip R-88")
        < trail.index("slip never booked")
    )
    assert trail.count("pitboss") == 3
    assert list(
        Event.objects.filter(stream="audit.findings")
        .order_by("version")
        .values_list("type", flat=True)
    ) == ["finding.acknowledged", "finding.resolved", "finding.reopened"]
    _shot(page, "finding_worked_on_review")


def test_a_live_round_shows_its_short_paid_bet_first_with_its_anchor_and_pages(
    pit_boss, live_server, settings
):
    settings.PROJECT_ON_APPEND = True
    events = copy.deepcopy(
        deal_table(
            PRESETS["it-live"], seed="live", rounds=3, boxes=7, bettors=30, table="L1", start=START
        ).events
    )
    fault = plant_short_pay(events, skip=1)
    append("L1", events)
    page = pit_boss
    page.goto(f"{live_server.url}/admin/audit/finding/")
    page.click("#result_list a.round-review")
    assert page.url.endswith(f"?bet={fault['bet']}#bet-{fault['bet']}")
    first = page.locator("#payouts tbody tr").first
    assert first.get_attribute("id") == f"bet-{fault['bet']}" and "mismatch" in first.get_attribute(
        "class"
    )
    assert page.evaluate("document.querySelector(':target').id") == f"bet-{fault['bet']}"
    # the anchor scrolled the page to it: the row is on screen
    box = first.bounding_box()
    assert 0 <= box["y"] < page.viewport_size["height"]
    assert page.locator("#bets-page").inner_text().startswith("page 1 of ")
    ids = page.locator("#payouts tbody tr td:first-child").all_inner_texts()[1:]
    assert ids == sorted(ids, key=natural_key) and len(ids) == 49
    _shot(page, "live_round_review")

    page.click("#bets-next")
    assert page.locator("#bets-page").inner_text().startswith("page 2 of ")
    assert page.locator("#payouts tr.mismatch").count() == 0
    page.click("#mismatches-only")
    assert page.locator("#payouts tbody tr").count() == 1
    assert page.locator("#payouts tbody tr").first.get_attribute("id") == f"bet-{fault['bet']}"
    assert page.locator("#timeline tr.event-run").count() >= 1  # the bets' run is one line


def test_a_finding_is_resolved_from_its_own_page(pit_boss, live_server, settings):
    """The finding's page: what it says, the round at the bet, and the handling - resolved
    here with a note, the trail then naming who and why."""
    settings.PROJECT_ON_APPEND = True
    events = dealt("hoyle", rounds=8)
    plant_short_pay(events)
    append("T1", events)
    finding = engine_findings().get()
    page = pit_boss
    page.goto(f"{live_server.url}/admin/audit/finding/{finding.pk}/change/")
    assert finding.message in page.locator(".finding-summary").inner_text()
    work = page.locator(f"#work-{finding.pk}")
    work.locator("input[name=note]").fill("refunded at the table, slip R-12")
    work.locator("button.finding-resolve").click()
    page.wait_for_selector("ul.messagelist")
    assert f"Finding {finding.pk} resolved." in page.locator("ul.messagelist").inner_text()
    trail = page.locator(f"#work-{finding.pk} ol.trail").inner_text()
    assert "resolved by pitboss" in trail and "refunded at the table, slip R-12" in trail
    finding.refresh_from_db()
    assert (finding.status, finding.note) == ("resolved", "refunded at the table, slip R-12")
    _shot(page, "finding_page")
