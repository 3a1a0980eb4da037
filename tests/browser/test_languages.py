"""The back-office in Italian and in Czech, in a real browser: the person picks the
language in the header; Django's own screens and ours speak it; money, counts and dates
are written the locale's way. The expected texts are built here by hand from the stored
integers (Italian: ``.`` between thousands, ``,`` before the cents, ``€`` after; Czech:
a space between thousands, ``€`` or ``Kč`` after), not by the formatter under test."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command

from ledger.models import Reconciliation

from .conftest import ARTIFACTS

pytestmark = pytest.mark.django_db(transaction=True)

SYMBOL = {"EUR": "€", "CZK": "Kč"}


def plain(text: str) -> str:
    """Non-breaking and narrow spaces as plain ones: what a reader sees."""
    return text.replace("\xa0", " ").replace("\u202f", " ")


def italian_money(minor: int, currency: str) -> str:
    major, cents = divmod(abs(minor), 100)
    grouped = f"{major:,}".replace(",", ".")
    symbol = SYMBOL["EUR"] if currency == "EUR" else currency
    return f"{'-' if minor < 0 else ''}{grouped},{cents:02d} {symbol}"


def czech_money(minor: int, currency: str) -> str:
    major, cents = divmod(abs(minor), 100)
    grouped = f"{major:,}".replace(",", " ")
    return f"{'-' if minor < 0 else ''}{grouped},{cents:02d} {SYMBOL.get(currency, currency)}"


def choose(page, language: str) -> None:
    page.click(f"#language-chooser button[value={language}]")
    page.wait_for_selector(f'html[lang="{language}"]')


def counted_day() -> Reconciliation:
    """A table-day whose drop was counted: it has a handle and a hold to show."""
    row = (
        Reconciliation.objects.filter(shift="", drop_cash__isnull=False, handle__gt=100_000)
        .order_by("gaming_day", "table_id")
        .first()
    )
    assert row is not None
    return row


@pytest.mark.parametrize(
    ("language", "money", "day_format", "django_says"),
    [
        ("it", italian_money, "{d:%d}/{d:%m}/{d.year}", "Benvenuto"),
        ("cs", czech_money, "{d.day}. {d.month}. {d.year}", "Vítejte"),
    ],
)
def test_the_back_office_in_the_houses_languages(
    logged_in, live_server, tmp_path, language, money, day_format, django_says
):
    call_command(
        "demo", no_serve=True, rounds=30, live_bets=3, folder=str(tmp_path), stdout=io.StringIO()
    )
    page = logged_in
    base = live_server.url
    page.goto(f"{base}/admin/")
    choose(page, language)
    assert django_says in page.locator("#user-tools").text_content()
    assert (
        page.locator(f"#language-chooser button[value={language}][aria-current=true]").count() == 1
    )
    page.screenshot(path=str(ARTIFACTS / f"floor_{language}.png"), full_page=True)

    row = counted_day()
    page.goto(f"{base}/admin/ledger/reconciliation/{row.pk}/change/")
    text = plain(page.locator("#content").text_content())
    assert money(row.handle, row.currency) in text, (money(row.handle, row.currency), text[:2000])
    assert day_format.format(d=row.gaming_day) in text
    page.screenshot(path=str(ARTIFACTS / f"reconciliation_{language}.png"), full_page=True)

    # the choice is the person's: a new browser, asking for English, still gets it
    context = page.context.browser.new_context(locale="en-US")
    other = context.new_page()
    from .conftest import log_in

    log_in(other, live_server, "boss")
    assert other.locator("html").get_attribute("lang") == language
    context.close()
