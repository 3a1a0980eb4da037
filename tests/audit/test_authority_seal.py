"""A person's authority - the user's name, flags and password, their groups and the groups'
permissions, their own permissions, their live API tokens, their device account - is
sealed by the application whenever it changes it, and a change made past it (here with
QuerySet updates and bulk inserts, which send no signal; as the database's application
role in test_authority_tamper.py) is refused wherever the person comes in and named by
verify, until an operator holding the seal key seals it again."""

from __future__ import annotations

import hashlib
import hmac
import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.apps import apps as django_apps
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password
from django.contrib.auth.models import Group, Permission
from django.db import DatabaseError, transaction
from django.test import Client
from rest_framework.test import APIClient

from audit.access.authority import AuthorityUnsealed, person_for_ingest, require_person
from audit.access.authority_seal import (
    authority_problem,
    authority_problems,
    reseal_group_members,
    seal_every_user,
)
from audit.access.devices import device_ensure
from audit.access.tokens import token_digest, token_issue, tokens_revoke
from audit.integrity.verification import integrity_verify
from audit.models import ApiToken, AuthoritySeal, DeviceAccount, Event, Finding
from audit.record.chain import format_timestamp
from tests.commands import run_command
from tests.groups import group_named

pytestmark = pytest.mark.django_db

User = get_user_model()
PASSWORD = "right-horse-battery"


# --- an oracle written apart from audit.access.authority_seal: the ORM's reading, hmac's seal --------------


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _names(permissions: Any) -> list[str]:
    return sorted(f"{p.content_type.app_label}.{p.codename}" for p in permissions)


def expected_authority(user: Any) -> dict[str, Any]:
    """What the seal must cover, read through the ORM (audit.access.authority_seal reads it in
    one SQL query)."""
    user = User.objects.get(pk=user.pk)
    device = DeviceAccount.objects.filter(user=user).first()
    return {
        "username": user.username,
        "active": user.is_active,
        "staff": user.is_staff,
        "superuser": user.is_superuser,
        "password": _sha(user.password),
        "groups": {group.name: _names(group.permissions.all()) for group in user.groups.all()},
        "permissions": _names(user.user_permissions.all()),
        "tokens": {
            t.key_id: _sha(f"{t.digest}|{format_timestamp(t.expires_at)}")
            for t in ApiToken.objects.filter(user=user, revoked_at__isnull=True)
        },
        "device": device.stream if device else None,
    }


def expected_seal(user_id: int, generation: int, text: str) -> str:
    """HMAC-SHA256 (the standard library's) under the seal key's derivation, of the
    sealed text's hash and the principal authority:<id>."""
    key = hashlib.sha256(b"audit.event.seal" + settings.SEAL_KEY.encode()).digest()
    message = f"{_sha(f'{user_id}|{generation}|{text}')}|authority:{user_id}"
    return hmac.new(key, message.encode(), hashlib.sha256).hexdigest()


def latest(user: Any) -> AuthoritySeal:
    return AuthoritySeal.objects.filter(user_id=user.pk).order_by("-generation").first()


def assert_sealed_as_it_stands(user: Any) -> None:
    row = latest(user)
    assert row is not None, f"{user} has no seal"
    assert json.loads(row.authority) == expected_authority(user)
    assert row.seal == expected_seal(user.pk, row.generation, row.authority)
    assert authority_problem(User.objects.get(pk=user.pk)) is None


def pit_boss(name: str = "pb") -> Any:
    user = User.objects.create_user(name, password=PASSWORD, is_staff=True)
    user.groups.add(group_named("pit_boss"))
    return user


def token_client(text: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {text}")
    return client


def verify() -> tuple[int, str]:
    code, out, err = run_command("verify")
    return code, out + err


# --- the application seals what it writes -------------------------------------------------------------


def test_the_seal_is_an_hmac_under_the_seal_key_of_the_whole_authority() -> None:
    """A pit boss with a password, the group, a permission of their own and a token: the
    latest seal row holds exactly what the ORM reads, sealed as hmac computes it."""
    user = pit_boss()
    user.user_permissions.add(Permission.objects.get(codename="view_event"))
    token_issue(user=user)
    row = latest(user)
    sealed = json.loads(row.authority)
    assert sealed["groups"]["pit_boss"] == sorted(sealed["groups"]["pit_boss"]) != []
    assert "audit.correct_round" in sealed["groups"]["pit_boss"]
    assert sealed["permissions"] == ["audit.view_event"] and len(sealed["tokens"]) == 1
    assert_sealed_as_it_stands(user)


def _steps() -> list[tuple[str, Any]]:
    """What the application does to people's authority, each through its own path."""
    state: dict[str, Any] = {}

    def create() -> Any:
        state["user"] = User.objects.create_user("clerk", password=PASSWORD)
        state["other"] = User.objects.create_user("other", password=PASSWORD)
        return state["user"]

    def user() -> Any:
        return User.objects.get(pk=state["user"].pk)

    def rename() -> None:
        group = Group.objects.get(name="regulator")
        group.name = "auditors"
        group.save()

    view = Permission.objects.get(codename="view_event")
    append = Permission.objects.get(codename="append_event")
    return [
        ("created", create),
        ("added to a group", lambda: user().groups.add(group_named("pit_boss"))),
        (
            "a group gains a member from its side",
            lambda: group_named("regulator").user_set.add(user()),
        ),
        (
            "a group's permission added",
            lambda: Group.objects.get(name="pit_boss").permissions.add(append),
        ),
        (
            "a group's permission removed",
            lambda: Group.objects.get(name="pit_boss").permissions.remove(append),
        ),
        (
            "a permission gains a group from its side",
            lambda: append.group_set.add(Group.objects.get(name="regulator")),
        ),
        ("an own permission added", lambda: user().user_permissions.add(view)),
        (
            "an own permission given from its side",
            lambda: view.user_set.add(user(), state["other"]),
        ),
        ("own permissions cleared", lambda: user().user_permissions.clear()),
        ("a group renamed", rename),
        ("a token issued", lambda: token_issue(user=user())),
        ("a second token issued", lambda: token_issue(user=user())),
        (
            "one token revoked",
            lambda: tokens_revoke(
                user=user(), key_id=ApiToken.objects.filter(user=user()).first().key_id
            ),
        ),
        ("the password changed", lambda: (u := user()).set_password("another-horse") or u.save()),
        ("made staff", lambda: (u := user()).__setattr__("is_staff", True) or u.save()),
        ("a group deleted", lambda: Group.objects.get(name="auditors").delete()),
        (
            "a group's members cleared from its side",
            lambda: Group.objects.get(name="pit_boss").user_set.clear(),
        ),
        ("every token revoked", lambda: tokens_revoke(user=user())),
        ("a device made", lambda: device_ensure(stream="T1")),
    ]


def test_every_change_the_application_makes_leaves_the_seal_holding() -> None:
    """After each change the latest seal covers the authority as it stands, for every
    person it touched, and verify names no one."""
    for what, step in _steps():
        step()
        for user in User.objects.all():
            try:
                assert_sealed_as_it_stands(user)
            except AssertionError as error:
                raise AssertionError(f"after {what}: {user}: {error}") from None
    assert authority_problems() == []
    assert latest(User.objects.get(username="clerk")).generation >= 10


def test_a_login_or_a_save_that_changes_nothing_sealed_writes_no_generation() -> None:
    user = pit_boss()
    before = AuthoritySeal.objects.count()
    client = Client()
    client.post("/admin/login/?next=/admin/", {"username": "pb", "password": PASSWORD})
    assert "_auth_user_id" in client.session  # logged in: last_login saved
    user = User.objects.get(pk=user.pk)
    user.first_name = "Pat"
    user.save()
    assert AuthoritySeal.objects.count() == before
    assert_sealed_as_it_stands(user)


# --- a change past the application ----------------------------------------------------------------------


def _forge_token(user: Any) -> str:
    text = "f0" * 30
    ApiToken.objects.bulk_create(
        [
            ApiToken(
                key_id=text[:12],
                digest=token_digest(text),
                user=user,
                created_at=datetime.now(UTC),
                expires_at=datetime.now(UTC) + timedelta(days=30),
            )
        ]
    )
    return text


def _grant_pit_boss(user: Any) -> None:
    User.groups.through.objects.bulk_create(
        [User.groups.through(user=user, group=group_named("pit_boss"))]
    )


def _make_device(user: Any) -> None:
    DeviceAccount.objects.create(user=User.objects.create_user("dev"), stream="T1")
    DeviceAccount.objects.filter(stream="T1").update(user=user)


# each: what is done past the application to the victim, and the words verify names it with
ATTACKS = {
    "a token row of its own": (lambda u: _forge_token(u), "API token f0f0f0f0f0f0 not sealed"),
    "is_superuser set": (
        lambda u: User.objects.filter(pk=u.pk).update(is_superuser=True),
        "superuser: no when sealed, yes now",
    ),
    "added to the pit boss's group": (_grant_pit_boss, "in group 'pit_boss', not when sealed"),
    "a password hash it knows": (
        lambda u: User.objects.filter(pk=u.pk).update(password=make_password("known-to-the-role")),
        "the password hash",
    ),
    "a permission given to a group it is in": (
        lambda u: Group.permissions.through.objects.bulk_create(
            [
                Group.permissions.through(
                    group=Group.objects.get(name="regulator"),
                    permission=Permission.objects.get(codename="correct_round"),
                )
            ]
        ),
        "group 'regulator''s permissions: +audit.correct_round",
    ),
    "an own permission": (
        lambda u: User.user_permissions.through.objects.bulk_create(
            [
                User.user_permissions.through(
                    user=u, permission=Permission.objects.get(codename="append_event")
                )
            ]
        ),
        "own permissions: +audit.append_event",
    ),
    "a token's expiry moved": (
        lambda u: ApiToken.objects.filter(user=u).update(
            expires_at=datetime.now(UTC) + timedelta(days=3650)
        ),
        "'s digest or expiry",
    ),
    "made a table's device": (_make_device, "device of table none when sealed, T1 now"),
}


@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_a_change_past_the_application_is_refused_at_use_and_named_by_verify(attack: str) -> None:
    """The victim's own right token is refused (403 authority_unsealed, naming the
    change), nothing they send is stored, verify exits 1 naming them and the change, and
    compliance has a critical finding."""
    victim = User.objects.create_user("victim", password=PASSWORD, is_staff=True)
    victim.groups.add(group_named("regulator"))
    own = token_issue(user=victim).text
    assert token_client(own).get("/api/findings").status_code == 200
    change, words = ATTACKS[attack]
    forged = change(victim)

    for text in {own, forged if isinstance(forged, str) else own}:
        response = token_client(text).get("/api/findings")
        assert response.status_code == 403, response.content
        body = response.json()
        assert (
            body["code"] == "authority_unsealed"
            and "victim" in body["detail"]
            and words in body["detail"]
        )
    correction = {"expected_version": 0, "events": [{"type": "round.voided", "payload": {}}]}
    assert (
        token_client(own).post("/api/streams/T1/events", correction, format="json").status_code
        == 403
    )
    assert not Event.objects.exists()
    code, said = verify()
    # the device moved away from "dev" leaves dev's authority unsealed too
    people = 2 if attack == "made a table's device" else 1
    assert code == 1 and f"{people} person(s) whose authority does not hold its seal" in said
    [line] = [line for line in said.splitlines() if line.startswith("authority: user 'victim'")]
    assert (
        line.startswith(f"authority: user 'victim' (id {victim.pk}): changed since it was sealed")
        and words in line
    )
    finding = Finding.objects.get(kind="authority_unsealed")
    assert finding.severity == "critical" and finding.message == line


def test_an_application_change_after_one_past_it_does_not_seal_it() -> None:
    """is_superuser set past the application, then a password changed and a token issued
    through it: the application re-seals only what held, so the person stays refused
    (and api_token says so of the token it prints)."""
    user = pit_boss()
    User.objects.filter(pk=user.pk).update(is_superuser=True)
    user = User.objects.get(pk=user.pk)
    user.set_password("a-new-one")
    user.save()
    text = token_issue(user=user).text
    response = token_client(text).get("/api/findings")
    assert (
        response.status_code == 403
        and "superuser: no when sealed, yes now" in response.json()["detail"]
    )
    assert "superuser: no when sealed, yes now" in authority_problem(User.objects.get(pk=user.pk))
    code, _, err = run_command("api_token", "pb")
    assert code == 0 and "refused wherever it is used until sealed again" in err


def test_an_older_seal_put_back_does_not_hold_and_a_seal_row_cannot_be_changed() -> None:
    """A token revoked, then its revocation undone and the seal of when it was live
    written back as a new row: the latest generation does not hold. The rows themselves
    refuse an UPDATE."""
    user = pit_boss()
    text = token_issue(user=user).text
    live = latest(user)
    tokens_revoke(user=user)
    ApiToken.objects.filter(user=user).update(revoked_at=None)
    AuthoritySeal.objects.bulk_create(
        [
            AuthoritySeal(
                user_id=user.pk,
                generation=latest(user).generation + 1,
                authority=live.authority,
                seal=live.seal,
                sealed_at=datetime.now(UTC),
                reason="put back",
            )
        ]
    )
    response = token_client(text).get("/api/findings")
    assert response.status_code == 403
    assert (
        f"generation {live.generation + 2}) was not made with the seal key"
        in response.json()["detail"]
    )
    with pytest.raises(DatabaseError, match="append-only"), transaction.atomic():
        AuthoritySeal.objects.filter(pk=live.pk).update(seal=live.seal)


def test_a_person_never_sealed_is_refused_until_sealed() -> None:
    """A user row inserted past the application has no seal; the migration's step (and
    the command) seal what stands."""
    User.objects.bulk_create(
        [
            User(
                username="inserted",
                password=make_password(PASSWORD),
                is_superuser=True,
                is_staff=True,
            )
        ]
    )
    user = User.objects.get(username="inserted")
    assert "it has no authority seal" in authority_problem(user)
    seal_every_user(django_apps, None)
    assert_sealed_as_it_stands(user)


def test_a_migration_changing_a_groups_permissions_reseals_the_members_that_held() -> None:
    """A data migration's change (historical models send no signal the application
    hears) inside reseal_group_members: the members that held hold again; one whose
    authority had been changed past the application stays refused."""
    kept, forged = pit_boss("pb"), pit_boss("pb2")
    User.objects.filter(pk=forged.pk).update(is_superuser=True)
    append = Permission.objects.get(codename="append_event")
    reseal_group_members(
        ["pit_boss"],
        lambda: Group.permissions.through.objects.bulk_create(
            [Group.permissions.through(group=Group.objects.get(name="pit_boss"), permission=append)]
        ),
        reason="a migration",
    )
    assert_sealed_as_it_stands(kept)
    assert "audit.append_event" in latest(kept).authority
    assert [line.split("'")[1] for line in authority_problems()] == ["pb2"]


# --- where the authority is used ----------------------------------------------------------------------


def test_a_session_is_refused_on_its_every_request_with_a_message() -> None:
    """The API answers JSON in the one error shape, the admin a page saying why; the
    admin's logout still works."""
    user = pit_boss()
    client = Client()
    client.force_login(user)
    assert client.get("/api/findings").status_code == 200
    User.objects.filter(pk=user.pk).update(is_superuser=True)

    api = client.get("/api/findings")
    assert api.status_code == 403 and api.json()["code"] == "authority_unsealed"
    page = client.get("/admin/")
    text = page.content.decode()
    assert page.status_code == 403 and "The authority of pb does not hold its seal" in text
    assert "superuser: no when sealed, yes now" in text
    assert client.post("/admin/logout/").status_code == 200
    assert "_auth_user_id" not in client.session


def test_the_admin_login_says_why_and_logs_no_one_in() -> None:
    """A right password of a person whose password hash was written past the
    application: the login form again, saying why, and no session."""
    user = pit_boss()
    User.objects.filter(pk=user.pk).update(password=make_password("known-to-the-role"))
    client = Client()
    response = client.post(
        "/admin/login/?next=/admin/", {"username": "pb", "password": "known-to-the-role"}
    )
    text = response.content.decode()
    assert response.status_code == 200 and "The authority of pb does not hold its seal" in text
    assert "the password hash" in text and "_auth_user_id" not in client.session


def test_the_services_and_ingest_refuse_the_person() -> None:
    """require_person (every service that changes money or a finding) and ingest --as."""
    user = pit_boss()
    require_person(User.objects.get(pk=user.pk), "audit.correct_round", "correct a round")
    _forge_token(user)
    with pytest.raises(AuthorityUnsealed, match="API token f0f0f0f0f0f0 not sealed"):
        require_person(User.objects.get(pk=user.pk), "audit.correct_round", "correct a round")
    with pytest.raises(LookupError, match="--as pb: The authority of pb does not hold its seal"):
        person_for_ingest("pb")


def test_the_check_is_one_query_per_user_object(django_assert_num_queries) -> None:
    user = pit_boss()
    token_issue(user=user)
    fresh = User.objects.get(pk=user.pk)
    with django_assert_num_queries(1):
        assert authority_problem(fresh) is None
    with django_assert_num_queries(0):
        assert authority_problem(fresh) is None


def test_refusals_record_one_finding_and_the_periodic_verification_the_same() -> None:
    """Three refused requests, one finding; the periodic verification finds the same one,
    and once an operator seals the person again it supersedes it and the token works."""
    user = pit_boss()
    text = token_issue(user=user).text
    User.objects.filter(pk=user.pk).update(is_superuser=True)
    for _ in range(3):
        assert token_client(text).get("/api/findings").status_code == 403
    assert Finding.objects.filter(kind="authority_unsealed").count() == 1
    result, new = integrity_verify()
    assert new == 0 and len(result.authority) == 1
    assert Finding.objects.filter(kind="authority_unsealed").count() == 1

    code, out, err = run_command("authority_seal", "pb")
    assert code == 0, err
    assert (
        "superuser: no when sealed, yes now; sealing: active staff superuser; groups: pit_boss"
        in out
    )
    result, _ = integrity_verify()
    assert result.authority == []
    assert Finding.objects.get(kind="authority_unsealed").superseded_by is not None
    assert token_client(text).get("/api/findings").status_code == 200


def test_the_command_lists_who_does_not_hold_and_seals_whom_it_is_told() -> None:
    pit_boss("pb")
    pit_boss("pb2")
    assert run_command("authority_seal")[0] == 0
    User.objects.filter(username__in=["pb", "pb2"]).update(is_active=False)
    code, _, err = run_command("authority_seal")
    assert code == 1 and err.count("authority: user") == 2 and "2 person(s)" in err
    assert run_command("authority_seal", "pb", "nobody")[0:2] == (2, "")
    assert run_command("authority_seal", "pb")[0] == 0
    assert [line.split("'")[1] for line in authority_problems()] == ["pb2"]
    code, out, _ = run_command("authority_seal", "--all")
    assert code == 0 and "sealed the authority of 1 person(s)" in out and authority_problems() == []
