"""The back-office in English, Italian and Czech: the page's language from the person's
choice, else the browser's; money, counts, rates and dates written the locale's way.
The expected texts are written out by hand from CLDR's conventions (Italian: ``.`` between
thousands, ``,`` before decimals, the symbol after; Czech: a non-breaking space between
thousands, ``Kč``), not computed by the code under test."""

from __future__ import annotations

import datetime as dt
from fractions import Fraction

import pytest
from django.template import Context, Template
from django.utils import translation

from audit.record import money
from casino.models import LanguagePreference

NBSP = "\xa0"


@pytest.mark.parametrize(
    ("locale", "amount", "currency", "expected"),
    [
        (None, 123456, "EUR", "EUR 1,234.56"),
        ("en", -123456, "EUR", "-EUR 1,234.56"),
        ("it", 123456, "EUR", f"1.234,56{NBSP}€"),
        ("it", -2500, "EUR", f"-25,00{NBSP}€"),
        ("cs", 123456, "CZK", f"1{NBSP}234,56{NBSP}Kč"),
        ("cs", 123456789, "EUR", f"1{NBSP}234{NBSP}567,89{NBSP}€"),
        ("it", 1235, "JPY", f"1.235{NBSP}JPY"),
        ("it", 1234567, "KWD", f"1.234,567{NBSP}KWD"),
    ],
)
def test_money_in_each_locale(locale, amount, currency, expected) -> None:
    with money.in_locale(locale):
        assert money.format_money(amount, currency) == expected


def test_signed_counts_rates_and_missing_figures_in_each_locale() -> None:
    with money.in_locale("it"):
        assert money.format_signed(4000, "EUR") == f"+40,00{NBSP}€"
        assert money.format_number(1234567) == "1.234.567"
        assert money.percent(Fraction(1, 8)) == "12,5%"
        assert money.percent(Fraction(-1, 3)) == "-33,3%"
        assert money.percent(None) == "n/d"
        assert money.money_text(None, "EUR", none="n/a") == "n/d"
    with money.in_locale("cs"):
        assert money.format_number(1234567) == f"1{NBSP}234{NBSP}567"
        assert money.percent(Fraction(1, 8)) == f"12,5{NBSP}%"
        assert money.percent(Fraction(2, 3), digits=2) == f"66,67{NBSP}%"
        assert money.percent(None) == "n/a"
    # outside a locale: the ISO code form the commands and the CSVs print
    assert money.format_money(123456, "EUR") == "EUR 1,234.56"
    assert money.percent(Fraction(1, 8)) == "12.5%"
    assert money.active_locale() is None


def test_the_display_filters_write_the_template_language() -> None:
    template = Template(
        "{% load display %}{{ a|money:'EUR' }}|{{ r|signed_money:'CZK' }}|{{ n|number }}"
        "|{{ d|day }}|{{ t|when }}|{{ none|money:'EUR' }}"
    )
    moment = dt.datetime(2026, 11, 29, 13, 5, tzinfo=dt.UTC)  # 14:05 in Rome
    context = Context(
        {"a": 123456, "r": -700, "n": 48210, "d": dt.date(2026, 11, 29), "t": moment, "none": None}
    )
    texts = {}
    for language in ("en", "it", "cs"):
        with translation.override(language):
            texts[language] = [
                part.removeprefix('<span class="nowrap">').removesuffix("</span>")
                for part in template.render(context).split("|")
            ]
    assert texts["en"] == [
        "EUR 1,234.56",
        "-CZK 7.00",
        "48,210",
        "2026-11-29",
        "2026-11-29 14:05",
        "n/a",
    ]
    assert texts["it"] == [
        f"1.234,56{NBSP}€",
        f"-7,00{NBSP}CZK",
        "48.210",
        "29/11/2026",
        "29/11/2026 14:05",
        "n/d",
    ]
    assert texts["cs"] == [
        f"1{NBSP}234,56{NBSP}€",
        f"-7,00{NBSP}Kč",
        f"48{NBSP}210",
        "29. 11. 2026",
        "29. 11. 2026 14:05",
        "n/a",
    ]


@pytest.mark.django_db
def test_the_browser_language_chooses_the_page_language(client) -> None:
    italian = client.get("/admin/login/", HTTP_ACCEPT_LANGUAGE="it-IT,it;q=0.9")
    assert italian["Content-Language"] == "it"
    assert "Nome utente" in italian.content.decode()
    czech = client.get("/admin/login/", HTTP_ACCEPT_LANGUAGE="cs")
    assert czech["Content-Language"] == "cs"
    assert "Uživatel" in czech.content.decode()
    other = client.get("/admin/login/", HTTP_ACCEPT_LANGUAGE="de")
    assert other["Content-Language"] == "en"


@pytest.mark.django_db
def test_a_persons_choice_wins_over_the_browser_and_is_kept(client, django_user_model) -> None:
    person = django_user_model.objects.create_user(
        "ana", password="a-long-test-password", is_staff=True
    )
    client.force_login(person)
    answer = client.post("/language/", {"language": "cs", "next": "/admin/password_change/"})
    assert answer.status_code == 302 and answer["Location"] == "/admin/password_change/"
    assert LanguagePreference.objects.get(user=person).language == "cs"
    client.cookies.clear()  # another browser, asking for Italian: the person's choice still wins
    client.force_login(person)
    page = client.get("/admin/password_change/", HTTP_ACCEPT_LANGUAGE="it")
    assert page["Content-Language"] == "cs"
    assert 'lang="cs"' in page.content.decode()


@pytest.mark.django_db
def test_an_unknown_language_or_a_foreign_next_is_refused_or_ignored(client) -> None:
    refused = client.post("/language/", {"language": "xx"})
    assert refused.status_code == 400
    assert "Unknown language 'xx'" in refused.content.decode()
    elsewhere = client.post("/language/", {"language": "it", "next": "https://example.com/"})
    assert elsewhere.status_code == 302 and elsewhere["Location"] == "/admin/"
    assert client.get("/language/").status_code == 405


@pytest.mark.django_db
def test_the_favicon_is_served(client) -> None:
    answer = client.get("/favicon.ico")
    assert answer.status_code == 301 and answer["Location"].endswith("casino/favicon.svg")
    assert client.get(answer["Location"]).status_code == 200
