"""What the fold gives per table, gaming day and shift: the figures the reconciliation and
the statistics are computed from, and the custody state of slips, markers and drops.

Sign convention, everywhere: a **house result** (a win) is positive when the house won.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

from audit.record.money import minor_unit_digits


def chip_value(chips: dict[int, int]) -> int:
    """The value of chips given as denomination -> count."""
    return sum(denomination * count for denomination, count in chips.items())


def convert(amount: int, currency: str, into: str, rate: Fraction) -> int:
    """``amount`` minor units of ``currency`` in minor units of ``into`` at ``rate`` (units
    of ``into`` per unit of ``currency``, major units), exact and rounded to the nearest
    minor unit, a half away from zero.

    >>> convert(100_000, "USD", "EUR", Fraction(9215, 10_000)), convert(100_000, "JPY", "EUR", Fraction(61, 10_000))
    (92150, 61000)
    >>> convert(-5, "USD", "EUR", Fraction(1, 2))
    -3
    """
    exact = amount * rate * Fraction(10) ** (minor_unit_digits(into) - minor_unit_digits(currency))
    whole = math.floor(abs(exact) + Fraction(1, 2))
    return whole if exact >= 0 else -whole


@dataclass(frozen=True, slots=True)
class Conversion:
    """An amount a table recorded in a foreign currency, booked in the table's at the
    day's rate (``fx.rate_set``): both amounts kept - ``amount`` of ``currency`` as
    recorded, ``booked`` in the table's currency - with the ``rate`` and what it was."""

    event: str | None
    what: str
    gaming_day: str
    shift: str | None
    currency: str
    amount: int
    rate: Fraction
    booked: int


@dataclass(slots=True)
class Figures:
    """One table's figures for one shift (``shift`` its label) or one whole gaming day
    (``shift`` None). Amounts are integer minor units of ``currency``.

    ``opener``/``closer`` are the inventory counts' values (None when not counted);
    ``fills``/``credits`` the table-side steps, each slip once; ``drop_*`` the count
    team's count (None when not counted); ``buyins_cash``/``markers_issued`` what the
    drop box should hold by the table's record; ``handle`` the sum of stakes (voided
    rounds' stakes taken out) and ``stake_squares`` the sum of their squares;
    ``initial`` the initial stakes among them (main bets and the bets behind them: what
    the chart's house edge is per unit of), ``insurance`` the insurance stakes and
    ``insurance_squares`` the sum of their squares (doubles and splits are neither: the
    chart's edge has them inside it);
    ``hand_squares`` and ``round_squares`` what the variance of the win needs where boxes
    of one round are correlated (settled rounds only): per round, each box's initial
    stake (its main bet and the bets behind it, which play its hand) squared and summed,
    and the round's initial stakes summed and squared;
    ``settled_win`` the house result of ``round.settled`` as recorded and
    ``corrections`` what corrections changed of it; ``between_shifts`` (a day's figures
    only) what the tray changed between a shift's closer and the next shift's opener."""

    table: str
    gaming_day: str
    shift: str | None
    currency: str
    opener: int | None = None
    opener_chips: dict[int, int] | None = None
    closer: int | None = None
    closer_chips: dict[int, int] | None = None
    fills: int = 0
    credits: int = 0
    buyins_cash: int = 0
    markers_issued: int = 0
    drop_cash: int | None = None
    drop_markers: int | None = None
    drop_chips: int | None = None
    handle: int = 0
    stake_squares: int = 0
    initial: int = 0
    insurance: int = 0
    insurance_squares: int = 0
    hand_squares: int = 0
    round_squares: int = 0
    settled_win: int = 0
    corrections: int = 0
    rounds: int = 0
    bets: int = 0
    between_shifts: int = 0
    # slips recorded twice (counted once): (slip, value)
    duplicates: list[tuple[str, int]] = field(default_factory=list)

    @property
    def drop(self) -> int | None:
        """The drop as counted: cash + markers + chips (None when not counted)."""
        if self.drop_cash is None:
            return None
        return self.drop_cash + (self.drop_markers or 0) + (self.drop_chips or 0)

    @property
    def recorded_win(self) -> int:
        """The house result of the settlements as recorded, corrections applied."""
        return self.settled_win + self.corrections

    @property
    def chip_win(self) -> int | None:
        """closer - opener + credits - fills + drop (13 Miss. Code R. 7-3.3(a)); None when
        a count or the drop is missing (a live table has neither)."""
        drop = self.drop
        if self.opener is None or self.closer is None or drop is None:
            return None
        return self.closer - self.opener + self.credits - self.fills + drop


@dataclass(slots=True)
class Slip:
    """A fill or credit slip's custody: each step's event id, chips and people. A fill
    goes requested -> issued (cage) -> received (table); a credit requested -> released
    (table) -> received (cage). ``legacy`` is a slip whose only record is a table-side
    step without people (``chips.filled``/``chips.credited`` of version 1, before the
    lifecycle was recorded): it is complete by itself."""

    number: str
    kind: str  # fill | credit
    gaming_day: str
    shift: str
    steps: dict[str, tuple[str | None, dict[int, int]]] = field(default_factory=dict)
    people: dict[str, str | None] = field(default_factory=dict)
    voided: bool = False
    void_reason: str | None = None
    legacy: bool = False

    @property
    def order(self) -> tuple[str, str, str]:
        return (
            ("requested", "issued", "received")
            if self.kind == "fill"
            else ("requested", "released", "received")
        )

    @property
    def table_step(self) -> str:
        """The step at which the tray changes."""
        return "received" if self.kind == "fill" else "released"

    @property
    def complete(self) -> bool:
        return self.legacy or all(step in self.steps for step in self.order)

    @property
    def state(self) -> str:
        """voided, complete, or the last step recorded."""
        if self.voided:
            return "voided"
        if self.complete:
            return "complete"
        done = [step for step in self.order if step in self.steps]
        return done[-1] if done else "none"


@dataclass(slots=True)
class Marker:
    """A marker issued at the table: ``amount`` in ``currency`` (the table's), what the
    redemptions this fold saw paid of it (``redeemed``; a redemption on a later day that
    a fold of that day alone reads is in :class:`Redemption`, which the aging sums)."""

    number: str
    player: str | None
    amount: int
    redeemed: int = 0
    event: str | None = None
    gaming_day: str = ""  # where it was issued
    currency: str = ""

    @property
    def outstanding(self) -> int:
        return self.amount - self.redeemed


@dataclass(frozen=True, slots=True)
class Redemption:
    """One ``marker.redeemed``: ``amount`` of ``currency`` paid on marker ``marker`` at the
    cage (``method``: cash, chips, cheque), in the gaming day it was recorded in."""

    marker: str
    amount: int
    currency: str
    method: str
    gaming_day: str
    event: str | None


@dataclass(frozen=True, slots=True)
class Count:
    """An inventory slip: one opening or closing count of the tray, where it belongs
    (gaming day and shift, as the fold places it) and who counted and witnessed it."""

    event: str | None
    gaming_day: str
    shift: str
    kind: str  # opening | closing
    chips: dict[int, int]
    slip: str | None
    counted_by: str | None
    witnessed_by: str | None

    @property
    def value(self) -> int:
        return chip_value(self.chips)


@dataclass(slots=True)
class Drop:
    """One drop box (or one shift's compartment) of a gaming day: removed, counted,
    posted. ``legacy`` is a count recorded without the custody members (a version 1
    ``drop.counted``): it is the last step, nothing posts it."""

    gaming_day: str
    shift: str | None
    removed: str | None = None
    counted: tuple[int, int, int] | None = None  # cash, markers, chips
    count_event: str | None = None
    posted: tuple[int, int, int] | None = None
    post_event: str | None = None
    legacy: bool = False
