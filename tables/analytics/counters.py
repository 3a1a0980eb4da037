"""Counter detection: who raises the bet when the count is high.

Per player, over the bets of the period: how many, the smallest and largest stake and
the spread between them, the mean stake at a low true count (below +1) and at a high
one (+2 and up), Spearman's rho of stake against true count and its one-sided
permutation p-value (:mod:`.significance`). A player is **flagged** when the stake
rises with the count beyond chance - rho above zero and p at most :data:`ALPHA` - over
at least :data:`MIN_BETS` bets; with fewer bets there is not enough to tell, and the
row says so. A player who bets steadily, or by mood, has no reason to correlate with
the count: the false-positive rate is ALPHA by construction of the test, and the
measured one is in the docs (docs/analytics.md).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction

from .counting import CountedBet
from .significance import spearman

ALPHA = 0.001
MIN_BETS = 30
LOW_COUNT = 1.0  # below: a low count
HIGH_COUNT = 2.0  # from: a high count


@dataclass(frozen=True)
class PlayerCount:
    player: str
    tables: tuple[str, ...]
    bets: int
    min_bet: int
    max_bet: int
    spread: Fraction  # max / min stake
    mean_low: int | None  # mean stake (minor units, rounded) at a true count below +1
    mean_high: int | None  # ... at +2 and up
    high_bets: int  # bets placed at +2 and up
    rho: float | None
    p_value: float | None
    flagged: bool
    verdict: str
    points: tuple[tuple[float, int], ...]  # (true count, stake) of each bet, for the chart


def _mean(values: list[int]) -> int | None:
    return round(Fraction(sum(values), len(values))) if values else None


def assess(
    bets: Iterable[CountedBet], *, alpha: float = ALPHA, min_bets: int = MIN_BETS
) -> list[PlayerCount]:
    """Every player's row, the flagged first, then by p-value and player."""
    by_player: dict[str, list[CountedBet]] = {}
    for bet in bets:
        by_player.setdefault(bet.player, []).append(bet)
    out = []
    for player, rows in by_player.items():
        counts = [b.true_count for b in rows]
        stakes = [b.amount for b in rows]
        low = [b.amount for b in rows if b.true_count < LOW_COUNT]
        high = [b.amount for b in rows if b.true_count >= HIGH_COUNT]
        correlation = spearman(counts, stakes, seed=player)
        enough = len(rows) >= min_bets
        flagged = bool(
            enough
            and correlation.rho is not None
            and correlation.rho > 0
            and correlation.p_value is not None
            and correlation.p_value <= alpha
        )
        if not enough:
            verdict = f"too few bets to tell (fewer than {min_bets})"
        elif correlation.rho is None:
            verdict = (
                "flat bet: the stake never changes"
                if min(stakes) == max(stakes)
                else "the count never changed"
            )
        elif flagged:
            verdict = "bets rise with the true count"
        else:
            verdict = "no link between bet and count"
        out.append(
            PlayerCount(
                player=player,
                tables=tuple(sorted({b.table for b in rows})),
                bets=len(rows),
                min_bet=min(stakes),
                max_bet=max(stakes),
                spread=Fraction(max(stakes), min(stakes)),
                mean_low=_mean(low),
                mean_high=_mean(high),
                high_bets=len(high),
                rho=correlation.rho,
                p_value=correlation.p_value,
                flagged=flagged,
                verdict=verdict,
                points=tuple((b.true_count, b.amount) for b in rows),
            )
        )
    out.sort(key=lambda r: (not r.flagged, r.p_value if r.p_value is not None else 2.0, r.player))
    return out
