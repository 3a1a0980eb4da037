"""The API tokens' admin screen: compliance lists and revokes, a superuser issues (the
text shown once); the secret and its digest appear on no page; "last used" is kept."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from audit.access.devices import device_ensure
from audit.access.tokens import LAST_USED_STEP, TokenRefused, token_issue, token_user
from audit.models import ApiToken
from tests.groups import group_named

pytestmark = pytest.mark.django_db

LIST = "admin:audit_apitoken_changelist"
ISSUE = "admin:audit_apitoken_add"


def _person(name: str, group: str | None = None, *, superuser: bool = False) -> Client:
    user = get_user_model().objects.create_user(
        name, password="a-long-test-password", is_staff=True, is_superuser=superuser
    )
    if group:
        user.groups.add(group_named(group))
    client = Client()
    client.force_login(user)
    return client


def test_compliance_sees_every_token_but_never_a_secret_or_digest() -> None:
    device = device_ensure(stream="BJ-01")
    boss = get_user_model().objects.create_user("boss")
    person = token_issue(user=boss)
    page = _person("carol", "compliance").get(reverse(LIST)).content.decode()
    for token in ApiToken.objects.all():
        assert token.key_id in page and token.digest not in page
    assert device.token not in page and person.text not in page
    assert "BJ-01" in page and "boss" in page and "(a person)" in page and "valid" in page
    detail = _person("dave", "compliance").get(
        reverse("admin:audit_apitoken_change", args=[person_pk(person.key_id)])
    )
    assert detail.status_code == 200 and person.text not in detail.content.decode()
    assert ApiToken.objects.get(key_id=person.key_id).digest not in detail.content.decode()


def person_pk(key_id: str) -> int:
    return ApiToken.objects.get(key_id=key_id).pk


def test_compliance_revokes_a_token_and_it_no_longer_logs_in() -> None:
    device = device_ensure(stream="BJ-01")
    assert token_user(device.token)
    token = ApiToken.objects.get()
    response = _person("carol", "compliance").post(
        reverse(LIST), {"action": "revoke", "_selected_action": [token.pk]}
    )
    assert response.status_code == 302
    token.refresh_from_db()
    assert token.revoked_at is not None
    with pytest.raises(TokenRefused, match="revoked"):
        token_user(device.token)
    # the list says so; no one deletes a token
    page = _person("dave", "compliance").get(reverse(LIST)).content.decode()
    assert "revoked 20" in page
    assert (
        _person("root", superuser=True)
        .get(reverse("admin:audit_apitoken_delete", args=[token.pk]))
        .status_code
        == 403
    )


def test_only_a_superuser_issues_a_token_and_sees_its_text_once() -> None:
    owner = get_user_model().objects.create_user("terminal")
    assert _person("carol", "compliance").get(reverse(ISSUE)).status_code == 403
    root = _person("root", superuser=True)
    assert root.get(reverse(ISSUE)).status_code == 200
    issued = root.post(reverse(ISSUE), {"user": owner.pk})
    assert issued.status_code == 200 and "no-store" in issued["Cache-Control"]
    token = ApiToken.objects.get(user=owner)
    text = (
        issued.content.decode()
        .split('<pre id="issued-token"')[1]
        .split(">", 1)[1]
        .split("</pre>")[0]
    )
    assert text.startswith(token.key_id) and len(text) == 60
    assert token_user(text) == owner
    assert APIClient(HTTP_AUTHORIZATION=f"Token {text}").get("/api/schema/").status_code == 200
    # never again: not on the list, not on the token's page
    assert text not in root.get(reverse(LIST)).content.decode()
    assert (
        text
        not in root.get(reverse("admin:audit_apitoken_change", args=[token.pk])).content.decode()
    )
    # a bad owner is the form again, nothing issued
    assert root.post(reverse(ISSUE), {"user": 999_999}).status_code == 200
    assert ApiToken.objects.filter(user=owner).count() == 1


def test_last_used_is_written_at_most_once_a_step() -> None:
    user = get_user_model().objects.create_user("terminal")
    issued = token_issue(user=user)
    start = datetime.now(UTC)
    token_user(issued.text, now=start)
    assert ApiToken.objects.get().last_used_at == start
    token_user(issued.text, now=start + LAST_USED_STEP - timedelta(seconds=1))
    assert ApiToken.objects.get().last_used_at == start
    token_user(issued.text, now=start + LAST_USED_STEP)
    assert ApiToken.objects.get().last_used_at == start + LAST_USED_STEP


def test_the_status_filter() -> None:
    now = datetime.now(UTC)
    user = get_user_model().objects.create_user("terminal")
    valid, revoked = token_issue(user=user), token_issue(user=user)
    expired = token_issue(user=user, now=now - timedelta(days=400))
    ApiToken.objects.filter(key_id=revoked.key_id).update(revoked_at=now)
    client = _person("carol", "compliance")
    for status, shown in (("valid", valid), ("expired", expired), ("revoked", revoked)):
        page = client.get(reverse(LIST), {"status": status}).content.decode()
        others = {valid.key_id, expired.key_id, revoked.key_id} - {shown.key_id}
        assert shown.key_id in page and not any(key in page for key in others), status
