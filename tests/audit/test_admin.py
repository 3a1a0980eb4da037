"""The admin shows events read-only, with their chain state."""

from __future__ import annotations

import pytest
from django.urls import reverse

from audit.models import Event
from audit.store.streams import events_append
from tests.samples import round_events

from .tampering import tamper

pytestmark = pytest.mark.django_db


@pytest.fixture
def stored():
    return events_append(stream="T1", expected_version=0, events=round_events(1))


def test_event_page_shows_fields_payload_and_an_intact_chain(admin_client, stored):
    event = stored[1]
    page = admin_client.get(reverse("admin:audit_event_change", args=[event.position]))
    assert page.status_code == 200
    text = page.content.decode()
    assert str(event.event_id) in text and event.hash in text
    assert "&quot;amount&quot;: 1000" in text or '"amount": 1000' in text
    assert "intact" in text and "BROKEN" not in text
    assert "previous (v1)" in text and "next (v3)" in text


def test_event_page_shows_a_tampered_event_as_broken(admin_client, stored):
    event = stored[4]
    tamper(f"UPDATE audit_event SET actor = 'someone' WHERE position = {event.position}")
    page = admin_client.get(reverse("admin:audit_event_change", args=[event.position]))
    assert "BROKEN" in page.content.decode()


def test_admin_cannot_add_change_or_delete_events(admin_client, stored):
    event = stored[0]
    assert admin_client.get(reverse("admin:audit_event_add")).status_code == 403
    delete = reverse("admin:audit_event_delete", args=[event.position])
    assert admin_client.post(delete, {"post": "yes"}).status_code == 403
    change = reverse("admin:audit_event_change", args=[event.position])
    admin_client.post(change, {"actor": "x"})
    assert Event.objects.get(position=event.position).actor == event.actor
    listing = admin_client.get(reverse("admin:audit_event_changelist"))
    assert listing.status_code == 200 and "round.started" in listing.content.decode()
