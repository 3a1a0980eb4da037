"""The game as the ledger sees it (:class:`ledger.game.GameProvider`), backed by the
tables' read models and the rules engine's mathematics; registered by
:class:`casino.apps.CasinoConfig` - the one layer that may import both.

- **Replayed win**: per round, the house result of the settlements the engine
  recomputes (``tables.models.Round.expected_net``, the players' net, negated), and per
  bet whose recorded settlement differs, the difference as the ledger reads it. Read
  from the tables' read models only, which must cover the version the ledger folded:
  where they are behind (their subscriber of the feed has not run yet, or runs
  elsewhere) there is no replay yet (None), and the ledger's day waits for the tables'
  announcement that they caught up (:data:`audit.feed.subscribers.table_day_replayed`).
- **Edge, variance and covariance**: the engine's house edge of the rule set with the
  table's overrides and the variance of one box's result, per unit of initial stake, the
  chart played (:func:`tables.engine.math.house_edge.house_edge`: floats from the
  combinatorial analysis, each made an exact fraction of its decimal text, deliberately);
  the covariance of two boxes of one round, estimated by a seeded simulation through the
  engine (:func:`tables.engine.math.covariance.box_covariance`: stored for the presets,
  estimated once per process for a rule set with overrides); insurance's own edge and
  variance per unit of insurance stake, exact
  (:func:`tables.engine.math.figures.insurance_math`).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date
from typing import Any

from ledger.books import ReplayDifference
from ledger.game import GameMath, ReplayedDay
from tables.engine.math.figures import engine_math, insurance_math


class TablesGame:
    def replayed(self, *, table: str, gaming_day: date, version: int) -> ReplayedDay | None:
        from audit.models import Finding
        from tables import models as tm

        row = tm.Table.objects.filter(stream=table).first()
        if row is None or row.projected_version < version:
            return None
        rounds = {
            number: -net
            for number, net in tm.Round.objects.filter(
                table=row, gaming_day=gaming_day
            ).values_list("number", "expected_net")
        }
        mismatched = list(
            tm.mismatched_bets(row, gaming_day).values_list(
                "round__number", "bet", "recorded_net", "expected_net"
            )
        )
        kinds = (
            dict(
                Finding.objects.filter(
                    stream=table,
                    gaming_day=gaming_day,
                    superseded_by__isnull=True,
                    bet__in=[bet for _, bet, _, _ in mismatched],
                )
                .exclude(bet="")
                .values_list("bet", "kind")
            )
            if mismatched
            else {}
        )
        differences = tuple(
            ReplayDifference(
                kinds.get(bet)
                or ("wrong_payout" if recorded is not None else "missing_settlement"),
                (recorded or 0) - (expected or 0),
                bet=bet,
                round=number,
            )
            for number, bet, recorded, expected in mismatched
        )
        return ReplayedDay(row.projected_version, rounds, differences)

    def game_math(self, *, ruleset: str, rules: Mapping[str, Any]) -> GameMath:
        return _math(ruleset, tuple(sorted(rules.items())))


def _math(ruleset: str, overrides: tuple[tuple[str, Any], ...]) -> GameMath:
    # the same figures the regulator's package states and its theoretical win uses
    figures = engine_math(ruleset, dict(overrides))
    if figures is None:
        return GameMath()
    edge, variance, covariance = figures
    insurance = insurance_math(ruleset, dict(overrides))
    return GameMath(
        edge=edge,
        variance=variance,
        covariance=covariance,
        insurance_edge=insurance[0] if insurance else None,
        insurance_variance=insurance[1] if insurance else None,
    )
