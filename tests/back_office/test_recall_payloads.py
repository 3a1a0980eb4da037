"""The recall shows each event's payload as named fields, money as money: every amount
computed here from the stored payload's minor units, never JSON on the page (the stored
form only in its fold)."""

from __future__ import annotations

import re
from html import unescape

import pytest

from audit.models import Event
from audit.presenting.payloads import payload_fields

from .helpers import DAY

pytestmark = pytest.mark.django_db


def _eur(minor: int, *, signed: bool = False) -> str:
    """The English money text, made here from the integer (not by the formatter)."""
    sign = "-" if minor < 0 else ("+" if signed and minor > 0 else "")
    return f"{sign}EUR {abs(minor) // 100:,}.{abs(minor) % 100:02d}"


def test_the_recall_shows_payloads_as_named_fields_with_money(admin_client, fault):
    html = admin_client.get(
        f"/admin/recall/T1/{DAY.isoformat()}/{fault['round']}/"
    ).content.decode()
    page = re.sub(r'<details class="raw">.*?</details>', "", html, flags=re.DOTALL)
    text = re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", page)))
    bets = Event.objects.filter(stream="T1", type="bet.placed", payload__round=fault["round"])
    assert bets.exists()
    for bet in bets:
        assert f"Amount: {_eur(bet.payload['amount'])}" in text
        assert f"Bet: {bet.payload['bet']}" in text
    settled = Event.objects.get(stream="T1", type="round.settled", payload__round=fault["round"])
    for s in settled.payload["settlements"]:
        assert _eur(s["net"], signed=True) in text
    assert "Bet placed" in text and "Round settled" in text  # titles, not bet.placed
    assert "bet.placed" not in text and '"amount"' not in page  # no JSON outside the fold
    assert "&quot;amount&quot;" in html  # the stored form, folded


def test_flags_are_words_and_missing_values_n_a_and_the_payloads_currency_wins():
    fields = dict(
        payload_fields(
            "table.opened",
            1,
            {
                "table": "BJ-09",
                "ruleset": "hoyle",
                "min_bet": 1250,
                "max_bet": 500000,
                "currency": "CZK",
                "gaming_day": "2026-11-29",
                "rules": {"das": True, "h17": False},
            },
            "EUR",
        )
    )
    assert fields["minimum bet"] == "CZK 12.50" and fields["maximum bet"] == "CZK 5,000.00"
    assert fields["rule changes"] == "das: yes; h17: no"
    dealt = dict(
        payload_fields(
            "card.dealt",
            1,
            {"round": 3, "box": None, "hand": None, "card": "TD", "face": "down"},
            "EUR",
        )
    )
    assert dealt == {"to": "the dealer", "round": "3", "card": "10\u2666", "face": "face down"}
    placed = dict(
        payload_fields(
            "bet.placed",
            1,
            {
                "round": 3,
                "bet": "b1",
                "box": 1,
                "hand": 0,
                "player": None,
                "amount": 5,
                "kind": "main",
            },
            "EUR",
        )
    )
    assert placed["player"] == "n/a" and placed["amount"] == "EUR 0.05"
    assert placed["belongs to bet"] == "n/a"  # v1 lifted to v2: parent put back as none
