"""Foreign currency at a table: accounting sets the gaming day's rate (``fx.rate_set`` in
``audit.ledger``, a person holding ``ledger.add_fxrate``); an amount recorded in that
currency is then booked at it, both amounts kept, and the day's ``currency_mismatch``
findings go. Without a rate nothing foreign is booked (tests/ledger/test_currencies.py)."""

from __future__ import annotations

from datetime import date
from fractions import Fraction

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from rest_framework.test import APIClient

from audit.access.authority import NotAllowed
from audit.feed.subscribers import catch_up
from audit.models import Event, Finding
from ledger import fx
from ledger import models as m
from ledger.books import fold, reconcile
from ledger.books.figures import convert
from tests.back_office.helpers import append

from .helpers import DAY, Table
from .test_currencies import usd_at_a_eur_table

RATE = Fraction(9_215, 10_000)  # 1 USD = 0.9215 EUR


def test_a_usd_buy_in_and_drop_at_a_eur_table_are_booked_at_the_day_s_rate() -> None:
    """By hand: USD 1,000.00 at 0.9215 is EUR 921.50. The dealer gave EUR 1,000.00 of
    chips for it (opener 20,000.00, closer 19,000.00) and the box holds the USD 1,000.00
    = EUR 921.50: chip-count win = 19,000 - 20,000 + 921.50 = -78.50 against a recorded
    win of 0 - the 78.50 of chips given beyond the rate is a chip variance (above EUR
    25.00), as it should be, and no amount is booked as if it were euros."""
    books = fold(usd_at_a_eur_table().events, rates={(DAY, "USD", "EUR"): RATE})
    assert [f.kind for f in books.findings] == []
    day = books.day(DAY)
    assert (day.buyins_cash, day.drop_cash, day.drop) == (92_150, 92_150, 92_150)
    assert day.chip_win == 1_900_000 - 2_000_000 + 92_150 == -7_850
    buyin, count, posting = books.conversions
    assert (buyin.currency, buyin.amount, buyin.rate, buyin.booked) == (
        "USD",
        100_000,
        RATE,
        92_150,
    )
    assert (count.what, count.booked, posting.what, posting.booked) == (
        "drop count",
        92_150,
        "drop posting",
        92_150,
    )
    assert buyin.what == "A cash buy-in at box 1" and count.shift == "06:00"
    assert sum(books.trial_balance(DAY).values()) == 0
    assert books.trial_balance(DAY)["drop:BJ-01:cash"] == 0  # counted and posted at the same rate
    result = reconcile(day)
    assert result.chip_variance == -7_850 and [f.kind for f in result.findings] == ["chip_variance"]


def test_the_rate_of_another_day_or_pair_converts_nothing() -> None:
    other_day = fold(usd_at_a_eur_table().events, rates={("2026-11-30", "USD", "EUR"): RATE})
    assert [f.kind for f in other_day.findings] == [
        "currency_mismatch"
    ] * 3 and other_day.conversions == ()
    other_pair = fold(usd_at_a_eur_table().events, rates={(DAY, "USD", "CZK"): RATE})
    assert [f.kind for f in other_pair.findings] == ["currency_mismatch"] * 3


def test_conversion_rounds_half_away_from_zero_to_the_target_s_minor_unit() -> None:
    assert convert(1, "USD", "EUR", Fraction(1, 2)) == 1  # 0.5 cent up
    assert convert(3, "USD", "EUR", Fraction(1, 2)) == 2  # 1.5 cents up
    assert (
        convert(100_000, "EUR", "JPY", Fraction(161, 1)) == 161_000
    )  # EUR 1,000.00 at 161: JPY 161,000
    assert convert(1_000, "KWD", "EUR", Fraction(3, 1)) == 300  # KWD 1.000 at 3: EUR 3.00


@pytest.fixture
def accounting() -> object:
    user = get_user_model().objects.create_user("carol", is_staff=True)
    user.groups.add(Group.objects.get(name="accounting"))
    return user


@pytest.mark.django_db
def test_a_rate_set_by_accounting_books_the_day_again_and_its_findings_go(
    settings, fake_game, accounting
) -> None:
    settings.PROJECT_ON_APPEND = False
    t = usd_at_a_eur_table()
    fake_game.record(t.code, t.events)
    append(t.code, t.events)
    catch_up("ledger.books")
    open_kinds = set(
        Finding.objects.filter(superseded_by__isnull=True).values_list("kind", flat=True)
    )
    assert "currency_mismatch" in open_kinds

    client = APIClient()
    client.force_authenticate(accounting)
    answer = client.post(
        "/api/ledger/fx-rates",
        {"gaming_day": DAY, "currency": "USD", "rate": "0.9215", "note": "the cage's buying rate"},
        format="json",
    )
    assert answer.status_code == 201, answer.content
    assert answer.json()["rate"] == "1843/2000" and answer.json()["house"] == "EUR"
    event = Event.objects.get(stream="audit.ledger", type="fx.rate_set")
    assert (event.payload["numerator"], event.payload["denominator"], event.payload["by"]) == (
        1843,
        2000,
        "carol",
    )

    day = m.Reconciliation.objects.get(
        table__stream="BJ-01", gaming_day=date(2026, 11, 29), shift=""
    )
    assert (day.buyins_cash, day.drop, day.chip_win) == (92_150, 92_150, -7_850)
    assert [
        (c["what"], c["currency"], c["amount"], c["rate"], c["booked"]) for c in day.conversions
    ] == [
        ("A cash buy-in at box 1", "USD", 100_000, "1843/2000", 92_150),
        ("drop count", "USD", 100_000, "1843/2000", 92_150),
        ("drop posting", "USD", 100_000, "1843/2000", 92_150),
    ]
    assert not Finding.objects.filter(kind="currency_mismatch", superseded_by__isnull=True).exists()
    listed = client.get("/api/ledger/fx-rates", {"from": DAY, "to": DAY}).json()
    assert [(r["gaming_day"], r["currency"], r["rate"], r["set_by"]) for r in listed] == [
        (DAY, "USD", "1843/2000", "carol")
    ]
    detail = client.get(f"/api/ledger/reconciliations/BJ-01/{DAY}").json()
    assert [(c["currency"], c["amount"], c["booked"]) for c in detail["conversions"]] == [
        ("USD", 100_000, 92_150)
    ] * 3

    # a rate set again for the day replaces it and books the day anew
    assert (
        client.post(
            "/api/ledger/fx-rates",
            {"gaming_day": DAY, "currency": "USD", "rate": "9/10"},
            format="json",
        ).status_code
        == 201
    )
    day = m.Reconciliation.objects.get(
        table__stream="BJ-01", gaming_day=date(2026, 11, 29), shift=""
    )
    assert day.drop == 90_000 and m.FxRate.objects.get().numerator == 9


@pytest.mark.django_db
def test_who_may_set_a_rate_and_bad_rates_named(accounting) -> None:
    client = APIClient()
    pit = get_user_model().objects.create_user("alice", is_staff=True)
    pit.groups.add(Group.objects.get(name="pit_boss"))
    client.force_authenticate(pit)
    assert (
        client.post(
            "/api/ledger/fx-rates",
            {"gaming_day": DAY, "currency": "USD", "rate": "1"},
            format="json",
        ).status_code
        == 403
    )
    client.force_authenticate(accounting)
    for body, field in (
        ({"gaming_day": DAY, "currency": "USD", "rate": "0"}, "rate"),
        ({"gaming_day": DAY, "currency": "USD", "rate": "1e3"}, "rate"),
        ({"gaming_day": DAY, "currency": "USD", "rate": "abc"}, "rate"),
        ({"gaming_day": DAY, "currency": "EUR", "rate": "1"}, "currency"),
        ({"gaming_day": DAY, "currency": "usd", "rate": "1"}, "currency"),
        ({"gaming_day": "2026-02-31", "currency": "USD", "rate": "1"}, "gaming_day"),
        ({"gaming_day": DAY, "currency": "USD", "rate": "1", "colour": "red"}, "colour"),
    ):
        answer = client.post("/api/ledger/fx-rates", body, format="json")
        assert answer.status_code == 400 and field in answer.json()["errors"], (
            body,
            answer.content,
        )
    # past the API too: the service itself refuses a person without the permission, and a device
    from audit.access.devices import device_ensure

    device = device_ensure(stream="BJ-01").account.user
    for user in (pit, device):
        with pytest.raises(NotAllowed):
            fx.fx_rate_set(
                gaming_day=date(2026, 11, 29), currency="USD", rate=Fraction(1), user=user
            )
    assert not Event.objects.filter(type="fx.rate_set").exists() and not m.FxRate.objects.exists()
    with pytest.raises(fx.RateInvalid):
        fx.parse_rate("-1")


def test_a_later_rate_in_the_fold_is_read_between_events() -> None:
    """The projection hands the fold the latest rates before each batch: a buy-in folded
    before its day's rate is a finding, one folded after is converted."""
    from ledger.books.fold import Fold

    t = Table()
    t.open()
    t.add(
        "buyin.recorded",
        {"box": 1, "player": "P-1", "method": "cash", "amount": 10_000, "currency": "USD"},
    )
    state = Fold()
    for event in t.events:
        state.apply(event)
    t.add(
        "buyin.recorded",
        {"box": 2, "player": "P-2", "method": "cash", "amount": 10_000, "currency": "USD"},
    )
    state.rates = {(DAY, "USD", "EUR"): RATE}
    state.apply(t.events[-1])
    books = state.books()
    assert [f.kind for f in books.findings] == ["currency_mismatch"]
    assert books.day(DAY).buyins_cash == 9_215 and len(books.conversions) == 1


@pytest.mark.django_db
def test_reports_consolidated_in_the_house_currency_at_each_day_s_rate(settings, fake_game) -> None:
    """BJ-01 (EUR) is the worked example: drop 9,000.00, chip-count win 4,000.00. BJ-CZ
    (CZK) on the same day: opener 30,000.00, a buy-in of 25,000.00, the house loses
    2,500.00, closer 2,500.00 - drop CZK 25,000.00, win CZK -2,500.00; at 1/25 (CZK 25 to
    EUR 1) EUR 1,000.00 and EUR -100.00. Consolidated: drop 10,000.00, win 3,900.00, hold
    39.0%. BJ-CZ's next day has no rate: counted and named apart, never added."""
    from ledger import reports
    from ledger.books.stats import percent

    from .helpers import worked_example

    settings.PROJECT_ON_APPEND = False
    eur = worked_example()
    czk = Table("BJ-CZ", currency="CZK")
    czk.open()
    czk.count("opening", {50_000: 60})
    czk.buyin(2_500_000)
    czk.play((250_000, 250_000))
    czk.count("closing", {50_000: 5})
    czk.close()
    czk.drop(2_500_000)
    czk.open("2026-11-30")
    czk.count("opening", {50_000: 5}, day="2026-11-30")
    czk.count("closing", {50_000: 5}, day="2026-11-30")
    czk.close("2026-11-30")
    czk.drop(0, day="2026-11-30")
    for t in (eur, czk):
        fake_game.record(t.code, t.events)
        append(t.code, t.events)
    catch_up("ledger.books")
    root = get_user_model().objects.create_superuser("root", "root@example.com", "x")
    fx.fx_rate_set(gaming_day=date(2026, 11, 29), currency="CZK", rate=Fraction(1, 25), user=root)

    apart = {
        r["currency"]: r
        for r in reports.hold(day_from=date(2026, 11, 29), day_to=date(2026, 11, 30)).rows
    }
    assert (
        set(apart) == {"EUR", "CZK"} and apart["CZK"]["no_rate"] is None
    )  # not consolidated: each apart

    made = reports.hold(day_from=date(2026, 11, 29), day_to=date(2026, 11, 30), consolidate=True)
    rows = {r["table"]: r for r in made.rows}
    assert (rows["BJ-01"]["drop"], rows["BJ-01"]["win"]) == (900_000, 400_000)
    assert (rows["BJ-CZ"]["currency"], rows["BJ-CZ"]["drop"], rows["BJ-CZ"]["win"]) == (
        "EUR",
        100_000,
        -10_000,
    )
    assert (rows["BJ-CZ"]["no_rate"], rows["BJ-CZ"]["no_rate_days"]) == (
        1,
        "BJ-CZ 2026-11-30 (CZK: no rate)",
    )
    assert "in EUR at each day's rate" in made.title
    [casino] = reports.statistics(
        group="casino",
        period="range",
        day_from=date(2026, 11, 29),
        day_to=date(2026, 11, 30),
        consolidate=True,
    ).rows
    assert (casino["currency"], casino["drop"], casino["win"], percent(casino["hold"])) == (
        "EUR",
        1_000_000,
        390_000,
        "39.0%",
    )
    assert casino["no_rate"] == 1
    daily = {
        r["gaming_day"]: r
        for r in reports.daily(
            day_from=date(2026, 11, 29), day_to=date(2026, 11, 30), consolidate=True
        ).rows
    }
    assert daily["2026-11-30"]["no_rate_days"] == "BJ-CZ 2026-11-30 (CZK: no rate)"
