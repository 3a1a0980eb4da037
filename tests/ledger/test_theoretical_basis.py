"""Theoretical win = the initial stakes x the chart's house edge per initial stake, plus
insurance by its own edge; doubles and splits are inside the edge, never extra handle. A
worked day by hand, through the books and the store; and a long simulation whose mean
house result per initial stake lies within the bound the variance gives around the edge."""

from __future__ import annotations

import io
import json
import math
from collections import defaultdict
from datetime import date
from fractions import Fraction

import pytest

from audit.feed.subscribers import catch_up
from audit.record.events import read_current
from ledger import models as m
from ledger.books import fold, reconcile
from ledger.books.stats import Z95, standard_deviation
from ledger.reports import theoretical_of
from tables.engine.math.covariance import box_covariance
from tables.engine.math.house_edge import house_edge
from tables.engine.math.insurance import insurance_figures
from tables.engine.presets import PRESETS
from tables.simulator.config import SimConfig
from tables.simulator.run import FileSink, simulate
from tests.back_office.helpers import append

from .helpers import DAY, Table

EDGE = Fraction(1, 200)
VARIANCE = Fraction(13, 10)
INSURANCE_EDGE, INSURANCE_VARIANCE = Fraction(23, 311), Fraction(185_760, 96_721)  # six decks, 2:1


def bet(
    t: Table, number: int, bet_id: str, box: int, amount: int, kind: str, parent: str | None = None
) -> None:
    t.add(
        "bet.placed",
        {
            "round": number,
            "bet": bet_id,
            "box": box,
            "hand": 1 if kind == "split" else 0,
            "player": f"P-{box}",
            "amount": amount,
            "kind": kind,
            "parent": parent,
        },
    )


def worked_day() -> Table:
    """Round 1: box 1 stakes 100.00 and doubles (100.00 more), winning 200.00; box 2
    stakes 50.00 and splits (50.00 more), one hand lost and one won. Round 2: box 1
    stakes 100.00 and insures it for 50.00 against the dealer's ace; the dealer has a
    natural - the insurance wins 100.00, the stake is lost. Round 3: a stake of 200.00,
    voided.

    By hand: initial stakes 100 + 50 + 100 = 250.00; insurance 50.00; handle 250 + 100
    (double) + 50 (split) + 50 (insurance) = 450.00. At an edge of 0.5% per initial stake
    and insurance's 23/311: 250.00 x 1/200 + 50.00 x 23/311 = 1.25 + 3.6977 = EUR 4.95
    (495 cents, from 125 + 369.77). Every stake x the edge would have made 450.00 x 1/200
    = EUR 2.25 and missed insurance's own edge."""
    t = Table()
    t.open()
    t.add("round.started", {"round": 1, "shoe": "S-1"})
    bet(t, 1, "r1-b1", 1, 10_000, "main")
    bet(t, 1, "r1-b2", 2, 5_000, "main")
    bet(t, 1, "r1-b1-d", 1, 10_000, "double", "r1-b1")
    bet(t, 1, "r1-b2-s", 2, 5_000, "split", "r1-b2")
    t.add(
        "round.settled",
        {
            "round": 1,
            "settlements": [
                {"bet": "r1-b1", "outcome": "win", "net": 10_000},
                {"bet": "r1-b1-d", "outcome": "win", "net": 10_000},
                {"bet": "r1-b2", "outcome": "lose", "net": -5_000},
                {"bet": "r1-b2-s", "outcome": "win", "net": 5_000},
            ],
        },
    )
    t.add("round.started", {"round": 2, "shoe": "S-1"})
    bet(t, 2, "r2-b1", 1, 10_000, "main")
    bet(t, 2, "r2-b1-i", 1, 5_000, "insurance", "r2-b1")
    t.add(
        "round.settled",
        {
            "round": 2,
            "settlements": [
                {"bet": "r2-b1", "outcome": "lose", "net": -10_000},
                {"bet": "r2-b1-i", "outcome": "win", "net": 10_000},
            ],
        },
    )
    t.add("round.started", {"round": 3, "shoe": "S-1"})
    bet(t, 3, "r3-b1", 1, 20_000, "main")
    t.add("round.voided", {"round": 3, "reason": "cards exposed", "authorised_by": "PB-1"})
    return t


def test_the_theoretical_win_of_a_worked_day_is_initial_stakes_times_the_edge() -> None:
    figures = fold(worked_day().events).day(DAY)
    assert (figures.handle, figures.initial, figures.insurance) == (45_000, 25_000, 5_000)
    # per round, each box's initial stake squared: 100.00^2 + 50.00^2, then 100.00^2
    assert (figures.hand_squares, figures.round_squares, figures.insurance_squares) == (
        225_000_000,
        325_000_000,
        25_000_000,
    )
    result = reconcile(
        figures,
        edge=EDGE,
        variance=VARIANCE,
        insurance_edge=INSURANCE_EDGE,
        insurance_variance=INSURANCE_VARIANCE,
    )
    theory = result.theoretical
    assert theory is not None
    assert theory.mean == 125 + Fraction(5_000 * 23, 311) and theory.win == 495
    assert theory.variance == VARIANCE * 225_000_000 + INSURANCE_VARIANCE * 25_000_000
    # insurance staked and its edge not known: no theoretical win at all, not one without it
    assert reconcile(figures, edge=EDGE, variance=VARIANCE).theoretical is None


def test_the_insurance_figures_are_the_full_shoe_s() -> None:
    """Six decks less the dealer's ace: 96 tens in 311 cards; insurance pays 2:1."""
    six = insurance_figures(PRESETS["hoyle"])
    assert six == (INSURANCE_EDGE, INSURANCE_VARIANCE)
    p = Fraction(96, 311)
    assert (
        INSURANCE_EDGE == (1 - p) - 2 * p
        and INSURANCE_VARIANCE == 4 * p + (1 - p) - INSURANCE_EDGE**2
    )
    assert insurance_figures(PRESETS["vegas-6to5-single-deck"]) == (
        Fraction(1, 17),
        Fraction(560, 289),
    )


@pytest.mark.django_db
def test_the_worked_day_through_the_store(settings, fake_game) -> None:
    settings.PROJECT_ON_APPEND = False
    fake_game.variance = VARIANCE
    fake_game.insurance = (INSURANCE_EDGE, INSURANCE_VARIANCE)
    t = worked_day()
    fake_game.record(t.code, t.events)
    append(t.code, t.events)
    catch_up("ledger.books")
    day = m.Reconciliation.objects.get(
        table__stream="BJ-01", gaming_day=date(2026, 11, 29), shift=""
    )
    assert (day.handle, day.initial_stakes, day.insurance_stakes) == (45_000, 25_000, 5_000)
    assert day.theoretical_win == 495
    assert day.theoretical_sd == standard_deviation(
        VARIANCE * 225_000_000 + INSURANCE_VARIANCE * 25_000_000
    )
    assert day.insurance_edge == "23/311"
    theory = theoretical_of(day)  # the reports read the stored row on the same basis
    assert theory is not None and round(theory.mean) == 495


def test_a_long_simulation_s_house_result_per_initial_stake_converges_on_the_edge() -> None:
    """6 tables x 10 days x 300 rounds of five basic-strategy players on hoyle (the chart
    played, no insurance taken): the house result over the initial stakes is the edge
    within 1.96 SD, the SD from the game's variance and the covariance of the boxes of one
    round over the boxes' initial stakes - the basis the theoretical win is on. The
    handle is larger (doubles and splits), so the same result over the handle is a
    smaller rate: an edge times the handle overstates the theoretical win by the ratio."""
    config = SimConfig(
        tables=6,
        presets=("hoyle",),
        rounds=300,
        days=10,
        seats=5,
        players=("basic",),
        seed="edge-converges",
    )
    out = io.BytesIO()
    simulate(config, FileSink(out, config))
    streams: dict[str, list[dict]] = defaultdict(list)
    for line in out.getvalue().splitlines():
        event = read_current(json.loads(line))  # read as the readers read a file
        streams[event["stream"]].append(event)
    rules = PRESETS["hoyle"]
    analysis = house_edge(rules)
    edge, variance = Fraction(str(analysis.house_edge)), Fraction(str(analysis.variance))
    covariance = Fraction(str(box_covariance(rules)))
    result = initial = handle = hand_squares = round_squares = insurance = 0
    for events in streams.values():
        books = fold(events)
        for day in books.days():
            d = books.day(day)
            result += d.recorded_win
            initial += d.initial
            handle += d.handle
            hand_squares += d.hand_squares
            round_squares += d.round_squares
            insurance += d.insurance
    assert insurance == 0 and initial > 0
    var = variance * hand_squares + covariance * (round_squares - hand_squares)
    rate, sd = Fraction(result, initial), math.sqrt(var) / initial
    z = float((rate - edge) / Fraction(sd))
    print(
        f"house result per initial stake {float(rate):.4%} against the edge {float(edge):.4%} "
        f"(SD {sd:.4%}, z {z:+.2f}); over the handle {result / handle:.4%}; handle / initial {handle / initial:.4f}"
    )
    assert (rate - edge) ** 2 <= Z95**2 * var / initial**2
    assert Fraction(handle, initial) > Fraction(
        105, 100
    )  # doubles and splits: not extra initial stakes
