"""Who may do what: every role against every API operation and every admin page, from
one declared table (docs/security.md has the same table in words).

The roles: anonymous, a table device (its token; its own table is BJ-01), the groups
pit_boss, accounting, compliance and regulator (staff members, not superusers), the
groups count_team and cage (people who record through the API only, not staff), and a
superuser. The API's operations come from the live OpenAPI schema, and the schema is
checked against the URL resolver, so a new endpoint fails this test until it is
declared below; the admin's pages are every registered model's list and one object's
page, plus the custom views. Expected: an allowed read answers 200, an allowed write
anything but 401/403 and never 5xx (its body is refused or acted on); a refused
request answers 401 (anonymous, API), a redirect to the login (not staff, admin) or 403.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, date, datetime
from typing import Any

import pytest
from django.apps import apps
from django.contrib import admin
from django.contrib.admin.utils import quote
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from drf_spectacular.generators import SchemaGenerator
from rest_framework.test import APIClient

from audit.access.devices import device_ensure
from audit.feed.subscribers import catch_up_all
from audit.models import Finding
from ledger import game
from ledger.feed import CACHE
from ledger.signoff import day_sign_off
from ledger.slip_books import slip_book_issue
from regulator.models import PackageRequest
from tables.models import Alert, Round
from tests.back_office.helpers import append, dealt, plant_short_pay
from tests.groups import group_named
from tests.ledger.conftest import FakeGame
from tests.ledger.helpers import DAY, worked_example

pytestmark = pytest.mark.django_db

ANON, DEVICE, PIT, ACCT, COMP, REG, COUNT, CAGE, SUPER = (
    "anonymous",
    "device",
    "pit_boss",
    "accounting",
    "compliance",
    "regulator",
    "count_team",
    "cage",
    "superuser",
)
ROLES = (ANON, DEVICE, PIT, ACCT, COMP, REG, COUNT, CAGE, SUPER)
STAFF = frozenset({PIT, ACCT, COMP, REG, SUPER})
# people who record through the API only (the count room's, the cage's terminals): not staff
API_ONLY = frozenset({COUNT, CAGE})
ROUNDS = frozenset({PIT, COMP, REG, SUPER})  # the game: rounds, shoes, replay
BOOKS = frozenset({ACCT, COMP, REG, SUPER})  # the ledger's reads
FINDING_WORKERS = frozenset({PIT, ACCT, COMP, SUPER})
PACKAGERS = frozenset({COMP, REG, SUPER})  # the regulator's package: ask, see, download

# --- the one table: who may ----------------------------------------------------------------

API: dict[tuple[str, str], frozenset[str]] = {
    ("GET", "/api/streams/{stream}/events"): STAFF | {DEVICE},
    # a device its own table's; a pit boss corrections and voids, the count team its counts,
    # the cage its steps, accounting its postings (which types: checked with the batch)
    ("POST", "/api/streams/{stream}/events"): frozenset({DEVICE, PIT, ACCT, COUNT, CAGE, SUPER}),
    ("GET", "/api/events"): STAFF,
    ("GET", "/api/findings"): STAFF,
    ("GET", "/api/findings/{id}"): STAFF,
    ("POST", "/api/findings/{id}/acknowledge"): FINDING_WORKERS,
    ("POST", "/api/findings/{id}/resolve"): FINDING_WORKERS,
    ("POST", "/api/findings/{id}/reopen"): FINDING_WORKERS,
    ("GET", "/api/rounds"): STAFF,
    ("GET", "/api/rounds/{table}/{day}/{number}"): STAFF,
    ("GET", "/api/analytics/counters"): STAFF,
    ("GET", "/api/analytics/accuracy"): STAFF,
    ("GET", "/api/analytics/strategy-errors"): STAFF,
    ("GET", "/api/analytics/dealers"): STAFF,
    ("GET", "/api/analytics/what-if"): STAFF,
    ("GET", "/api/ledger/reconciliations"): BOOKS,
    ("GET", "/api/ledger/reconciliations/{table}/{day}"): BOOKS,
    ("POST", "/api/ledger/reconciliations/{table}/{day}/sign-off"): frozenset({ACCT, SUPER}),
    ("POST", "/api/ledger/reconciliations/{table}/{day}/reopen"): frozenset({ACCT, SUPER}),
    ("GET", "/api/ledger/slips"): BOOKS,
    ("GET", "/api/ledger/reports/statistics"): BOOKS,
    ("GET", "/api/ledger/reports/hold"): BOOKS,
    ("GET", "/api/ledger/reports/daily"): BOOKS,
    ("GET", "/api/ledger/reports/drop"): BOOKS,
    ("GET", "/api/ledger/reports/master-game"): BOOKS,
    ("GET", "/api/ledger/reports/marker-aging"): BOOKS,
    ("GET", "/api/ledger/reports/markers"): BOOKS,
    ("GET", "/api/ledger/reports/chips-outstanding"): BOOKS,
    ("GET", "/api/ledger/general-ledger/journal"): BOOKS,
    ("GET", "/api/ledger/general-ledger/trial-balance"): BOOKS,
    ("POST", "/api/ledger/slip-books"): frozenset({ACCT, SUPER}),
    ("GET", "/api/ledger/reports/slip-books"): BOOKS,
    ("GET", "/api/ledger/reports/slip-sequence"): BOOKS,
    ("GET", "/api/ledger/fx-rates"): BOOKS,
    ("POST", "/api/ledger/fx-rates"): frozenset({ACCT, SUPER}),
    # the regulator's package (regulator.package_api)
    ("GET", "/api/packages"): PACKAGERS,
    ("POST", "/api/packages"): PACKAGERS,
    ("GET", "/api/packages/{package}"): PACKAGERS,
    ("GET", "/api/packages/{package}/download"): PACKAGERS,
    # game recall (regulator.recall_views): as the round's own endpoint
    ("GET", "/api/rounds/{table}/{day}/{number}/recall.html"): STAFF,
    ("GET", "/api/rounds/{table}/{day}/{number}/recall.pdf"): STAFF,
}

# registered models: who may see the list and an object's page
ADMIN_MODELS: dict[str, frozenset[str]] = {
    "auth.Group": frozenset({SUPER}),
    "auth.User": frozenset({SUPER}),
    "axes.AccessAttempt": frozenset({COMP, SUPER}),
    "axes.AccessLog": frozenset({COMP, SUPER}),
    "axes.AccessFailureLog": frozenset({COMP, SUPER}),
    "audit.Event": STAFF,
    "audit.DeviceAccount": frozenset({COMP, SUPER}),
    "audit.ApiToken": frozenset({COMP, SUPER}),
    "audit.SubscriberPosition": frozenset({SUPER}),
    "audit.ReplayRun": ROUNDS,
    "audit.Finding": STAFF,
    "audit.AccessRecord": frozenset({COMP, REG, SUPER}),
    "tables.Table": ROUNDS,
    "tables.TableDay": ROUNDS,
    "tables.Shoe": ROUNDS,
    "tables.Round": ROUNDS,
    "tables.Alert": frozenset({PIT, COMP, SUPER}),
    "ledger.Reconciliation": BOOKS,
    "ledger.LedgerTable": BOOKS,
    "ledger.Slip": BOOKS,
    "ledger.InventorySlip": BOOKS,
    "ledger.DropBox": BOOKS,
    "ledger.Marker": BOOKS,
    "ledger.SignOff": BOOKS,
    "ledger.SlipBook": BOOKS,
    "casino.PackageRequest": PACKAGERS,
}

# the custom admin views, by URL name (their arguments filled from the data below)
ADMIN_VIEWS: dict[tuple[str, str], frozenset[str]] = {
    ("GET", "floor"): STAFF,
    ("GET", "floor-apps"): STAFF,
    ("GET", "floor-figures"): STAFF,
    ("POST", "floor-acknowledge"): frozenset({PIT, SUPER}),
    ("POST", "admin:audit_finding_status"): FINDING_WORKERS,
    ("GET", "admin:tables_table_key"): ROUNDS,
    ("GET", "admin:tables_tableday_key"): ROUNDS,
    ("GET", "admin:tables_shoe_key"): ROUNDS,
    ("GET", "admin:tables_round_key"): ROUNDS,
    ("GET", "admin:ledger_reconciliation_key"): BOOKS,
    ("GET", "admin:ledger_reports"): BOOKS,
    ("GET", "admin:ledger_report_csv"): BOOKS,
    ("GET", "admin:ledger_accounting"): BOOKS,
    ("GET", "admin:ledger_accounting_csv"): BOOKS,
    ("POST", "admin:ledger_slip_book_record"): frozenset({ACCT, SUPER}),
    ("GET", "admin:casino_packagerequest_download"): PACKAGERS,
    ("GET", "round-recall"): ROUNDS,
    ("GET", "round-recall-pdf"): ROUNDS,
    # issuing an API token (its text shown once): a superuser's alone
    ("GET", "admin:audit_apitoken_add"): frozenset({SUPER}),
}

# pages for anyone logged in, device or person (the API's own description)
LOGGED_IN = frozenset(ROLES) - {ANON}
API_DOCS: dict[tuple[str, str], frozenset[str]] = {
    ("GET", "api-schema"): LOGGED_IN,
    ("GET", "api-docs"): LOGGED_IN,
}


# --- the data every page needs an object of -------------------------------------------------


@pytest.fixture
def floor_and_books(settings, tmp_path) -> Iterator[dict[str, str]]:
    """A table of the rules engine's (T1, a short pay planted: a finding and an alert),
    the books' worked example (BJ-01: slips, counts, a drop), one day signed off, a device
    of BJ-01, a failed and a good admin login (the login attempts' screens)."""
    settings.PROJECT_ON_APPEND = False
    before = game.provider()
    fake = FakeGame()
    game.register(fake)
    CACHE.clear()
    try:
        books = worked_example()
        books.open("2026-11-30")
        books.marker("M-1", 50_000)
        fake.record(books.code, books.events)
        append(books.code, books.events)
        rounds = dealt(rounds=8, table="T1")
        plant_short_pay(rounds)
        append("T1", rounds)
        catch_up_all()
        root = get_user_model().objects.create_superuser(
            "root", "root@example.com", "root-password-1"
        )
        day_sign_off(
            table=books.code, gaming_day=date.fromisoformat(DAY), user=root, note="the role matrix"
        )
        slip_book_issue(kind="fill", first="F-1", last="F-9", user=root)
        device_ensure(stream=books.code)
        # a good login, and someone else's wrong password (a success clears its name's)
        Client().post("/admin/login/", {"username": "root", "password": "root-password-1"})
        Client(REMOTE_ADDR="192.0.2.66").post(
            "/admin/login/", {"username": "mallory", "password": "guess"}
        )
        round_ = Round.objects.select_related("table", "shoe").filter(table__stream="T1").first()
        settings.PACKAGE_DIR = str(tmp_path)
        (tmp_path / "package-1.zip").write_bytes(
            b"PK\x05\x06" + bytes(18)
        )  # an empty zip: served, not read
        package = PackageRequest.objects.create(
            requested_by="user:root",
            requested_at=datetime.now(UTC),
            via="api",
            day_from=DAY,
            day_to=DAY,
            status="ready",
            file="package-1.zip",
            keep_until=DAY,
        )
        yield {
            "package": str(package.pk),
            "stream": books.code,
            "table": books.code,
            "day": DAY,
            "finding": str(Finding.objects.first().pk),
            "alert": str(Alert.objects.first().pk),
            "round_table": round_.table.stream,
            "round_day": round_.gaming_day.isoformat(),
            "round_number": str(round_.number),
            "shoe_version": str(round_.shoe.shuffled_version),
        }
    finally:
        game.register(before)
        CACHE.clear()


def _clients(role: str, token: str) -> tuple[Any, Client]:
    """The role's API client and admin client."""
    if role == ANON:
        return APIClient(), Client()
    if role == DEVICE:
        api = APIClient()
        api.credentials(HTTP_AUTHORIZATION=f"Token {token}")
        page = Client()
        page.force_login(get_user_model().objects.get(username="device-BJ-01"))
        return api, page
    users = get_user_model().objects
    user = (
        users.get(username="root")
        if role == SUPER
        else users.create_user(f"m-{role}", is_staff=role not in API_ONLY)
    )
    if role != SUPER:
        user.groups.add(group_named(role))
    api, page = APIClient(), Client()
    api.force_login(user)
    page.force_login(user)
    return api, page


def _fill(path: str, data: dict[str, str]) -> str:
    values = {"stream": data["stream"], "id": data["finding"], "package": data["package"]}
    if path.startswith("/api/rounds/"):
        values |= {
            "table": data["round_table"],
            "day": data["round_day"],
            "number": data["round_number"],
        }
    else:
        values |= {"table": data["table"], "day": data["day"]}
    for name, value in values.items():
        path = path.replace("{" + name + "}", value)
    if path in (
        "/api/ledger/reports/statistics",
        "/api/ledger/reports/master-game",
        "/api/ledger/reports/marker-aging",
        "/api/ledger/reports/markers",
        "/api/ledger/reports/chips-outstanding",
        "/api/ledger/general-ledger/journal",
        "/api/ledger/general-ledger/trial-balance",
    ):
        path += f"?day={data['day']}"
    elif path.startswith("/api/ledger/reports/slip-"):
        pass  # every book, as of now
    elif path.startswith("/api/ledger/reports/"):
        path += f"?from={data['day']}&to={data['day']}"
    elif path.startswith("/api/analytics/"):
        path += f"?day={data['round_day']}"
    return path


def _view_url(name: str, data: dict[str, str]) -> str:
    kwargs = {
        "floor-acknowledge": {"pk": data["alert"]},
        "admin:audit_finding_status": {"pk": data["finding"], "action": "acknowledge"},
        "admin:tables_table_key": {"table": data["round_table"]},
        "admin:tables_tableday_key": {"table": data["round_table"], "day": data["round_day"]},
        "admin:tables_shoe_key": {"table": data["round_table"], "version": data["shoe_version"]},
        "admin:tables_round_key": {
            "table": data["round_table"],
            "day": data["round_day"],
            "number": data["round_number"],
        },
        "admin:ledger_reconciliation_key": {"table": data["table"], "day": data["day"]},
        "admin:ledger_report_csv": {"name": "hold"},
        "admin:ledger_accounting": {"name": "master-game"},
        "admin:ledger_accounting_csv": {"name": "master-game"},
        "admin:casino_packagerequest_download": {"pk": data["package"]},
        "round-recall": {
            "table": data["round_table"],
            "day": data["round_day"],
            "number": data["round_number"],
        },
        "round-recall-pdf": {
            "table": data["round_table"],
            "day": data["round_day"],
            "number": data["round_number"],
        },
    }.get(name, {})
    return reverse(name, kwargs=kwargs)


def _schema_operations() -> set[tuple[str, str]]:
    schema = SchemaGenerator().get_schema(request=None, public=True)
    return {(method.upper(), path) for path, item in schema["paths"].items() for method in item}


def _api_routes(patterns: list[Any], prefix: str = "") -> Iterator[tuple[str, URLPattern]]:
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            yield from _api_routes(pattern.url_patterns, prefix + str(pattern.pattern))
        elif (prefix + str(pattern.pattern)).lstrip("^").startswith("api/"):
            yield prefix + str(pattern.pattern), pattern


def test_every_api_operation_is_declared() -> None:
    """The schema's operations are the table's, and every API URL is in the schema."""
    operations = _schema_operations()
    assert operations == set(API), (
        f"not declared: {sorted(operations - set(API))}; declared but gone: {sorted(set(API) - operations)}"
    )
    # a view the schema leaves out would escape the matrix: every /api/ route is one of its paths
    sample = {
        "stream": "BJ-01",
        "table": "BJ-01",
        "day": "2026-11-29",
        "number": "1",
        "pk": "1",
        "id": "1",
        "package": "1",
    }
    documented = {
        _fill(
            path,
            sample
            | {
                "finding": "1",
                "round_table": "BJ-01",
                "round_day": "2026-11-29",
                "round_number": "1",
            },
        ).split("?")[0]
        for _, path in operations
    }
    for route, pattern in _api_routes(get_resolver().url_patterns):
        if pattern.name in ("api-schema", "api-docs"):
            continue
        kwargs = {name: sample[name] for name in pattern.pattern.regex.groupindex}
        url = reverse(pattern.name, kwargs=kwargs)
        assert url in documented, f"{route} ({pattern.name}) answers but is not in the schema"


def test_every_admin_model_is_declared() -> None:
    registered = {model._meta.label for model in admin.site._registry}
    assert registered == set(ADMIN_MODELS), (
        f"not declared: {sorted(registered - set(ADMIN_MODELS))}; gone: {sorted(set(ADMIN_MODELS) - registered)}"
    )


def _expected_api(role: str, method: str, allowed: bool) -> str:
    if allowed:
        return "200" if method == "GET" else "allowed"
    return "401" if role == ANON else "403"


def _seen_api(status: int, method: str) -> str:
    if method != "GET" and status not in (401, 403) and status < 500:
        return "allowed"
    return str(status)


def _expected_page(role: str, method: str, allowed: bool) -> str:
    if allowed:
        return "200" if method == "GET" else "302 back"
    return "302 login" if role in (ANON, DEVICE, *API_ONLY) else "403"


def _seen_page(response: Any) -> str:
    if response.status_code == 302:
        return "302 login" if "/admin/login/" in response["Location"] else "302 back"
    return str(response.status_code)


def test_the_role_matrix(floor_and_books) -> None:
    """Each role gets what the table says at every API operation and every admin page."""
    data = floor_and_books
    token = device_ensure(stream=data["stream"]).token
    wrong: list[str] = []
    checked = 0
    for role in ROLES:
        api, page = _clients(role, token)
        for (method, path), allowed in API.items():
            url = _fill(path, data)
            body = {"note": "the role matrix"} if method == "POST" else None
            response = api.generic(
                method,
                url,
                data="" if body is None else json.dumps(body),
                content_type="application/json",
            )
            expected, seen = (
                _expected_api(role, method, role in allowed),
                _seen_api(response.status_code, method),
            )
            checked += 1
            if seen != expected:
                wrong.append(f"{role:10} {method} {url}: {seen}, expected {expected}")
        for label, allowed in ADMIN_MODELS.items():
            model = apps.get_model(label)
            opts = model._meta
            urls = [reverse(f"admin:{opts.app_label}_{opts.model_name}_changelist")]
            obj = model._default_manager.first()
            assert obj is not None, f"the data has no {label}: its page would go unchecked"
            # the numeric id: the natural-key admins understand it too
            urls.append(
                reverse(f"admin:{opts.app_label}_{opts.model_name}_change", args=[quote(obj.pk)])
            )
            for url in urls:
                expected, seen = (
                    _expected_page(role, "GET", role in allowed),
                    _seen_page(page.get(url)),
                )
                checked += 1
                if seen != expected:
                    wrong.append(f"{role:10} GET {url}: {seen}, expected {expected}")
        for (method, name), allowed in {**ADMIN_VIEWS, **API_DOCS}.items():
            url = _view_url(name, data)
            if name == "api-schema":
                seen = str(api.get(url).status_code)
                expected = "200" if role in allowed else "401"
            else:
                response = (
                    page.get(url)
                    if method == "GET"
                    else page.post(url, {"note": "the role matrix"})
                )
                expected, seen = _expected_page(role, method, role in allowed), _seen_page(response)
            checked += 1
            if seen != expected:
                wrong.append(f"{role:10} {method} {url}: {seen}, expected {expected}")
    assert not wrong, f"{len(wrong)} of {checked} answers differ from the table:\n" + "\n".join(
        wrong
    )
    assert checked == len(ROLES) * (
        len(API) + 2 * len(ADMIN_MODELS) + len(ADMIN_VIEWS) + len(API_DOCS)
    )
