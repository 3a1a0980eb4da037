"""What a rule set lets a hand do, on plain facts: the one set of legality rules.

The round (``table_round.Round.allowed``) asks these with the facts of a hand at the
table; the mathematics (``math.rulesview.PlayRules``) asks them with the facts of an
abstract hand (a total, soft or not, a pair value). Each answer is the reason the rule
set refuses the action, in words a finding can quote, or None where it allows it.
Hitting and standing are always allowed by the rules (whether it is the hand's turn is
the round's business, not the rule set's).

The facts:

* ``first_two`` - the hand holds its first two cards and has not acted on them yet;
* ``from_split`` - the hand was made by splitting a pair;
* ``split_ace`` - a split hand whose first card is an ace;
* ``soft``, ``best`` - an ace counts 11, and the hand's best total;
* ``pair`` - the value of the two cards where they are a pair by value (0: not a pair);
  ``ranks`` their ranks where known (a game that splits by rank compares them);
* ``hands`` - the hands the box holds now (1 before any split);
* ``up`` - the value of the dealer's up card (ace = 1).

>>> from .presets import PRESETS
>>> eu = PRESETS["eu-online"]
>>> double_refusal(eu, first_two=True, from_split=False, split_ace=False, soft=True, best=19)
'this game doubles only hard totals'
>>> split_refusal(eu, first_two=True, pair=10, hands=1, from_split=False) is None
False
>>> surrender_refusal(eu, first_two=True, from_split=False, up=1)
'surrender is not offered against an ace'
"""

from __future__ import annotations

from functools import lru_cache

from .rules import RuleSet

# The round asks these at every decision of a dealt or replayed hand: the parameters are
# positional as well as named, so that hot path passes them by position.


def double_refusal(
    rules: RuleSet, first_two: bool, from_split: bool, split_ace: bool, soft: bool, best: int
) -> str | None:
    """Why ``rules`` refuse a hand of these facts a double (None: they allow it)."""
    if not first_two:
        return "a hand may double only on its first two cards"
    if from_split and not rules.double_after_split:
        return "this game does not double after a split"
    if split_ace and rules.split_aces_one_card:
        return "split aces take one card each"
    if rules.double_hard_only and soft:
        return "this game doubles only hard totals"
    double_on = rules.double_on
    if double_on is not None and best not in double_on:
        return f"this game doubles only on {_listed(double_on)}, not on {best}"
    return None


@lru_cache(maxsize=64)
def _listed(totals: frozenset[int]) -> str:
    return ", ".join(str(v) for v in sorted(totals))


def split_refusal(
    rules: RuleSet,
    first_two: bool,
    pair: int,
    hands: int,
    from_split: bool,
    ranks: tuple[str, str] | None = None,
) -> str | None:
    """Why ``rules`` refuse a hand of these facts a split (None: they allow it). Without
    ``ranks`` a game that splits by rank is asked about the values only."""
    if not first_two:
        return "only a first pair may split"
    if ranks is not None and rules.split_by == "rank" and ranks[0] != ranks[1]:
        return f"this game splits identical ranks only, not {ranks[0]} and {ranks[1]}"
    if not pair:
        return "the two cards are not a pair"
    if pair in rules.no_split_values:
        return f"this game never splits {pair}s"
    if rules.max_split_hands is not None and hands >= rules.max_split_hands:
        return f"this game allows at most {rules.max_split_hands} hands from one"
    if pair == 1 and from_split and not rules.resplit_aces:
        return "this game does not split aces again"
    return None


def surrender_refusal(rules: RuleSet, first_two: bool, from_split: bool, up: int) -> str | None:
    """Why ``rules`` refuse a hand of these facts a surrender (None: they allow it)."""
    if rules.surrender in ("none", "cash_out"):  # seed 000's cash-out is an offer, not an action
        return "this game offers no surrender"
    if not first_two or from_split:
        return "only an original hand of two cards may surrender"
    if rules.surrender == "vs_non_ace" and up == 1:
        return "surrender is not offered against an ace"
    return None
