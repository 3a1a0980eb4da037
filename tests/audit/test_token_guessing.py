"""Token guessing is throttled per client address, and every caller's rate is bounded
(audit.access.authentication, DRF's UserRateThrottle)."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from audit.access.authentication import guessing_record_failure, guessing_wait
from audit.access.devices import device_ensure

pytestmark = pytest.mark.django_db

T7 = "/api/streams/T7/events"


def _get(token: str, address: str = "203.0.113.7", **headers: str):
    client = APIClient(REMOTE_ADDR=address)
    return client.get(T7, HTTP_AUTHORIZATION=f"Token {token}", **headers)


def test_an_address_that_fails_too_often_gets_429_with_retry_after(settings) -> None:
    """After TOKEN_FAILURES_MAX bad tokens in the window, that address gets 429 JSON
    with Retry-After - even with a good token (or a guesser would learn which was right);
    another address is not affected."""
    settings.TOKEN_FAILURES_MAX = 5
    settings.TOKEN_FAILURES_WINDOW_SECONDS = 600
    good = device_ensure(stream="T7").token

    answers = [_get(f"{n:060x}").status_code for n in range(5)]
    assert answers == [401] * 5

    refused = _get(good)
    assert refused.status_code == 429
    assert refused.json()["code"] == "token_guessing"
    assert 1 <= int(refused["Retry-After"]) <= 600
    assert _get(good, address="203.0.113.8").status_code == 200


def test_a_hundred_quick_guesses_are_mostly_refused_unread(settings) -> None:
    """The issue's attack: 100 guesses in a burst; from the default limit on, 429."""
    answers = [_get(f"{n:060x}").status_code for n in range(100)]
    assert answers.count(401) == settings.TOKEN_FAILURES_MAX
    assert answers.count(429) == 100 - settings.TOKEN_FAILURES_MAX


def test_failures_leave_the_window(settings) -> None:
    """The address may try again once its oldest failure is older than the window."""
    settings.TOKEN_FAILURES_MAX = 2
    settings.TOKEN_FAILURES_WINDOW_SECONDS = 60
    guessing_record_failure("198.51.100.1", now=1000.0)
    guessing_record_failure("198.51.100.1", now=1030.0)

    assert guessing_wait("198.51.100.1", now=1030.0) == pytest.approx(30.0)
    assert guessing_wait("198.51.100.1", now=1061.0) is None


def test_good_tokens_do_not_count(settings) -> None:
    settings.TOKEN_FAILURES_MAX = 2
    good = device_ensure(stream="T7").token
    assert [_get(good).status_code for _ in range(5)] == [200] * 5


def test_the_proxys_address_counts_only_when_trusted(settings) -> None:
    """Without TRUST_PROXY_HEADERS a guesser cannot dodge the count by sending a new
    X-Forwarded-For each time; with it, each forwarded client is counted on its own."""
    settings.TOKEN_FAILURES_MAX = 3
    spoofed = [_get(f"{n:060x}", HTTP_X_FORWARDED_FOR=f"192.0.2.{n}").status_code for n in range(5)]
    assert spoofed == [401, 401, 401, 429, 429]

    settings.TRUST_PROXY_HEADERS = True
    forwarded = [
        _get(f"{n:060x}", HTTP_X_FORWARDED_FOR=f"192.0.2.{n}").status_code for n in range(5)
    ]
    assert forwarded == [401] * 5


def test_an_authenticated_caller_is_throttled_too(settings) -> None:
    """Every caller, device or person, at most API_REQUESTS_PER_MINUTE: then 429 JSON."""
    settings.API_REQUESTS_PER_MINUTE = 3
    good = device_ensure(stream="T7").token

    answers = [_get(good) for _ in range(4)]

    assert [a.status_code for a in answers] == [200, 200, 200, 429]
    assert answers[-1].json()["code"] == "throttled" and int(answers[-1]["Retry-After"]) >= 1
