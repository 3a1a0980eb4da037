"""Statistics of table games (COMAR 36.05.03.25): hold, theoretical win and hold, the 95%
interval of a win, aggregation by table, game, pit and casino, by shift, day, month to date
and year to date, and the comparison with the same period of the year before.

The theoretical win is of the initial stakes, times the house edge per initial stake the
chart's analysis gives (doubles, splits and insurance are not extra handle: the first two
are inside that edge, insurance is valued by its own), with its variance on the same
basis.

Exact arithmetic only: amounts are integers of minor units, rates (hold, the house edge,
the variance per unit staked) are :class:`~fractions.Fraction`; a percentage becomes text
(one decimal) only to be shown. The interval is computed without a square root where it
decides anything: ``value`` is inside ``mean +- z * sd`` exactly when
``(value - mean)**2 <= z**2 * variance``.

    >>> percent(hold(4_000, 9_000)), basis_points(hold(4_000, 9_000))
    ('44.4%', 4444)
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from fractions import Fraction

# the rates' formatters live with money's (one of each); the ledger reads them here too
from audit.record.money import basis_points, minor_unit_digits, percent  # noqa: F401 - percent re-exported

from .figures import convert

Z95 = Fraction(196, 100)  # the two-sided 95% point of the normal distribution


def exact(rate: Fraction | int) -> Fraction:
    """A rate as an exact fraction; a float is refused (``Fraction(str(x))`` makes one of
    a float's decimal text, deliberately)."""
    if isinstance(rate, bool) or not isinstance(rate, (Fraction, int)):
        raise TypeError(
            f"a rate near money is an exact Fraction or an int, not {type(rate).__name__}"
        )
    return Fraction(rate)


def hold(win: int, drop: int) -> Fraction | None:
    """Win-to-drop (COMAR 36.05.03.25): ``win / drop``; None without a drop."""
    return Fraction(win, drop) if drop else None


def _ceil_sqrt(value: Fraction) -> int:
    root = math.isqrt(math.floor(value))
    return root if root * root >= value else root + 1


def standard_deviation(variance: Fraction) -> int:
    """The square root of ``variance`` (minor units squared) to the nearest minor unit."""
    root = math.isqrt(math.floor(variance))
    return root + 1 if variance > root * root + root + Fraction(1, 4) else root


def inside(value: int, mean: Fraction, variance: Fraction, z: Fraction = Z95) -> bool:
    """Whether ``value`` lies within ``mean +- z * sqrt(variance)`` (exactly)."""
    return (value - mean) ** 2 <= z * z * variance


def interval(mean: Fraction, variance: Fraction, z: Fraction = Z95) -> tuple[int, int]:
    """``mean +- z * sqrt(variance)`` rounded outwards to whole minor units."""
    half = _ceil_sqrt(z * z * variance)
    return math.floor(mean - half), math.ceil(mean + half)


def win_variance(
    variance_per_unit: Fraction,
    covariance_per_unit: Fraction | None,
    *,
    hand_squares: int,
    round_squares: int = 0,
) -> Fraction:
    """The variance of the house result of a table's hands over its rounds (minor units
    squared), on the basis of the chart's figures: per unit of *initial* stake.

    Rounds are independent; within a round the boxes are not (they share the dealer's
    hand and the shoe). A round whose boxes have initial stakes ``s_i`` (a box's main bet
    and the bets behind it, which play its hand) has the variance
    ``V * sum(s_i^2) + C * sum over i != j of s_i s_j`` - ``V`` one box's variance and
    ``C`` the covariance of two boxes, per unit of initial stake (the game's; a box's
    doubles and splits are inside ``V``, as in the chart's edge) - so over the rounds
    ``V * hand_squares + C * (round_squares - hand_squares)``. Where ``C`` is not known
    the boxes are taken as independent: ``V * hand_squares``, narrower than the truth
    wherever several boxes play."""
    if covariance_per_unit is None:
        return variance_per_unit * hand_squares
    return variance_per_unit * hand_squares + covariance_per_unit * (round_squares - hand_squares)


@dataclass(frozen=True, slots=True)
class Theoretical:
    """Theoretical win of a set of rounds: the **initial stakes** (main bets and the bets
    behind them) times the chart's house edge per initial stake - doubles and splits are
    inside that edge, never extra handle - plus the **insurance** stakes times
    insurance's own edge (the chart never insures: a player who does makes a bet of its
    own, :mod:`tables.engine.math.insurance`).

    Its variance: :func:`win_variance` of the hands, plus insurance's variance per unit
    times the sum of its stakes' squares (each insurance taken as independent of the
    hand it insures; it pays when the hand loses to a natural, so the true variance of
    the two together is smaller). Where a variance is not known (``variance_per_unit``
    None, or insurance staked and its variance not given) the win has no SD and no
    interval: ``variance`` and ``sd`` are None."""

    initial: int
    edge: Fraction
    variance_per_unit: Fraction | None
    covariance_per_unit: Fraction | None = None
    hand_squares: int = 0
    round_squares: int = 0
    insurance: int = 0
    insurance_squares: int = 0
    insurance_edge: Fraction = Fraction(0)
    insurance_variance: Fraction | None = None

    @property
    def mean(self) -> Fraction:
        return self.initial * self.edge + self.insurance * self.insurance_edge

    @property
    def win(self) -> int:
        """The theoretical win to the nearest minor unit."""
        return round(self.mean)

    @property
    def variance(self) -> Fraction | None:
        if self.variance_per_unit is None:
            return None
        hands = win_variance(
            self.variance_per_unit,
            self.covariance_per_unit,
            hand_squares=self.hand_squares,
            round_squares=self.round_squares,
        )
        if not self.insurance_squares:
            return hands
        if self.insurance_variance is None:
            return None
        return hands + self.insurance_variance * self.insurance_squares

    @property
    def sd(self) -> int | None:
        """The square root of :attr:`variance`, to the nearest minor unit (None where the
        game's variance is not known)."""
        variance = self.variance
        return None if variance is None else standard_deviation(variance)

    def interval(self, z: Fraction = Z95) -> tuple[int, int] | None:
        variance = self.variance
        return None if variance is None else interval(self.mean, variance, z)

    def contains(self, win: int, z: Fraction = Z95) -> bool | None:
        """Whether ``win`` is inside the interval; None where there is none."""
        variance = self.variance
        return None if variance is None else inside(win, self.mean, variance, z)


def theoretical(
    initial: int,
    edge: Fraction | int,
    variance_per_unit: Fraction | int | None,
    covariance_per_unit: Fraction | int | None = None,
    *,
    hand_squares: int = 0,
    round_squares: int = 0,
    insurance: int = 0,
    insurance_squares: int = 0,
    insurance_edge: Fraction | int | None = None,
    insurance_variance: Fraction | int | None = None,
) -> Theoretical | None:
    """The theoretical win of rounds with ``initial`` stakes (and their per-box sums of
    squares, :func:`win_variance`) and ``insurance`` stakes, exact; None where insurance
    was staked and its edge is not given (n/a, never a win that leaves it out).

        >>> theoretical(10_000, Fraction(1, 200), None, insurance=1_000, insurance_edge=Fraction(23, 311)).win
        124
    """
    if insurance and insurance_edge is None:
        return None
    return Theoretical(
        initial,
        exact(edge),
        None if variance_per_unit is None else exact(variance_per_unit),
        None if covariance_per_unit is None else exact(covariance_per_unit),
        hand_squares,
        round_squares,
        insurance,
        insurance_squares,
        exact(insurance_edge or 0),
        None if insurance_variance is None else exact(insurance_variance),
    )


# --- aggregation -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TableDay:
    """One table's figures for one gaming day (or one shift of it) as statistics read
    them: ``game`` is the rule set, ``pit`` where the table stands.

    Two bases, never mixed. The **hold** is the chip-count win over the drop
    (COMAR 36.05.03.25): ``chip_win`` and ``drop`` (None: not counted - an opener, a
    closer or the drop missing, or a game with no drop box); a table-day with both is
    *complete*, and only complete ones enter a hold. The **house result** is the
    recorded win of the rounds (settlements, corrections applied), set against the
    ``handle`` and the ``theoretical`` win of the same rounds (None where the game's edge
    is not known) and its ``theoretical_variance`` (None where the game's variance is
    not). ``missing`` names what a table-day lacks for the hold ("no closer count")."""

    table: str
    gaming_day: date
    game: str
    pit: str
    currency: str
    drop: int | None
    chip_win: int | None
    house_result: int
    handle: int
    theoretical: Fraction | None
    theoretical_variance: Fraction | None
    shift: str | None = None
    missing: tuple[str, ...] = ()

    @property
    def complete(self) -> bool:
        """It has a chip-count win and a drop: it enters the hold."""
        return self.chip_win is not None and self.drop is not None

    @property
    def why_left_out(self) -> str:
        """What keeps it out of the hold, in words ("" where it is complete)."""
        if self.complete:
            return ""
        if self.missing:
            return ", ".join(self.missing)
        return "no drop count" if self.drop is None else "no chip-count win"

    @property
    def month(self) -> tuple[int, int]:
        return (self.gaming_day.year, self.gaming_day.month)

    @property
    def year(self) -> int:
        return self.gaming_day.year


def missing_counts(*, opener: object, closer: object, drop: object) -> tuple[str, ...]:
    """What a period lacks for a chip-count win, in words: each of the opener, the closer
    and the drop that is None.

    >>> missing_counts(opener=1, closer=None, drop=None)
    ('no closer count', 'no drop count')
    """
    return tuple(
        words
        for value, words in (
            (opener, "no opener count"),
            (closer, "no closer count"),
            (drop, "no drop count"),
        )
        if value is None
    )


@dataclass(frozen=True, slots=True)
class Totals:
    """Sums over table-days; rates computed from the sums (never averaged).

    ``drop``, ``win`` (the chip-count win) and ``theoretical_in_hold`` are sums over the
    *complete* table-days only (``complete`` of the ``rows``): the hold's basis. The
    others - ``left_out``, listed - are never averaged in. ``house_result``, ``handle``,
    ``theoretical`` and ``theoretical_variance`` are sums over every row: the rounds'
    basis. ``theoretical`` is None when any row's is not known, and the variance None
    when any row's is not (a sum would understate either)."""

    currency: str
    rows: int = 0
    complete: int = 0
    drop: int = 0
    win: int = 0
    theoretical_in_hold: Fraction | None = Fraction(0)
    house_result: int = 0
    handle: int = 0
    theoretical: Fraction | None = Fraction(0)
    theoretical_variance: Fraction | None = Fraction(0)
    left_out: tuple[TableDay, ...] = ()

    @property
    def hold(self) -> Fraction | None:
        """Chip-count win / drop over the complete table-days; None without any (or a
        drop of 0)."""
        return hold(self.win, self.drop) if self.complete else None

    @property
    def theoretical_hold(self) -> Fraction | None:
        """The theoretical win of the complete table-days over their drop."""
        if not self.complete or not self.drop or self.theoretical_in_hold is None:
            return None
        return self.theoretical_in_hold / self.drop

    @property
    def result_of_handle(self) -> Fraction | None:
        """The house result as a share of the handle (the "actual edge" of the rounds);
        not a hold."""
        return Fraction(self.house_result, self.handle) if self.handle else None

    @property
    def theoretical_sd(self) -> int | None:
        variance = self.theoretical_variance
        return None if variance is None else standard_deviation(variance)

    def interval(self, z: Fraction = Z95) -> tuple[int, int] | None:
        variance = self.theoretical_variance
        if variance is None or self.theoretical is None:
            return None
        return interval(self.theoretical, variance, z)

    def inside(self, z: Fraction = Z95) -> bool | None:
        """Whether the house result lies within the 95% interval around the theoretical
        win of the same rounds (None where the edge or the variance is not known)."""
        variance = self.theoretical_variance
        if variance is None or self.theoretical is None:
            return None
        return inside(self.house_result, self.theoretical, variance, z)


def _add(a: Fraction | None, b: Fraction | None) -> Fraction | None:
    return None if a is None or b is None else a + b


def total(rows: Iterable[TableDay], currency: str | None = None) -> Totals:
    """The sums of ``rows``; rows of different currencies cannot be added."""
    currency = currency or ""
    count = complete = drop = win = house_result = handle = 0
    theory: Fraction | None = Fraction(0)
    in_hold: Fraction | None = Fraction(0)
    variance: Fraction | None = Fraction(0)
    left_out: list[TableDay] = []
    for row in rows:
        if currency and row.currency != currency:
            raise ValueError(
                f"cannot add {row.currency} ({row.table}, {row.gaming_day}) to {currency}"
            )
        currency = row.currency
        count += 1
        house_result += row.house_result
        handle += row.handle
        theory = _add(theory, row.theoretical)
        variance = _add(variance, row.theoretical_variance)
        if row.chip_win is not None and row.drop is not None:
            complete += 1
            drop += row.drop
            win += row.chip_win
            in_hold = _add(in_hold, row.theoretical)
        else:
            left_out.append(row)
    return Totals(
        currency,
        count,
        complete,
        drop,
        win,
        in_hold,
        house_result,
        handle,
        theory,
        variance,
        tuple(left_out),
    )


def left_out_text(rows: Sequence[TableDay]) -> str:
    """The table-days left out of a hold, in words: per table and reason, the day (or how
    many days, first to last). "" where none is.

    >>> day = TableDay("BJ-03", date(2026, 11, 30), "hoyle", "P1", "EUR", None, None, 0, 0, None, None)
    >>> left_out_text([day])
    'BJ-03 2026-11-30 (no drop count)'
    """
    groups: dict[tuple[str, str | None, str], list[date]] = {}
    for row in rows:
        groups.setdefault((row.table, row.shift, row.why_left_out), []).append(row.gaming_day)
    parts = []
    for (table, shift, why), days in sorted(
        groups.items(), key=lambda item: (item[0][0], str(item[0][1]), item[0][2])
    ):
        days = sorted(set(days))
        where = f"{table}" + (f" shift {shift}" if shift else "")
        when = (
            days[0].isoformat()
            if len(days) == 1
            else f"{len(days)} days, {days[0].isoformat()} to {days[-1].isoformat()}"
        )
        parts.append(f"{where} {when} ({why})")
    return "; ".join(parts)


def converted(row: TableDay, into: str, rate: Fraction) -> TableDay:
    """``row`` in currency ``into`` at ``rate`` (units of ``into`` per unit of its own):
    each amount converted and rounded to a minor unit (:func:`.figures.convert`), the
    theoretical win and its variance exactly."""
    scale = rate * Fraction(10) ** (minor_unit_digits(into) - minor_unit_digits(row.currency))

    def money(amount: int | None) -> int | None:
        return None if amount is None else convert(amount, row.currency, into, rate)

    return dataclasses.replace(
        row,
        currency=into,
        drop=money(row.drop),
        chip_win=money(row.chip_win),
        house_result=convert(row.house_result, row.currency, into, rate),
        handle=convert(row.handle, row.currency, into, rate),
        theoretical=None if row.theoretical is None else row.theoretical * scale,
        theoretical_variance=None
        if row.theoretical_variance is None
        else row.theoretical_variance * scale * scale,
    )


def consolidated(
    rows: Iterable[TableDay], house: str, rates: Mapping[tuple[str, str, str], Fraction]
) -> tuple[list[TableDay], list[TableDay]]:
    """``rows`` in the house currency: each of another currency converted at the rate of
    its gaming day (``rates``: (day, currency, house) -> rate); those with no rate that day
    apart, never added at a guessed one. Returns (in the house currency, without a rate)."""
    out: list[TableDay] = []
    missing: list[TableDay] = []
    for row in rows:
        if row.currency == house:
            out.append(row)
            continue
        rate = rates.get((row.gaming_day.isoformat(), row.currency, house))
        if rate is None:
            missing.append(row)
        else:
            out.append(converted(row, house, rate))
    return out, missing


DIMENSIONS = ("table", "game", "pit", "shift", "gaming_day", "month", "year")


def aggregate(rows: Iterable[TableDay], by: Sequence[str] = ()) -> dict[tuple[object, ...], Totals]:
    """Totals per group: ``by`` names dimensions of :data:`DIMENSIONS` (``()`` is the whole
    casino, ``("pit",)`` per pit, ``("game", "month")`` per rule set and month)."""
    unknown = [name for name in by if name not in DIMENSIONS]
    if unknown:
        raise ValueError(f"cannot aggregate by {unknown} (known: {', '.join(DIMENSIONS)})")
    groups: dict[tuple[object, ...], list[TableDay]] = {}
    for row in rows:
        groups.setdefault(tuple(getattr(row, name) for name in by), []).append(row)
    return {
        key: total(group)
        for key, group in sorted(groups.items(), key=lambda item: tuple(map(str, item[0])))
    }


# --- periods -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Period:
    """Gaming days ``start`` to ``end``, both included."""

    name: str
    start: date
    end: date

    def contains(self, day: date) -> bool:
        return self.start <= day <= self.end

    def year_before(self) -> Period:
        """The same days one year earlier (29 February becomes the 28th)."""
        return Period(
            f"{self.name}, a year before", _year_before(self.start), _year_before(self.end)
        )


def _year_before(day: date) -> date:
    try:
        return day.replace(year=day.year - 1)
    except ValueError:  # 29 February
        return day.replace(year=day.year - 1, day=28)


def day(of: date) -> Period:
    return Period("day", of, of)


def month_to_date(of: date) -> Period:
    return Period("month to date", of.replace(day=1), of)


def year_to_date(of: date) -> Period:
    return Period("year to date", of.replace(month=1, day=1), of)


def within(rows: Iterable[TableDay], period: Period) -> list[TableDay]:
    return [row for row in rows if period.contains(row.gaming_day)]


@dataclass(frozen=True, slots=True)
class Comparison:
    """A group's totals in a period and in the same period a year before."""

    key: tuple[object, ...]
    period: Period
    now: Totals
    before: Totals

    @property
    def drop_change(self) -> int | None:
        """The drop's change (None where either period has no complete table-day: a
        period with no data is not a drop of 0)."""
        if not (self.now.complete and self.before.complete):
            return None
        return self.now.drop - self.before.drop

    @property
    def win_change(self) -> int | None:
        """The chip-count win's change (None where either period has no complete day)."""
        if not (self.now.complete and self.before.complete):
            return None
        return self.now.win - self.before.win

    @property
    def hold_change_bp(self) -> int | None:
        """Change of the hold in basis points (None where either has no drop)."""
        if self.now.hold is None or self.before.hold is None:
            return None
        return basis_points(self.now.hold - self.before.hold)


def compare(rows: Sequence[TableDay], period: Period, by: Sequence[str] = ()) -> list[Comparison]:
    """Per group: the period's totals beside the same period a year before."""
    now = aggregate(within(rows, period), by)
    before = aggregate(within(rows, period.year_before()), by)
    return [
        Comparison(key, period, totals, before.get(key, Totals(totals.currency)))
        for key, totals in now.items()
    ]


def statistical_report(
    rows: Sequence[TableDay], as_of: date, by: Sequence[str] = ("table",)
) -> list[Comparison]:
    """Drop, win and win-to-drop per group for the day, month to date and year to date of
    ``as_of``, each beside the same period a year before (COMAR 36.05.03.25)."""
    return [
        c
        for period in (day(as_of), month_to_date(as_of), year_to_date(as_of))
        for c in compare(rows, period, by)
    ]
