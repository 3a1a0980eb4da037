"""A finding's page and a round's recall as a compliance officer reads them, in a real
browser at 1400 px (screenshots in artifacts/): the finding says its kind in words and
folds its fingerprint away; the recall shows each event's payload as named fields with
money formatted."""

from __future__ import annotations

import re

import pytest

from audit.integrity import digests
from audit.models import Finding
from audit.record.findings import KINDS
from tables.replay_service import replay_table
from tests.back_office.helpers import DAY, append, dealt, plant_short_pay
from tests.browser.conftest import ARTIFACTS, log_in

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def officer(page, live_server, django_user_model):
    django_user_model.objects.create_superuser("officer", password="a-long-test-password")
    return log_in(page, live_server, "officer")


def test_a_finding_and_its_rounds_recall_read_as_pages(officer, live_server, settings):
    settings.PROJECT_ON_APPEND = False
    events = dealt("hoyle", rounds=8)
    fault = plant_short_pay(events)
    append("T1", events)
    replay_table(stream="T1")
    digests.digest_sign()
    finding = Finding.objects.get()
    tab = officer

    tab.goto(f"{live_server.url}/admin/audit/finding/{finding.pk}/change/")
    summary = tab.locator(".finding-summary").inner_text()
    assert KINDS["wrong_payout"].title in summary and "wrong_payout" not in summary
    details = tab.locator("details.finding-details")
    assert not details.locator("td").first.is_visible()  # folded
    assert not re.search(r"[0-9a-f]{64}", tab.locator(".finding-summary").inner_text())
    tab.screenshot(path=str(ARTIFACTS / "finding_page.png"), full_page=True)
    details.locator("summary").click()
    assert finding.fingerprint in details.inner_text()
    tab.screenshot(path=str(ARTIFACTS / "finding_page_details.png"), full_page=True)

    tab.goto(f"{live_server.url}/admin/recall/T1/{DAY.isoformat()}/{fault['round']}/")
    assert f"round {fault['round']}" in tab.locator("h1").inner_text()
    tab.screenshot(path=str(ARTIFACTS / "recall_page.png"), full_page=True)


def test_the_finding_and_the_recall_in_italian_and_czech(
    browser, live_server, django_user_model, settings
):
    """The same pages for a browser that asks for Italian, then Czech: the kind's title,
    the severity, the event types and the money in the language (€ after the amount,
    a decimal comma)."""
    settings.PROJECT_ON_APPEND = False
    events = dealt("hoyle", rounds=8)
    fault = plant_short_pay(events)
    append("T1", events)
    replay_table(stream="T1")
    django_user_model.objects.create_superuser("officer", password="a-long-test-password")
    finding = Finding.objects.get()
    right = fault["right"]
    amount = f"{right // 100},{right % 100:02d}"
    for language, title, dealt_title, placed in (
        ("it-IT", "Pagamento errato", "Carta distribuita", "Puntata piazzata"),
        ("cs-CZ", "Chybná výplata", "Karta rozdána", "Sázka vsazena"),
    ):
        context = browser.new_context(viewport={"width": 1400, "height": 900}, locale=language)
        tab = log_in(context.new_page(), live_server, "officer")
        tab.goto(f"{live_server.url}/admin/audit/finding/{finding.pk}/change/")
        summary = tab.locator(".finding-summary").inner_text()
        assert title in summary and "wrong_payout" not in summary
        assert amount in summary.replace("\xa0", " ")
        tab.screenshot(path=str(ARTIFACTS / f"finding_page_{language[:2]}.png"), full_page=True)
        tab.goto(f"{live_server.url}/admin/recall/T1/{DAY.isoformat()}/{fault['round']}/")
        events_text = tab.locator("table.events").inner_text()
        assert dealt_title in events_text and placed in events_text
        assert "Card dealt" not in events_text and "\u20ac" in events_text
        tab.screenshot(path=str(ARTIFACTS / f"recall_page_{language[:2]}.png"), full_page=True)
        context.close()
