"""What the ledger needs from the game, as a provider the top layer registers.

The reconciliation needs two figures only the rules engine knows: the **replayed win**
(the house result of the settlements the engine recomputes) and the **theoretical
edge and variance** of a table's rule set (per unit of initial stake, and insurance's
own). The ledger may not import the game (imports point one way: casino -> tables,
ledger -> audit), so it declares what it needs here - :class:`GameProvider` - and the
project (``casino.apps``) registers an implementation backed by the tables' read models
and the engine's mathematics. Tests register fakes.

Without a provider (or where it knows nothing) the replayed win is "n/a" and no
theoretical win is computed: nothing is invented. A day without its replayed win is never
reconciled: it waits (state ``replay_pending``) for the game's announcement that its
replay is written (:func:`ledger.reconciliation.reconcile_replayed`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from fractions import Fraction
from typing import Any, Protocol

from ledger.books import ReplayDifference


@dataclass(frozen=True, slots=True)
class ReplayedDay:
    """A table's gaming day as the rules engine replayed it, up to stream version
    ``version``: each round's house result as recomputed (round number -> minor units,
    positive when the house won; a voided round 0), and each bet whose recorded
    settlement differs from the recomputed one, as a :class:`ReplayDifference` (its
    ``round`` set; ``amount`` the replayed house result minus the recorded one)."""

    version: int
    rounds: Mapping[int, int]
    differences: tuple[ReplayDifference, ...] = ()

    def win(self, rounds: Any = None) -> int:
        """The replayed win of the given rounds (every round of the day when None)."""
        if rounds is None:
            return sum(self.rounds.values())
        return sum(self.rounds.get(number, 0) for number in rounds)

    def differences_of(self, rounds: Any = None) -> list[ReplayDifference]:
        if rounds is None:
            return list(self.differences)
        wanted = set(rounds)
        return [d for d in self.differences if d.round in wanted]


@dataclass(frozen=True, slots=True)
class GameMath:
    """A rule set's house edge, the variance of one box's result in a round and the
    covariance of two boxes' results in one round (they share the dealer's hand), each
    per unit of initial stake, the chart played; and insurance's own edge and variance per
    unit of insurance stake: exact fractions, None where not known (a rule set the engine
    does not know; a figure the engine does not give). Without the covariance the ledger
    takes the boxes as independent (a narrower SD than the truth); with insurance staked
    and no insurance edge, the theoretical win is n/a."""

    edge: Fraction | None = None
    variance: Fraction | None = None
    covariance: Fraction | None = None
    insurance_edge: Fraction | None = None
    insurance_variance: Fraction | None = None


class GameProvider(Protocol):
    def replayed(self, *, table: str, gaming_day: date, version: int) -> ReplayedDay | None:
        """The replay of ``table``'s ``gaming_day`` covering at least stream version
        ``version`` (the last the ledger folded); None where there is none (yet). Reads
        only: it never brings the game's read models up itself."""

    def game_math(self, *, ruleset: str, rules: Mapping[str, Any]) -> GameMath:
        """The edge, variance and covariance of ``ruleset`` with the table's overrides ``rules``."""


class NoGame:
    """No provider registered: no replayed win, no theoretical win."""

    def replayed(self, *, table: str, gaming_day: date, version: int) -> ReplayedDay | None:
        return None

    def game_math(self, *, ruleset: str, rules: Mapping[str, Any]) -> GameMath:
        return GameMath()


_PROVIDER: list[GameProvider] = [NoGame()]


def register(provider: GameProvider) -> None:
    """Use ``provider`` from now on (the project's ``AppConfig.ready()``; a test's fake)."""
    _PROVIDER[0] = provider


def provider() -> GameProvider:
    return _PROVIDER[0]
