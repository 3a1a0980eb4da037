"""The regulator's package and game recall in a real browser (headless Chromium, 1400 px,
screenshots in artifacts/): compliance asks for a package from the admin, sees the list
with each request's status, downloads the ready one; opens a round's printable recall
from its review, and its PDF."""

from __future__ import annotations

import pytest

from audit.integrity import digests
from regulator.models import PackageRequest
from tables.replay_service import replay_table
from tests.back_office.helpers import DAY, append, dealt, plant_short_pay
from tests.browser.conftest import ARTIFACTS, log_in
from tests.groups import group_named

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def compliance(page, live_server, django_user_model):
    user = django_user_model.objects.create_user(
        "officer", password="a-long-test-password", is_staff=True
    )
    user.groups.add(group_named("compliance"))
    return log_in(page, live_server, "officer")


def test_compliance_asks_for_a_package_and_recalls_a_round(
    compliance, live_server, settings, tmp_path
):
    settings.PROJECT_ON_APPEND = False
    settings.PACKAGE_DIR = str(tmp_path / "packages")
    events = dealt("hoyle", rounds=8)
    fault = plant_short_pay(events)
    append("T1", events)
    replay_table(stream="T1")
    digests.digest_sign()
    tab = compliance

    # a request refused as the command refuses it, then one made (the task runs eagerly)
    tab.goto(f"{live_server.url}/admin/casino/packagerequest/add/")
    tab.fill("#id_day_from", DAY.isoformat())
    tab.fill("#id_day_to", DAY.isoformat())
    tab.fill("#id_tables_text", "NO-SUCH")
    tab.click("input[name=_save]")
    assert "the store has no table with that code" in tab.locator(".errorlist").inner_text()
    tab.fill("#id_tables_text", "T1")
    tab.click("input[name=_save]")
    tab.wait_for_selector("#result_list")
    # a failed one beside it, as a folder that cannot be written would leave it
    PackageRequest.objects.create(
        requested_by="user:officer",
        requested_at=PackageRequest.objects.get().requested_at,
        via="admin",
        day_from=DAY,
        day_to=DAY,
        status="failed",
        keep_until=DAY,
        message="writing /srv/packages/package-2.zip failed: [Errno 28] No space left",
    )
    tab.goto(f"{live_server.url}/admin/casino/packagerequest/")
    rows = tab.locator("#result_list tbody tr")
    assert rows.count() == 2
    assert "failed" in rows.nth(0).inner_text() and "No space left" in rows.nth(0).inner_text()
    ready = rows.nth(1)
    assert "ready" in ready.inner_text() and "T1" in ready.inner_text()
    with tab.expect_download() as download:
        ready.locator("a[href$='/download/']").click()
    made = PackageRequest.objects.get(status="ready")
    assert download.value.suggested_filename.startswith(f"package-{made.pk}-")
    tab.screenshot(path=str(ARTIFACTS / "package_requests.png"), full_page=True)

    # the round's review links its recall; the recall shows the short pay and the proof
    tab.goto(f"{live_server.url}/admin/tables/round/T1/{DAY.isoformat()}/{fault['round']}/")
    tab.click("#recall")
    assert f"round {fault['round']}, table T1" in tab.locator("h1").inner_text()
    assert "DIFFERS" in tab.locator("tr.differs").first.inner_text()
    assert "is in the signed head" in tab.content()
    tab.screenshot(path=str(ARTIFACTS / "round_recall.png"), full_page=True)
    tab.emulate_media(media="print")
    assert not tab.locator(".tools").is_visible()
    tab.screenshot(path=str(ARTIFACTS / "round_recall_print.png"), full_page=True)
    tab.emulate_media(media="screen")
    response = tab.request.get(
        f"{live_server.url}/admin/recall/T1/{DAY.isoformat()}/{fault['round']}.pdf"
    )
    assert response.status == 200 and response.body()[:5] == b"%PDF-"
    (ARTIFACTS / "round_recall.pdf").write_bytes(response.body())
