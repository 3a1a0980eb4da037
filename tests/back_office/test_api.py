"""Rounds and findings over REST, and who may do what: pit bosses handle findings,
other staff only read them, devices read neither; a status change is an event in the
store saying who, when and why."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from rest_framework.test import APIClient

from audit.access.devices import device_ensure
from audit.findings.workflow import FINDINGS_STREAM
from audit.models import Event, Finding
from tables.replay_service import replay_table

from .helpers import DAY, append, append_correction, dealt, plant_short_pay

pytestmark = pytest.mark.django_db


@pytest.fixture
def fault(settings):
    settings.PROJECT_ON_APPEND = False
    events = dealt("hoyle", rounds=25, table="T1")
    where = plant_short_pay(events)
    append("T1", events)
    replay_table(stream="T1")
    return where


def _client(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


@pytest.fixture
def pit_boss() -> APIClient:
    user = get_user_model().objects.create_user("alice", is_staff=True)
    user.groups.add(Group.objects.get(name="pit_boss"))
    return _client(user)


@pytest.fixture
def staff() -> APIClient:
    return _client(get_user_model().objects.create_user("carol", is_staff=True))


@pytest.fixture
def device() -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {device_ensure(stream='T1').token}")
    return client


def test_findings_list_filters_and_paginates(fault, pit_boss):
    body = pit_boss.get(
        "/api/findings",
        {"table": "T1", "day": DAY.isoformat(), "severity": "high", "status": "open"},
    ).json()
    assert body["count"] == 1
    found = body["results"][0]
    assert (found["kind"], found["round"], found["bet"], found["table"]) == (
        "wrong_payout",
        fault["round"],
        fault["bet"],
        "T1",
    )
    assert found["round_url"].endswith(f"/api/rounds/T1/{DAY.isoformat()}/{fault['round']}")
    assert pit_boss.get("/api/findings", {"kind": "misdeal"}).json()["count"] == 0
    assert pit_boss.get("/api/findings", {"status": "resolved"}).json()["count"] == 0
    assert pit_boss.get("/api/findings", {"page_size": 1}).json()["next"] is None
    bad = pit_boss.get("/api/findings", {"severity": "dire", "colour": "red"})
    assert bad.status_code == 400 and bad.json()["code"] == "invalid_request"
    assert set(bad.json()["errors"]) == {"colour"} or "severity" in bad.json()["errors"]


def test_rounds_list_and_one_round_in_full(fault, pit_boss):
    listed = pit_boss.get(
        "/api/rounds", {"table": "T1", "day": DAY.isoformat(), "with_findings": "true"}
    ).json()
    assert [r["number"] for r in listed["results"]] == [fault["round"]]
    assert listed["results"][0]["findings"] == 1 and listed["results"][0]["mismatched_bets"] == 1
    assert pit_boss.get("/api/rounds", {"with_findings": "false"}).json()["count"] == 24
    detail = pit_boss.get(listed["results"][0]["url"])
    assert detail.status_code == 200
    round_ = detail.json()
    assert round_["chain_ok"] is True and all(e["chain_ok"] for e in round_["events"])
    types = [e["type"] for e in round_["events"]]
    assert types[0] == "round.started" and types[-1] == "round.settled"
    assert [e["version"] for e in round_["events"]] == sorted(
        e["version"] for e in round_["events"]
    )
    assert round_["dealer"]["cards"][0]["face"] == "up" and len(round_["dealer"]["cards"]) >= 2
    assert round_["hands"] and all(c["card"] for h in round_["hands"] for c in h["cards"])
    bet = next(b for b in round_["bets"] if b["bet"] == fault["bet"])
    assert (bet["recorded_net"], bet["expected_net"], bet["matches"]) == (
        fault["wrong"],
        fault["right"],
        False,
    )
    assert [f["kind"] for f in round_["round_findings"]] == ["wrong_payout"]
    assert (
        round_["previous"]["number"] == fault["round"] - 1
        and round_["next"]["number"] == fault["round"] + 1
    )
    assert round_["shoe_detail"]["shoe"] == round_["shoe"]
    # the house's result, + when the house won: the players' nets negated, in the table's currency
    assert round_["currency"] == "EUR"
    assert (round_["house_result"], round_["house_result_recomputed"]) == (
        -round_["recorded_net"],
        -round_["expected_net"],
    )
    assert round_["house_result"] == round_["house_result_recomputed"] + (
        fault["right"] - fault["wrong"]
    )
    missing = pit_boss.get(f"/api/rounds/T1/{DAY.isoformat()}/999")
    assert missing.status_code == 404 and missing.json()["code"] == "not_found"


def test_a_pit_boss_acknowledges_and_resolves_and_each_change_is_an_event(fault, pit_boss):
    finding = Finding.objects.get()
    acked = pit_boss.post(
        f"/api/findings/{finding.pk}/acknowledge", {"note": "asking the dealer"}, format="json"
    )
    assert acked.status_code == 200 and acked.json()["status"] == "acknowledged"
    again = pit_boss.post(f"/api/findings/{finding.pk}/acknowledge", {}, format="json")
    assert again.status_code == 409 and again.json()["code"] == "finding_status"
    no_note = pit_boss.post(f"/api/findings/{finding.pk}/resolve", {"note": " "}, format="json")
    assert no_note.status_code == 400 and no_note.json()["code"] == "note_required"
    resolved = pit_boss.post(
        f"/api/findings/{finding.pk}/resolve", {"note": "refunded 1, slip R-9"}, format="json"
    )
    assert resolved.status_code == 200
    finding.refresh_from_db()
    assert (finding.status, finding.note, finding.status_changed_by) == (
        "resolved",
        "refunded 1, slip R-9",
        "alice",
    )
    events = list(Event.objects.filter(stream=FINDINGS_STREAM).order_by("version"))
    assert [e.type for e in events] == ["finding.acknowledged", "finding.resolved"]
    assert all(
        e.actor == "user:alice" and e.payload["finding"] == finding.fingerprint for e in events
    )
    assert [e.payload["note"] for e in events] == ["asking the dealer", "refunded 1, slip R-9"]
    assert [e.payload["previous"] for e in events] == ["open", "acknowledged"]
    assert finding.status_event_version == events[-1].version
    reopened = pit_boss.post(
        f"/api/findings/{finding.pk}/reopen", {"note": "slip never booked"}, format="json"
    )
    assert reopened.json()["status"] == "open"
    # a status change does not survive as a duplicate: replay keeps the one row and its status
    append_correction("T1", fault)
    replay_table(stream="T1")
    finding.refresh_from_db()
    assert (
        finding.status == "open"
        and finding.superseded_by is not None
        and Finding.objects.count() == 1
    )
    assert pit_boss.get("/api/findings").json()["count"] == 0
    superseded = pit_boss.get("/api/findings", {"superseded": "true"}).json()["results"]
    assert [f["id"] for f in superseded] == [finding.pk] and superseded[0][
        "superseded_by"
    ] is not None


def test_other_staff_read_findings_but_may_not_change_them(fault, staff):
    finding = Finding.objects.get()
    assert staff.get("/api/findings").status_code == 200
    assert staff.get(f"/api/findings/{finding.pk}").status_code == 200
    assert staff.get("/api/rounds").status_code == 200
    refused = staff.post(f"/api/findings/{finding.pk}/acknowledge", {"note": "mine"}, format="json")
    assert refused.status_code == 403 and "audit.change_finding" in refused.json()["detail"]
    finding.refresh_from_db()
    assert finding.status == "open" and not Event.objects.filter(stream=FINDINGS_STREAM).exists()


def test_devices_and_people_without_permissions_read_nothing(fault, device):
    assert device.get("/api/findings").status_code == 403
    assert device.get("/api/rounds").status_code == 403
    nobody = _client(get_user_model().objects.create_user("dave"))
    assert nobody.get("/api/findings").status_code == 403
    assert nobody.get("/api/rounds").status_code == 403
    assert APIClient().get("/api/findings").status_code == 401


def test_pit_boss_group_may_change_findings_in_the_admin_other_staff_may_not(fault):
    from django.contrib.admin.sites import site

    pit = get_user_model().objects.create_user("erin", is_staff=True)
    pit.groups.add(Group.objects.get(name="pit_boss"))
    other = get_user_model().objects.create_user("frank", is_staff=True)
    assert pit.has_perm("audit.change_finding") and pit.has_perm("tables.view_round")
    assert not other.has_perm("audit.change_finding")
    assert Finding in site._registry


def test_bulk_acknowledge_goes_through_for_each_it_may_and_says_why_not_for_the_others(fault):
    from audit.findings.workflow import finding_acknowledge, findings_acknowledge_bulk
    from tables.selectors import table_days

    pit = get_user_model().objects.create_user("gina", is_staff=True)
    pit.groups.add(Group.objects.get(name="pit_boss"))
    finding = Finding.objects.get()
    (day,) = table_days(table="T1")
    assert (day.rounds, day.findings, day.open_findings) == (25, 1, 1)
    finding_acknowledge(finding_id=finding.pk, user=pit, note="first")
    done, refused = findings_acknowledge_bulk(
        finding_ids=[finding.pk, 999999], user=pit, note="bulk"
    )
    assert done == [] and [r[0] for r in refused] == [finding.pk, 999999]
    assert "acknowledged" in refused[0][1]
    (day,) = table_days(table="T1", day=DAY)
    assert (day.findings, day.open_findings) == (1, 0)
    assert Event.objects.filter(stream=FINDINGS_STREAM).count() == 1
