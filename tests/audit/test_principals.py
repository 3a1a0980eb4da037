"""Who recorded an event is the server's word, not the client's: the authenticated
principal is stored and sealed with each event; a device speaks only for its own table and
its dealers; server streams are the server's; identifiers cannot hide characters."""

from __future__ import annotations

import io

import pytest
from django.core.management import CommandError, call_command
from rest_framework.test import APIClient

from audit.access.devices import device_ensure
from audit.models import Event
from tests.audit.test_api import T1, _person, event, post

pytestmark = pytest.mark.django_db


@pytest.fixture
def device() -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {device_ensure(stream='T1').token}")
    return client


def assigned(dealer: str) -> dict:
    return event("dealer.assigned", {"dealer": dealer}, actor="device:device-T1")


def test_the_authenticated_principal_is_stored_beside_the_actor(device: APIClient) -> None:
    """The device's events say device:<its user>, whatever actor they name."""
    response = post(
        device, T1, {"expected_version": 0, "events": [assigned("D-7"), event(actor="dealer:D-7")]}
    )
    assert response.status_code == 201, response.content
    stored = Event.objects.get(version=2)
    assert (stored.actor, stored.principal) == ("dealer:D-7", "device:device-T1")
    assert stored.seal and len(stored.seal) == 64


@pytest.mark.parametrize(
    "actor",
    [
        "user:pitboss",
        "device:device-T2",
        "server:digest",
        "cage:C-1",
        # another table's instruments, a dealer never assigned here, a person dressed as a dealer
        "shoe:BJ-02",
        "shuffler:T2",
        "dealer:D-0042",
        "dealer:user:PB-1",
    ],
)
def test_a_device_cannot_speak_for_a_person_or_another_device(
    device: APIClient, actor: str
) -> None:
    """403 naming the field; nothing stored."""
    response = post(device, T1, {"expected_version": 0, "events": [event(), event(actor=actor)]})
    assert response.status_code == 403
    assert list(response.json()["errors"]) == ["events[1].actor"]
    assert Event.objects.count() == 0


def test_a_device_speaks_for_the_dealers_assigned_to_its_table_since_it_opened(
    device: APIClient,
) -> None:
    """A dealer is one a dealer.assigned of this table's stream names (stored, or earlier
    in the batch); a new table.opened starts the day's assignments again; another table's
    assignment counts for nothing here; a 'dealer' whose id names a kind of its own
    (user:PB-1) is never one."""
    opened = {
        "table": "T1",
        "ruleset": "hoyle",
        "min_bet": 100,
        "max_bet": 10000,
        "currency": "EUR",
        "gaming_day": "2026-11-29",
        "rules": {},
    }
    assert (
        post(
            device,
            T1,
            {
                "expected_version": 0,
                "events": [
                    event("table.opened", opened, actor="device:device-T1"),
                    assigned("D-1"),
                    event(actor="dealer:D-1"),
                ],
            },
        ).status_code
        == 201
    )
    # the next request reads the assignment from the stream
    assert (
        post(device, T1, {"expected_version": 3, "events": [event(actor="dealer:D-1")]}).status_code
        == 201
    )
    # T2's dealer is not T1's
    other = APIClient()
    other.credentials(HTTP_AUTHORIZATION=f"Token {device_ensure(stream='T2').token}")
    t2 = "/api/streams/T2/events"
    assert (
        post(
            other,
            t2,
            {
                "expected_version": 0,
                "events": [event("dealer.assigned", {"dealer": "D-2"}, actor="device:device-T2")],
            },
        ).status_code
        == 201
    )
    refused = post(device, T1, {"expected_version": 4, "events": [event(actor="dealer:D-2")]})
    assert refused.status_code == 403 and "events[0].actor" in refused.json()["errors"]
    # a person's name assigned as a dealer makes no dealer of them
    refused = post(
        device,
        T1,
        {"expected_version": 4, "events": [assigned("user:PB-1"), event(actor="dealer:user:PB-1")]},
    )
    assert refused.status_code == 403 and "events[1].actor" in refused.json()["errors"]
    # the next day: yesterday's dealers lapse until assigned again
    next_day = {**opened, "gaming_day": "2026-11-30"}
    refused = post(
        device,
        T1,
        {
            "expected_version": 4,
            "events": [
                event("table.opened", next_day, actor="device:device-T1"),
                event(actor="dealer:D-1"),
            ],
        },
    )
    assert refused.status_code == 403 and "events[1].actor" in refused.json()["errors"]
    assert Event.objects.filter(stream="T1").count() == 4


def test_a_device_speaks_for_its_own_shoe_and_shuffler(device: APIClient) -> None:
    response = post(
        device,
        T1,
        {"expected_version": 0, "events": [event(actor="shoe:T1"), event(actor="shuffler:T1")]},
    )
    assert response.status_code == 201, response.content


def test_a_device_may_name_itself(device: APIClient) -> None:
    response = post(
        device, T1, {"expected_version": 0, "events": [event(actor="device:device-T1")]}
    )
    assert response.status_code == 201


@pytest.mark.parametrize("stream", ["audit.findings", "audit.digests", "audit.access"])
def test_nobody_appends_to_a_server_stream_through_the_api(stream: str) -> None:
    """Not even a person with the append permission, nor a superuser."""
    client = APIClient()
    boss = _person("root", "append_event", "view_event")
    boss.is_superuser = True
    boss.save()
    client.force_login(boss)
    finding = {
        "finding": "b" * 64,
        "table": "T1",
        "kind": "wrong_payout",
        "previous": "open",
        "by": "x",
        "note": "y",
    }
    response = post(
        client,
        f"/api/streams/{stream}/events",
        {"expected_version": 0, "events": [event("finding.resolved", finding)]},
    )
    assert response.status_code == 403 and "server stream" in response.json()["detail"]
    assert Event.objects.count() == 0


def test_no_device_is_made_for_a_server_stream() -> None:
    with pytest.raises(CommandError, match="server stream") as caught:
        call_command("create_device", "audit.findings", stdout=io.StringIO(), stderr=io.StringIO())
    assert caught.value.returncode == 2


@pytest.mark.parametrize(
    "actor",
    [
        "dealer:D1\u200b",
        "dealer:\u202eD1",
        "dealer:D1\x1b[31m",
        "dealer:D1\n",
        "dealer: D1",
        "dеaler:D1",  # Cyrillic е
    ],
)
def test_an_actor_with_hidden_or_confusable_characters_is_refused(actor: str) -> None:
    """Zero-width, bidi override, ANSI escape, newline, space, a Cyrillic look-alike: 400."""
    client = APIClient()
    client.force_login(_person("boss", "append_event"))
    response = post(client, T1, {"expected_version": 0, "events": [event(actor=actor)]})
    assert response.status_code == 400, response.content
    assert "events[0].actor" in response.json()["errors"]


@pytest.mark.parametrize("note", ["ok\u202eevil", "zero\u200bwidth", "bell\x07"])
def test_free_text_with_format_or_control_characters_is_refused(note: str) -> None:
    client = APIClient()
    client.force_login(_person("boss", "correct_round"))
    voided = {"round": 1, "reason": note, "authorised_by": "PB-7"}
    response = post(client, T1, {"expected_version": 0, "events": [event("round.voided", voided)]})
    assert response.status_code == 400
    assert "events[0].payload.reason" in response.json()["errors"]


def test_an_identifier_with_a_trailing_newline_is_refused() -> None:
    """'$' in a pattern lets a trailing newline through; the catalogue's patterns do not."""
    client = APIClient()
    client.force_login(_person("boss", "append_event"))
    response = post(
        client, T1, {"expected_version": 0, "events": [event(payload={"round": 1, "shoe": "S1\n"})]}
    )
    assert response.status_code == 400
    assert "events[0].payload.shoe" in response.json()["errors"]
