"""The application's database role making itself a person (PostgreSQL, with the roles as
deploy/ makes them): a token row of its own for a pit boss, ``is_superuser`` set, a group
membership, a password hash it knows. The role may write every one of those rows, but
not seal them - the seal key is the application's, never the database's - so each is
refused where the person is used and named by ``verify`` (exit 1). What the application
itself does as that role - people and tokens made through the admin and the commands, a
login, a password change - keeps working. Everything a test does is rolled back after it."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password
from django.db import DatabaseError, connection, transaction
from django.test import Client
from rest_framework.test import APIClient

from audit.access.authority import AuthorityUnsealed, require_person
from audit.access.tokens import token_digest, token_issue
from audit.models import AuthoritySeal, Event, Finding
from audit.store.roles import adopt_sql, grant_sql, privilege_problems
from tests.commands import run_command
from tests.event_examples import EXAMPLES
from tests.groups import group_named

from .test_tamper import as_role

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]

OWNER = f"people_owner_{os.getpid()}"
APP = f"people_app_{os.getpid()}"
User = get_user_model()
PASSWORD = "right-horse-battery"
FORGED = "0f" * 30  # a token text of the role's own


def sql(statement: str, params: list[Any] | None = None) -> None:
    with connection.cursor() as cursor:
        cursor.execute(statement, params)


@pytest.fixture
def people(on_postgres) -> Iterator[dict[str, Any]]:
    """The schema handed to an owner, the application role granted as a migration leaves
    it; as that role, the application makes a pit boss (the group, a password, a token)
    and a clerk (staff, no group, a password, a token)."""
    for statement in (
        f"CREATE ROLE {OWNER} NOLOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE",
        *adopt_sql(owner=OWNER),
        f"CREATE ROLE {APP} LOGIN NOINHERIT NOSUPERUSER NOCREATEDB NOCREATEROLE",
        f"GRANT USAGE ON SCHEMA public TO {APP}",
        *grant_sql(app=APP),
    ):
        sql(statement)
    with connection.cursor() as cursor:
        assert privilege_problems(cursor, app=APP) == []
    pit_boss_group = group_named("pit_boss")
    with as_role(APP):
        pit_boss = User.objects.create_user("pb", password=PASSWORD, is_staff=True)
        pit_boss.groups.add(pit_boss_group)
        clerk = User.objects.create_user("clerk", password=PASSWORD, is_staff=True)
        yield {
            "pb": pit_boss,
            "clerk": clerk,
            "group": pit_boss_group,
            "tokens": {
                "pb": token_issue(user=pit_boss).text,
                "clerk": token_issue(user=clerk).text,
            },
        }


def verify() -> tuple[int, str]:
    code, out, err = run_command("verify")
    return code, out + err


def api(token: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client


def admin_login(username: str, password: str) -> tuple[Client, str]:
    client = Client()
    response = client.post(
        "/admin/login/?next=/admin/", {"username": username, "password": password}
    )
    return client, response.content.decode()


def _insert_token(people: dict[str, Any]) -> None:
    sql(
        "INSERT INTO audit_apitoken (key_id, digest, user_id, created_at, expires_at) VALUES (%s, %s, %s, %s, %s)",
        [
            FORGED[:12],
            token_digest(FORGED),
            people["pb"].pk,
            datetime.now(UTC),
            datetime.now(UTC) + timedelta(days=30),
        ],
    )


# each: the role's statement(s), whom it makes, what verify says of them
ATTACKS = {
    "a token row for the pit boss": (_insert_token, "pb", f"API token {FORGED[:12]} not sealed"),
    "is_superuser set": (
        lambda p: sql("UPDATE auth_user SET is_superuser = true WHERE id = %s", [p["clerk"].pk]),
        "clerk",
        "superuser: no when sealed, yes now",
    ),
    "added to the pit boss's group": (
        lambda p: sql(
            "INSERT INTO auth_user_groups (user_id, group_id) VALUES (%s, %s)",
            [p["clerk"].pk, p["group"].pk],
        ),
        "clerk",
        "in group 'pit_boss', not when sealed",
    ),
    "a password hash it knows": (
        lambda p: sql(
            "UPDATE auth_user SET password = %s WHERE id = %s",
            [make_password("known-to-the-role"), p["pb"].pk],
        ),
        "pb",
        "the password hash",
    ),
}


@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_the_app_role_making_itself_a_person_is_refused_at_use_and_named_by_verify(
    people, attack: str
) -> None:
    """As the application's role: the rows written, then every way in refused - the
    person's own token and the role's (403 authority_unsealed), a correction sent with
    it (nothing stored), the admin's login with the password (the form says why), the
    services' require_person - and verify exits 1 naming the person and the change,
    recorded as a critical finding."""
    change, name, words = ATTACKS[attack]
    with as_role(APP):
        change(people)
        person = User.objects.get(username=name)

        for token in {
            people["tokens"][name],
            FORGED if change is _insert_token else people["tokens"][name],
        }:
            response = api(token).get("/api/findings")
            assert response.status_code == 403, response.content
            assert (
                response.json()["code"] == "authority_unsealed"
                and words in response.json()["detail"]
            )
        correction = {
            **EXAMPLES["correction.recorded"],
            "reason": "paid short",
            "authorised_by": name,
        }
        sent = api(people["tokens"][name]).post(
            "/api/streams/T1/events",
            {
                "expected_version": 0,
                "events": [
                    {
                        "id": "7b0c4f5e-3d1a-4c11-9f0e-2b9f0a1c7d21",
                        "type": "correction.recorded",
                        "payload": correction,
                        "occurred_at": "2026-01-05T20:00:00Z",
                        "actor": f"user:{name}",
                        "source": "pit",
                    }
                ],
            },
            format="json",
        )
        assert sent.status_code == 403 and not Event.objects.exists()
        password = "known-to-the-role" if attack == "a password hash it knows" else PASSWORD
        client, page = admin_login(name, password)
        assert (
            f"The authority of {name} does not hold its seal" in page
            and "_auth_user_id" not in client.session
        )
        with pytest.raises(AuthorityUnsealed, match=re.escape(words)):
            require_person(User.objects.get(pk=person.pk), "audit.correct_round", "correct a round")

        code, said = verify()
    assert code == 1 and "1 person(s) whose authority does not hold its seal" in said
    assert (
        f"authority: user {name!r} (id {person.pk}): changed since it was sealed" in said
        and words in said
    )
    assert Finding.objects.filter(
        kind="authority_unsealed", severity="critical", message__contains=words
    ).exists()


def test_the_app_role_cannot_change_or_remove_a_seal(people) -> None:
    """The seal rows are append-only for it: an UPDATE refused by the database, a
    DELETE by its privileges."""
    for statement in (
        "UPDATE audit_authorityseal SET reason = 'x'",
        "DELETE FROM audit_authorityseal",
    ):
        with (
            pytest.raises(DatabaseError, match="append-only|permission denied"),
            transaction.atomic(),
            connection.cursor() as cursor,
        ):
            cursor.execute(f"SET LOCAL ROLE {APP}")
            cursor.execute(statement)
    assert AuthoritySeal.objects.filter(user_id=people["pb"].pk).exists()


def test_the_application_as_its_role_makes_people_and_tokens_logs_in_and_changes_a_password(
    people,
) -> None:
    """As the application's role: a superuser made by the command, who adds a person
    through the admin's forms and puts them in a group; a token for them from the
    command; their login and their password change through the admin. Every token
    works and verify names no one."""
    with as_role(APP):
        code, _, err = run_command(
            "createsuperuser", "--noinput", "--username", "root", "--email", "r@example.com"
        )
        assert code == 0, err
        root = User.objects.get(username="root")
        root.set_password(PASSWORD)
        root.save()
        admin, _ = admin_login("root", PASSWORD)
        added = admin.post(
            "/admin/auth/user/add/",
            {
                "username": "newboss",
                "password1": "a-long-new-pass-9",
                "password2": "a-long-new-pass-9",
                "usable_password": "true",
            },
        )
        assert added.status_code == 302, added.content.decode()[:2000]
        person = User.objects.get(username="newboss")
        changed = admin.post(
            f"/admin/auth/user/{person.pk}/change/",
            {
                "username": "newboss",
                "is_active": "on",
                "is_staff": "on",
                "groups": [str(people["group"].pk)],
                "date_joined_0": "2026-01-05",
                "date_joined_1": "10:00:00",
            },
        )
        assert changed.status_code == 302, changed.content.decode()[:2000]
        code, token, err = run_command("api_token", "newboss")
        assert code == 0, err
        client, _ = admin_login("newboss", "a-long-new-pass-9")
        assert "_auth_user_id" in client.session
        moved = client.post(
            "/admin/password_change/",
            {
                "old_password": "a-long-new-pass-9",
                "new_password1": "another-long-pass-7",
                "new_password2": "another-long-pass-7",
            },
        )
        assert moved.status_code == 302 and client.get("/admin/").status_code == 200
        assert api(token.strip()).get("/api/findings").status_code == 200
        assert api(people["tokens"]["pb"]).get("/api/findings").status_code == 200
        code, said = verify()
    assert "authority" not in said, said
    assert User.objects.get(username="newboss").groups.filter(name="pit_boss").exists()
