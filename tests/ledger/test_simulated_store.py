"""The simulator's tables in the store, through the feed, with the project's game
provider (the tables' replay, the engine's house edge): on a clean day the recorded win
equals the replayed win at every table, the chips agree with the record, and nothing
is found."""

from __future__ import annotations

from fractions import Fraction

import pytest

from audit.feed.subscribers import catch_up
from audit.models import Finding
from ledger import models as m
from ledger.books.stats import standard_deviation
from ledger.feed import CACHE
from tables import models as tm
from tables.engine.math.covariance import box_covariance
from tables.engine.math.house_edge import house_edge
from tables.engine.math.insurance import insurance_figures
from tables.engine.presets import PRESETS
from tables.simulator.config import SimConfig
from tables.simulator.run import simulate
from tables.simulator.store import StoreSink

pytestmark = pytest.mark.django_db


def test_a_clean_simulated_day_reconciles_with_replay(settings) -> None:
    settings.PROJECT_ON_APPEND = False
    CACHE.clear()
    config = SimConfig(tables=4, rounds=25, days=1, seed="ledger-clean", live_bets=30)
    manifest = simulate(config, StoreSink(config))
    assert manifest["faults"] == []
    catch_up("ledger.books")  # the ledger first: its days wait for the tables' replay
    assert set(m.Reconciliation.objects.filter(shift="").values_list("state", flat=True)) == {
        "replay_pending"
    }
    catch_up("tables.projections")  # the tables' replay, announced: the ledger takes it
    days = list(m.Reconciliation.objects.filter(shift="").select_related("table"))
    assert len(days) == 4
    counted = 0
    for day in days:
        assert day.replayed_win is not None and day.replayed_win == day.recorded_win, day
        assert day.replay_variance == 0 and not day.unexplained
        replayed = tm.TableDay.objects.get(
            table__stream=day.table.stream, gaming_day=day.gaming_day
        )
        assert day.replayed_win == -replayed.expected_net and day.handle == replayed.handle
        assert day.theoretical_win is not None and day.edge  # the engine's edge of the rule set
        # the theoretical win: the initial stakes (main and behind) x the chart's edge, the
        # insurance stakes x insurance's own (six decks at 2:1: 23/311)
        rules = PRESETS[day.ruleset]
        analysis = house_edge(rules)
        edge, variance = Fraction(str(analysis.house_edge)), Fraction(str(analysis.variance))
        insurance_edge, insurance_variance = insurance_figures(rules) or (Fraction(0), Fraction(0))
        initial = sum(
            b.amount
            for b in tm.Bet.objects.filter(
                round__table__stream=day.table.stream, kind__in=("main", "behind")
            )
        )
        assert day.initial_stakes == initial <= day.handle
        assert day.theoretical_win == round(initial * edge + day.insurance_stakes * insurance_edge)
        # the SD from the engine's variance of a box's round (the chart played) and the
        # covariance of two boxes of one round, and insurance's own variance
        covariance = Fraction(str(box_covariance(rules)))
        assert day.game_covariance == str(covariance) and 0 < day.hand_squares < day.round_squares
        wanted = (
            variance * int(day.hand_squares)
            + covariance * int(day.round_squares - day.hand_squares)
            + insurance_variance * int(day.insurance_squares)
        )
        assert day.theoretical_sd == standard_deviation(wanted) > 0
        if day.chip_win is not None:
            counted += 1
            assert day.chip_win == day.recorded_win and day.chip_variance == 0
        assert sum(day.trial_balance.values()) == 0
    assert counted >= 3  # every table but the live game counts its chips
    assert not Finding.objects.filter(superseded_by__isnull=True).exists()
