"""The analytics' screens page their long tables (``?page=N``, a page of rows at a time)
while the CSV keeps every row, and open, with no day asked for, on the latest gaming day
with play - a later day whose tables opened and dealt nothing is passed over. Each figure
is counted here from the projection's rows, not from the reports."""

from __future__ import annotations

import csv
import io
import math
import re
from datetime import timedelta
from html.parser import HTMLParser

import pytest
from django.contrib.auth.models import User

from tables import models as m
from tables.analytics import views

from .store import DAY, simulated_into_store

pytestmark = pytest.mark.django_db

PAGE = 7  # rows a page here, so a small day has several pages


class _Table(HTMLParser):
    """The body rows' cells of ``<section id="report-NAME">``'s table, and its pager's text."""

    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name
        self.inside = self.body = self.cell = self.where = False
        self.rows: list[list[str]] = []
        self.pages: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        if tag == "section":
            self.inside = attributes.get("id") == f"report-{self.name}"
        elif self.inside and tag == "tbody":
            self.body = True
        elif self.inside and self.body and tag == "tr":
            self.rows.append([])
        elif self.inside and self.body and tag == "td":
            self.cell = True
            self.rows[-1].append("")
        elif self.inside and tag == "span" and attributes.get("class") == "where":
            self.where = True
            self.pages.append("")

    def handle_endtag(self, tag: str) -> None:
        if tag == "tbody":
            self.body = False
        elif tag == "td":
            self.cell = False
        elif tag == "span":
            self.where = False
        elif tag == "section":
            self.inside = False

    def handle_data(self, data: str) -> None:
        if self.cell:
            self.rows[-1][-1] += data
        if self.where:
            self.pages[-1] += data


def _table(content: bytes, name: str) -> _Table:
    parsed = _Table(name)
    parsed.feed(content.decode())
    return parsed


@pytest.fixture
def day(settings, monkeypatch):
    monkeypatch.setattr(views, "PAGE_SIZE", PAGE)
    return simulated_into_store(settings, "paging", rounds=120)


@pytest.fixture
def pit(client, day):
    user = User.objects.create_user("pit", password="a-long-test-password", is_staff=True)
    client.force_login(user)
    return client


def test_what_if_pages_its_players_and_the_csv_keeps_them_all(pit) -> None:
    players = set(
        m.Bet.objects.filter(round__gaming_day=DAY).values_list("player", flat=True).distinct()
    )
    assert "" not in players and len(players) > 2 * PAGE  # seated tables: every bet a player's
    pages = math.ceil(len(players) / PAGE)
    url = f"/admin/analytics/what-if/?day={DAY}&natural_pays=6:5"

    shown: list[list[str]] = []
    for number in range(1, pages + 1):
        answer = pit.get(f"{url}&page={number}")
        assert answer.status_code == 200
        table = _table(answer.content, "what_if_players")
        expected = PAGE if number < pages else len(players) - PAGE * (pages - 1)
        assert len(table.rows) == expected
        assert table.pages and table.pages[0].startswith(f"page {number} of {pages} ")
        shown += table.rows
    # page after page, every player once, none twice
    assert sorted(r[0] for r in shown) == sorted(players)

    first = _table(pit.get(url).content, "what_if_players")
    second = _table(pit.get(f"{url}&page=2").content, "what_if_players")
    assert first.rows == shown[:PAGE]  # no page asked for: the first
    assert second.rows[0] == shown[PAGE]  # page 2 starts with the row after page 1's last
    # the totals under a page are the day's, and say so; their figures line up right
    total = re.search(
        r'<section id="report-what_if_players">.*?<tr class="total">(.*?)</tr>',
        pit.get(f"{url}&page=2").content.decode(),
        re.DOTALL,
    )
    assert total and '<td class="text">total of every page</td>' in total.group(1)
    assert (
        f'<td class="num">{sum(int(r[2].replace(",", "")) for r in shown):,}</td>' in total.group(1)
    )
    # the pager's links: the next page from the first, the previous from the second
    assert re.search(r'class="next" href="\?[^"]*page=2', pit.get(url).content.decode())
    assert re.search(
        r'class="previous" href="\?[^"]*page=1', pit.get(f"{url}&page=2").content.decode()
    )
    # past the end: the last page; not a number: the first
    assert (
        _table(pit.get(f"{url}&page=999").content, "what_if_players").rows
        == shown[-len(_table(pit.get(f"{url}&page={pages}").content, "what_if_players").rows) :]
    )
    assert _table(pit.get(f"{url}&page=x").content, "what_if_players").rows == shown[:PAGE]

    answer = pit.get(
        f"/admin/analytics/what-if.csv?day={DAY}&natural_pays=6:5&part=what_if_players"
    )
    rows = list(csv.DictReader(io.StringIO(answer.content.decode())))
    assert {r["player"] for r in rows if r["player"] != "total"} == players
    assert len([r for r in rows if r["player"] != "total"]) == len(players)
    # the bets on the pages add up to the day's settled bets, counted from the projection
    bets = m.Bet.objects.filter(round__gaming_day=DAY, round__status="settled").count()
    assert bets > 500 and sum(int(r[2].replace(",", "")) for r in shown) == bets


def test_the_strategy_errors_page_and_the_counters_too(pit, day) -> None:
    planted = len(day["strategy_errors"])
    assert planted > PAGE
    answer = pit.get(f"/admin/analytics/accuracy/?day={DAY}&page=2")
    errors = _table(answer.content, "strategy_errors")
    assert errors.pages[0].startswith(f"page 2 of {math.ceil(planted / PAGE)} ")
    assert len(errors.rows) == min(PAGE, planted - PAGE)
    players = set(
        m.Bet.objects.filter(round__gaming_day=DAY).values_list("player", flat=True).distinct()
    )
    counters = _table(pit.get(f"/admin/analytics/counters/?day={DAY}").content, "counters")
    assert len(counters.rows) == PAGE and counters.pages[0].endswith(f"of {len(players)})")


def test_the_screens_open_on_the_latest_day_with_play(pit) -> None:
    # the next gaming day: every table opened, no round dealt yet
    for table_day in m.TableDay.objects.filter(gaming_day=DAY):
        m.TableDay.objects.create(
            table=table_day.table,
            gaming_day=DAY + timedelta(days=1),
            first_version=table_day.last_version + 1,
            last_version=table_day.last_version + 1,
        )
    latest = m.Round.objects.order_by("-gaming_day").values_list("gaming_day", flat=True)[0]
    assert latest == DAY and m.TableDay.objects.filter(gaming_day__gt=DAY).exists()
    rounds = m.Round.objects.filter(gaming_day=DAY).count()
    for name in ("counters", "accuracy", "dealers", "what-if"):
        answer = pit.get(f"/admin/analytics/{name}/")
        text = answer.content.decode()
        assert answer.status_code == 200
        assert f'name="day" value="{DAY}"' in text, name
        assert f"Gaming day {DAY}, the latest with play." in text, name
    dealers = _table(pit.get("/admin/analytics/dealers/").content, "dealers")
    assert sum(int(r[4].replace(",", "")) for r in dealers.rows) == rounds
    index = pit.get("/admin/analytics/").content.decode()
    for name in ("counters", "accuracy", "dealers", "what-if"):
        assert f'href="/admin/analytics/{name}/?day={DAY}"' in index
