"""The analytics' screens in Italian and in Czech (the browser's Accept-Language): their
words from the analytics' own catalogue, counts with the locale's thousands separator,
money by the one formatter in the locale, no English left in the headers; the CSV stays
machine-read, English and locale-free."""

from __future__ import annotations

import csv
import io

import pytest
from django.contrib.auth.models import User

from tables import models as m

from .store import DAY, simulated_into_store

pytestmark = pytest.mark.django_db

# the locale's separator of thousands (CLDR: a dot in Italian, a no-break space in Czech)
SEPARATOR = {"it": ".", "cs": "\xa0"}
WORDS = {
    "it": ("Riliquidazione ipotetica", "totale", "puntate", "La sala", "Analisi"),
    "cs": ("Přepočet výplat", "celkem", "sázky", "Herní sál", "Analýzy"),
}


@pytest.fixture
def pit(client, settings):
    simulated_into_store(settings, "languages", rounds=220)
    user = User.objects.create_user("pit", password="a-long-test-password", is_staff=True)
    client.force_login(user)
    return client


@pytest.mark.parametrize("language", ["it", "cs"])
def test_what_if_speaks_the_language_and_writes_its_figures(pit, language) -> None:
    bets = m.Bet.objects.filter(round__gaming_day=DAY, round__status="settled").count()
    assert bets >= 1000  # a count with a thousands separator
    answer = pit.get(
        f"/admin/analytics/what-if/?day={DAY}&natural_pays=6:5", HTTP_ACCEPT_LANGUAGE=language
    )
    text = answer.content.decode()
    assert answer.status_code == 200
    for word in WORDS[language]:
        assert word in text, word
    thousands, rest = divmod(bets, 1000)
    assert f"{thousands}{SEPARATOR[language]}{rest:03d}" in text  # the day's bets, in total
    assert "EUR " not in text and "€" in text  # money in the locale's form, not the ISO code's
    for english in ("What if: per table", "bets paid otherwise", "The floor", ">total<"):
        assert english not in text, english

    answer = pit.get(
        f"/admin/analytics/what-if.csv?day={DAY}&natural_pays=6:5", HTTP_ACCEPT_LANGUAGE=language
    )
    rows = list(csv.DictReader(io.StringIO(answer.content.decode())))
    assert sum(int(r["bets"]) for r in rows if r["table"] != "total") == bets


@pytest.mark.parametrize("language", ["it", "cs"])
def test_every_screen_and_the_index_in_the_language(pit, language) -> None:
    index = pit.get("/admin/analytics/", HTTP_ACCEPT_LANGUAGE=language).content.decode()
    assert WORDS[language][4] in index and "Counter detection" not in index
    for name in ("counters", "accuracy", "dealers"):
        text = pit.get(
            f"/admin/analytics/{name}/?day={DAY}", HTTP_ACCEPT_LANGUAGE=language
        ).content.decode()
        assert WORDS[language][3] in text and "gaming day" not in text, name
    apps = pit.get("/admin/apps/", HTTP_ACCEPT_LANGUAGE=language).content.decode()
    assert WORDS[language][4] in apps and "Analytics:" not in apps


@pytest.mark.parametrize("language", ["it", "cs"])
def test_the_api_answers_in_english_whatever_the_browser_asks(pit, language) -> None:
    body = pit.get(f"/api/analytics/counters?day={DAY}", HTTP_ACCEPT_LANGUAGE=language).json()
    assert body["title"] == "Counter detection: bet against the Hi-Lo true count"
    assert [c["title"] for c in body["columns"]][:2] == ["player", "table"]
    answer = pit.get(f"/api/analytics/what-if?day={DAY}&table=BJ-99", HTTP_ACCEPT_LANGUAGE=language)
    assert answer.status_code == 404  # a table that did not play, in any language
    assert "did not play" in answer.content.decode()
