"""Dealing: a rule set, a shoe, the bets and the players' choices in; the legal events
of one round out, as (type, payload) pairs in the catalogue's payload format.

The round is driven through the same operations replay uses (``table_round.Round``),
so what is dealt here replays without a finding. The deal order, burns, faces, the
dealer's play and the settlement all come from the rule set; the only inputs are the
shoe's order and the choices, which come from outside (policies are plain callables).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .findings import Illegal
from .rules import RuleSet
from .shoes import LeftCounter, Shoe
from .strategy import Strategy
from .table_round import (
    DEALER,
    DEALER_SPOT,
    DONE,
    INSURANCE,
    PLAY,
    Bet,
    HandView,
    Policy,
    Round,
    Settlement,
)

Payload = dict[str, Any]
Emitted = tuple[str, Payload]


class ShoeCursor:
    """A shoe being dealt: the order and how far into it the dealer is."""

    __slots__ = ("counter", "pos", "shoe")

    def __init__(self, shoe: Shoe, pos: int = 0) -> None:
        if shoe.order is None:
            raise ValueError("dealing needs a shoe with a known order")
        self.shoe = shoe
        self.pos = pos
        self.counter: LeftCounter | None = None

    def left_by_value(self) -> tuple[int, ...]:
        """The cards still in the shoe (every card dealt or burned so far is out), as ten
        counts by value: what the system's cash-out offers are computed from."""
        if self.counter is None:
            self.counter = LeftCounter(self.order)
        return self.counter.at(self.pos)

    @property
    def order(self) -> tuple[str, ...]:
        assert self.shoe.order is not None
        return self.shoe.order

    def next(self) -> str:
        card = self.order[self.pos]
        self.pos += 1
        return card

    @property
    def left(self) -> int:
        return len(self.order) - self.pos


@dataclass(frozen=True, slots=True)
class Stake:
    """A bet offered before betting closes. ``parent``: for ``behind``, the main bet it
    rides on; for ``main``, the pushed bet of the last round it carries (seed 002)."""

    bet: str
    box: int
    amount: int
    player: str | None = None
    kind: str = "main"
    parent: str | None = None


def _never(*_: object) -> bool:
    return False


def _no_insurance(bet: Bet, rules: RuleSet) -> int:
    return 0


def _no_offer(view: HandView, bet: Bet) -> int | None:
    return None


@dataclass(frozen=True, slots=True)
class Choices:
    """Everything besides a hand's play that players (or the system) decide.

    ``insure(bet, rules)`` -> the insurance stake (0: none); ``even_money(bet)``;
    ``opt_in(bet, "double" | "split")`` for stakes that are a player's own choice (the
    live game, bettors behind); ``cash_out(view, bet)`` -> whether the system offers
    the bet a cash-out now, for the amount it computes (``Round.system_offer``, from
    the cards left in the shoe); ``accept(bet, amount)``.

    ``offer(view, bet)`` -> an amount to offer instead of the system's (None: none). It
    exists to record a wrong offer on purpose: replay reports any amount other than the
    system's as ``wrong_cashout_offer``.
    """

    insure: Callable[[Bet, RuleSet], int] = _no_insurance
    even_money: Callable[[Bet], bool] = _never
    opt_in: Callable[[Bet, str], bool] = _never
    offer: Callable[[HandView, Bet], int | None] = _no_offer
    accept: Callable[[Bet, int], bool] = _never
    cash_out: Callable[[HandView, Bet], bool] = _never


@dataclass(slots=True)
class DealtRound:
    events: list[Emitted] = field(default_factory=list)
    settlements: list[Settlement] = field(default_factory=list)
    round: Round | None = None


def deal_round(
    rules: RuleSet,
    shoe: ShoeCursor,
    number: int,
    stakes: Sequence[Stake],
    policy: Policy,
    *,
    choices: Choices | None = None,
    strategy: Strategy | None = None,
    min_bet: int | None = None,
    max_bet: int | None = None,
) -> DealtRound:
    choices = choices or Choices()
    out = DealtRound()
    emit = out.events.append
    r = Round(rules, number, shoe.shoe.id, strategy=strategy, min_bet=min_bet, max_bet=max_bet)
    out.round = r
    emit(("round.started", {"round": number, "shoe": shoe.shoe.id}))
    for stake in stakes:
        parent = stake.parent if stake.kind == "behind" else None
        r.place_bet(stake.bet, stake.box, 0, stake.player, stake.amount, stake.kind, parent)
        emit(("bet.placed", _bet_payload(number, stake.bet, stake.box, 0, stake.player, stake.amount, stake.kind, stake.parent)))
    r.close_betting()
    emit(("betting.closed", {"round": number}))
    revealed = False
    while r.phase != DONE:
        target = r.next_target()
        if target is not None:
            if target == DEALER_SPOT and r.phase == DEALER and not revealed and len(r.dealer) == 2 and rules.hole_card != "none":
                r.reveal(r.dealer[1])
                emit(("card.revealed", {"round": number, "card": r.dealer[1]}))
                revealed = True
            face = r.next_face()
            card = shoe.next()
            r.deal(card, *target)
            dealer = target == DEALER_SPOT
            emit(("card.dealt", {"round": number, "box": None if dealer else target[0], "hand": None if dealer else target[1], "card": card, "face": face}))
            continue
        if r.phase == INSURANCE:
            _insurance(r, rules, choices, emit)
            r.close_insurance()
            continue
        if r.phase == PLAY:
            _play_hand(r, rules, policy, choices, emit, shoe)
            continue
        raise AssertionError(f"round stuck in phase {r.phase}")  # pragma: no cover
    if rules.hole_card != "none" and len(r.dealer) == 2 and not revealed:
        r.reveal(r.dealer[1])
        emit(("card.revealed", {"round": number, "card": r.dealer[1]}))
    out.settlements = r.settle()
    emit(("round.settled", {"round": number, "settlements": [{"bet": s.bet, "outcome": s.outcome, "net": s.net} for s in out.settlements]}))
    return out


def _bet_payload(number: int, bet: str, box: int, hand: int, player: str | None, amount: int, kind: str, parent: str | None) -> Payload:
    return {"round": number, "bet": bet, "box": box, "hand": hand, "player": player, "amount": amount, "kind": kind, "parent": parent}


def _insurance(r: Round, rules: RuleSet, choices: Choices, emit: Callable[[Emitted], None]) -> None:
    for bet in [b for b in r.bets.values() if b.kind in ("main", "behind")]:
        hand = r.hands[(bet.box, 0)]
        if rules.even_money and hand.natural(rules) and choices.even_money(bet):
            r.bet_decision(bet.id, "even_money")
            emit(("decision.made", {"round": r.number, "box": bet.box, "hand": 0, "action": "even_money", "bet": bet.id}))
            continue
        amount = choices.insure(bet, rules) if rules.insurance else 0
        if amount and r.can_place_bet(f"{bet.id}-i", bet.box, 0, amount, "insurance", bet.id):
            r.bet_decision(bet.id, "insurance")
            emit(("decision.made", {"round": r.number, "box": bet.box, "hand": 0, "action": "insurance", "bet": bet.id}))
            r.place_bet(f"{bet.id}-i", bet.box, 0, bet.player, amount, "insurance", bet.id)
            emit(("bet.placed", _bet_payload(r.number, f"{bet.id}-i", bet.box, 0, bet.player, amount, "insurance", bet.id)))


def _play_hand(r: Round, rules: RuleSet, policy: Policy, choices: Choices, emit: Callable[[Emitted], None], shoe: ShoeCursor) -> None:
    hand = r.current
    assert hand is not None and r.up is not None
    on_hand = [b for b in r.bets.values() if b.box == hand.box and b.hand == hand.number and b.kind in ("main", "behind", "split") and b.cashout is None]
    if rules.surrender == "cash_out":
        view = HandView(rules, hand.box, hand.number, tuple(hand.cards), r.up, frozenset(), hand.from_split)
        for bet in on_hand:
            offer = choices.offer(view, bet)
            system = offer is None and choices.cash_out(view, bet)
            if offer is None and not system:
                continue
            try:
                r.verify_offer(bet.id, offer or 0)
            except Illegal:
                break
            if offer is None:
                offer = r.system_offer(bet.id, shoe.left_by_value())
            r.offer_cashout(bet.id, offer)
            emit(("cashout.offered", {"round": r.number, "bet": bet.id, "amount": offer}))
            if choices.accept(bet, offer):
                r.accept_cashout(bet.id, offer)
                emit(("cashout.accepted", {"round": r.number, "bet": bet.id, "amount": offer}))
    decider = r.decider(hand.box)
    if rules.dealer_plays_basic_strategy:
        action = r.live_action(hand)
        deciding: str | None = None
    else:
        legal = r.legal_actions(hand)
        action = policy(HandView(rules, hand.box, hand.number, tuple(hand.cards), r.up, legal, hand.from_split))
        deciding = decider.id if rules.back_betting and decider is not None else None
    box, number = hand.box, hand.number
    r.decide(box, number, action, deciding)
    emit(("decision.made", {"round": r.number, "box": box, "hand": number, "action": action, "bet": deciding}))
    if action not in ("double", "split"):
        return
    new = max(h.number for h in r.box_hands[box]) if action == "split" else number
    for bet in on_hand:
        if bet.cashout is not None:
            continue
        mandatory = not rules.dealer_plays_basic_strategy and decider is not None and (bet.id == decider.id or (bet.kind == "split" and bet.parent is not None and _root(r, bet) == decider.id))
        if not mandatory and not choices.opt_in(bet, action):
            continue
        kind = action
        stake_id = f"{bet.id}-d" if kind == "double" else f"{bet.id}-s{new}"
        r.place_bet(stake_id, box, new, bet.player, bet.amount, kind, bet.id)
        emit(("bet.placed", _bet_payload(r.number, stake_id, box, new, bet.player, bet.amount, kind, bet.id)))


def _root(r: Round, bet: Bet) -> str:
    while bet.parent is not None and bet.parent in r.bets:
        bet = r.bets[bet.parent]
    return bet.id
