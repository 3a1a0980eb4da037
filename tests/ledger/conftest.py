from __future__ import annotations

from collections.abc import Iterator
from datetime import date
from fractions import Fraction
from typing import Any

import pytest

from ledger import game
from ledger.books import ReplayDifference
from ledger.feed import CACHE


class FakeGame:
    """A game provider whose replay agrees with the record (each round's house result
    as recorded, from the events it is shown) unless told otherwise, with a given edge
    and variance."""

    def __init__(
        self, *, edge: Fraction | None = Fraction(1, 200), variance: Fraction | None = None
    ) -> None:
        self.edge, self.variance = edge, variance
        # insurance's edge and variance, where a test stakes insurance
        self.insurance: tuple[Fraction, Fraction] | None = None
        self.rounds: dict[tuple[str, str, int], int] = {}
        self.differences: dict[tuple[str, str], list[ReplayDifference]] = {}
        self.asked: list[tuple[str, date, int]] = []

    def record(self, table: str, events: list[dict[str, Any]]) -> None:
        """Replay agrees with these events' settlements (round by round)."""
        day = ""
        for event in events:
            if event["type"] == "table.opened":
                day = event["payload"]["gaming_day"]
            elif event["type"] == "round.settled":
                key = (table, day, event["payload"]["round"])
                self.rounds[key] = self.rounds.get(key, 0) - sum(
                    s["net"] for s in event["payload"]["settlements"]
                )

    def replayed(self, *, table: str, gaming_day: date, version: int) -> game.ReplayedDay | None:
        self.asked.append((table, gaming_day, version))
        day = gaming_day.isoformat()
        rounds = {n: win for (t, d, n), win in self.rounds.items() if (t, d) == (table, day)}
        return game.ReplayedDay(version, rounds, tuple(self.differences.get((table, day), ())))

    def game_math(self, *, ruleset: str, rules: Any) -> game.GameMath:
        insurance = self.insurance or (None, None)
        return game.GameMath(
            self.edge, self.variance, insurance_edge=insurance[0], insurance_variance=insurance[1]
        )


@pytest.fixture
def fake_game() -> Iterator[FakeGame]:
    before = game.provider()
    fake = FakeGame()
    game.register(fake)
    CACHE.clear()
    yield fake
    game.register(before)
    CACHE.clear()
