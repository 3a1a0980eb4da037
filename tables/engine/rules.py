"""The rule set: every parameter of the rules brief and the few the seeds need
beyond it. A ``RuleSet`` is frozen; a table changes it only through ``with_overrides``
(the ``rules`` overrides of ``table.opened``), which returns a new one.

Parameters added to the rules brief's list, each because a seed needs it:

* ``double_hard_only`` - seed 003 doubles on *hard* 9-11 only;
* ``double_card_face`` - seeds 001 and 004 deal the double's card face down;
* ``insurance_pays`` - 2:1 in every seed, kept as a ratio like ``natural_pays``;
* ``surrender_returns`` - the part of the stake a surrender gives back (1:2 in 003);
* ``rounding`` - the design's "rule set's rounding policy" for fractions of a minor unit;
* ``live_must_hit_below``, ``live_stand_from`` - seed 000's house rules: a hand below 11
  must draw, a hand of 17 or more gets no more cards (and no cash-out offer);
* ``reshuffle_after_exposed`` - seed 000 house rule 3: an exposed card is burned, the
  round finished and the whole shoe reshuffled;
* ``boxes`` - how many betting boxes the layout has (seed 001: six or seven);
* ``burn_when`` - when the ``burn_on_shuffle`` cards are burned: ``shuffle`` (right after
  the shuffle and cut, before any round) or ``bets_down`` (seed 002: once the first
  round's bets are down, before its first card);
* ``insurance_on_natural`` - may a blackjack be insured? Seed 003 insures only a hand
  without one (a blackjack is offered even money instead);
* ``cashout_margin`` - seed 000's cash-out offer is "creata dal sistema su base
  statistica" (000:108): the house's share taken off the hand's fair value, a ratio
  such as ``(1, 50)`` for 2% (``(0, 1)``: none). ``tables.engine.math.cashout`` reads it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal, get_args

from .money import ROUNDINGS, Ratio, Rounding, format_ratio, parse_ratio

HoleCard = Literal["peek", "peek_ace", "none", "no_peek"]
DealerNaturalTakes = Literal["all", "original"]
SplitBy = Literal["value", "rank"]
Surrender = Literal["none", "late", "vs_non_ace", "cash_out"]
InsuranceStake = Literal["half", "up_to_half"]
Face = Literal["up", "down"]
BurnWhen = Literal["shuffle", "bets_down"]

RuleValue = int | bool | str | None


@dataclass(frozen=True, slots=True)
class RuleSet:
    """One house's blackjack. See docs/engine.md for the table of parameters."""

    name: str
    decks: int
    burn_on_shuffle: int = 0
    # when those cards are burned: after the shuffle, or once the first round's bets are down
    burn_when: BurnWhen = "shuffle"
    # cards left unplayed behind the cut card, as an accepted (least, most) range;
    # None: no cut card rule (a continuous shuffler, or not stated)
    penetration: tuple[int, int] | None = None
    hole_card: HoleCard = "peek"
    dealer_natural_takes: DealerNaturalTakes = "all"
    dealer_hits_soft_17: bool = False
    natural_pays: Ratio = (3, 2)
    # first-two-card totals that may double; None: any two cards
    double_on: frozenset[int] | None = None
    double_hard_only: bool = False
    double_after_split: bool = False
    double_card_face: Face = "up"
    split_by: SplitBy = "value"
    no_split_values: frozenset[int] = frozenset()
    # hands one original hand may become; None: no limit (aces aside, see resplit_aces)
    max_split_hands: int | None = 2
    resplit_aces: bool = False
    split_aces_one_card: bool = True
    split_21_is_natural: bool = False
    surrender: Surrender = "none"
    surrender_returns: Ratio = (1, 2)
    even_money: bool = False
    insurance: bool = True
    insurance_stake: InsuranceStake = "half"
    insurance_pays: Ratio = (2, 1)
    # False: insurance only for a hand without blackjack (which is offered even money)
    insurance_on_natural: bool = True
    push_carries_over: bool = False
    dealer_completes_when_all_bust: bool = False
    back_betting: bool = False
    dealer_plays_basic_strategy: bool = False
    live_must_hit_below: int = 11
    live_stand_from: int = 17
    reshuffle_after_exposed: bool = False
    min_bet: int = 1
    max_bet: int = 2**53 - 1
    boxes: int = 7
    rounding: Rounding = "down"
    # the house's share of a cash-out offer's fair value (seed 000); (0, 1): none
    cashout_margin: Ratio = (0, 1)

    def __post_init__(self) -> None:
        _check(self)

    def __hash__(self) -> int:
        """The hash a frozen dataclass gives (of every field, in order), remembered for the
        last :data:`_REMEMBERED` rule sets: the mathematics' caches look a rule set up
        several times an offer, and hashing its forty fields each time was 3% of the live
        game's replay."""
        known = _HASHES.get(id(self))
        if known is not None and known[0] is self:
            return known[1]
        value = hash(tuple(getattr(self, name) for name in _FIELDS))
        if len(_HASHES) >= _REMEMBERED:
            _HASHES.clear()
        _HASHES[id(self)] = (self, value)  # held, so that no other object takes its id meanwhile
        return value

    def with_overrides(self, overrides: Mapping[str, RuleValue]) -> RuleSet:
        """A copy with ``table.opened``'s ``rules`` applied. Values are the catalogue's
        scalars: ratios as ``"3:2"``, sets of totals as ``"9,10,11"`` (``None``: any),
        the penetration range as ``"60-75"``.

        >>> from .presets import PRESETS
        >>> PRESETS["hoyle"].with_overrides({"natural_pays": "6:5", "decks": 8}).natural_pays
        (6, 5)
        """
        fields = {f.name: f for f in dataclasses.fields(self)}
        changes: dict[str, object] = {}
        for name, value in overrides.items():
            if name not in fields or name == "name":
                raise ValueError(f"{name!r} is not a rule-set parameter")
            changes[name] = _parse(name, value, getattr(self, name))
        return dataclasses.replace(self, **changes)  # type: ignore[arg-type]

    def as_overrides(self) -> dict[str, RuleValue]:
        """Every parameter in the scalar form ``with_overrides`` reads."""
        out: dict[str, RuleValue] = {}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if f.name == "name":
                continue
            if isinstance(value, tuple) and f.name == "penetration":
                out[f.name] = f"{value[0]}-{value[1]}"
            elif isinstance(value, tuple):
                out[f.name] = format_ratio(value)
            elif isinstance(value, frozenset):
                out[f.name] = ",".join(str(v) for v in sorted(value))
            else:
                out[f.name] = value
        return out


_CHOICES: dict[str, tuple[str, ...]] = {
    "hole_card": get_args(HoleCard),
    "dealer_natural_takes": get_args(DealerNaturalTakes),
    "split_by": get_args(SplitBy),
    "surrender": get_args(Surrender),
    "insurance_stake": get_args(InsuranceStake),
    "double_card_face": get_args(Face),
    "burn_when": get_args(BurnWhen),
    "rounding": ROUNDINGS,
}


def _check(rules: RuleSet) -> None:
    for name, choices in _CHOICES.items():
        if getattr(rules, name) not in choices:
            raise ValueError(f"{name} must be one of {', '.join(choices)}")
    if not 1 <= rules.decks <= 12:
        raise ValueError("decks must be 1-12")
    if rules.max_split_hands is not None and rules.max_split_hands < 1:
        raise ValueError("max_split_hands must be at least 1 (1: no split)")
    if not 0 <= rules.min_bet <= rules.max_bet:
        raise ValueError("min_bet must be between 0 and max_bet")
    if not 1 <= rules.boxes <= 99:
        raise ValueError("boxes must be 1-99")
    for ratio in (rules.natural_pays, rules.insurance_pays, rules.surrender_returns):
        if ratio[0] < 1 or ratio[1] < 1:
            raise ValueError("ratios need positive terms")
    share, whole = rules.cashout_margin
    if not 0 <= share < whole:
        raise ValueError("cashout_margin must be a share below 1, such as 1:50 (0:1: none)")


def _parse(name: str, value: RuleValue, current: object) -> object:
    if name == "penetration":
        if value is None:
            return None
        low, sep, high = str(value).partition("-")
        if not sep or not low.isdigit() or not high.isdigit():
            raise ValueError(f"penetration: {value!r} is not a range such as 60-75")
        return int(low), int(high)
    if name in ("natural_pays", "insurance_pays", "surrender_returns"):
        return parse_ratio(str(value))
    if name == "cashout_margin":
        return parse_ratio(str(value), zero=True)
    if name in ("double_on", "no_split_values"):
        if value is None:
            return None if name == "double_on" else frozenset()
        text = str(value)
        return frozenset(int(part) for part in text.split(",") if part.strip())
    if name == "max_split_hands":
        if value is None:
            return None
        if not isinstance(value, int) or isinstance(value, bool):
            raise ValueError(f"{name}: expected an integer or null (no limit)")
        return value
    if isinstance(current, bool):
        if not isinstance(value, bool):
            raise ValueError(f"{name}: expected true or false")  # noqa: TRY004 - one error type for every bad override
        return value
    if isinstance(current, int):
        if not isinstance(value, int) or isinstance(value, bool):
            raise ValueError(f"{name}: expected an integer")  # noqa: TRY004
        return value
    if not isinstance(value, str):
        raise ValueError(f"{name}: expected a string")  # noqa: TRY004
    return value


# every field's name, in order (the dataclass's hash is of them all); rule sets' hashes by id
_FIELDS = tuple(f.name for f in dataclasses.fields(RuleSet))
_REMEMBERED = 64
_HASHES: dict[int, tuple[RuleSet, int]] = {}
