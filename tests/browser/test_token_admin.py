"""The API tokens' screen in a real browser at 1400 px: a superuser issues a token for a
device, sees its text once, and the list shows it by key id with its table."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from audit.access.devices import device_ensure
from audit.models import ApiToken
from tests.browser.conftest import ARTIFACTS, PASSWORD, log_in

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_superuser_issues_a_token_and_the_list_shows_it_without_its_secret(
    live_server, page
) -> None:
    get_user_model().objects.create_superuser("root", "root@example.com", PASSWORD)
    device = device_ensure(stream="BJ-03")
    terminal = device.account.user
    log_in(page, live_server, "root")
    page.goto(f"{live_server.url}/admin/audit/apitoken/add/")
    page.select_option("#id_user", str(terminal.pk))
    page.click("input[type=submit]")
    text = page.inner_text("#issued-token").strip()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "api-token-issued.png"), full_page=True)
    assert len(text) == 60 and ApiToken.objects.filter(key_id=text[:12]).exists()
    page.goto(f"{live_server.url}/admin/audit/apitoken/")
    body = page.inner_text("#changelist")
    assert text not in body and device.token not in body
    assert text[:12] in body and "BJ-03" in body and body.count("valid") >= 2
