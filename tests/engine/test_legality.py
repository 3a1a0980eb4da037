"""The round at the table and the mathematics ask one set of legality rules
(``tables.engine.legality``): for every preset, every two-card hand against every up
card gets the same answers from ``Round`` as from the mathematics' ``PlayRules`` - the
first decision, and after a split the double and the resplit."""

from __future__ import annotations

import pytest

from tables.engine.cards import RANKS, VALUE
from tables.engine.math.composition import remove, shoe
from tables.engine.math.ev import Position, best_total
from tables.engine.math.rulesview import PlayRules
from tables.engine.presets import PRESETS
from tables.engine.rules import RuleSet
from tables.engine.table_round import DEALER_SPOT, INSURANCE, PLAY, Hand, Round

UP_RANKS = "23456789TA"  # one rank per up-card value: only values matter to the dealer


def _at_decision(rules: RuleSet, first: str, second: str, up: str) -> Round:
    """A round of one box holding ``first`` ``second`` against ``up``, the box to decide
    (the dealer's hole card, where dealt, is a 2: no dealer natural)."""
    r = Round(rules, 1, "S1")
    r.place_bet("b", 1, 0, None, max(rules.min_bet, 100), "main", None)
    r.close_betting()
    player, dealer = [first + "S", second + "H"], [up + "D", "2C"]
    while r.phase < PLAY:  # a player natural ends the play at once
        if r.phase == INSURANCE:
            r.close_insurance()
            continue
        target = r.next_target()
        assert target is not None, r.phase
        r.deal((dealer if target == DEALER_SPOT else player).pop(0), *target)
    return r


def _facts(hand: Hand) -> tuple[int, bool, bool, int]:
    """(hard total, holds an ace, soft, pair value or 0) as the mathematics reads a hand."""
    values = [VALUE[c] for c in hand.cards]
    hard, ace = sum(values), 1 in values
    pair = values[0] if len(values) == 2 and values[0] == values[1] else 0
    return hard, ace, best_total(hard, ace)[1], pair


def _allows(r: Round, hand: Hand, action: str) -> bool:
    return r.allowed(hand, action) is None


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_the_round_and_the_mathematics_agree_on_every_first_decision(name: str) -> None:
    """Double, split and surrender on every two-card hand against every up card: the
    round's ``allowed`` is ``PlayRules``' answer (a game that splits by rank refuses a
    pair of unlike ten-cards, which the mathematics values as the pair of tens it is
    not asked about), and outside the live game the round's ``legal_actions`` are the
    mathematics' ``Position.legal``."""
    rules = PRESETS[name]
    play = PlayRules.of(rules)
    asked = 0
    for up in UP_RANKS:
        position = Position(play, VALUE[up + "D"], remove(shoe(rules.decks), VALUE[up + "D"]))
        for first in RANKS:
            for second in RANKS:
                r = _at_decision(rules, first, second, up)
                hand = r.current
                if hand is None:  # a natural: no decision
                    assert VALUE[first + "S"] + VALUE[second + "H"] == 11 and "A" in (first, second)
                    continue
                hard, ace, soft, pair = _facts(hand)
                up_value = VALUE[up + "D"]
                assert _allows(r, hand, "double") == play.can_double(
                    hard, soft, after_split=False
                ), (first, second, up)
                same_rank = first == second or not play.split_by_rank
                assert _allows(r, hand, "split") == bool(
                    pair and same_rank and play.can_split(pair)
                ), (first, second, up)
                assert _allows(r, hand, "surrender") == play.surrender_offered(up_value), (
                    first,
                    second,
                    up,
                )
                if not rules.dealer_plays_basic_strategy:
                    legal = position.legal(
                        hard, ace, 2, pair if same_rank else 0, after_split=False
                    )
                    assert r.legal_actions(hand) == legal, (first, second, up)
                asked += 1
    assert asked == 10 * (13 * 13 - 8)  # every hand but the eight naturals (A with T, J, Q, K)


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_the_round_and_the_mathematics_agree_after_a_split(name: str) -> None:
    """Every pair the rules let split, against every up card, split and given each
    possible card: the first split hand's double is ``PlayRules.can_double`` after a
    split, and a pair again may split again as ``PlayRules.can_resplit`` says (split
    aces that take one card are valued apart by the mathematics, so their double is not
    compared)."""
    rules = PRESETS[name]
    play = PlayRules.of(rules)
    split = 0
    for up in UP_RANKS:
        for rank in RANKS:
            for drawn in RANKS:
                r = _at_decision(rules, rank, rank, up)
                hand = r.current
                assert hand is not None
                if not _allows(r, hand, "split"):
                    continue
                r.decide(1, 0, "split", verify=False)  # the live game's strategy may not split it
                r.deal(drawn + "C", 1, 0)
                first = r.hands[(1, 0)]
                assert first.from_split and len(first.cards) == 2
                hard, _ace, soft, pair = _facts(first)
                if not (VALUE[rank + "S"] == 1 and rules.split_aces_one_card):
                    assert _allows(r, first, "double") == play.can_double(
                        hard, soft, after_split=True
                    ), (rank, drawn, up)
                if pair and (drawn == rank or not play.split_by_rank):
                    assert _allows(r, first, "split") == play.can_resplit(
                        pair, len(r.box_hands[1])
                    ), (rank, drawn, up)
                split += 1
    assert split > 0
