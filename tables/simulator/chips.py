"""The chip tray of a table: counts per denomination, what goes in and out of it, and
when the pit fills or credits it.

Money only ever moves as whole chips, so every amount the simulator stakes or pays is a
multiple of the smallest denomination (:data:`UNIT`): stakes are multiples of 100 (500 at a
6:5 table), and 3:2, 2:1, 3:1, 6:5, half stakes and half-back surrenders of those are
multiples of 50.

A payment may take a denomination below zero for a moment (the dealer pays with
larger chips and the player colours down); :meth:`Tray.due_fill` brings every low
denomination back to its par before the next round, so counts recorded are never
negative.
"""

from __future__ import annotations

DENOMINATIONS = (50_000, 10_000, 2_500, 500, 100, 50)  # largest first, minor units
UNIT = DENOMINATIONS[-1]


def par_for(max_bet: int) -> dict[int, int]:
    """A tray's par (the opening counts) for a table of this maximum bet."""
    par = {50: 100, 100: 300, 500: 300, 2_500: 160, 10_000: 60, 50_000: 0}
    if max_bet >= 50_000:
        par[10_000] = 100
        par[50_000] = 20
    return par


def chips_of(amount: int) -> dict[int, int]:
    """``amount`` in the fewest chips (largest first)."""
    out: dict[int, int] = {}
    for d in DENOMINATIONS:
        n, amount = divmod(amount, d)
        if n:
            out[d] = n
    if amount:
        raise ValueError(f"{amount} is not a whole number of {UNIT}-chips")
    return out


def chip_list(counts: dict[int, int]) -> list[dict[str, int]]:
    """The catalogue's ``chips`` field, smallest denomination first, zero counts left out
    except where every count is zero."""
    return [{"denomination": d, "count": counts[d]} for d in sorted(counts) if counts[d]]


def value_of(chips: list[dict[str, int]]) -> int:
    return sum(c["denomination"] * c["count"] for c in chips)


class Tray:
    __slots__ = ("counts", "par")

    def __init__(self, par: dict[int, int]) -> None:
        self.par = dict(par)
        self.counts = dict(par)

    @property
    def value(self) -> int:
        return sum(d * n for d, n in self.counts.items())

    def take(self, amount: int) -> None:
        """Chips into the tray (a lost stake)."""
        counts = self.counts
        for d in DENOMINATIONS:
            if amount >= d:
                n, amount = divmod(amount, d)
                counts[d] += n
        if amount:
            raise ValueError(f"{amount} left over: not a whole number of chips")

    def pay(self, amount: int) -> None:
        """Chips out of the tray (a payout or a buy-in), largest first while there are."""
        counts = self.counts
        for d in DENOMINATIONS:
            if amount >= d:
                n = min(amount // d, max(counts[d], 0))
                counts[d] -= n
                amount -= n * d
        if amount:  # short of chips that fit: the smallest chips go below zero until a fill
            if amount % UNIT:
                raise ValueError(f"{amount} is not a whole number of {UNIT}-chips")
            counts[UNIT] -= amount // UNIT

    def due_fill(self) -> dict[int, int]:
        """Chips a fill must bring: every denomination under a quarter of its par (or
        below zero) back to par."""
        return {
            d: self.par[d] - n
            for d, n in self.counts.items()
            if self.par[d] and n < self.par[d] // 4
        }

    def due_credit(self) -> dict[int, int]:
        """Chips a credit takes away: every denomination above twice its par down to par."""
        return {d: n - self.par[d] for d, n in self.counts.items() if n > 2 * max(self.par[d], 10)}

    def quarter_par(self) -> dict[int, int]:
        """A small fill of every denomination the tray holds: a quarter of its par (at least
        one chip) - what a fill planted for a fault brings when the tray needs none."""
        return {d: max(n // 4, 1) for d, n in self.par.items() if n}

    def fill(self, chips: dict[int, int]) -> None:
        for d, n in chips.items():
            self.counts[d] += n

    def credit(self, chips: dict[int, int]) -> None:
        for d, n in chips.items():
            self.counts[d] -= n

    def lose(self, amount: int) -> int:
        """Chips worth ``amount`` leave the tray unrecorded (taken, or lost): the largest
        that fit first, as a thief would. Returns the value that left."""
        left = amount
        for d in DENOMINATIONS:
            n = min(left // d, max(self.counts.get(d, 0), 0))
            self.counts[d] = self.counts.get(d, 0) - n
            left -= n * d
        return amount - left
