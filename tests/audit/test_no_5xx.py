"""Inputs that once answered 500 (or crashed a command) are refused as bad input, naming
the field, and nothing is stored."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rest_framework.test import APIClient

from audit.models import Event
from audit.record.jsonl import LineError, decode_fields
from audit.store.ingest import ingest_file
from tests.audit.test_api import T1, event, post

pytestmark = pytest.mark.django_db

OUT_OF_RANGE = ["9999-12-31T23:59:59-01:00", "0001-01-01T00:00:00+01:00", "1899-12-31T23:59:59Z"]


@pytest.mark.parametrize("moment", OUT_OF_RANGE)
def test_a_timestamp_out_of_range_is_a_400_naming_the_field(
    pit_boss: APIClient, moment: str
) -> None:
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


def test_a_body_nested_too_deeply_is_a_400(pit_boss: APIClient) -> None:
    """A payload nested 5,000 deep: a parse error, not a RecursionError."""
    body = '{"expected_version": 0, "events": [' + "[" * 5000 + "]" * 5000 + "]}"
    response = pit_boss.post(T1, body, content_type="application/json")
    assert response.status_code == 400
    assert (
        response.json()["code"] == "parse_error"
        and "nested too deeply" in response.json()["detail"]
    )


def test_a_line_nested_too_deeply_is_a_bad_line_for_ingest(tmp_path: Path) -> None:
    path = tmp_path / "deep.jsonl"
    line = json.dumps({**event(), "stream": "T1"})
    path.write_text(
        line.replace('"payload": {', '"payload": {"deep": ' + "[" * 5000 + "]" * 5000 + ", ") + "\n"
    )
    report = ingest_file(str(path))
    assert len(report.bad_lines) == 1 and "nested too deeply" in report.bad_lines[0].reason


@pytest.mark.parametrize("path", ["/api/nothing-here", "/api/streams/T1/nope", "/api/"])
def test_an_unknown_api_path_is_a_json_404(pit_boss: APIClient, path: str) -> None:
    response = pit_boss.get(path)
    assert response.status_code == 404
    assert response["Content-Type"] == "application/json"
    assert response.json()["code"] == "not_found"


def test_a_method_the_endpoint_does_not_take_is_a_json_405(pit_boss: APIClient) -> None:
    response = pit_boss.delete(T1)
    assert response.status_code == 405 and response.json()["code"] == "method_not_allowed"


@pytest.mark.django_db(transaction=True)
def test_a_database_that_does_not_answer_is_a_json_503_with_retry_after() -> None:
    """The database gone (a server restarting): 503 JSON naming it, with Retry-After, for
    the API - never an HTML 500."""
    from django.db import connection

    from tests.audit.test_api import _person

    client = APIClient(raise_request_exception=False)  # answer as a server would, not re-raise
    client.force_login(_person("boss", "append_event", "view_event"))
    saved = dict(connection.settings_dict)
    connection.close()
    if connection.vendor == "postgresql":
        connection.settings_dict["PORT"] = "1"  # nothing listens there
    else:
        connection.settings_dict["NAME"] = str(tmp_dir() / "no-such-dir" / "db.sqlite3")
    try:
        response = client.get("/api/events")
    finally:
        connection.close()
        connection.settings_dict.clear()
        connection.settings_dict.update(saved)
    assert response.status_code == 503, response.content
    assert response.json()["code"] == "database_unavailable"
    assert response["Retry-After"] == "5"


def tmp_dir() -> Path:
    import tempfile

    return Path(tempfile.mkdtemp())


def test_the_schema_and_docs_need_a_login_and_use_no_cdn(pit_boss: APIClient) -> None:
    """Anonymous: the schema is a JSON 401, the docs page sends to the login. Logged in:
    both answer, and the page loads Swagger from this server, not a CDN."""
    anonymous = APIClient()
    schema = anonymous.get("/api/schema/")
    assert (
        schema.status_code == 401
        and "json" in schema["Content-Type"]
        and schema.json()["code"] == "not_authenticated"
    )
    docs = anonymous.get("/api/docs/")
    assert docs.status_code == 302 and docs["Location"].startswith("/admin/login/")
    assert pit_boss.get("/api/schema/").status_code == 200
    page = pit_boss.get("/api/docs/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "cdn." not in html and "unpkg" not in html and "/static/drf_spectacular_sidecar/" in html
