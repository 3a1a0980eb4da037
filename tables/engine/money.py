"""Money: integers in the currency's minor unit, ratios as exact fractions.

No float ever touches money. A payout that is not a whole number of minor units (3:2 on
an odd stake, half of an odd stake back on surrender) is rounded by the rule set's
``rounding`` policy, which is part of the rule set and so of the record:

* ``down`` (the default of every preset): the fraction stays with the house - the
  usual table practice of paying to the lowest chip;
* ``up``: the fraction goes to the player;
* ``half_up``, ``half_even``: to the nearest minor unit, ties away from zero or to even.

>>> apply_ratio(15, (3, 2), "down"), apply_ratio(15, (3, 2), "up")
(22, 23)
>>> apply_ratio(15, (3, 2), "half_even"), apply_ratio(25, (1, 2), "half_even")
(22, 12)
>>> apply_ratio(10, (6, 5), "down")
12
"""

from __future__ import annotations

from typing import Literal

Ratio = tuple[int, int]
Rounding = Literal["down", "up", "half_up", "half_even"]
ROUNDINGS: tuple[Rounding, ...] = ("down", "up", "half_up", "half_even")


def apply_ratio(amount: int, ratio: Ratio, rounding: Rounding) -> int:
    """``amount * numerator / denominator`` (amount >= 0) in whole minor units."""
    numerator, denominator = ratio
    whole, rest = divmod(amount * numerator, denominator)
    if rest == 0 or rounding == "down":
        return whole
    if rounding == "up":
        return whole + 1
    twice = 2 * rest
    if twice > denominator or (twice == denominator and (rounding == "half_up" or whole % 2)):
        return whole + 1
    return whole


def parse_ratio(text: str, *, zero: bool = False) -> Ratio:
    """``"3:2"`` -> (3, 2); refuses negative terms, and zero ones unless ``zero`` lets the
    first term be 0 (a share that may be none, such as a cash-out margin).

    >>> parse_ratio("6:5"), parse_ratio("0:1", zero=True)
    ((6, 5), (0, 1))
    """
    left, sep, right = text.partition(":")
    if (
        not sep
        or not left.isdigit()
        or not right.isdigit()
        or int(left) < (0 if zero else 1)
        or int(right) < 1
    ):
        raise ValueError(f"{text!r} is not a ratio such as 3:2")
    return int(left), int(right)


def format_ratio(ratio: Ratio) -> str:
    return f"{ratio[0]}:{ratio[1]}"
