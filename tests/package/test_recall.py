"""Game recall (AGCO 13.1): a round's printable report, HTML and PDF, from the admin and
the API - the round review's data and the offline recall's content: cards, bets,
decisions, settlements recorded and recomputed (a short pay marked), the chain, the
inclusion proof of the round's last event in the signed head, checked."""

from __future__ import annotations

import io
import time
from datetime import UTC, datetime

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from pypdf import PdfReader
from rest_framework.test import APIClient

from audit.feed.subscribers import catch_up_all
from audit.integrity import digests
from regulator.recall import recall_context
from regulator.recall_pdf import recall_pdf
from tables.models import Round
from tests.back_office.helpers import DAY, append, dealt, plant_short_pay
from tests.groups import group_named

pytestmark = pytest.mark.django_db


@pytest.fixture
def short_paid(settings) -> dict:
    settings.PROJECT_ON_APPEND = False
    events = dealt(rounds=6, table="T1")
    fault = plant_short_pay(events)
    append("T1", events)
    catch_up_all()
    digests.digest_sign()
    return fault


def _person(role: str) -> tuple[APIClient, Client]:
    user = get_user_model().objects.create_user(f"r-{role}", is_staff=True)
    user.groups.add(group_named(role))
    api, page = APIClient(), Client()
    api.force_login(user)
    page.force_login(user)
    return api, page


def test_the_recall_page_shows_the_round_its_short_pay_and_its_proof(short_paid) -> None:
    _, page = _person("compliance")
    number = short_paid["round"]
    html = page.get(f"/admin/recall/T1/{DAY}/{number}/")
    assert html.status_code == 200, html.content[:500]
    text = html.content.decode()
    bet = short_paid["bet"]
    for part in (
        f"Game recall - round {number}, table T1, gaming day {DAY}",
        "Card dealt",  # event types by their titles in the catalogue
        "Bet placed",
        "Round settled",
        "DIFFERS",
        bet,
        "EUR ",
        "intact",
        "is in the signed head",
        "@media print",
        f"/admin/recall/T1/{DAY}/{number}.pdf",
        "blackjack-audit round PACKAGE T1",
    ):
        assert part in text, part
    row = Round.objects.get(table__stream="T1", number=number)
    assert f"{row.handle // 100:,}." in text  # the handle, by the one money formatter
    signed = digests.latest_signed()
    assert signed is not None and f"of {signed.size:,} events, root" in text  # a count people read
    # the review page links it
    review = page.get(f"/admin/tables/round/T1/{DAY}/{number}/")
    assert f"/admin/recall/T1/{DAY}/{number}/" in review.content.decode()


def test_the_pdf_says_what_the_page_says(short_paid) -> None:
    api, page = _person("regulator")
    number = short_paid["round"]
    for response in (
        page.get(f"/admin/recall/T1/{DAY}/{number}.pdf"),
        api.get(f"/api/rounds/T1/{DAY}/{number}/recall.pdf"),
    ):
        assert response.status_code == 200 and response["Content-Type"] == "application/pdf"
        text = "\n".join(p.extract_text() for p in PdfReader(io.BytesIO(response.content)).pages)
        for part in (
            f"round {number}, table T1",
            "Card dealt",
            "Round settled",
            "DIFFERS",
            short_paid["bet"],
            "EUR ",
            "is in the signed head",
            "intact",
        ):
            assert part in text, part


def test_the_api_gives_html_and_refuses_what_it_should(short_paid) -> None:
    api, _ = _person("pit_boss")
    number = short_paid["round"]
    html = api.get(f"/api/rounds/T1/{DAY}/{number}/recall.html")
    assert html.status_code == 200 and html["Content-Type"].startswith("text/html")
    assert b"DIFFERS" in html.content
    missing = api.get(f"/api/rounds/T1/{DAY}/999/recall.html")
    assert missing.status_code == 404 and missing.json()["code"] == "not_found"
    assert api.get(f"/api/rounds/T1/2026-13-40/{number}/recall.pdf").status_code == 404
    assert APIClient().get(f"/api/rounds/T1/{DAY}/{number}/recall.pdf").status_code == 401
    _, page = _person("accounting")
    assert page.get(f"/admin/recall/T1/{DAY}/{number}/").status_code == 403


def test_a_round_after_the_signed_head_says_so(settings) -> None:
    settings.PROJECT_ON_APPEND = False
    append("T1", dealt(rounds=2, table="T1"))
    catch_up_all()
    _, page = _person("compliance")
    text = page.get(f"/admin/recall/T1/{DAY}/1/").content.decode()
    assert "no signed head covers the round yet" in text


def test_the_same_round_gives_the_same_pdf_bytes_whenever_it_is_printed(short_paid) -> None:
    """fpdf2 would stamp the second of printing (and hash it into the /ID): the recall
    is dated by the round's own last event instead."""
    api, page = _person("regulator")
    number = short_paid["round"]
    first = page.get(f"/admin/recall/T1/{DAY}/{number}.pdf").content
    time.sleep(1.1)  # the next print falls in another second of the clock
    second = api.get(f"/api/rounds/T1/{DAY}/{number}/recall.pdf").content
    assert first == second
    context = recall_context("T1", DAY, number)
    assert context is not None and recall_pdf(context) == first
    made = PdfReader(io.BytesIO(first)).metadata.creation_date
    assert made == datetime.fromisoformat(context["last"]["at"].removesuffix("Z")).replace(
        tzinfo=UTC, microsecond=0
    )
