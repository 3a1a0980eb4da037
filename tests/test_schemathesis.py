"""Schemathesis against the live schema (``/api/schema/`` as the API serves it), as a
table device and as a pit boss, bounded (a few generated requests per operation): no
answer may be a 5xx, and every answer must be what the schema documents (status code,
content type, headers, body), and every request the schema allows must be accepted."""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
import schemathesis
from django.contrib.auth import get_user_model
from django.core import signals
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from django.test import Client
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from schemathesis.checks import ignored_auth

from audit.devices import device_ensure
from audit.subscribers import catch_up_all
from audit.tokens import token_issue
from tests.back_office.helpers import append, dealt, plant_short_pay
from tests.groups import group_named

pytestmark = pytest.mark.django_db

EXAMPLES = 5  # per operation and role: bounded, CI's two cores run it in seconds


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
def tokens(settings) -> dict[str, str]:
    """A table with rounds and a finding, its device's token and a pit boss's."""
    settings.PROJECT_ON_APPEND = False
    events = dealt(rounds=3, table="BJ-01")
    plant_short_pay(events, skip=0)
    append("BJ-01", events)
    catch_up_all()
    pit_boss = get_user_model().objects.create_user("pitboss", is_staff=True)
    pit_boss.groups.add(group_named("pit_boss"))
    return {"device": device_ensure(stream="BJ-01").token, "pit_boss": token_issue(user=pit_boss).text}


@pytest.mark.parametrize("role", ["device", "pit_boss"])
def test_every_answer_is_documented_and_none_is_a_5xx(role: str, tokens: dict[str, str]) -> None:
    headers = {"Authorization": f"Token {tokens[role]}"}
    served = Client().get("/api/schema/", HTTP_AUTHORIZATION=headers["Authorization"])
    assert served.status_code == 200
    schema = schemathesis.openapi.from_dict(served.json())
    schema.config.update(base_url="http://testserver")
    failures: dict[str, set[str]] = {}
    operations = 0
    with wsgi_app() as app:
        for result in schema.get_all_operations():
            operation = result.ok()
            operations += 1
            label = operation.label

            # derandomized: CI sees the same requests every run (a seed of its own per operation)
            @hypothesis_settings(max_examples=EXAMPLES, deadline=None, database=None, derandomize=True,
                                 suppress_health_check=list(HealthCheck))
            @given(case=operation.as_strategy())
            def run(case: Any) -> None:
                try:
                    # ignored_auth (the same request without credentials) is the role
                    # matrix's, which walks every operation as every role
                    case.call_and_validate(app=app, headers=headers,
                                           excluded_checks=[ignored_auth])
                except BaseException as found:  # noqa: BLE001 - Schemathesis' failure group is not an Exception
                    for failure in getattr(found, "exceptions", [found]):
                        title = getattr(failure, "title", type(failure).__name__)
                        message = " ".join(str(getattr(failure, "message", failure)).split())[:200]
                        failures.setdefault(label, set()).add(f"{title}: {message}")  # noqa: B023 (run at once)

            run()
    assert operations >= 19
    assert not failures, "\n".join(f"{label}: {sorted(found)}" for label, found in sorted(failures.items()))
