"""Schemathesis against the live schema (``/api/schema/`` as the API serves it), as every
role - anonymous, a table device, a pit boss, accounting, compliance, the regulator, a
superuser - with data that fits the schema and data that does not, bounded (a few
generated requests per operation and mode, random each run): no answer may be a 5xx;
every answer must be what the schema documents (status code, content type, headers,
body); every request the schema allows must be accepted (or refused for who asks: 401,
403, 404) but for the rules between fields a schema cannot state (``ACROSS_FIELDS``).
Whether a request the schema forbids is refused is not asked of the generated data: a
query value it draws that a URL cannot carry (null, an empty list, an object) arrives
as no value at all, which is a request the schema allows. The free-text and identifier
patterns the schema declares are proved against the record's own rules by a property
test of their own (a random run sees few notes).

``SCHEMATHESIS_EXAMPLES`` sets the examples per operation, mode and role (3 by default:
180 cases a role; a deeper run by hand: ``SCHEMATHESIS_EXAMPLES=40 pytest
tests/test_schemathesis.py``)."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

import msgspec
import pytest
import schemathesis
from django.contrib.auth import get_user_model
from django.core import signals
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from django.test import Client
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st
from schemathesis import GenerationMode
from schemathesis.checks import ignored_auth
from schemathesis.specs.openapi.checks import negative_data_rejection, positive_data_acceptance

from audit.access.devices import device_ensure
from audit.access.tokens import token_issue
from audit.feed.subscribers import catch_up_all
from audit.models import Finding
from audit.record.envelope import label_problem
from audit.record.events.fields import Text
from regulator.models import PackageRequest
from tests.back_office.helpers import append, dealt, plant_short_pay
from tests.groups import group_named

pytestmark = pytest.mark.django_db

# per operation, generation mode and role: bounded, CI's two cores run it in seconds
EXAMPLES = int(os.environ.get("SCHEMATHESIS_EXAMPLES", "3"))
ROLES = (
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


@contextmanager
def wsgi_app() -> Iterator[Any]:
    """The project's WSGI application in this test's transaction: like Django's test
    client (which connects these again after each of its requests), it must not close
    the connection after each request."""
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    try:
        yield get_wsgi_application()
    finally:
        signals.request_started.connect(close_old_connections)
        signals.request_finished.connect(close_old_connections)


@pytest.fixture
def tokens(settings, tmp_path) -> dict[str, str]:
    """A table with rounds and a finding, a package ready to download, and a token for
    every role (none for anonymous)."""
    settings.PROJECT_ON_APPEND = False
    settings.PACKAGE_DIR = str(tmp_path)
    events = dealt(rounds=3, table="BJ-01")
    plant_short_pay(events, skip=0)
    append("BJ-01", events)
    catch_up_all()
    (tmp_path / "package-1.zip").write_bytes(
        b"PK\x05\x06" + bytes(18)
    )  # an empty zip: served, not read
    PackageRequest.objects.create(
        requested_by="user:root",
        requested_at=datetime.now(UTC),
        via="api",
        day_from="2026-11-30",
        day_to="2026-11-30",
        status="ready",
        file="package-1.zip",
        keep_until="2036-11-30",
    )
    users = get_user_model().objects
    found = {
        "device": device_ensure(stream="BJ-01").token,
        "superuser": token_issue(
            user=users.create_superuser("root", "root@example.com", "root-password-1")
        ).text,
    }
    for group in ("pit_boss", "accounting", "compliance", "regulator", "count_team", "cage"):
        # the count team and the cage record through the API only: not staff
        person = users.create_user(f"m-{group}", is_staff=group not in ("count_team", "cage"))
        person.groups.add(group_named(group))
        found[group] = token_issue(user=person).text
    return found


# Rules between fields that a schema cannot state (one date after another, a period that
# needs its day): a request the schema allows but such a rule refuses is a 400 naming the
# field, which the operation's description says.
ACROSS_FIELDS: dict[str, tuple[tuple[str, str], ...]] = {
    "GET /api/ledger/reports/daily": (("from", "is after to"),),
    "GET /api/ledger/reports/drop": (("from", "is after to"),),
    "GET /api/ledger/reports/hold": (("from", "is after to"),),
    "GET /api/ledger/reports/statistics": (("query", "needs a day|needs from and to|is after to"),),
    "GET /api/ledger/reports/chips-outstanding": (("from", "is after day"),),
    "POST /api/ledger/slip-books": (("last", "series|comes before|a book of"),),
    "POST /api/packages": (("to", "is before"),),
    # an event's type, its payload's fields and the years of its clock are the catalogue's
    # and the record's rules (docs/events.md), which the schema names, not restates
    "POST /api/streams/{stream}/events": (
        (r"events\[\d+\]\.(type|schema_version|occurred_at|payload.*)", ""),
    ),
}


def across_fields(label: str, response: Any) -> bool:
    """Whether ``response`` is the 400 of a rule between fields of the operation."""
    rules = ACROSS_FIELDS.get(label, ())
    if response.status_code != 400 or not rules:
        return False
    errors = response.json().get("errors", {})
    return bool(errors) and all(
        any(
            re.fullmatch(field, name) and re.search(says, " ".join(messages))
            for field, says in rules
        )
        for name, messages in errors.items()
    )


@pytest.mark.parametrize("role", ROLES)
def test_every_answer_is_documented_and_none_is_a_5xx(role: str, tokens: dict[str, str]) -> None:
    """Every operation, with data the schema allows and data it forbids, as ``role``."""
    headers = {"Authorization": f"Token {tokens[role]}"} if role in tokens else {}
    served = Client().get("/api/schema/", HTTP_AUTHORIZATION=f"Token {tokens['superuser']}")
    assert served.status_code == 200
    schema = schemathesis.openapi.from_dict(served.json())
    schema.config.update(base_url="http://testserver")
    failures: dict[str, set[str]] = {}
    operations = cases = 0
    with wsgi_app() as app:
        for result in schema.get_all_operations():
            operation = result.ok()
            operations += 1
            label = operation.label
            for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
                # random each run, bounded; database=None: a failure is reported, not replayed
                # from a local example database on the next run only
                @hypothesis_settings(
                    max_examples=EXAMPLES,
                    deadline=None,
                    database=None,
                    suppress_health_check=list(HealthCheck),
                )
                @given(case=operation.as_strategy(generation_mode=mode))
                def run(case: Any) -> None:
                    nonlocal cases
                    cases += 1
                    response = None
                    try:
                        response = case.call(app=app, headers=headers)
                        # ignored_auth (the same request without credentials) is the role
                        # matrix's, which walks every operation as every role
                        excluded = [ignored_auth, negative_data_rejection]
                        if mode is GenerationMode.POSITIVE and across_fields(label, response):  # noqa: B023
                            excluded.append(positive_data_acceptance)
                        case.validate_response(
                            response,
                            headers=headers,
                            excluded_checks=excluded,
                            transport_kwargs={"app": app, "headers": headers},
                        )
                    except BaseException as found:  # noqa: BLE001 - Schemathesis' failure group is not an Exception
                        answer = (
                            ""
                            if response is None
                            else f" -> {response.status_code} {response.text[:200]}"
                        )
                        for failure in getattr(found, "exceptions", [found]):
                            title = getattr(failure, "title", type(failure).__name__)
                            message = " ".join(str(getattr(failure, "message", failure)).split())[
                                :300
                            ]
                            failures.setdefault(label, set()).add(  # noqa: B023 (run at once)
                                f"{mode.value} {case.method} {case.formatted_path} query={case.query} "  # noqa: B023
                                f"body={str(case.body)[:200]}{answer}: {title}: {message}"
                            )

                run()
    print(f"{role}: {cases} cases over {operations} operations")
    assert operations >= 30
    assert cases <= operations * 2 * EXAMPLES
    assert not failures, "\n".join(
        f"{label}: {found}" for label, kinds in sorted(failures.items()) for found in sorted(kinds)
    )


def _served_schema(token: str) -> dict[str, Any]:
    served = Client().get("/api/schema/", HTTP_AUTHORIZATION=f"Token {token}")
    assert served.status_code == 200
    return served.json()


def _string_pattern(schema: dict[str, Any], component: str, field: str) -> re.Pattern[str]:
    """The pattern the served schema declares for a field (the non-blank branch of a
    note that may be blank), read as Schemathesis reads it (Python's re)."""
    spec = schema["components"]["schemas"][component]["properties"][field]
    patterns = [branch["pattern"] for branch in spec.get("oneOf", [spec]) if "pattern" in branch]
    assert len(patterns) == 1, spec
    return re.compile(patterns[0])


def _text_accepted(text: str) -> bool:
    """The record's free-text rule, as the store applies it to a note in a payload."""
    try:
        msgspec.convert(text, Text)
    except msgspec.ValidationError:
        return False
    return True


# every character but surrogates (JSON cannot carry one to the parser as text), the
# refused ones often: control, format, white space
_CHARACTERS = st.one_of(
    st.characters(exclude_categories=("Cs",)),
    st.sampled_from(
        "\x00\x07\x1b\x7f\x85\x9f\t\n\r\x0b\x0c \u00a0\u2028\u200b\u200d\u200f\u202e\u2066\u2069\ufeffa"
    ),
)


def test_the_schema_declares_the_records_free_text_and_identifier_rules(
    tokens: dict[str, str],
) -> None:
    """The patterns the schema serves for notes and identifiers accept exactly what the
    record's rules accept (the note the services strip must also say something when a
    resolve requires one), so a schema-valid note or actor is never refused."""
    schema = _served_schema(tokens["pit_boss"])
    note = _string_pattern(schema, "Note", "note")
    resolve = _string_pattern(schema, "ResolveNote", "note")
    assert _string_pattern(schema, "SignOffNote", "note").pattern == note.pattern
    actor = _string_pattern(schema, "NewEvent", "actor")
    assert _string_pattern(schema, "NewEvent", "source").pattern == actor.pattern

    @hypothesis_settings(
        max_examples=300, deadline=None, database=None, suppress_health_check=list(HealthCheck)
    )
    @given(text=st.text(_CHARACTERS, min_size=1, max_size=40))
    def agree(text: str) -> None:
        assert bool(note.search(text)) == _text_accepted(text), repr(text)
        assert bool(resolve.search(text)) == (_text_accepted(text) and bool(text.strip())), repr(
            text
        )
        assert bool(actor.search(text)) == (label_problem(text) is None), repr(text)

    agree()
    # the rule's edges, whatever the random run drew
    for refused in (
        "bell\x07",
        "esc\x1b[31m",
        "ok\u202eevil",
        "zero\u200bwidth",
        "\ufeffbom",
        "nel\x85",
    ):
        assert not note.search(refused) and not _text_accepted(refused)
    for kept in ("Ünïcode 中文 🃏", "tab\tand\nnewline\r\n", "\u00a0non-breaking"):
        assert note.search(kept) and _text_accepted(kept)
    assert not resolve.search(" \t\n\u00a0") and note.search(" \t\n\u00a0")
    for refused in ("0\n", "dealer:7\n", "a\r\n", "\nx"):  # a random run once drew "0\n"
        assert not actor.search(refused) and label_problem(refused) is not None, repr(refused)


@pytest.mark.parametrize(
    ("note", "status"),
    [
        ("dealt with: the pay corrected, Ünïcode 中文 🃏\n\tsigned PB-7", 200),
        ("bell\x07", 400),
        ("ok\u202eevil", 400),
        ("zero\u200bwidth", 400),
        ("   \u00a0\n", 400),
    ],
)
def test_a_resolve_note_is_accepted_exactly_when_the_schema_allows_it(
    tokens: dict[str, str], note: str, status: int
) -> None:
    """The case a random run once found: a note with a control or format character was
    refused by the store while the schema allowed it; now the schema's pattern refuses it
    first, as a 400 naming the field."""
    finding = Finding.objects.filter(status=Finding.Status.OPEN).first()
    assert finding is not None
    pattern = _string_pattern(_served_schema(tokens["pit_boss"]), "ResolveNote", "note")
    assert bool(pattern.search(note)) == (status == 200)
    response = Client().post(
        f"/api/findings/{finding.pk}/resolve",
        {"note": note},
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Token {tokens['pit_boss']}",
    )
    assert response.status_code == status, response.content
    if status == 400:
        assert "note" in response.json()["errors"]
    else:
        finding.refresh_from_db()
        assert finding.status == Finding.Status.RESOLVED and finding.note == note.strip()
