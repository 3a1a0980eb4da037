"""Every screen works under the Content-Security-Policy: each response carries the
header, and in a real browser no page breaks it - the admin's lists, forms and actions,
the floor and its live updates, the round review and recall, the ledger's reports, the
analytics, the API's Swagger page. A violation is what the browser reports for each
resource or script it refused (``securitypolicyviolation``). Screenshots 1400 px wide."""

from __future__ import annotations

import pytest
from django.test import Client

from audit.models import Finding
from tables import models as m
from tests.back_office.helpers import DAY, append, dealt, plant_short_pay

from .conftest import ARTIFACTS

pytestmark = pytest.mark.django_db(transaction=True)

# recorded by the page itself, before any of its scripts runs
WATCH = """
window.__refused = [];
document.addEventListener("securitypolicyviolation", (e) => {
  window.__refused.push(`${e.violatedDirective} ${e.blockedURI} (${e.sourceFile}:${e.lineNumber})`);
});
"""


def refused(page) -> list[str]:
    return page.evaluate("window.__refused")


def _shot(page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def test_the_policy_is_on_every_response(admin_client: Client) -> None:
    """A page, an API answer, an error, a refused request: each carries the policy (a
    static file is no document: the policy has nothing to govern there)."""
    policies = {
        path: admin_client.get(path).get("Content-Security-Policy", "")
        for path in (
            "/admin/",
            "/api/findings",
            "/api/no-such-thing",
            "/admin/no-such-page/",
            "/api/%00",
        )
    }
    for path, policy in policies.items():
        assert "script-src 'self'" in policy and "frame-ancestors 'none'" in policy, path
        assert "unsafe-eval" not in policy and "script-src 'self' 'unsafe-inline'" not in policy, (
            path
        )


def test_no_screen_breaks_the_policy(logged_in, live_server, settings) -> None:
    """The floor (its poll brings an alert without a reload), the findings list and a
    finding's page, a round's review and recall, the ledger's and analytics' screens and
    the API's Swagger page: nothing refused, and each shows what it shows."""
    page = logged_in
    page.context.add_init_script(WATCH)
    events = dealt("hoyle", rounds=10)
    fault = plant_short_pay(events, skip=5)
    cut = next(
        i
        for i, e in enumerate(events)
        if e["type"] == "round.started" and e["payload"]["round"] == fault["round"]
    )
    append("T1", events[:cut])
    page.goto(f"{live_server.url}/admin/")
    assert page.locator("#table-T1").count() == 1
    append("T1", events[cut:])  # the floor's poll (a script, fetching JSON) brings the alert
    page.locator("#floor-alerts li.alert.waiting").wait_for(timeout=5000)
    assert refused(page) == []
    _shot(page, "csp_floor")

    finding = Finding.objects.get(kind="wrong_payout")
    round_ = m.Round.objects.get(table__stream="T1", number=fault["round"])
    screens = {
        "findings": ("/admin/audit/finding/", "#changelist"),
        "finding": (f"/admin/audit/finding/{finding.pk}/change/", "#content"),
        "round review": (f"/admin/tables/round/T1/{DAY.isoformat()}/{round_.number}/", "#content"),
        "recall": (f"/admin/recall/T1/{DAY.isoformat()}/{round_.number}/", "body"),
        "events": ("/admin/audit/event/", "#changelist"),
        "reconciliations": ("/admin/ledger/reconciliation/", "#content"),
        "reports": (
            f"/admin/ledger/reconciliation/reports/?from={DAY.isoformat()}&to={DAY.isoformat()}",
            "#content",
        ),
        "analytics": (f"/admin/analytics/counters/?day={DAY.isoformat()}", "#content"),
        "users": ("/admin/auth/user/add/", "#user_form"),
    }
    for name, (path, shown) in screens.items():
        page.goto(f"{live_server.url}{path}")
        page.locator(shown).first.wait_for(timeout=5000)
        assert refused(page) == [], name

    # the admin's own scripts run: the findings list's select-all box ticks every row
    page.goto(f"{live_server.url}/admin/audit/finding/")
    page.locator("#action-toggle").check()
    assert (
        page.locator("input.action-select:checked").count()
        == page.locator("input.action-select").count()
        >= 1
    )
    assert refused(page) == []

    # Swagger UI draws the API from its schema: its scripts and styles all from here
    page.goto(f"{live_server.url}/api/docs/")
    page.locator(".swagger-ui .info .title").wait_for(timeout=10_000)
    assert "Blackjack back-office API" in page.locator(".swagger-ui .info .title").inner_text()
    assert page.locator(".opblock").count() >= 30
    assert refused(page) == []
    _shot(page, "csp_api_docs")
