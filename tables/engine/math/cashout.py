"""Seed 000's cash-out offer, and the replay check of a recorded one.

The live game (seed 000, house rules) offers a hand between 11 and 16 an immediate
payment "creata dal sistema su base statistica" in place of playing on. Here:

1. the hand's *expected return* per unit of its stake is computed from the cards left
   in the shoe (every card seen - the hand's, the up card, other hands', burned cards
   shown face up - removed), the hand playing on by the rule set's chart exactly as
   the live dealer will play it (:mod:`.ev`, with its stated approximations; no
   dealer hole card in seed 000, so a dealer natural is still possible and takes
   every stake, or the original one, as ``dealer_natural_takes`` says). Where the
   chart says double, the hand gets one card; the player's stake is valued undoubled
   (the option to add a stake is not part of the offer). Where it says split, the
   offer is for the player's stake on the first hand (the second is an opt-in stake);
2. that return is rounded half-even to 9 decimals (``RETURN_QUANTUM``) and made an
   exact fraction, so the offer never depends on float formatting;
3. ``fair value = stake x expected return``; the offer is
   ``fair value x (1 - margin)`` rounded to a whole minor unit by the rule set's
   ``rounding`` policy (:func:`tables.engine.money.apply_ratio`). ``margin`` is the
   house's share, a fraction such as ``(1, 20)`` for 5%: the rule set's
   ``cashout_margin`` (it-live: 2%, a house default - seed 000 states none) unless a
   ``margin`` argument is given.

The engine's dealer makes its offers, and replay checks every recorded
``cashout.offered``, with :func:`offer_share` (``Round.offer_ratio``: the hand valued
once for all its bets; ``Round.system_offer``: a stake times it, rounded as
:func:`cashout_offer` rounds it); ``remaining`` is then the cards left in the shoe
(every card dealt or burned since the shuffle removed - in seed 000 every one of them
is face up).

>>> from ..presets import PRESETS
>>> from .composition import remaining
>>> seen = ["TS", "6H", "9D"]
>>> offer = cashout_offer(["TS", "6H"], "9D", remaining(6, seen), stake=1000,
...                       rules=PRESETS["it-live"], margin=(1, 50))
>>> offer.amount <= offer.fair_value
True
>>> check_offer(offer.amount, ["TS", "6H"], "9D", remaining(6, seen), stake=1000,
...             rules=PRESETS["it-live"], margin=(1, 50))
True
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

from ..cards import VALUE
from ..money import apply_ratio
from ..rules import RuleSet
from .composition import Composition
from .dealer import dealer_odds
from .ev import DOUBLE, SPLIT, Position
from .hands import best_total
from .rulesview import PlayRules
from .strategy import chart_for

RETURN_QUANTUM = 10**9  # expected returns are kept to 9 decimals

Margin = Fraction | tuple[int, int]


@dataclass(frozen=True)
class Offer:
    amount: int  # minor units, what the player is offered
    fair_value: Fraction  # stake x expected return, before the margin
    expected_return: Fraction  # per unit of stake, 9 decimals
    margin: Fraction
    action: str  # what the chart does next with the hand


def offer_due(cards: Sequence[str], rules: RuleSet) -> bool:
    """Does this hand get an offer? Seed 000: not below ``live_must_hit_below`` (11),
    not from ``live_stand_from`` (17) on, and only in a game that offers cash-outs."""
    if rules.surrender != "cash_out":
        return False
    hard = sum(VALUE[c] for c in cards)
    best, _soft = best_total(hard, any(VALUE[c] == 1 for c in cards))
    return rules.live_must_hit_below <= best < rules.live_stand_from


# A hand's shape: what its value depends on besides the composition (its cards are
# already out of ``remaining``): hard total, an ace or not, its number of cards, the
# value of a first-two-card pair (0: none) and whether it came from a split.
Shape = tuple[int, bool, int, int, bool]

# Bounds of the composition caches (see :func:`position`). A composition comes back
# only while the cards on the layout stay the same (the bettors on one hand, the
# hands of one moment): replaying 12 tables x 300 rounds hits as often with 64
# positions as with 2,048, while 2,048 positions of a few KB each held 6 MiB that
# grew with the table's rounds until the bound. These hold about a shoe's worth.
POSITIONS = 256
SHARES = 2048


def shape_of(cards: Sequence[str], split_done: bool = False) -> Shape:
    values = [VALUE[c] for c in cards]
    pair = values[0] if len(values) == 2 and values[0] == values[1] and not split_done else 0
    return sum(values), 1 in values, len(values), pair, split_done


@lru_cache(maxsize=64)
def _play(rules: RuleSet) -> PlayRules:
    return PlayRules.of(rules)


@lru_cache(maxsize=POSITIONS)
def position(rules: RuleSet, up: int, remaining: Composition) -> Position:
    """One up card (a value) against the cards left in the shoe, for one rule set: the
    dealer's exact odds and the chart's hit/stand values, worked out once and shared by
    every hand valued at that moment (other boxes, other bettors, a replay of the same
    shoe). An LRU keyed on the composition and the rules, so its memory is bounded
    (``POSITIONS`` entries of a few KB). Raises ValueError for an empty composition."""
    return Position(_play(rules), up, remaining)


def expected_return(
    cards: Sequence[str],
    up: str,
    remaining: Composition,
    rules: RuleSet,
    *,
    split_done: bool = False,
) -> tuple[float, str]:
    """(expected return per unit of the hand's stake, the chart's next action)."""
    return _shape_return(shape_of(cards, split_done), VALUE[up], tuple(remaining), rules)


def _shape_return(
    shape: Shape, up: int, remaining: Composition, rules: RuleSet
) -> tuple[float, str]:
    hard, ace, ncards, pair, split_done = shape
    position_ = position(rules, up, remaining)
    if hard > 21:
        return 0.0, "bust"
    if ncards == 2 and not split_done and best_total(hard, ace)[0] == 21:
        return 1.0 + position_.natural_value(), "natural"
    chart = chart_for(rules)
    legal = position_.legal(hard, ace, ncards, pair, after_split=split_done)
    action = chart.decide(up, hard, ace, pair, legal)
    if action == DOUBLE:
        value = position_.final(position_.double(hard, ace) / 2.0)
    elif action == SPLIT:
        value = position_.final(position_.split(pair, chart) / 2.0)
    else:
        value = position_.values(
            hard, ace, ncards, pair, after_split=split_done, policy=chart, legal=frozenset({action})
        )[action]
    return max(1.0 + value, 0.0), action


def _margin(rules: RuleSet, margin: Margin | None) -> Fraction:
    if margin is None:
        margin = rules.cashout_margin
    value = Fraction(*margin) if isinstance(margin, tuple) else Fraction(margin)
    if not 0 <= value < 1:
        raise ValueError("the cash-out margin must be in [0, 1)")
    return value


def cashout_offer(
    cards: Sequence[str],
    up: str,
    remaining: Composition,
    *,
    stake: int,
    rules: RuleSet,
    margin: Margin | None = None,
    split_done: bool = False,
) -> Offer:
    """The offer for a hand of ``cards`` against ``up`` with ``remaining`` cards left,
    for ``stake`` minor units on it."""
    if stake < 0:
        raise ValueError("stake must be >= 0")
    cut = _margin(rules, margin)
    shape, left = shape_of(cards, split_done), tuple(remaining)
    share = _shares(rules)(shape, VALUE[up], left, cut)
    quantised, action = _quantised_return(shape, VALUE[up], left, rules)
    amount = apply_ratio(stake, (share.numerator, share.denominator), rules.rounding)
    return Offer(amount, quantised * stake, quantised, cut, action)


def offer_share(
    cards: Sequence[str],
    up: str,
    remaining: Composition,
    *,
    rules: RuleSet,
    margin: Margin | None = None,
    split_done: bool = False,
) -> Fraction:
    """The share of its stake a hand of ``cards`` against ``up`` is offered with
    ``remaining`` cards left: its expected return less the margin. The same for every
    stake on the hand; :func:`cashout_offer` is a stake times it, rounded."""
    return _shares(rules)(shape_of(cards, split_done), VALUE[up], tuple(remaining), margin)


ShareFn = Callable[[Shape, int, Composition, "Margin | None"], Fraction]
# per rule set (by identity: hashing a RuleSet, every field of it, costs more than the
# lookup itself, and the replay asks once per bet), the most recent RULE_SETS of them;
# each entry holds its rule set, so no other object can take its id meanwhile
_SHARES: OrderedDict[int, tuple[RuleSet, ShareFn]] = OrderedDict()
RULE_SETS = 8


def _shares(rules: RuleSet) -> ShareFn:
    """The memoised shares of one rule set: by the hand's shape, the up card, the
    composition left and the margin, so every bettor on a hand (thousands at once in the
    live game) and every hand of the same shape at that moment is offered from one
    valuation, with no fraction arithmetic per bet."""
    entry = _SHARES.get(id(rules))
    if entry is not None and entry[0] is rules:
        return entry[1]

    kept: dict[Margin | None, Fraction] = {}  # per margin, the share of the return kept: 1 - margin

    def share(shape: Shape, up: int, remaining: Composition, margin: Margin | None) -> Fraction:
        quantised, _action = _quantised_return(shape, up, remaining, rules)
        left = kept.get(margin)
        if left is None:  # (a fraction made and subtracted once a margin, not once an offer)
            if len(kept) >= 16:
                kept.clear()
            left = kept[margin] = 1 - _margin(rules, margin)
        return quantised * left

    cached: ShareFn = lru_cache(maxsize=SHARES)(share)
    _SHARES[id(rules)] = (rules, cached)
    if len(_SHARES) > RULE_SETS:
        _SHARES.popitem(last=False)
    return cached


@lru_cache(maxsize=SHARES)
def _quantised_return(
    shape: Shape, up: int, remaining: Composition, rules: RuleSet
) -> tuple[Fraction, str]:
    """The expected return kept to 9 decimals, memoised by shape and composition."""
    value, action = _shape_return(shape, up, remaining, rules)
    return Fraction(round(value * RETURN_QUANTUM), RETURN_QUANTUM), action


def prepare(rules: RuleSet) -> None:
    """Work out ahead what every offer of ``rules`` shares, its chart (a preset's is
    stored; any other rule set's is a strategy analysis, a fifth of a second or more): a
    process about to fork workers that value offers (the offline auditor) does it once
    for all of them."""
    if rules.surrender == "cash_out":
        chart_for(rules)


def clear_caches() -> None:
    """Forget every memoised valuation (the shares and returns here, the positions per
    composition, the dealer's odds per composition): what a replay in a fresh process
    starts from (benchmarks use it)."""
    _SHARES.clear()
    _quantised_return.cache_clear()
    position.cache_clear()
    dealer_odds.cache_clear()


def check_offer(
    recorded: int,
    cards: Sequence[str],
    up: str,
    remaining: Composition,
    *,
    stake: int,
    rules: RuleSet,
    margin: Margin | None = None,
    split_done: bool = False,
) -> bool:
    """Is ``recorded`` (a ``cashout.offered`` amount) the offer this module computes?"""
    offer = cashout_offer(
        cards, up, remaining, stake=stake, rules=rules, margin=margin, split_done=split_done
    )
    return offer.amount == recorded
