"""Every page is a hub: from the floor, and from each page people work from (a table, a
table-day, a finding, a round, the reconciliation, the reports, the analytics), every
link answers 200 and leads to a page with a way back to the floor.

A way back is a link to the floor, to the page the link was on, or to a hub (which links
the floor): the round's recall, a printable page, leads back to the round's review.

The record is the demo's (every rule set, a fault of each kind planted), made small. Links
are followed in a real browser, logged in as a superuser (who may open every screen).
Links of one shape (``/admin/audit/finding/<n>/change/`` for every finding) are followed
once each for their first few, not for all: the shape's view is what is being tested."""

from __future__ import annotations

import io
import re
from collections import Counter
from urllib.parse import urlsplit

import pytest
from django.core.management import call_command

pytestmark = pytest.mark.django_db(transaction=True)

# never followed: they log out, change something, or are no page (a file, the schema)
SKIP = re.compile(
    r"/logout/|/delete/|/language/|/password_change/|/add/$|format=csv|\.csv|\.zip|\.pdf"
    r"|/api/(?!docs/)|/static/|/media/"
)
# pages whose own links are followed too: the hubs people work from
HUBS = re.compile(
    r"^/admin/$"
    r"|^/admin/tables/table/[^/]+/$"
    r"|^/admin/tables/tableday/[^/]+/[^/]+/$"
    r"|^/admin/tables/round/.+/$"
    r"|^/admin/audit/finding/\d+/change/$"
    r"|^/admin/ledger/reconciliation/$"
    r"|^/admin/ledger/reconciliation/[^/]+/\d{4}-\d\d-\d\d/$"
    r"|/reports/$"
    r"|^/admin/analytics/"
)
PER_SHAPE = 2


def shape(path: str) -> str:
    """``/admin/audit/finding/17/change/?x=1`` -> ``/admin/audit/finding/N/change/?x``."""
    parts = urlsplit(path)
    keys = sorted(k.split("=")[0] for k in parts.query.split("&") if k)
    return re.sub(r"\d+", "N", parts.path) + ("?" + "&".join(keys) if keys else "")


def links_on(page, base: str) -> list[str]:
    hrefs = page.eval_on_selector_all("a[href]", "els => els.map(e => e.href)")
    out = []
    for href in hrefs:
        if not href.startswith(base):
            continue
        path = href[len(base) :].split("#")[0]
        if path and not SKIP.search(path):
            out.append(path)
    return out


def has_a_way_back(page, base: str, parent: str) -> bool:
    """The page links to the floor (the header's name of the site, its breadcrumbs), to
    the page it was reached from, or to a hub (each of which links the floor)."""
    paths = [
        href[len(base) :]
        for href in page.eval_on_selector_all("a[href]", "els => els.map(e => e.href)")
        if href.startswith(base)
    ]
    return any(p == "/admin/" or p == parent or HUBS.search(urlsplit(p).path) for p in paths)


def test_every_link_from_the_floor_and_the_hubs_answers_and_has_a_way_back(
    logged_in, live_server, tmp_path
):
    call_command(
        "demo", no_serve=True, rounds=10, live_bets=3, folder=str(tmp_path), stdout=io.StringIO()
    )
    page = logged_in
    base = live_server.url
    seen: set[str] = set()
    per_shape: Counter[str] = Counter()
    failures: list[str] = []
    hubs_visited: list[str] = []
    expanded: set[str] = set()  # one page of each hub's shape has its links followed
    queue = [("/admin/", "/admin/")]
    while queue:
        path, parent = queue.pop(0)
        if path in seen:
            continue
        seen.add(path)
        answer = page.goto(base + path)
        status = answer.status if answer else 0
        if status != 200:
            failures.append(f"{status} {path}")
            continue
        if not has_a_way_back(page, base, parent):
            failures.append(f"no way back to the floor: {path}")
        hub = urlsplit(path).path
        if not HUBS.search(hub) or shape(hub) in expanded:
            continue
        expanded.add(shape(hub))
        hubs_visited.append(hub)
        for link in links_on(page, base):
            key = shape(link)
            if link in seen or per_shape[key] >= PER_SHAPE:
                continue
            per_shape[key] += 1
            queue.append((link, path))
    print(f"followed {len(seen)} links, {len(hubs_visited)} hubs expanded")
    assert not failures, "\n".join(failures)
    # the crawl reached the hubs from the floor, and followed a good many links
    hub_shapes = {shape(h) for h in hubs_visited}
    for want in (
        "/admin/",
        "/admin/tables/table/BJ-N/",
        "/admin/tables/tableday/BJ-N/N-N-N/",
        "/admin/tables/round/BJ-N/N-N-N/N/",
        "/admin/audit/finding/N/change/",
        "/admin/ledger/reconciliation/",
        "/admin/ledger/reconciliation/BJ-N/N-N-N/",
        "/admin/ledger/reconciliation/reports/",
        "/admin/analytics/counters/",
        "/admin/analytics/what-if/",
    ):
        assert want in hub_shapes, (
            f"not reached from the floor: {want} (hubs: {sorted(hub_shapes)})"
        )
    assert len(seen) > 60, len(seen)
