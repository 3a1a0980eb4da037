"""API tokens: hashed at rest, with an expiry, rotated and revoked (audit.access.tokens)."""

from __future__ import annotations

import hashlib
import importlib
import io
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace

import pytest
from django.apps import apps
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection
from rest_framework.test import APIClient

from audit.access.devices import device_ensure
from audit.access.tokens import TokenRefused, token_issue, token_user
from audit.models import ApiToken

pytestmark = pytest.mark.django_db

T7 = "/api/streams/T7/events"


def _client(token: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client


def _command(*args: str) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command(*args, stdout=out, stderr=err)
    return out.getvalue().strip(), err.getvalue().strip()


def test_only_the_hash_of_a_token_is_stored() -> None:
    """No column of the token's row holds its text; the digest is its SHA-256."""
    device = device_ensure(stream="T7")
    row = ApiToken.objects.get()
    stored = [str(value) for value in ApiToken.objects.values_list().get()]
    assert all(device.token not in value for value in stored)
    assert row.digest == hashlib.sha256(device.token.encode()).hexdigest()
    assert row.key_id == device.token[:12] and len(device.token) == 60


def test_a_token_expires_after_the_configured_days(settings) -> None:
    """Valid until API_TOKEN_DAYS after it was issued, refused from then on."""
    settings.API_TOKEN_DAYS = 30
    user = device_ensure(stream="T7").account.user
    issued_at = datetime(2026, 11, 1, tzinfo=UTC)
    issued = token_issue(user=user, now=issued_at)

    assert issued.expires_at == issued_at + timedelta(days=30)
    assert (
        token_user(issued.text, now=issued_at + timedelta(days=30) - timedelta(seconds=1)) == user
    )
    with pytest.raises(TokenRefused, match="expired"):
        token_user(issued.text, now=issued_at + timedelta(days=30))


def test_an_expired_token_gets_a_401_in_json(settings) -> None:
    """The API answers an expired token 401 with the JSON error shape and the challenge."""
    device = device_ensure(stream="T7")
    ApiToken.objects.update(expires_at=datetime.now(UTC) - timedelta(seconds=1))

    response = _client(device.token).get(T7)

    assert response.status_code == 401
    assert response["WWW-Authenticate"] == "Token"
    assert response.json()["code"] == "authentication_failed"
    assert "expired" in response.json()["detail"]


@pytest.mark.parametrize(
    "header",
    ["Token", "Token a b", "Token " + "0" * 60, "Token short", "Token caf\u00e9" + "0" * 56],
)
def test_a_malformed_or_unknown_token_gets_a_401_in_json(header: str) -> None:
    """A missing, split, unknown, short or non-ASCII token: 401 JSON, never a 500."""
    device_ensure(stream="T7")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=header.encode("utf-8").decode("latin-1"))

    response = client.get(T7)

    assert response.status_code == 401 and response.json()["code"] == "authentication_failed"


def test_a_token_whose_secret_differs_is_refused() -> None:
    """The key id alone does not log in: the rest of the text must match the digest."""
    token = device_ensure(stream="T7").token
    forged = token[:12] + ("0" if token[12] != "0" else "1") + token[13:]
    assert _client(forged).get(T7).status_code == 401
    assert _client(token).get(T7).status_code == 200


def test_create_device_revokes_one_token_or_all() -> None:
    """``--revoke KEY_ID`` ends that token alone; ``--revoke`` every token of the device."""
    first, _ = _command("create_device", "T7")
    second, _ = _command("create_device", "T7")
    third, _ = _command("create_device", "T7")

    out, err = _command("create_device", "T7", "--revoke", first[:12])
    assert out == "" and "1 were valid" in err
    assert _client(first).get(T7).status_code == 401
    assert _client(first).get(T7).json()["detail"] == "Token revoked."
    assert _client(second).get(T7).status_code == 200

    _command("create_device", "T7", "--revoke")
    assert _client(second).get(T7).status_code == 401
    assert _client(third).get(T7).status_code == 401
    assert ApiToken.objects.count() == 3  # kept: who had which token, until when


def test_create_device_refuses_to_revoke_for_a_device_that_does_not_exist() -> None:
    with pytest.raises(CommandError, match="no device 'device-T9'"):
        _command("create_device", "T9", "--revoke")


def test_a_persons_token_comes_from_api_token(django_user_model) -> None:
    """``api_token`` prints a person's token, refuses a device, and revokes."""
    alice = django_user_model.objects.create_user("alice", password="pw-alice-1")
    token, err = _command("api_token", "alice")
    assert "shown once" in err
    assert token_user(token) == alice

    device_ensure(stream="T7")
    with pytest.raises(CommandError, match="create_device"):
        _command("api_token", "device-T7")
    with pytest.raises(CommandError, match="no user"):
        _command("api_token", "nobody")

    _command("api_token", "alice", "--revoke")
    with pytest.raises(TokenRefused, match="revoked"):
        token_user(token)


def test_an_inactive_users_token_is_refused(django_user_model) -> None:
    alice = django_user_model.objects.create_user("alice")
    issued = token_issue(user=alice)
    alice.is_active = False
    alice.save()
    with pytest.raises(TokenRefused, match="inactive"):
        token_user(issued.text)


def test_the_migration_hashes_plain_text_tokens_and_deletes_them(
    django_user_model, settings
) -> None:
    """A token of DRF's authtoken table keeps working, hashed, and its text is gone."""
    settings.API_TOKEN_DAYS = 10
    alice = django_user_model.objects.create_user("alice")
    legacy = "0123456789abcdef0123456789abcdef01234567"
    with connection.cursor() as cursor:
        cursor.execute(
            "CREATE TABLE authtoken_token (key varchar(40) PRIMARY KEY, created timestamp with time zone NOT NULL, "
            "user_id integer NOT NULL)"
        )
        cursor.execute(
            "INSERT INTO authtoken_token (key, created, user_id) VALUES (%s, %s, %s)",
            [legacy, datetime(2026, 1, 1, tzinfo=UTC), alice.pk],
        )
    migration = importlib.import_module("audit.migrations.0012_hash_legacy_tokens")

    migration.hash_legacy_tokens(apps, SimpleNamespace(connection=connection))

    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM authtoken_token")
        assert cursor.fetchone()[0] == 0
    row = ApiToken.objects.get()
    assert row.digest == hashlib.sha256(legacy.encode()).hexdigest()
    assert row.expires_at - datetime.now(UTC) > timedelta(days=9)
    assert token_user(legacy) == alice
