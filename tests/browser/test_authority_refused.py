"""A person whose authority no longer holds its seal, in a real browser: a session is
answered with a page saying why and offering to log out, and the login form says why
instead of logging in (screenshots in artifacts/)."""

from __future__ import annotations

import pytest
from django.contrib.auth.hashers import make_password

from .conftest import ARTIFACTS, PASSWORD

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_session_is_refused_with_a_page_that_says_why(
    pit_boss, live_server, django_user_model
) -> None:
    django_user_model.objects.filter(username="pitboss").update(is_superuser=True)
    with pit_boss.expect_response(lambda r: r.url == f"{live_server.url}/admin/") as answer:
        pit_boss.goto(f"{live_server.url}/admin/")
    assert answer.value.status == 403
    assert (
        pit_boss.locator("h1").inner_text()
        == "Refused: this account's authority does not hold its seal"
    )
    said = pit_boss.locator(".errornote").inner_text()
    assert (
        "The authority of pitboss does not hold its seal" in said
        and "superuser: no when sealed, yes now" in said
    )
    assert pit_boss.locator("#user-tools").count() == 0
    ARTIFACTS.mkdir(exist_ok=True)
    pit_boss.screenshot(path=str(ARTIFACTS / "authority_refused_session.png"), full_page=True)
    pit_boss.click("input[type=submit]")
    pit_boss.goto(f"{live_server.url}/admin/")
    assert "/admin/login/" in pit_boss.url  # logged out


def test_the_login_form_says_why_and_logs_no_one_in(page, live_server, django_user_model) -> None:
    django_user_model.objects.create_user("pitboss", password=PASSWORD, is_staff=True)
    django_user_model.objects.filter(username="pitboss").update(
        password=make_password("known-to-the-role")
    )
    page.goto(f"{live_server.url}/admin/login/")
    page.fill("#id_username", "pitboss")
    page.fill("#id_password", "known-to-the-role")
    page.click("input[type=submit]")
    said = page.locator(".errornote").inner_text()
    assert "The authority of pitboss does not hold its seal" in said and "the password hash" in said
    assert page.locator("#user-tools").count() == 0
