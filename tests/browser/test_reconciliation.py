"""Accounting's reconciliation page in a real browser: a table-day whose closer is 50.00
short, appended and followed by the ledger; the four wins side by side, the variance
highlighted with what explains the rest, sign-off from the page; every ledger screen
looked at (screenshots in artifacts/)."""

from __future__ import annotations

from datetime import date

import pytest

from audit.feed.subscribers import catch_up
from audit.models import Event
from audit.record.findings import KINDS
from ledger import models as m
from tests.back_office.helpers import append
from tests.browser.conftest import member_of
from tests.ledger.conftest import fake_game  # noqa: F401 - the fixture, shared
from tests.ledger.helpers import DAY, worked_example

pytestmark = pytest.mark.django_db(transaction=True)

PAGE = f"/admin/ledger/reconciliation/BJ-01/{DAY}/"


@pytest.fixture
def accountant(page, live_server, django_user_model):
    """A page logged in to the admin as a member of the accounting group."""
    return member_of(
        ("ledger.migrations.0002_accounting_group",), "carol", page, live_server, django_user_model
    )


def _artifacts():
    from tests.browser.conftest import ARTIFACTS

    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS


def test_an_accountant_reads_a_short_day_and_signs_it_off(
    accountant,
    live_server,
    settings,
    fake_game,  # noqa: F811 - the fixture imported above
):
    settings.PROJECT_ON_APPEND = False
    t = worked_example()
    t.fill("F-2", {5_000: 10}, steps=("requested", "issued"))
    t.void("fill", "F-2", reason="tray had enough 50s")
    t.open("2026-11-30")
    t.count("opening", {100_000: 18}, day="2026-11-30")
    t.marker("M-7", 100_000)  # the next day: a marker, so that the markers' list has one
    closer = next(
        e
        for e in t.events
        if e["type"] == "inventory.counted" and e["payload"]["kind"] == "closing"
    )
    closer["payload"]["chips"] = [
        {"denomination": 100_000, "count": 17},
        {"denomination": 500, "count": 190},
    ]
    fake_game.record(t.code, t.events)
    append(t.code, t.events)
    catch_up("ledger.books")
    page = accountant

    # from the list, the day not explained, to its page
    page.goto(f"{live_server.url}/admin/ledger/reconciliation/?unexplained=yes")
    assert page.locator("#result_list tbody tr").count() == 1
    page.screenshot(path=str(_artifacts() / "ledger_reconciliations.png"), full_page=True)
    page.click("#result_list tbody tr th a")
    assert PAGE in page.url

    # the four wins side by side, then drop and hold
    labels = page.locator("#figures .figure .label").all_inner_texts()
    assert [label.lower() for label in labels] == [
        "chip-count win",
        "recorded win",
        "replayed win",
        "theoretical win",
        "drop / hold",
    ]
    amounts = page.locator("#figures .figure .amount").all_inner_texts()
    assert amounts == [
        "+EUR 3,950.00",
        "+EUR 4,000.00",
        "+EUR 4,000.00",
        "+EUR 30.00",
        "EUR 9,000.00",
    ]
    assert page.locator("#hold").inner_text() == "43.9%"
    boxes = [page.locator(f"#figure-{i}").bounding_box() for i in range(1, 5)]
    assert len({round(b["y"]) for b in boxes}) == 1  # side by side, one row at 1400 px

    # the chip variance highlighted, the replay one explained
    row = page.locator("#variance-chip")
    assert "unexplained" in row.get_attribute("class")
    assert "-EUR 50.00" in row.inner_text() and "not explained" in row.inner_text()
    background = row.locator("td").first.evaluate("e => getComputedStyle(e).backgroundColor")
    assert background == "rgb(255, 227, 227)"
    assert "unexplained" not in (page.locator("#variance-replay").get_attribute("class") or "")
    # the finding's kind by its title in the one vocabulary, never its code
    assert page.locator('#findings tr.finding[data-kind="chip_variance"]').count() == 1
    assert KINDS["chip_variance"].title in page.locator("#findings").inner_text()
    assert "chip_variance" not in page.locator("#findings").inner_text()
    assert "voided (tray had enough 50s)" in page.locator("#slip-F-2").inner_text()
    assert page.locator("#balance-total").inner_text() == "EUR 0.00"
    page.screenshot(path=str(_artifacts() / "ledger_reconciliation.png"), full_page=True)

    # sign-off: a variance not explained needs a note
    page.click("#sign-off-button")
    assert "needs a note" in page.locator("ul.messagelist").inner_text()
    page.fill("#note", "50.00 short: security report S-12 filed")
    page.click("#sign-off-button")
    assert "signed off" in page.locator("ul.messagelist").inner_text()
    assert "signed off by carol" in page.locator("#sign-off-state").inner_text()
    assert page.locator("#reopen").count() == 1
    assert Event.objects.filter(stream="audit.ledger", type="ledger.signed_off").count() == 1
    assert m.SignOff.objects.get().note == "50.00 short: security report S-12 filed"
    page.screenshot(path=str(_artifacts() / "ledger_signed_off.png"), full_page=True)

    # the other screens, looked at as an accountant would
    page.goto(f"{live_server.url}/admin/ledger/reconciliation/reports/?from={DAY}&to=2026-11-30")
    assert page.locator("svg.win-band circle.day").count() == 2
    assert page.locator("svg.hold-by-table rect.hold").count() == 1
    assert "43.9%" in page.locator("#report-hold").inner_text()
    page.screenshot(path=str(_artifacts() / "ledger_reports.png"), full_page=True)
    for name, url in (
        ("slips", "slip"),
        ("inventory_slips", "inventoryslip"),
        ("drops", "dropbox"),
        ("markers", "marker"),
        ("sign_offs", "signoff"),
        ("tables", "ledgertable"),
    ):
        page.goto(f"{live_server.url}/admin/ledger/{url}/")
        assert page.locator("#result_list tbody tr").count() >= 1, name
        page.screenshot(path=str(_artifacts() / f"ledger_{name}.png"), full_page=True)
        if name == "slips":
            assert "EUR 5,000.00" in page.locator("#result_list").inner_text()


def test_an_incomplete_day_is_refused_without_a_note_then_signed_and_its_record_read(
    accountant,
    live_server,
    settings,
    fake_game,  # noqa: F811 - the fixture imported above
):
    """The worked example with no closing count, the next day opened: the list says
    "incomplete: no closing count" (never "reconciled"), the page says what is missing and
    why the chip-count win is not computed, sign-off without a note is refused naming it,
    with a note it is signed, and the sign-off record reads as money, who and when, the
    state and what the note signed over - no JSON, no cents."""
    settings.PROJECT_ON_APPEND = False
    t = worked_example()
    t.events = [
        e
        for e in t.events
        if not (e["type"] == "inventory.counted" and e["payload"]["kind"] == "closing")
    ]
    t.open("2026-11-30")
    t.count("opening", {100_000: 18}, day="2026-11-30")
    fake_game.record(t.code, t.events)
    append(t.code, t.events)
    catch_up("ledger.books")
    page = accountant

    page.goto(f"{live_server.url}/admin/ledger/reconciliation/?state=incomplete")
    assert page.locator("#result_list tbody tr").count() == 1
    assert (
        page.locator("#result_list tbody tr .state").inner_text() == "incomplete: no closing count"
    )
    page.screenshot(
        path=str(_artifacts() / "ledger_reconciliations_incomplete.png"), full_page=True
    )
    page.click("#result_list tbody tr th a")
    assert PAGE in page.url
    assert page.locator("#state").inner_text() == "incomplete: no closing count"
    assert page.locator("#figure-1 .amount").inner_text() == "n/a"
    assert page.locator("#figure-1 .note").inner_text() == "not computed: no closing count"
    assert page.locator('#findings tr.finding[data-kind="closer_missing"]').count() == 1
    assert KINDS["closer_missing"].title in page.locator("#findings").inner_text()
    assert page.locator("#exceptions").inner_text() == (
        "Signing this day off needs a note saying why: no closing count."
    )
    page.screenshot(path=str(_artifacts() / "ledger_incomplete_day.png"), full_page=True)

    page.click("#sign-off-button")
    refused = page.locator("ul.messagelist").inner_text()
    assert (
        "BJ-01 2026-11-29 is incomplete: no closing count. Signing it off needs a note saying why."
        in refused
    )
    assert (
        not m.SignOff.objects.exists() and not Event.objects.filter(stream="audit.ledger").exists()
    )
    page.fill("#note", "closer slip lost; tray recounted at the next opening (18,000.00)")
    page.click("#sign-off-button")
    assert "signed off by carol" in page.locator("#sign-off-state").inner_text()
    assert (
        page.locator("#signed-exceptions").inner_text()
        == "Signed off as an exception, over: no closing count."
    )
    assert (
        page.locator("#state").inner_text() == "signed off (over what is missing: no closing count)"
    )
    [event] = Event.objects.filter(stream="audit.ledger")
    assert (event.payload["state"], event.payload["exceptions"]) == (
        "incomplete",
        ["closer_missing"],
    )

    # the sign-off record: money by the one formatter, who and when, state, the exception
    signoff = m.SignOff.objects.get()
    page.goto(f"{live_server.url}/admin/ledger/signoff/{signoff.pk}/change/")
    text = page.locator("#content-main").inner_text()
    for said in (
        "carol",
        "incomplete",
        "no closing count",
        "closer slip lost",
        "EUR 20,000.00",
        "EUR 5,000.00",
        "EUR 2,000.00",
        "EUR 9,000.00",
        "+EUR 4,000.00",
        "the day's figures kept in the ledger give the signed hash",
    ):
        assert said in text, said
    figures = page.locator("table.signed-figures").inner_text()
    assert "closer\tn/a" in figures and "chip-count win\tn/a" in figures
    assert "{" not in text and "2000000" not in text and "400000" not in text
    assert "Reopened" not in text  # never reopened: the section is not shown
    page.screenshot(path=str(_artifacts() / "ledger_sign_off_record.png"), full_page=True)


def test_a_late_drop_after_sign_off_reads_on_both_days(
    accountant,
    live_server,
    settings,
    fake_game,  # noqa: F811
):
    """Signed off before its drop was counted; the count and posting arrive later: the
    signed day still shows its signed figures and says where the drop went, the next
    day shows the adjustment with a link back."""
    from django.contrib.auth import get_user_model

    from ledger.signoff import day_sign_off

    settings.PROJECT_ON_APPEND = False
    t = worked_example()
    t.events = [e for e in t.events if e["type"] not in ("drop.counted", "drop.posted")]
    t.open("2026-11-30")
    t.count("opening", {100_000: 18}, day="2026-11-30")
    t.count("closing", {100_000: 18}, day="2026-11-30")
    t.drop(0, day="2026-11-30")
    fake_game.record(t.code, t.events)
    append(t.code, t.events)
    catch_up("ledger.books")
    day_sign_off(
        table="BJ-01",
        gaming_day=date(2026, 11, 29),
        user=get_user_model().objects.get(username="carol"),
        note="the count room counts it on Monday",
    )
    before = len(t.events)
    t.drop(900_000, steps=("counted", "posted"))
    append(t.code, t.events[before:])
    catch_up("ledger.books")
    page = accountant

    page.goto(f"{live_server.url}{PAGE}")
    assert page.locator("#state").inner_text() == (
        "signed off, adjusted: later events posted into 2026-11-30 (over what is missing: the drop not counted)"
    )
    assert "drop +EUR 9,000.00" in page.locator("#late").inner_text()
    assert page.locator("#figure-drop .amount").inner_text() == "n/a"  # as signed
    page.screenshot(path=str(_artifacts() / "ledger_signed_day_adjusted.png"), full_page=True)
    page.click("#adjusted-into")
    assert "/2026-11-30/" in page.url
    row = page.locator("#adjustments tr.adjustment")
    assert row.locator("td").all_inner_texts() == [
        DAY,
        "drop +EUR 9,000.00, chip-count win +EUR 4,000.00",
        "+EUR 4,000.00",
        "+EUR 9,000.00",
        "EUR 0.00",
    ]
    page.screenshot(path=str(_artifacts() / "ledger_adjustment_posted.png"), full_page=True)
