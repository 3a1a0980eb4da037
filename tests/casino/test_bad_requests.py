"""Requests that once answered 5xx, or that the API read too kindly, are refused as bad
input - JSON under /api/ naming what is wrong - and a refused read is still in the
access log. Run on SQLite and PostgreSQL (which cannot hold a NUL byte in text)."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from audit.models import AccessRecord
from tests.groups import group_named

pytestmark = pytest.mark.django_db

LISTS = (
    "/api/findings",
    "/api/rounds",
    "/api/ledger/reconciliations",
    "/api/ledger/slips",
    "/api/packages",
    "/api/events",
)


@pytest.fixture
def compliance() -> Client:
    """A compliance officer (reads every list, the packages' too), logged in."""
    person = get_user_model().objects.create_user("officer", is_staff=True)
    person.groups.add(group_named("compliance"))
    client = Client(raise_request_exception=False)
    client.force_login(person)
    return client


@pytest.mark.parametrize("who", ["anonymous", "person"])
@pytest.mark.parametrize(
    ("path", "where"),
    [
        ("/api/%00", "path"),
        ("/admin/%00", "path"),
        ("/api/events%00x", "path"),
        ("/api/streams/T1%00/events", "path"),
        ("/admin/audit/finding/%00/change/", "path"),
        ("/api/findings?table=%00", "query"),
        ("/admin/audit/finding/?q=a%00b", "query"),
    ],
)
def test_a_nul_byte_is_a_400_and_is_logged(
    compliance: Client, who: str, path: str, where: str
) -> None:
    client = Client(raise_request_exception=False) if who == "anonymous" else compliance
    response = client.get(path)
    assert response.status_code == 400
    if path.startswith("/api/"):
        body = response.json()
        assert body["code"] == "bad_request" and list(body["errors"]) == [where]
        assert "NUL byte" in body["detail"]
    else:
        assert response["Content-Type"].startswith("text/html")
    row = AccessRecord.objects.get()
    assert row.status == 400 and row.principal == (
        "anonymous" if who == "anonymous" else "user:officer"
    )
    logged = row.path if where == "path" else row.query
    assert "\x00" not in logged and ("\\x00" in logged or "%00" in logged)


@pytest.mark.parametrize(
    "path",
    [
        "/api/%ff%fe",
        "/admin/%ed%a0%80/",
        "/api/" + "a" * 3000,
        "/api/..%2f..%2fetc",
        "/api/streams/%0a/events",
        "/api/findings/99999999999999999999999",
    ],
)
def test_odd_paths_are_a_4xx_and_logged(compliance: Client, path: str) -> None:
    response = compliance.get(path)
    assert response.status_code in (400, 404), response.content
    if path.startswith("/api/"):
        assert response.json()["code"] in ("bad_request", "not_found")
    assert AccessRecord.objects.get().status == response.status_code


@pytest.mark.parametrize("path", LISTS)
def test_a_client_asking_for_html_gets_json(compliance: Client, path: str) -> None:
    """No browsable HTML API: an Accept the list cannot meet gets its JSON."""
    response = compliance.get(path, HTTP_ACCEPT="text/html")
    assert response.status_code == 200, response.content
    assert response["Content-Type"] == "application/json"
    assert "results" in response.json() or isinstance(response.json(), dict)


def test_a_format_the_operation_has_not_is_a_400_naming_it(compliance: Client) -> None:
    response = compliance.get("/api/ledger/reconciliations?format=yaml")
    assert response.status_code == 400
    assert response.json()["errors"] == {"format": ["One of: csv, json."]}
    assert compliance.get("/api/ledger/reconciliations?format=csv")["Content-Type"].startswith(
        "text/csv"
    )


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("page=0", "page"),
        ("page=-3", "page"),
        ("page=abc", "page"),
        ("page_size=0", "page_size"),
        ("page_size=1.5", "page_size"),
        ("page_size=%E2%91%A0", "page_size"),
    ],
)
def test_a_page_or_page_size_not_a_whole_number_from_one_is_a_400(
    compliance: Client, query: str, field: str
) -> None:
    response = compliance.get(f"/api/findings?{query}")
    assert response.status_code == 400
    assert response.json()["errors"] == {field: ["A whole number from 1."]}


def test_a_page_size_over_the_most_is_the_most(compliance: Client, settings) -> None:
    settings.BACK_OFFICE_PAGE_MAX = 7
    assert compliance.get("/api/findings?page_size=100000").status_code == 200


@pytest.mark.parametrize(
    ("path", "field"),
    [
        ("/api/findings?day=9999-12-31", "day"),
        ("/api/findings?day=0001-01-01", "day"),
        ("/api/findings?day=1899-12-31", "day"),
        ("/api/ledger/reports/hold?from=2026-01-01&to=9999-12-31", "to"),
        ("/api/ledger/reports/daily?from=0001-01-01&to=2026-01-01", "from"),
        ("/api/ledger/slips?day=9999-01-01", "day"),
    ],
)
def test_a_day_outside_the_records_years_is_a_400_naming_the_field(
    compliance: Client, path: str, field: str
) -> None:
    response = compliance.get(path)
    assert response.status_code == 400, response.content
    assert list(response.json()["errors"]) == [field]
    assert "1900-01-01 to 9998-12-31" in response.json()["errors"][field][0]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"day": "2026-11-29", "to": "9999-12-31"}, "to"),
        ({"day": "9999-12-31"}, "day"),
        ({"day": "0001-01-01", "to": "2026-11-29"}, "day"),
    ],
)
def test_a_package_asked_for_days_out_of_range_is_a_400_naming_the_field(
    compliance: Client, body: dict[str, str], field: str
) -> None:
    response = compliance.post("/api/packages", body, content_type="application/json")
    assert response.status_code == 400, response.content
    assert list(response.json()["errors"]) == [field]


def test_the_last_day_the_record_holds_is_a_day_like_any_other(
    compliance: Client, settings, tmp_path
) -> None:
    """9998-12-31: asked, and answered for what the record holds there (no table open:
    404), never a 5xx."""
    settings.PACKAGE_DIR = str(tmp_path)
    assert compliance.get("/api/findings?day=9998-12-31").status_code == 200
    response = compliance.post(
        "/api/packages", {"day": "9998-12-30", "to": "9998-12-31"}, content_type="application/json"
    )
    assert response.status_code == 404, response.content
    assert (
        response.json()["code"] == "not_found" and "no table" in response.json()["detail"].lower()
    )


def test_a_body_that_is_not_json_is_a_400_naming_the_body(compliance: Client) -> None:
    response = compliance.post("/api/packages", b"\x00", content_type="application/json")
    assert response.status_code == 400
    assert response.json()["code"] == "parse_error" and list(response.json()["errors"]) == ["body"]
