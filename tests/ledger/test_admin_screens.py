"""The ledger's admin screens render for accounting and keep out who may not read them
(anonymous, a device, a pit boss); signing off from the reconciliation page is for who
may sign; money is shown by the one formatter."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.test import Client

from audit.access.devices import device_ensure
from audit.feed.subscribers import catch_up
from audit.models import Event
from ledger import models as m
from tests.back_office.helpers import append

from .helpers import DAY, worked_example

pytestmark = pytest.mark.django_db
PAGE = f"/admin/ledger/reconciliation/BJ-01/{DAY}/"
SCREENS = [
    PAGE,
    "/admin/ledger/reconciliation/",
    "/admin/ledger/reconciliation/reports/",
    "/admin/ledger/reconciliation/reports/hold.csv",
    "/admin/ledger/slip/",
    "/admin/ledger/inventoryslip/",
    "/admin/ledger/dropbox/",
    "/admin/ledger/marker/",
    "/admin/ledger/signoff/",
    "/admin/ledger/ledgertable/",
]


@pytest.fixture
def books(settings, fake_game) -> None:
    settings.PROJECT_ON_APPEND = False
    t = worked_example()
    t.open("2026-11-30")
    short = next(
        e
        for e in t.events
        if e["type"] == "inventory.counted" and e["payload"]["kind"] == "closing"
    )
    short["payload"]["chips"] = [
        {"denomination": 100_000, "count": 17},
        {"denomination": 500, "count": 190},
    ]
    fake_game.record(t.code, t.events)
    append(t.code, t.events)
    catch_up("ledger.books")


def login(name: str, *, group: str | None = None, superuser: bool = False) -> Client:
    users = get_user_model().objects
    user = (
        users.create_superuser(name, f"{name}@example.com", "pw")
        if superuser
        else users.create_user(name, is_staff=True)
    )
    if group:
        user.groups.add(Group.objects.get(name=group))
    client = Client()
    client.force_login(user)
    return client


@pytest.mark.parametrize("url", SCREENS)
def test_who_sees_the_ledger_s_screens(books, url) -> None:
    assert login("carol", group="accounting").get(url).status_code == 200
    assert login("root", superuser=True).get(url).status_code == 200
    assert login("alice", group="pit_boss").get(url).status_code == 403
    anonymous = Client().get(url)
    assert anonymous.status_code == 302 and "/admin/login/" in anonymous["Location"]
    # a device account, even one made staff and put in the accounting group by mistake
    device = device_ensure(stream="BJ-01").account.user
    device.is_staff = True
    device.save()
    device.groups.add(Group.objects.get(name="accounting"))
    client = Client()
    client.force_login(device)
    assert client.get(url).status_code == 403


def test_the_reconciliation_page_shows_the_four_wins_and_the_variance_it_does_not_explain(
    books,
) -> None:
    page = login("carol", group="accounting").get(PAGE).content.decode()
    for text in (
        "+EUR 3,950.00",
        "+EUR 4,000.00",
        "EUR 9,000.00",
        "43.9%",
        "-EUR 50.00",
        "not explained",
        "chip_variance",
        "F-1",
        "C-1",
        "SD n/a",
    ):
        assert text in page, text
    assert 'class="variance unexplained"' in page and 'id="sign-off-button"' in page


def test_the_reconciliation_page_links_the_days_rounds_where_the_project_says_they_are(
    books,
) -> None:
    """The ledger knows nothing of the app that shows rounds: the project registers the
    address (casino.apps), and the page's link is the rounds' list of that table-day."""
    root = login("root", superuser=True)
    page = root.get(PAGE).content.decode()
    link = f'href="/admin/tables/round/?table__stream=BJ-01&amp;gaming_day={DAY}"'
    assert link in page
    assert root.get(f"/admin/tables/round/?table__stream=BJ-01&gaming_day={DAY}").status_code == 200


def test_signing_off_from_the_page_needs_the_permission_and_a_note_for_a_variance(books) -> None:
    carol = login("carol", group="accounting")
    refused = carol.post(PAGE, {"action": "sign_off", "note": ""}, follow=True)
    assert "needs a note" in refused.content.decode() and not m.SignOff.objects.exists()
    carol.post(PAGE, {"action": "sign_off", "note": "variance reported to security, report S-12"})
    assert m.SignOff.objects.get().status == "signed"
    assert Event.objects.filter(stream="audit.ledger", type="ledger.signed_off").count() == 1
    listed = carol.get("/admin/ledger/reconciliation/").content.decode()
    assert (
        '<span class="state state-signed" style="">signed off; a variance not explained</span>'
        in listed
    )
    staff = Client()
    staff.force_login(get_user_model().objects.create_user("dave", is_staff=True))
    assert staff.post(PAGE, {"action": "reopen", "note": "x"}).status_code == 403
    viewer = get_user_model().objects.create_user("erin", is_staff=True)
    from django.contrib.auth.models import Permission

    viewer.user_permissions.add(Permission.objects.get(codename="view_reconciliation"))
    reader = Client()
    reader.force_login(viewer)
    assert (
        reader.get(PAGE).status_code == 200
        and 'id="reopen"' not in reader.get(PAGE).content.decode()
    )
    assert reader.post(PAGE, {"action": "reopen", "note": "x"}).status_code == 403


def test_the_reports_page_draws_its_charts_inline(books) -> None:
    page = login("carol", group="accounting").get(
        "/admin/ledger/reconciliation/reports/", {"from": DAY, "to": DAY}
    )
    text = page.content.decode()
    content = text.split('id="content-main"')[1]
    assert content.count('<svg class="chart') == 2 and "<script" not in content
    assert "hold-by-table" in text and "+EUR 3,950.00" in text and "43.9%" in text


def test_the_pit_is_set_in_the_admin_and_stays(books, settings) -> None:
    """Put in a pit by hand, the table stays there when the ledger folds it again; a blank
    pit goes back to the setting's."""
    settings.LEDGER_PITS = "PIT-A=BJ-*"
    root = login("root", superuser=True)
    table = m.LedgerTable.objects.get()
    root.post(f"/admin/ledger/ledgertable/{table.pk}/change/", {"pit": "PIT-B"})
    table.refresh_from_db()
    assert (table.pit, table.pit_source) == ("PIT-B", "admin")
    from ledger.projection import project_table

    project_table(stream="BJ-01", full=True)
    table.refresh_from_db()
    assert table.pit == "PIT-B"
    root.post(f"/admin/ledger/ledgertable/{table.pk}/change/", {"pit": ""})
    table.refresh_from_db()
    assert (table.pit, table.pit_source) == ("PIT-A", "settings")
