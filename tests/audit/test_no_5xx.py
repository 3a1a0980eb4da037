"""Inputs that once answered 500 (or crashed a command) are refused as bad input, naming
the field, and nothing is stored."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from rest_framework.test import APIClient

from audit.ingest import ingest_file
from audit.models import Event
from audit.record.jsonl import LineError, decode_fields
from tests.audit.test_api import T1, event, pit_boss, post  # noqa: F401 - the fixture

pytestmark = pytest.mark.django_db

OUT_OF_RANGE = ["9999-12-31T23:59:59-01:00", "0001-01-01T00:00:00+01:00", "1899-12-31T23:59:59Z"]


@pytest.mark.parametrize("moment", OUT_OF_RANGE)
def test_a_timestamp_out_of_range_is_a_400_naming_the_field(pit_boss: APIClient, moment: str) -> None:
    """A time that cannot be moved to UTC, or lies outside the years the record holds."""
    response = post(pit_boss, T1, {"expected_version": 0, "events": [event(occurred_at=moment)]})
    assert response.status_code == 400, response.content
    body = response.json()
    assert list(body["errors"]) == ["events[0].occurred_at"]
    assert "supported range" in body["errors"]["events[0].occurred_at"][0]
    assert Event.objects.count() == 0


@pytest.mark.parametrize("moment", OUT_OF_RANGE)
def test_a_timestamp_out_of_range_is_a_bad_line_for_ingest(tmp_path: Path, moment: str) -> None:
    """ingest reports the line and the field instead of a traceback."""
    path = tmp_path / "one.jsonl"
    path.write_text(json.dumps({**event(occurred_at=moment), "stream": "T1"}) + "\n")
    report = ingest_file(str(path))
    assert [str(bad) for bad in report.bad_lines] == [f"line 1: occurred_at: {moment_text(moment)}"]
    assert Event.objects.count() == 0


def moment_text(moment: str) -> str:
    from datetime import datetime

    return f"{datetime.fromisoformat(moment).isoformat()} is outside the supported range (years 1900 to 9998, UTC)"


def test_the_codec_names_the_field_of_a_timestamp_out_of_range() -> None:
    line = json.dumps({**event(occurred_at=OUT_OF_RANGE[0]), "stream": "T1"})
    with pytest.raises(LineError) as caught:
        decode_fields(line, 7)
    assert caught.value.line == 7 and caught.value.field == "occurred_at"
