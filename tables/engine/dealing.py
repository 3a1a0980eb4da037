"""Dealing: a rule set, a shoe, the stakes and the people at the table in; the events of
one round out, as (type, payload) pairs in the catalogue's payload format.

The round is driven through the same operations replay uses (``table_round.Round``):
every card goes where its ``next_target`` says, every decision is one of its
``legal_actions``, the live game's play is its ``live_action``, the offers are its
``system_offer`` and the settlement is its ``settle`` - so what is dealt here replays
without a finding. The deal order, burns, faces, the dealer's play and the settlement
all come from the rule set; the only inputs are the shoe's order and the choices of the
people at the table (:class:`Seats`, which see the cards).

What the dealer decides itself is not verified again (``verify=False``): only the
stakes placed from outside are. Bets are indexed by hand as they are placed, so a live
round with thousands of bets stays linear.

A dealer's mistake can be dealt on purpose (:class:`DealerMistake`: the simulator plants
procedure errors so); the round is then closed and settled exactly as replay closes and
settles it, so the mistake shows as a ``dealer_procedure`` finding and nothing else.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

from audit.record.events.fields import BetKind, HandAction

from .money import Ratio, apply_ratio
from .rules import RuleSet
from .shoes import Shoe, ShoeTrack
from .strategy import Strategy
from .table_round import (
    DEALER,
    DEALER_SPOT,
    DONE,
    INSURANCE,
    PLAY,
    Bet,
    Hand,
    LiveMemo,
    Round,
    Settlement,
)

Payload = dict[str, Any]
Emitted = tuple[str, Payload]
OptIn = Literal["double", "split"]
# the system's cash-out offer for a bet on the hand being offered (valued once per hand)
SystemOffer = Callable[[Bet], int]


class ShoeCursor:
    """A shoe being dealt: the order and how far into it the dealer is.

    ``track`` is the shoe as replay will follow it (a ``ShoeTrack``), for the cash-out
    offers: by default the shoe's recorded order; a caller that records the shoe
    otherwise (a hand shuffle, no order on record) sets one fed the cards as recorded,
    and the cursor draws every later card into it."""

    __slots__ = ("order", "pos", "shoe", "track")

    def __init__(self, shoe: Shoe, pos: int = 0) -> None:
        if shoe.order is None:
            raise ValueError("dealing needs a shoe with a known order")
        self.shoe = shoe
        self.order: tuple[str, ...] = shoe.order
        self.pos = pos
        self.track: ShoeTrack | None = None

    def left_by_value(self) -> tuple[int, ...]:
        """The cards still in the shoe as replay counts them (``ShoeTrack.left_by_value``,
        every card dealt or burned so far drawn from ``track``): what the system's
        cash-out offers are computed from."""
        track = self.track
        if track is None:
            track = self.track = ShoeTrack(self.shoe.id, self.shoe.decks, self.order)
        draw = track.draw
        for card in self.order[track.pos : self.pos]:
            draw(card)
        return track.left_by_value()

    def next(self) -> str:
        """The next card (IndexError: the shoe is empty)."""
        card = self.order[self.pos]
        self.pos += 1
        return card

    @property
    def left(self) -> int:
        return len(self.order) - self.pos


class Stake(NamedTuple):
    """A bet offered before betting closes. ``parent``: for ``behind``, the main bet it
    rides on; for ``main``, the pushed bet of the last round it carries (seed 002)."""

    bet: str
    box: int
    amount: int
    player: str | None = None
    kind: BetKind = "main"
    parent: str | None = None


class Seats:
    """The people at the table, as the dealer asks them. Every question has the answer
    of a table where nobody takes the option; a table's players override what they
    decide. All of them see the round's objects (the hand's cards, the bet's stake).

    * ``decide(bet, hand, up, legal)``: the play of ``hand`` (one of ``legal``) for
      ``bet``, the stake that plays the box - not asked in the live game, whose dealer
      plays every hand by the basic strategy;
    * ``insure(bet)``: the insurance stake against an ace (0: none);
    * ``even_money(bet)``: take even money on a natural against an ace;
    * ``opt_in(bet, "double" | "split")``: add a stake where that is the player's own
      choice (the live game, bets behind a box);
    * ``offer(bet, hand, up, system)``: the cash-out offered to ``bet`` now (None: none);
      asked only while the round allows offers on the hand. ``system(bet)`` is the
      system's offer (``Round.system_offer``, from the cards left in the shoe); any
      other amount is recorded as a wrong offer (replay: ``wrong_cashout_offer``);
    * ``accept(bet, amount)``: take the cash-out offered.
    """

    def decide(self, bet: Bet, hand: Hand, up: str, legal: frozenset[HandAction]) -> HandAction:
        return "stand"

    def insure(self, bet: Bet) -> int:
        return 0

    def even_money(self, bet: Bet) -> bool:
        return False

    def opt_in(self, bet: Bet, action: OptIn) -> bool:
        return False

    def offer(self, bet: Bet, hand: Hand, up: str, system: SystemOffer) -> int | None:
        return None

    def accept(self, bet: Bet, amount: int) -> bool:
        return False


NOBODY = Seats()


class DealerMistake:
    """Where the dealer's own play goes wrong on purpose (the simulator plants procedure
    errors with it); by default never.

    * ``stops(round)``: asked before each card the rules still owe the dealer - stop
      here? The round is then closed as replay closes it (the owed draw is its finding);
    * ``draws(round)``: asked once the dealer's hand is finished - draw one more card?
      The card is dealt from the shoe (so the shoe stays in order), burned by the pit,
      and the round settled without it."""

    def stops(self, round: Round) -> bool:
        return False

    def draws(self, round: Round) -> bool:
        return False


@dataclass(slots=True)
class DealtRound:
    events: list[Emitted] = field(default_factory=list)
    settlements: list[Settlement] = field(default_factory=list)
    round: Round | None = None
    mistaken: bool = False  # the ``DealerMistake`` asked for was dealt


def deal_round(
    rules: RuleSet,
    shoe: ShoeCursor,
    number: int,
    stakes: Sequence[Stake],
    seats: Seats = NOBODY,
    *,
    strategy: Strategy | None = None,
    min_bet: int | None = None,
    max_bet: int | None = None,
    memo: LiveMemo | None = None,
    mistake: DealerMistake | None = None,
    burns: int | None = None,
) -> DealtRound:
    """Deal round ``number`` from ``shoe`` (which moves on by the cards dealt; IndexError
    when it runs out mid-round). ``stakes``: ``main`` bets and ``behind`` bets; ``memo``:
    the live game's decisions already worked out, shared by rounds of one rule set;
    ``burns``: the cards burned once the bets are down (default :func:`round_burns`)."""
    out = DealtRound()
    emit = out.events.append
    r = Round(
        rules, number, shoe.shoe.id, strategy=strategy, min_bet=min_bet, max_bet=max_bet, memo=memo
    )
    out.round = r
    emit(("round.started", {"round": number, "shoe": shoe.shoe.id}))
    by_hand: dict[tuple[int, int], list[Bet]] = {}
    place = r.place_bet
    for bet_id, box, amount, player, kind, parent in stakes:
        bet = place(bet_id, box, 0, player, amount, kind, parent if kind == "behind" else None)
        by_hand.setdefault((box, 0), []).append(bet)
        emit(("bet.placed", _bet(number, bet_id, box, 0, player, amount, kind, parent)))
    r.close_betting()
    emit(("betting.closed", {"round": number}))
    if r.phase != DONE:
        for _ in range(round_burns(rules, shoe) if burns is None else burns):
            emit(
                (
                    "card.burned",
                    {
                        "shoe": shoe.shoe.id,
                        "round": number,
                        "card": shoe.next(),
                        "face": "down",
                        "reason": "after_shuffle",
                    },
                )
            )
    hole = rules.hole_card != "none"
    revealed = False
    deal = r.deal
    order = shoe.order
    while r.phase != DONE:
        target = r.next_target()
        if target is not None:
            if target == DEALER_SPOT and r.phase == DEALER:
                if mistake is not None and mistake.stops(r):
                    out.mistaken = True
                    break
                if hole and not revealed and len(r.dealer) == 2:
                    r.reveal(r.dealer[1], verify=False)
                    emit(("card.revealed", {"round": number, "card": r.dealer[1]}))
                    revealed = True
            face = r.next_face()
            card = order[shoe.pos]  # shoe.next(), inline: the loop's commonest step
            shoe.pos += 1
            deal(card, target[0], target[1], verify=False)
            if target == DEALER_SPOT:
                emit(
                    (
                        "card.dealt",
                        {"round": number, "box": None, "hand": None, "card": card, "face": face},
                    )
                )
            else:
                emit(
                    (
                        "card.dealt",
                        {
                            "round": number,
                            "box": target[0],
                            "hand": target[1],
                            "card": card,
                            "face": face,
                        },
                    )
                )
            continue
        phase = r.phase
        if phase == INSURANCE:
            _insurance(r, rules, seats, emit)
            r.close_insurance()
        elif phase == PLAY:
            _play_hand(r, rules, seats, by_hand, emit, shoe)
        else:  # pragma: no cover - the engine's round always has a next step
            raise AssertionError(f"round stuck in phase {phase}")
    if out.mistaken:
        r.close()  # what replay does at the settlement: the owed draw is its finding
    if hole and len(r.dealer) >= 2 and not revealed:
        r.reveal(r.dealer[1], verify=False)
        emit(("card.revealed", {"round": number, "card": r.dealer[1]}))
    if (
        mistake is not None
        and not out.mistaken
        and r.phase == DONE
        and shoe.left > 0
        and mistake.draws(r)
    ):
        emit(
            (
                "card.dealt",
                {"round": number, "box": None, "hand": None, "card": shoe.next(), "face": "up"},
            )
        )
        out.mistaken = True
    out.settlements = r.settle()
    emit(
        (
            "round.settled",
            {
                "round": number,
                "settlements": [
                    {"bet": s.bet, "outcome": s.outcome, "net": s.net} for s in out.settlements
                ],
            },
        )
    )
    return out


def shuffle_burns(rules: RuleSet) -> int:
    """The cards to burn right after a shuffle and cut, before any round (0 in a game
    that burns once the first round's bets are down)."""
    return rules.burn_on_shuffle if rules.burn_when == "shuffle" else 0


def round_burns(rules: RuleSet, shoe: ShoeCursor) -> int:
    """The cards the dealer burns in a round once its bets are down: the shoe's
    ``burn_on_shuffle`` in a ``bets_down`` game (seed 002:10, "Finite le puntate, il
    mazziere sfila le prime cinque carte dal sabot e le brucia") when no card has left
    the shoe yet; else none."""
    return rules.burn_on_shuffle if rules.burn_when == "bets_down" and shoe.pos == 0 else 0


def _bet(
    number: int,
    bet: str,
    box: int,
    hand: int,
    player: str | None,
    amount: int,
    kind: BetKind,
    parent: str | None,
) -> Payload:
    return {
        "round": number,
        "bet": bet,
        "box": box,
        "hand": hand,
        "player": player,
        "amount": amount,
        "kind": kind,
        "parent": parent,
    }


def _insurance(r: Round, rules: RuleSet, seats: Seats, emit: Callable[[Emitted], None]) -> None:
    number = r.number
    for bet in [b for b in r.bets.values() if b.kind == "main" or b.kind == "behind"]:
        box = bet.box
        if rules.even_money and r.hands[(box, 0)].natural(rules) and seats.even_money(bet):
            r.bet_decision(bet.id, "even_money", verify=False)
            emit(
                (
                    "decision.made",
                    {"round": number, "box": box, "hand": 0, "action": "even_money", "bet": bet.id},
                )
            )
            continue
        if not rules.insurance_on_natural and r.hands[(box, 0)].natural(rules):
            continue  # 003:10: insurance only for a hand without blackjack
        amount = seats.insure(bet) if rules.insurance else 0
        if not amount:
            continue
        bet.wants_insurance = True  # the stake is checked as the one of the decision it comes with
        if not r.can_place_bet(f"{bet.id}-i", box, 0, amount, "insurance", bet.id):
            bet.wants_insurance = False
            continue
        r.bet_decision(bet.id, "insurance", verify=False)
        emit(
            (
                "decision.made",
                {"round": number, "box": box, "hand": 0, "action": "insurance", "bet": bet.id},
            )
        )
        r.place_bet(f"{bet.id}-i", box, 0, bet.player, amount, "insurance", bet.id, verify=False)
        emit(
            (
                "bet.placed",
                _bet(number, f"{bet.id}-i", box, 0, bet.player, amount, "insurance", bet.id),
            )
        )


def _system_offer(r: Round, hand: Hand, shoe: ShoeCursor) -> SystemOffer:
    """``Round.system_offer`` for the bets on ``hand``, the hand valued once, when first
    asked."""
    ratio: Ratio | None = None
    rounding = r.rules.rounding

    def system(bet: Bet) -> int:
        nonlocal ratio
        if ratio is None:
            ratio = r.offer_ratio(hand, shoe.left_by_value())
        return apply_ratio(bet.amount, ratio, rounding)

    return system


def _play_hand(
    r: Round,
    rules: RuleSet,
    seats: Seats,
    by_hand: dict[tuple[int, int], list[Bet]],
    emit: Callable[[Emitted], None],
    shoe: ShoeCursor,
) -> None:
    hand = r.current
    assert hand is not None
    box, number = hand.box, hand.number
    on_hand = [
        b
        for b in by_hand.get((box, number), ())
        if b.kind != "insurance" and b.kind != "double" and b.cashout is None
    ]
    if r.cashouts and r.offers_open(hand):
        system = _system_offer(r, hand, shoe)
        for bet in on_hand:
            amount = seats.offer(bet, hand, r.dealer[0], system)
            if amount is None:
                continue
            r.offer_cashout(bet.id, amount, verify=False)
            emit(("cashout.offered", {"round": r.number, "bet": bet.id, "amount": amount}))
            if seats.accept(bet, amount):
                r.accept_cashout(bet.id, amount, verify=False)
                emit(("cashout.accepted", {"round": r.number, "bet": bet.id, "amount": amount}))
        on_hand = [b for b in on_hand if b.cashout is None]
    decider = r.decider(box)
    action: HandAction
    if rules.dealer_plays_basic_strategy:
        action = r.live_action(hand)
        deciding: str | None = None
    else:
        assert decider is not None
        legal = r.legal_actions(hand)
        action = seats.decide(decider, hand, r.dealer[0], legal)
        if action not in legal:
            raise ValueError(
                f"{hand.label()} on {' '.join(hand.cards)} cannot {action} (legal: {', '.join(sorted(legal))})"
            )
        deciding = decider.id if rules.back_betting else None
    r.decide(box, number, action, deciding, verify=False)
    emit(
        (
            "decision.made",
            {"round": r.number, "box": box, "hand": number, "action": action, "bet": deciding},
        )
    )
    if action != "double" and action != "split":
        return
    new = max(h.number for h in r.box_hands[box]) if action == "split" else number
    root = decider.id if decider is not None and not rules.dealer_plays_basic_strategy else None
    for bet in on_hand:
        mandatory = root is not None and (
            bet.id == root or (bet.kind == "split" and r.root(bet) == root)
        )
        if not mandatory and not seats.opt_in(bet, action):
            continue
        stake_id = f"{bet.id}-d" if action == "double" else f"{bet.id}-s{new}"
        placed = r.place_bet(
            stake_id, box, new, bet.player, bet.amount, action, bet.id, verify=False
        )
        by_hand.setdefault((box, new), []).append(placed)
        emit(
            (
                "bet.placed",
                _bet(r.number, stake_id, box, new, bet.player, bet.amount, action, bet.id),
            )
        )
