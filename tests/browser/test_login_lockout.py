"""The admin's lockout page in a real browser: after the failed logins, the right
password shows the page that says why and how long (screenshot in artifacts/)."""

from __future__ import annotations

import pytest

from .conftest import PASSWORD

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_locked_out_login_shows_a_readable_page(
    page, live_server, django_user_model, settings
) -> None:
    django_user_model.objects.create_user("pitboss", password=PASSWORD, is_staff=True)
    for n in range(settings.AXES_FAILURE_LIMIT):
        page.goto(f"{live_server.url}/admin/login/")
        page.fill("#id_username", "pitboss")
        page.fill("#id_password", f"wrong-{n}")
        page.click("input[type=submit]")

    page.goto(f"{live_server.url}/admin/login/")
    page.fill("#id_username", "pitboss")
    page.fill("#id_password", PASSWORD)
    with page.expect_response(
        lambda r: r.url.startswith(f"{live_server.url}/admin/login/")
    ) as answer:
        page.click("input[type=submit]")

    assert answer.value.status == 429
    assert page.locator("h1").inner_text() == "Login locked for now"
    assert "axes_reset_username pitboss" in page.locator("#content-main").inner_text()
    assert page.locator("#user-tools").count() == 0
