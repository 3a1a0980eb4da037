"""The event pages of the admin, in a real browser."""

from __future__ import annotations

import pytest

from audit.store.streams import events_append
from tests.audit.tampering import tamper
from tests.samples import round_events

pytestmark = pytest.mark.django_db(transaction=True)


def test_an_event_shows_its_payload_and_chain_and_cannot_be_edited(logged_in, live_server):
    """A logged-in user finds a bet in the events list, opens it, sees its payload and an
    intact chain, walks to the next event, and is offered no way to change or delete it."""
    stored = events_append(stream="T1", expected_version=0, events=round_events(1))
    page = logged_in
    page.goto(f"{live_server.url}/admin/audit/event/?type__exact=bet.placed")
    rows = page.locator("#result_list tbody tr")
    assert rows.count() == 3
    page.click(f"#result_list a:text-is('{stored[1].position}')")
    body = page.locator("#content").inner_text()
    assert str(stored[1].event_id) in body
    assert '"amount": 1000' in body
    assert "intact" in body
    assert page.locator("input[type=submit]").count() == 0  # nothing to save
    assert page.locator("a.deletelink").count() == 0
    page.click("text=next (v3)")
    assert page.url.endswith(f"/admin/audit/event/{stored[2].position}/change/")
    assert "T1 v3 bet.placed" in page.locator("#content h2").first.inner_text()


def test_a_tampered_event_is_shown_broken(logged_in, live_server):
    stored = events_append(stream="T1", expected_version=0, events=round_events(1))
    tamper(f"UPDATE audit_event SET actor = 'forger' WHERE position = {stored[2].position}")
    page = logged_in
    page.goto(f"{live_server.url}/admin/audit/event/{stored[2].position}/change/")
    assert "BROKEN" in page.locator("#content").inner_text()
