"""One round dealt by the engine, with the hooks the simulator needs.

The round is the engine's own :class:`tables.engine.table_round.Round`: every card goes
where its ``next_target`` says, every decision is one of its legal actions, the live
game's play is its ``live_action`` and the settlement is its ``settle``. This loop is
``tables.engine.dealing.deal_round`` adapted (the engine's package is another team's):

* the players are objects that see the cards (a counter counts), not plain callables;
* bets are indexed by hand, so a live round with thousands of bets stays linear;
* the dealer's play can be made wrong on purpose - ``stand16`` stops the dealer on 16,
  ``draw17`` gives a standing 17 one more card - and the round is then closed and
  settled exactly as replay will close and settle it, so the fault shows as a
  ``dealer_procedure`` finding and nothing else.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from tables.engine.rules import RuleSet
from tables.engine.table_round import (
    DEALER,
    DEALER_SPOT,
    DONE,
    DRAW,
    INSURANCE,
    PLAY,
    Bet,
    Hand,
    Round,
    Settlement,
)

Emitted = tuple[str, dict[str, Any]]


class Seats(Protocol):
    """The people at the table, as the round asks them."""

    def decide(self, bet: Bet, hand: Hand, up: str, legal: frozenset[str]) -> str: ...
    def insure(self, bet: Bet) -> int: ...
    def even_money(self, bet: Bet) -> bool: ...
    def opt_in(self, bet: Bet, action: str) -> bool: ...
    def offer(self, round: Round, hand: Hand) -> Callable[[Bet], int | None] | None: ...
    def accept(self, bet: Bet, amount: int) -> bool: ...


class Dealt:
    __slots__ = ("dealer_fault", "events", "pos", "round", "settlements")

    def __init__(self) -> None:
        self.events: list[Emitted] = []
        self.settlements: list[Settlement] = []
        self.pos = 0
        self.round: Round | None = None
        self.dealer_fault = False


def _bet(number: int, bet: str, box: int, hand: int, player: str | None, amount: int, kind: str, parent: str | None) -> dict[str, Any]:
    return {"round": number, "bet": bet, "box": box, "hand": hand, "player": player, "amount": amount, "kind": kind, "parent": parent}


def deal_round(
    rules: RuleSet,
    order: tuple[str, ...],
    pos: int,
    shoe: str,
    number: int,
    stakes: list[tuple[str, int, int, str | None, str, str | None]],
    seats: Seats,
    *,
    min_bet: int,
    max_bet: int,
    memo: dict[tuple[object, ...], str],
    dealer_fault: str | None = None,
) -> Dealt:
    """Deal round ``number`` from ``order`` starting at ``pos``. ``stakes``: (bet id, box,
    amount, player, kind, parent) - ``main`` bets (a ``parent`` is the carried bet it
    places again) and ``behind`` bets (``parent``: the main bet it rides on)."""
    out = Dealt()
    events = out.events
    emit = events.append
    r = Round(rules, number, shoe, min_bet=min_bet, max_bet=max_bet, memo=memo)
    out.round = r
    emit(("round.started", {"round": number, "shoe": shoe}))
    by_hand: dict[tuple[int, int], list[Bet]] = {}
    place = r.place_bet
    for bet_id, box, amount, player, kind, parent in stakes:
        bet = place(bet_id, box, 0, player, amount, kind, parent if kind == "behind" else None)
        by_hand.setdefault((box, 0), []).append(bet)
        emit(("bet.placed", _bet(number, bet_id, box, 0, player, amount, kind, parent)))
    r.close_betting()
    emit(("betting.closed", {"round": number}))
    hole = rules.hole_card != "none"
    revealed = False
    deal = r.deal
    while r.phase != DONE:
        target = r.next_target()
        if target is not None:
            if target == DEALER_SPOT and r.phase == DEALER:
                if dealer_fault == "stand16" and len(r.dealer) >= 2 and r.dealer_best == 16:
                    out.dealer_fault = True
                    break
                if hole and not revealed and len(r.dealer) == 2:
                    r.reveal(r.dealer[1], verify=False)
                    emit(("card.revealed", {"round": number, "card": r.dealer[1]}))
                    revealed = True
            face = r.next_face()
            card = order[pos]
            pos += 1
            deal(card, target[0], target[1], verify=False)
            if target == DEALER_SPOT:
                emit(("card.dealt", {"round": number, "box": None, "hand": None, "card": card, "face": face}))
            else:
                emit(("card.dealt", {"round": number, "box": target[0], "hand": target[1], "card": card, "face": face}))
            continue
        phase = r.phase
        if phase == INSURANCE:
            _insurance(r, rules, seats, by_hand, emit)
            r.close_insurance()
        elif phase == PLAY:
            _play_hand(r, rules, seats, by_hand, emit)
        else:  # pragma: no cover - the engine's round always has a next step
            raise AssertionError(f"round stuck in phase {phase}")
    if out.dealer_fault:
        r.close()  # what replay does at the settlement: the owed draw is its finding
    if hole and len(r.dealer) >= 2 and not revealed:
        r.reveal(r.dealer[1], verify=False)
        emit(("card.revealed", {"round": number, "card": r.dealer[1]}))
    if (
        dealer_fault == "draw17" and r.phase == DONE and r.dealer_mode == DRAW and len(r.dealer) >= 2
        and r.dealer_best == 17 and pos < len(order)
    ):
        # a card drawn by mistake on 17: burned by the pit, the round settled on the 17
        emit(("card.dealt", {"round": number, "box": None, "hand": None, "card": order[pos], "face": "up"}))
        pos += 1
        out.dealer_fault = True
    out.settlements = r.settle()
    emit(("round.settled", {"round": number, "settlements": [{"bet": s.bet, "outcome": s.outcome, "net": s.net} for s in out.settlements]}))
    out.pos = pos
    return out


def _insurance(r: Round, rules: RuleSet, seats: Seats, by_hand: dict[tuple[int, int], list[Bet]], emit: Callable[[Emitted], None]) -> None:
    number = r.number
    for bet in [b for b in r.bets.values() if b.kind == "main" or b.kind == "behind"]:
        box = bet.box
        if rules.even_money and r.hands[(box, 0)].natural(rules) and seats.even_money(bet):
            r.bet_decision(bet.id, "even_money", verify=False)
            emit(("decision.made", {"round": number, "box": box, "hand": 0, "action": "even_money", "bet": bet.id}))
            continue
        amount = seats.insure(bet) if rules.insurance else 0
        if amount and r.can_place_bet(f"{bet.id}-i", box, 0, amount, "insurance", bet.id):
            r.bet_decision(bet.id, "insurance", verify=False)
            emit(("decision.made", {"round": number, "box": box, "hand": 0, "action": "insurance", "bet": bet.id}))
            r.place_bet(f"{bet.id}-i", box, 0, bet.player, amount, "insurance", bet.id, verify=False)
            emit(("bet.placed", _bet(number, f"{bet.id}-i", box, 0, bet.player, amount, "insurance", bet.id)))


def _play_hand(r: Round, rules: RuleSet, seats: Seats, by_hand: dict[tuple[int, int], list[Bet]], emit: Callable[[Emitted], None]) -> None:
    hand = r.current
    assert hand is not None and r.up is not None
    box, number = hand.box, hand.number
    on_hand = [b for b in by_hand.get((box, number), ()) if b.kind != "insurance" and b.kind != "double" and b.cashout is None]
    if r.cashouts and not hand.decided and len(hand.cards) == 2 and rules.live_must_hit_below <= hand.best < rules.live_stand_from:
        offer = seats.offer(r, hand)
        if offer is not None:
            for bet in on_hand:
                amount = offer(bet)
                if amount is None:
                    continue
                r.offer_cashout(bet.id, amount, verify=False)
                emit(("cashout.offered", {"round": r.number, "bet": bet.id, "amount": amount}))
                if seats.accept(bet, amount):
                    r.accept_cashout(bet.id, amount, verify=False)
                    emit(("cashout.accepted", {"round": r.number, "bet": bet.id, "amount": amount}))
            on_hand = [b for b in on_hand if b.cashout is None]
    decider = r.decider(box)
    if rules.dealer_plays_basic_strategy:
        action = r.live_action(hand)
        deciding: str | None = None
    else:
        assert decider is not None
        legal = _legal(r, hand)
        action = seats.decide(decider, hand, r.dealer[0], legal)
        deciding = decider.id if rules.back_betting else None
    r.decide(box, number, action, deciding, verify=False)
    emit(("decision.made", {"round": r.number, "box": box, "hand": number, "action": action, "bet": deciding}))
    if action != "double" and action != "split":
        return
    new = max(h.number for h in r.box_hands[box]) if action == "split" else number
    root = decider.id if decider is not None and not rules.dealer_plays_basic_strategy else None
    for bet in on_hand:
        mandatory = root is not None and (bet.id == root or (bet.kind == "split" and _root(r, bet) == root))
        if not mandatory and not seats.opt_in(bet, action):
            continue
        stake_id = f"{bet.id}-d" if action == "double" else f"{bet.id}-s{new}"
        placed = r.place_bet(stake_id, box, new, bet.player, bet.amount, action, bet.id, verify=False)
        by_hand.setdefault((box, new), []).append(placed)
        emit(("bet.placed", _bet(r.number, stake_id, box, new, bet.player, bet.amount, action, bet.id)))


_ALWAYS = frozenset(("hit", "stand"))
_OPTIONS = ("double", "split", "surrender")


def _legal(r: Round, hand: Hand) -> frozenset[str]:
    """``r.legal_actions(hand)`` for the hand whose turn it is, without its five
    verify-and-raise calls (a quarter of the dealing time): hit and stand are always
    open to it, the rest is the rule set's own check. Falls back to the public call if
    the engine renames its check (a request to the engine: a non-raising legal_actions)."""
    check = getattr(r, "_rule_check", None)
    if check is None:  # pragma: no cover
        return r.legal_actions(hand)
    if len(hand.cards) > 2 or hand.decided:
        return _ALWAYS
    return _ALWAYS | frozenset(a for a in _OPTIONS if check(hand, a) is None)


def _root(r: Round, bet: Bet) -> str:
    while bet.parent is not None and bet.parent in r.bets:
        bet = r.bets[bet.parent]
    return bet.id
