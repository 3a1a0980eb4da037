"""Who may change money, at the API's door: a correction or a void is recorded only by a
person holding its permission (the pit boss's group holds both), never by a table device
whatever its payload's ``authorised_by`` says; what happens away from the table (the count
room's counts, the cage's steps, accounting's postings) is recorded by a person of that
place's group, never by a table device; the server's own types never go into a table's
stream, from anyone."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from audit.access.devices import device_ensure
from audit.models import Event
from audit.record.events import AUTHORITY, OFF_TABLE, SERVER_ONLY
from audit.store.errors import StoreError
from audit.store.streams import NewEvent, events_append
from tables import models as m
from tables.replay_service import replay_table
from tests.audit.test_api import _person, event, post
from tests.back_office.helpers import append, dealt, engine_findings, plant_short_pay
from tests.event_examples import EXAMPLES
from tests.groups import group_named

pytestmark = pytest.mark.django_db

T1 = "/api/streams/T1/events"


@pytest.fixture
def short_paid(settings) -> dict[str, Any]:
    """T1: eight hoyle rounds, one win short-paid, replayed: one wrong_payout finding."""
    settings.PROJECT_ON_APPEND = False
    events = dealt("hoyle", rounds=8)
    fault = plant_short_pay(events)
    append("T1", events)
    replay_table(stream="T1")
    assert engine_findings().filter(kind="wrong_payout", superseded_by__isnull=True).count() == 1
    return fault


def _correction(fault: dict[str, Any], net: int, actor: str = "device:device-T1") -> dict[str, Any]:
    return event(
        "correction.recorded",
        {
            "round": fault["round"],
            "corrects": None,
            "settlements": [{"bet": fault["bet"], "outcome": fault["outcome"], "net": net}],
            "reason": "corrected",
            "authorised_by": "PB-1",
        },
        actor=actor,
    )


def _device() -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {device_ensure(stream='T1').token}")
    return client


def _pit_boss(name: str = "pb") -> APIClient:
    return _member("pit_boss", name)


def _member(group: str, name: str | None = None) -> APIClient:
    """A person of ``group`` (a staff member), logged in."""
    user = get_user_model().objects.create_user(name or f"m-{group}", is_staff=True)
    user.groups.add(group_named(group))
    client = APIClient()
    client.force_login(user)
    return client


def _bet(fault: dict[str, Any]) -> m.Bet:
    return m.Bet.objects.get(
        round__table__stream="T1", round__number=fault["round"], bet=fault["bet"]
    )


@pytest.mark.parametrize("type_", sorted(AUTHORITY))
def test_a_device_records_no_money_changing_type_whatever_its_payload_names(type_: str) -> None:
    """403 naming the event's type, for each type the catalogue says changes money;
    nothing stored."""
    response = post(
        _device(),
        T1,
        {
            "expected_version": 0,
            "events": [event(type_, EXAMPLES[type_], actor="device:device-T1")],
        },
    )
    assert response.status_code == 403, response.content
    body = response.json()
    assert body["code"] == "not_authorised" and list(body["errors"]) == ["events[0].type"]
    assert "never records it" in body["detail"]
    assert not Event.objects.exists()


def test_a_devices_correction_leaves_the_settlement_and_its_finding(
    short_paid: dict[str, Any],
) -> None:
    """The probe's request - a device's correction with "authorised_by": "PB-1", net
    1,000,000 - is refused; the round's house result and its wrong_payout finding stand."""
    head = Event.objects.filter(stream="T1").count()
    response = post(
        _device(), T1, {"expected_version": head, "events": [_correction(short_paid, 1_000_000)]}
    )
    assert response.status_code == 403 and response.json()["code"] == "not_authorised"
    replay_table(stream="T1")
    assert _bet(short_paid).recorded_net == short_paid["wrong"]
    assert engine_findings().filter(kind="wrong_payout", superseded_by__isnull=True).count() == 1


def test_a_pit_bosss_correction_changes_the_settlement_and_clears_the_finding(
    short_paid: dict[str, Any],
) -> None:
    """The pit boss's group holds audit.correct_round: the same correction from a pit
    boss's login is stored under user:<name> and the next replay applies it."""
    head = Event.objects.filter(stream="T1").count()
    response = post(
        _pit_boss(),
        T1,
        {
            "expected_version": head,
            "events": [_correction(short_paid, short_paid["right"], actor="user:pb")],
        },
    )
    assert response.status_code == 201, response.content
    assert Event.objects.get(stream="T1", version=head + 1).principal == "user:pb"
    replay_table(stream="T1")
    bet = _bet(short_paid)
    assert (bet.recorded_net, bet.expected_net, bet.matches) == (
        short_paid["right"],
        short_paid["right"],
        True,
    )
    assert not engine_findings().filter(superseded_by__isnull=True).exists()


def test_a_pit_boss_records_only_corrections_and_voids() -> None:
    """The group's permissions are the money-changing types'; any other event needs
    audit.append_event (403 naming it)."""
    response = post(_pit_boss(), T1, {"expected_version": 0, "events": [event()]})
    assert response.status_code == 403 and list(response.json()["errors"]) == ["events[0].type"]


def test_a_person_who_may_append_but_not_correct_is_refused_a_correction() -> None:
    client = APIClient()
    client.force_login(_person("clerk", "append_event"))
    fault = {"round": 1, "bet": "b1", "outcome": "win"}
    response = post(
        client,
        T1,
        {"expected_version": 0, "events": [event(), _correction(fault, 100, actor="user:clerk")]},
    )
    assert response.status_code == 403
    assert list(response.json()["errors"]) == ["events[1].type"]
    assert "audit.correct_round" in response.json()["detail"]
    assert not Event.objects.exists()


@pytest.mark.parametrize("type_", sorted(SERVER_ONLY))
def test_no_one_puts_a_server_type_into_a_tables_stream(type_: str) -> None:
    """Not even a superuser: 400 naming the event's type; nothing stored."""
    root = get_user_model().objects.create_superuser("root", "root@example.com", "pw")
    client = APIClient()
    client.force_login(root)
    response = post(
        client, T1, {"expected_version": 0, "events": [event(), event(type_, EXAMPLES[type_])]}
    )
    assert response.status_code == 400, response.content
    assert list(response.json()["errors"]) == ["events[1].type"]
    assert "audit.* streams" in json.dumps(response.json())
    assert not Event.objects.exists()


def test_the_catalogue_flags_what_changes_money_and_what_is_the_servers() -> None:
    """The lists, read independently of the flags: the voids and the correction change
    money; the count room's count, the cage's three steps and accounting's posting happen
    away from the table (after docs/accounting.md's custody table: the count team counts,
    the cashier issues, receives and redeems, accounting posts); the findings', alerts',
    access log's, digests', store's, ledger's sign-off, slip book and exchange rate types
    are the server's."""
    assert AUTHORITY == {
        "correction.recorded": "audit.correct_round",
        "round.voided": "audit.correct_round",
        "fill.voided": "audit.void_slip",
        "credit.voided": "audit.void_slip",
    }
    assert OFF_TABLE == {
        "drop.counted": "audit.record_count",
        "fill.issued": "audit.record_cage",
        "credit.received": "audit.record_cage",
        "marker.redeemed": "audit.record_cage",
        "drop.posted": "audit.post_drop",
    }
    assert SERVER_ONLY == {
        "finding.acknowledged",
        "finding.resolved",
        "finding.reopened",
        "alert.acknowledged",
        "access.sealed",
        "access.purged",
        "digest.signed",
        "store.partition_detached",
        "ledger.signed_off",
        "ledger.reopened",
        "ledger.slip_book_issued",
        "fx.rate_set",
    }
    assert not AUTHORITY.keys() & SERVER_ONLY and not OFF_TABLE.keys() & (
        AUTHORITY.keys() | SERVER_ONLY
    )


def test_the_catalogue_page_lists_the_flags_as_the_registry_has_them() -> None:
    """docs/events.md's "Who may record what": the money-changing types with their
    permissions, and the server's own types, exactly the registry's."""
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "docs" / "events.md").read_text()
    section = text.split("## Who may record what", 1)[1].split("\n## ", 1)[0]
    money, away = section.split("**Types recorded away from the table**", 1)
    assert dict(re.findall(r"^\| `([a-z_.]+)` \| `([a-z_.]+)` \|$", money, re.MULTILINE)) == dict(
        AUTHORITY
    )
    assert dict(
        re.findall(r"^\| `([a-z_.]+)` \| `([a-z_.]+)` \| [a-z_]+ \|$", away, re.MULTILINE)
    ) == dict(OFF_TABLE)
    listed = section.split("**Types only the back-office's services write**", 1)[1].split(
        "\n\n", 1
    )[0]
    assert set(re.findall(r"`([a-z_]+\.[a-z_]+)`", listed)) == SERVER_ONLY


@pytest.mark.parametrize("type_", sorted(OFF_TABLE))
def test_a_device_records_nothing_of_the_count_room_the_cage_or_accounting(type_: str) -> None:
    """A table device speaks for its own table: a drop count, a cage's step, a posting
    from its token is 403 naming the event's type and who records it; nothing stored."""
    response = post(
        _device(),
        T1,
        {
            "expected_version": 0,
            "events": [event(type_, EXAMPLES[type_], actor="device:device-T1")],
        },
    )
    assert response.status_code == 403, response.content
    body = response.json()
    assert body["code"] == "not_authorised" and list(body["errors"]) == ["events[0].type"]
    assert "not at a table: a table device never records it" in body["detail"]
    assert OFF_TABLE[type_] in body["detail"]
    assert not Event.objects.exists()


@pytest.mark.parametrize("type_", sorted(OFF_TABLE))
def test_the_store_refuses_them_under_a_devices_principal_from_any_caller(type_: str) -> None:
    """Past the API too (a caller of the store that passes a device's principal):
    refused, nothing stored; under the server's or a person's principal, stored."""

    def one() -> NewEvent:
        return NewEvent(
            id=uuid.uuid4(),
            type=type_,
            payload=EXAMPLES[type_],
            occurred_at=datetime(2026, 11, 30, 8, tzinfo=UTC),
            actor="user:x",
            source="s",
        )

    with pytest.raises(
        StoreError, match="not at a table: the table device device-T1 never records it"
    ):
        events_append(stream="T1", expected_version=0, events=[one()], principal="device:device-T1")
    assert not Event.objects.exists()
    events_append(stream="T1", expected_version=0, events=[one()], principal="user:counter")
    assert Event.objects.get().principal == "user:counter"


@pytest.mark.parametrize(
    ("group", "own", "other"),
    [
        ("count_team", "drop.counted", "drop.posted"),
        ("cage", "fill.issued", "drop.counted"),
        ("cage", "credit.received", "round.started"),
        ("cage", "marker.redeemed", "correction.recorded"),
        ("accounting", "drop.posted", "drop.counted"),
        ("pit_boss", "correction.recorded", "drop.counted"),
    ],
)
def test_each_place_records_its_own_events_and_no_others(group: str, own: str, other: str) -> None:
    """The count team its counts, the cage its steps, accounting its postings, each
    stored under the person's principal; another place's type (or the table's) is 403
    naming what it needs - so no one both counts a drop and posts it."""
    client = _member(group)
    payload = (
        EXAMPLES[own]
        if own != "correction.recorded"
        else {"round": 1, "corrects": None, "settlements": [], "reason": "r", "authorised_by": "pb"}
    )
    response = post(client, T1, {"expected_version": 0, "events": [event(own, payload)]})
    assert response.status_code == 201, response.content
    assert Event.objects.get().principal == f"user:m-{group}"
    response = post(
        client, T1, {"expected_version": 1, "events": [event(other, EXAMPLES.get(other))]}
    )
    assert response.status_code == 403, response.content
    assert list(response.json()["errors"]) == ["events[0].type"]
    assert Event.objects.count() == 1
