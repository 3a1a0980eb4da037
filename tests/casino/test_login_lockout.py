"""Admin logins are throttled and locked out by django-axes: a readable page, 429 with
Retry-After, the right password refused too while locked; axes_reset unlocks."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command
from django.test import Client

pytestmark = pytest.mark.django_db

LOGIN = "/admin/login/?next=/admin/"


@pytest.fixture
def pit_boss(django_user_model):
    return django_user_model.objects.create_user(
        "pitboss", password="right-horse-battery", is_staff=True
    )


def _login(password: str, *, address: str = "198.51.100.20", username: str = "pitboss"):
    return Client(REMOTE_ADDR=address).post(LOGIN, {"username": username, "password": password})


def test_the_issues_attack_wrong_passwords_then_the_right_one_is_refused(
    pit_boss, settings
) -> None:
    """30 wrong passwords then the right one: the right one no longer logs in."""
    answers = [_login(f"wrong-{n}").status_code for n in range(30)]
    right = _login("right-horse-battery")

    limit = settings.AXES_FAILURE_LIMIT
    assert answers[: limit - 1] == [200] * (limit - 1)  # the form again, with its error
    assert set(answers[limit - 1 :]) == {429}
    assert right.status_code == 429
    assert "_auth_user_id" not in right.client.session


def test_the_lockout_page_is_readable(pit_boss, settings) -> None:
    """The page says what happened, for how long, and how to unlock; Retry-After set."""
    for n in range(settings.AXES_FAILURE_LIMIT):
        _login(f"wrong-{n}")
    locked = _login("right-horse-battery")

    text = locked.content.decode()
    assert locked.status_code == 429
    assert int(locked["Retry-After"]) == settings.AXES_COOLOFF_TIME.total_seconds()
    assert "Login locked for now" in text and "pitboss" in text
    assert f"{int(settings.AXES_COOLOFF_TIME.total_seconds() // 60)} minutes" in text
    assert "axes_reset_username pitboss" in text
    assert "Traceback" not in text


def test_the_user_name_is_locked_from_any_address(pit_boss, settings) -> None:
    """Guessing one person's password from many addresses locks the name."""
    for n in range(settings.AXES_FAILURE_LIMIT):
        _login(f"wrong-{n}", address=f"192.0.2.{n}")
    assert _login("right-horse-battery", address="192.0.2.200").status_code == 429


def test_a_success_before_the_limit_clears_the_count(pit_boss, settings) -> None:
    for n in range(settings.AXES_FAILURE_LIMIT - 1):
        _login(f"wrong-{n}")
    assert _login("right-horse-battery").status_code == 302
    assert _login("wrong-again").status_code == 200


def test_axes_reset_unlocks(pit_boss, settings) -> None:
    for n in range(settings.AXES_FAILURE_LIMIT):
        _login(f"wrong-{n}")
    assert _login("right-horse-battery").status_code == 429

    call_command("axes_reset_username", "pitboss", stdout=io.StringIO())
    call_command("axes_reset_ip", "198.51.100.20", stdout=io.StringIO())

    assert _login("right-horse-battery").status_code == 302
