"""Values no fold can take are refused at the door, naming the field: a gaming day that is
not a calendar date (the probe's drop.counted of 2026-02-31, which used to stop the
back-office's read models), or out of the years the record keeps; amounts beyond what a
column or a JSON reader holds. The API answers 400 and ingest names the line; nothing is
stored. Good values are stored and hashed as sent. (A drop count is the count team's to
record: a table device's is refused before its fields are read, test_authority.py.)"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from audit.access.devices import device_ensure
from audit.models import Event
from audit.record.chain import canonical_json
from audit.record.events import validate_payload
from tests.audit.test_api import event, post
from tests.commands import run_command
from tests.event_examples import EXAMPLES
from tests.groups import group_named

pytestmark = pytest.mark.django_db

T1 = "/api/streams/T1/events"


def _count_team() -> APIClient:
    """A member of the count team, who records the drop boxes' counts."""
    user = get_user_model().objects.create_user("counter")
    user.groups.add(group_named("count_team"))
    client = APIClient()
    client.force_login(user)
    return client


@pytest.mark.parametrize(
    ("day", "says"),
    [
        ("2026-02-31", "not a calendar date"),
        ("2026-04-31", "not a calendar date"),
        ("2027-02-29", "not a calendar date"),
        ("1899-12-31", "is outside 1900-01-01..9998-12-31"),
    ],
)
def test_the_api_refuses_a_gaming_day_that_is_no_calendar_day(day: str, says: str) -> None:
    """The probe's drop count: 400 naming events[0].payload.gaming_day; nothing stored."""
    counted = {**EXAMPLES["drop.counted"], "gaming_day": day}
    response = post(
        _count_team(), T1, {"expected_version": 0, "events": [event("drop.counted", counted)]}
    )
    assert response.status_code == 400, response.content
    errors = response.json()["errors"]
    assert (
        list(errors) == ["events[0].payload.gaming_day"]
        and says in errors["events[0].payload.gaming_day"][0]
    )
    assert not Event.objects.exists()


def test_a_devices_opening_of_no_calendar_day_is_refused() -> None:
    """A table device's own event - its table opening on 2026-02-31 - is 400 naming the
    field, before anything is stored."""
    device = APIClient()
    device.credentials(HTTP_AUTHORIZATION=f"Token {device_ensure(stream='T1').token}")
    opened = {**EXAMPLES["table.opened"], "table": "T1", "gaming_day": "2026-02-31"}
    response = post(device, T1, {"expected_version": 0, "events": [event("table.opened", opened)]})
    assert response.status_code == 400, response.content
    assert list(response.json()["errors"]) == ["events[0].payload.gaming_day"]
    assert not Event.objects.exists()


def test_a_leap_day_is_a_gaming_day_stored_and_hashed_as_sent() -> None:
    """2028-02-29 exists: stored, its payload's text what was sent (the date read as a
    date and written back as the same text)."""
    counted = {**EXAMPLES["drop.counted"], "gaming_day": "2028-02-29"}
    response = post(
        _count_team(), T1, {"expected_version": 0, "events": [event("drop.counted", counted)]}
    )
    assert response.status_code == 201, response.content
    stored = Event.objects.get()
    assert stored.payload["gaming_day"] == "2028-02-29"
    assert canonical_json(validate_payload("drop.counted", None, counted)[1]) == canonical_json(
        counted
    )


def test_ingest_names_the_line_of_a_day_that_is_no_calendar_day(tmp_path: Path) -> None:
    good = {
        "id": "00000000-0000-4000-8000-000000000001",
        "stream": "T1",
        "type": "drop.counted",
        "occurred_at": "2026-11-30T08:00:00Z",
        "actor": "user:CR-1",
        "source": "count-room",
        "payload": EXAMPLES["drop.counted"],
    }
    bad = {
        **good,
        "id": "00000000-0000-4000-8000-000000000002",
        "stream": "T2",
        "payload": {**EXAMPLES["drop.counted"], "gaming_day": "2026-02-31"},
    }
    path = tmp_path / "drops.jsonl"
    path.write_text(json.dumps(good) + "\n" + json.dumps(bad) + "\n")
    code, _, err = run_command("ingest", str(path))
    assert code == 1
    assert f"{path}:2: payload.gaming_day: not a calendar date" in err
    assert list(Event.objects.values_list("stream", flat=True)) == ["T1"]
