"""The analytics read from the store: a simulated day appended and projected gives the
same answers as the pure analytics over the simulator's own file - the casual players'
planted errors, every counter row - on the screen, over REST and as CSV."""

from __future__ import annotations

import csv
import io
from decimal import Decimal

import pytest
from django.contrib.auth.models import User

from tables.analytics import reports
from tables.analytics.counting import counted_bets

from .helpers import kinds
from .store import DAY, simulated_into_store

pytestmark = pytest.mark.django_db


@pytest.fixture
def day(settings):
    return simulated_into_store(settings, rates={"short_pay": 0.03, "dealer_stands_16": 0.01})


def test_the_reports_find_what_was_planted(day) -> None:
    manifest = day
    kind = kinds(manifest)
    accuracy = reports.accuracy(day=DAY)
    planted = {}
    for e in manifest["strategy_errors"]:
        planted[e["player"]] = planted.get(e["player"], 0) + 1
    assert {r["player"]: r["errors"] for r in accuracy.report.rows if r["errors"]} == planted
    assert len(accuracy.errors.rows) == len(manifest["strategy_errors"]) > 10
    assert [r["cost"] for r in accuracy.errors.rows] == sorted(
        (r["cost"] for r in accuracy.errors.rows), reverse=True
    )
    counters = reports.counters(day=DAY)
    assert {r["player"] for r in counters.report.rows} == {
        p for p, k in kind.items() if k != "back"
    } & {r["player"] for r in counters.report.rows}
    for row in counters.report.rows:
        if row["flagged"] == "yes":
            assert kind[row["player"]] == "counter"
    one = reports.counters(day=DAY, table="BJ-01")
    assert {r["tables"] for r in one.report.rows} == {"BJ-01"}
    with pytest.raises(reports.AnalyticsError):
        reports.counters(day=DAY, table="NOPE")


def test_the_store_gives_the_events_the_file_does(day) -> None:
    """The bets and counts read from the store are those of the day's events."""
    days = reports.table_days(DAY)
    assert [d.table.stream for d in days] == ["BJ-01", "BJ-02"]
    bets = counted_bets(reports.day_events(days[0]))
    assert bets and all(b.table == "BJ-01" and b.gaming_day == DAY.isoformat() for b in bets)


@pytest.fixture
def api(client, day):
    user = User.objects.create_user("pit", password="a-long-test-password", is_staff=True)
    client.force_login(user)
    return client


def test_the_api_answers_json_and_csv(api) -> None:
    answer = api.get(f"/api/analytics/accuracy?day={DAY}")
    assert answer.status_code == 200
    body = answer.json()
    assert body["report"] == "accuracy" and body["rows"]
    assert body["rows"][0]["display"]["cost"].startswith("EUR ")
    answer = api.get(f"/api/analytics/strategy-errors?day={DAY}&format=csv")
    assert answer.status_code == 200 and answer["Content-Type"].startswith("text/csv")
    lines = list(csv.reader(io.StringIO(answer.content.decode())))
    assert (
        lines[0][:3] == ["table", "round", "box"] and "cost_minor" in lines[0] and len(lines) > 10
    )
    # each cost in currency units beside its minor units; the totals row foots them
    errors = [dict(zip(lines[0], line)) for line in lines[1:]]
    *rows, total = errors
    assert total["table"] == "total" and all(r["table"] != "total" for r in rows)
    assert all(Decimal(r["cost_amount"]) * 100 == int(r["cost_minor"]) for r in errors)
    assert int(total["cost_minor"]) == sum(int(r["cost_minor"]) for r in rows)
    assert int(total["stake_minor"]) == sum(int(r["stake_minor"]) for r in rows)
    assert body["totals"][0]["decisions"] == sum(r["decisions"] for r in body["rows"])
    counters = api.get(f"/api/analytics/counters?day={DAY}&table=BJ-02").json()
    assert {r["tables"] for r in counters["rows"]} == {"BJ-02"}


@pytest.mark.parametrize(
    ("query", "status"),
    [
        ("", 400),
        ("day=yesterday", 400),
        (f"day={DAY}&table=NOPE", 404),
        (f"day={DAY}&colour=red", 400),
    ],
)
def test_bad_queries_are_json_errors(api, query, status) -> None:
    answer = api.get(f"/api/analytics/counters?{query}")
    assert answer.status_code == status
    assert answer["Content-Type"].startswith("application/json") and answer.json()


def test_the_screens_and_their_csv(api) -> None:
    page = api.get(f"/admin/analytics/counters/?day={DAY}")
    assert page.status_code == 200
    text = page.content.decode()
    assert "<svg" in text and "Mean bet by true count" in text and "Spearman" in text
    page = api.get(f"/admin/analytics/accuracy/?day={DAY}")
    assert page.status_code == 200 and "cost-by-player" in page.content.decode()
    csv_answer = api.get(f"/admin/analytics/accuracy.csv?day={DAY}&part=strategy_errors")
    assert csv_answer.status_code == 200 and csv_answer.content.decode().startswith(
        "table,round,box"
    )
    assert api.get("/admin/analytics/nope/").status_code == 404
    assert api.get("/admin/analytics/counters/?day=bad").status_code == 404


def test_dealer_performance_charges_the_findings_in_force(day) -> None:
    """Each planted fault is a finding in the store, charged to the dealer of its round."""
    manifest = day
    found = reports.dealers(day=DAY)
    assert sum(r["errors"] for r in found.report.rows) == len(manifest["faults"]) >= 3
    assert sum(r["rounds"] for r in found.report.rows) == manifest["rounds"]
    assert all(
        r["shift"] == "06:00" for r in found.report.rows
    )  # the test settings' one 24-hour shift


def test_the_dealers_screen_and_api(api) -> None:
    page = api.get(f"/admin/analytics/dealers/?day={DAY}")
    assert page.status_code == 200 and "errors-by-dealer" in page.content.decode()
    body = api.get(f"/api/analytics/dealers?day={DAY}").json()
    assert body["report"] == "dealers" and body["rows"][0]["errors"] >= 1


def test_what_if_from_the_store_equals_the_pure_resettlement(day) -> None:
    """The store's day under 6:5 gives the totals of the pure re-settlement of the same
    events; the record is not written to."""
    from audit.models import Event
    from tables.analytics.whatif import resettle, totals

    events_before = Event.objects.count()
    found = reports.what_if(day=DAY, changes={"natural_pays": "6:5"})
    rows = [
        r
        for d in reports.table_days(DAY)
        for r in resettle(reports.day_events(d), {"natural_pays": "6:5"})
    ]
    assert {r["table"]: (r["house"], r["what_if_house"]) for r in found.tables.rows} == {
        t.key: (-t.net, -t.what_if_net) for t in totals(rows, "table")
    }
    assert (
        sum(r["difference"] for r in found.players.rows)
        == sum(r["difference"] for r in found.tables.rows)
        > 0
    )
    assert Event.objects.count() == events_before
    with pytest.raises(reports.AnalyticsError):
        reports.what_if(day=DAY, changes={})


def test_the_what_if_screen_and_api(api) -> None:
    page = api.get(f"/admin/analytics/what-if/?day={DAY}&natural_pays=6:5")
    assert page.status_code == 200 and "what-if-by-table" in page.content.decode()
    body = api.get(f"/api/analytics/what-if?day={DAY}&natural_pays=6:5&by=player").json()
    assert body["report"] == "what_if_players" and body["rows"]
    # no payout named: 6:5 naturals, as the screen's default
    default = api.get(f"/api/analytics/what-if?day={DAY}").json()
    assert default == api.get(f"/api/analytics/what-if?day={DAY}&natural_pays=6:5").json()
    assert api.get(f"/api/analytics/what-if?day={DAY}&natural_pays=0:5").status_code == 400
    assert api.get(f"/api/analytics/what-if?day={DAY}&natural_pays=lots").status_code == 400
    csv_answer = api.get(f"/api/analytics/what-if?day={DAY}&natural_pays=6:5&format=csv")
    assert csv_answer.status_code == 200 and csv_answer.content.decode().startswith(
        "table,currency,bets,changed"
    )
