"""One round at the table: its bets, hands and dealer, and every operation on them.

Each operation comes as pokerkit's triad: ``verify_x`` raises :class:`Illegal` with the
reason, ``can_x`` answers yes or no, ``x`` verifies, performs and appends a frozen
:class:`Operation` to ``log``. The dealer (``dealing.py``) drives a round through these
operations to produce legal events; replay (``replay.py``) drives the same operations
from recorded events, so what one produces the other accepts.

Phases: betting -> initial deal -> insurance window (ace up, where offered) -> peek
(``peek``/``peek_ace``) -> the hands' play, box by box -> the dealer -> settled.
The round moves on by itself once a phase has nothing left to do.

A round is mutable while it is played (a replay folds thousands of events a second
through it); what leaves it - operations, settlements - is frozen.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from enum import IntEnum
from fractions import Fraction
from typing import Literal, NamedTuple

from audit.record.events.fields import BetDecision, BetKind, HandAction, Outcome
from audit.record.money import money_text
from tables.engine.illegal import Illegal

from .cards import VALUE
from .legality import double_refusal, split_refusal, surrender_refusal
from .money import Ratio, apply_ratio
from .rules import RuleSet
from .strategy import Strategy, computed_strategy


class Phase(IntEnum):
    """Where a round is; it moves on by itself once a phase has nothing left to do."""

    BETTING = 0
    DEAL = 1  # the initial deal
    INSURANCE = 2
    PLAY = 3
    DEALER = 4
    DONE = 5


BETTING, DEAL, INSURANCE, PLAY, DEALER, DONE = Phase
DEALER_SPOT = (0, 0)  # the dealer's place in a deal order; boxes are numbered from 1
ACTIONS: tuple[HandAction, ...] = ("hit", "stand", "double", "split", "surrender")
# hitting and standing are open to every hand whose turn it is; the rest is the rule set's
ALWAYS: frozenset[HandAction] = frozenset(("hit", "stand"))
OPTIONS: tuple[HandAction, ...] = ("double", "split", "surrender")
_LIVE_OPTIONS: tuple[HandAction, ...] = ("double", "split")  # seed 000 has no surrender
# how far the dealer plays once the hands are done
NO_CARDS, CHECK_ONLY, DRAW = range(3)

# the live game's decisions already worked out, by what they depend on (``live_action``)
LiveMemo = dict[tuple[object, ...], HandAction]
# what a round's log records: a stake, a card, a hand's action, a bet's decision ...
OperationName = Literal[
    HandAction, BetDecision, "bet", "close", "card", "close_insurance", "reveal", "offer", "cashout"
]


class Operation(NamedTuple):
    """One step of the round, as the round took it."""

    name: OperationName
    box: int | None = None
    hand: int | None = None
    value: str | int | None = None
    bet: str | None = None


# NamedTuple's own __new__ is a Python function; the round builds them directly (every
# member given: the defaults are the NamedTuple's, not tuple.__new__'s)
_new_op = tuple.__new__

# tables.engine.math.cashout.offer_share, imported at the first offer: the mathematics
# imports the engine, so not while the engine's modules load; kept here after, since an
# import statement run at every offer (thousands a live round) is a look-up of modules
# and names each time, in the compiled build too
_offer_share: Callable[..., Fraction] | None = None


def _load_offer_share() -> Callable[..., Fraction]:
    global _offer_share
    from .math.cashout import offer_share

    _offer_share = offer_share
    return offer_share


class Settlement(NamedTuple):
    bet: str
    outcome: Outcome
    net: int


class Bet:
    __slots__ = (
        "amount",
        "box",
        "cashout",
        "doubled",
        "even_money",
        "hand",
        "id",
        "insured",
        "kind",
        "offer",
        "parent",
        "player",
        "split",
        "wants_insurance",
    )

    def __init__(
        self,
        id: str,
        box: int,
        hand: int,
        player: str | None,
        amount: int,
        kind: BetKind,
        parent: str | None,
    ) -> None:
        self.id = id
        self.box = box
        self.hand = hand
        self.player = player
        self.amount = amount
        self.kind = kind
        self.parent = parent
        self.cashout: int | None = None
        self.offer: int | None = None
        self.even_money = False
        self.insured = False
        self.wants_insurance = False  # an insurance decision was recorded for it
        self.doubled = False
        # the hands a split stake of it was placed on; None until one is: a live round has
        # 10,000 bets, and an empty set each is 10,000 more objects for the collector to walk
        self.split: set[int] | None = None


class Hand:
    __slots__ = (
        "ace",
        "awaiting",
        "box",
        "cards",
        "decided",
        "done",
        "doubled",
        "from_split",
        "hard",
        "number",
        "origin",
        "surrendered",
    )

    def __init__(
        self, box: int, number: int, *, from_split: bool = False, origin: int | None = None
    ) -> None:
        self.box = box
        self.number = number
        self.origin = origin  # the hand a split took this one from (None: not split off)
        self.cards: list[str] = []
        self.hard = 0
        self.ace = False
        self.from_split = from_split
        self.doubled = False
        self.surrendered = False
        self.done = False
        self.awaiting = False  # a decision (hit, double, split) owes it a card
        self.decided = False

    def add(self, card: str) -> None:
        self.cards.append(card)
        value = VALUE[card]
        self.hard += value
        if value == 1:
            self.ace = True

    @property
    def best(self) -> int:
        return self.hard + 10 if self.ace and self.hard <= 11 else self.hard

    @property
    def soft(self) -> bool:
        return self.ace and self.hard <= 11

    @property
    def bust(self) -> bool:
        return self.hard > 21

    def natural(self, rules: RuleSet) -> bool:
        return (
            len(self.cards) == 2
            and self.ace
            and self.hard == 11
            and (not self.from_split or rules.split_21_is_natural)
        )

    def label(self) -> str:
        return f"box {self.box}" + (f" hand {self.number}" if self.number else "")


class Round:
    __slots__ = (
        "bets",
        "box_bets",
        "box_hands",
        "cards_out",
        "cashouts",
        "currency",
        "dealer",
        "dealer_ace",
        "dealer_hard",
        "dealer_mode",
        "dealt",
        "given_strategy",
        "hands",
        "log",
        "max_bet",
        "memo",
        "min_bet",
        "number",
        "owed",
        "peeked",
        "phase",
        "queue",
        "revealed",
        "rules",
        "shoe",
        "targets",
        "turn",
        "voided",
    )

    def __init__(
        self,
        rules: RuleSet,
        number: int,
        shoe: str,
        *,
        strategy: Strategy | None = None,
        min_bet: int | None = None,
        max_bet: int | None = None,
        memo: LiveMemo | None = None,
        currency: str | None = None,
    ) -> None:
        self.rules = rules
        # the table's, for the amounts in findings' messages (minor units where not known)
        self.currency = currency
        # live-game decisions already worked out, shared by the rounds of one rule set
        self.memo: LiveMemo = {} if memo is None else memo
        self.number = number
        self.shoe = shoe
        # the live game's basic strategy: the one generated from the rules unless given
        # (resolved on first use, so rounds of other games never compute a chart)
        self.given_strategy = strategy
        self.min_bet = rules.min_bet if min_bet is None else min_bet
        self.max_bet = rules.max_bet if max_bet is None else max_bet
        self.phase = BETTING
        self.bets: dict[str, Bet] = {}
        self.box_bets: dict[int, list[Bet]] = {}
        self.hands: dict[tuple[int, int], Hand] = {}
        self.box_hands: dict[int, list[Hand]] = {}
        self.queue: list[Hand] = []
        self.turn = 0
        self.targets: list[tuple[int, int]] = []
        self.dealt = 0
        self.dealer: list[str] = []
        self.dealer_hard = 0
        self.dealer_ace = False
        self.revealed = False
        self.peeked = False
        self.dealer_mode = DRAW
        self.log: list[Operation] = []
        # the cards in the order dealt, kept apart from the log: a live round's log holds
        # a line per bettor, and a fold asks after every card which cards are out
        self.cards_out: list[tuple[int, int, str]] = []
        self.voided = False
        self.cashouts = rules.surrender == "cash_out"
        # stakes a decision calls for and the record has not placed yet:
        # (kind, the bet it belongs to) -> (box, hand) - see ``missing_stakes``
        self.owed: dict[tuple[str, str], tuple[int, int]] = {}

    def money(self, amount: int) -> str:
        """An amount in a finding's message, as people read it (``EUR 25.00``)."""
        return money_text(amount, self.currency)

    # --- state questions ----------------------------------------------------------------

    @property
    def strategy(self) -> Strategy:
        """The strategy the live game plays: the one given, else the rule set's computed
        basic strategy (``strategy.computed_strategy``, made once per rule set)."""
        given = self.given_strategy
        return given if given is not None else computed_strategy(self.rules)

    @property
    def up(self) -> str | None:
        return self.dealer[0] if self.dealer else None

    @property
    def dealer_best(self) -> int:
        return (
            self.dealer_hard + 10
            if self.dealer_ace and self.dealer_hard <= 11
            else self.dealer_hard
        )

    @property
    def dealer_natural(self) -> bool:
        return len(self.dealer) == 2 and self.dealer_ace and self.dealer_hard == 11

    def dealer_must_draw(self) -> bool:
        best = self.dealer_best
        if best < 17:
            return True
        return (
            best == 17
            and self.rules.dealer_hits_soft_17
            and self.dealer_ace
            and self.dealer_hard <= 11
        )

    @property
    def current(self) -> Hand | None:
        return self.queue[self.turn] if self.phase == PLAY and self.turn < len(self.queue) else None

    def next_target(self) -> tuple[int, int] | None:
        """Where the next card must go, or None when the next step is not a card."""
        phase = self.phase
        if phase == DEAL:
            return self.targets[self.dealt]
        if phase == PLAY:
            hand = self.queue[self.turn]
            if hand.awaiting or len(hand.cards) < 2:
                return (hand.box, hand.number)
            return None
        if phase == DEALER and self._dealer_wants_card():
            return DEALER_SPOT
        return None

    def next_face(self) -> str:
        """The face the next card is dealt with."""
        if (
            self.phase == DEAL
            and self.dealt == len(self.targets) - 1
            and self.rules.hole_card != "none"
        ):
            return "down"
        hand = self.current
        if hand is not None and hand.doubled:
            return self.rules.double_card_face
        return "up"

    def _dealer_wants_card(self) -> bool:
        if self.dealer_mode == DRAW:
            return self.dealer_must_draw()
        if self.dealer_mode == CHECK_ONLY:
            return len(self.dealer) < 2
        return False

    def dealt_cards(self, since: int = 0) -> list[tuple[int, int, str]]:
        """Every card dealt, in order, as (box, hand, card); box 0 is the dealer.
        ``since``: the cards after the first ``since`` only."""
        return self.cards_out[since:]

    def cards_dealt(self) -> int:
        """How many cards are out (``len(dealt_cards())`` without the copy)."""
        return len(self.cards_out)

    def hand_actions(self) -> dict[tuple[int, int], list[str]]:
        """Each hand's decisions in the order taken (hit, stand, double, split,
        surrender), by (box, hand)."""
        actions: dict[tuple[int, int], list[str]] = {}
        for op in self.log:
            if op.name in ACTIONS and op.box is not None and op.hand is not None:
                actions.setdefault((op.box, op.hand), []).append(op.name)
        return actions

    def hand(self, box: int, number: int) -> Hand:
        try:
            return self.hands[(box, number)]
        except KeyError:
            raise Illegal(
                "illegal_decision",
                f"Box {box} has no hand {number} in round {self.number}.",
                box=box,
                hand=number,
            ) from None

    def decider(self, box: int) -> Bet | None:
        """The bet that plays a box: the highest main stake (seed 002), first placed on a tie."""
        best: Bet | None = None
        for bet in self.box_bets.get(box, ()):
            if bet.kind == "main" and (best is None or bet.amount > best.amount):
                best = bet
        return best

    # --- bets -------------------------------------------------------------------------------

    def verify_place_bet(
        self, id: str, box: int, hand: int, amount: int, kind: BetKind, parent: str | None
    ) -> None:
        rules = self.rules
        if id in self.bets:
            raise Illegal("duplicate_event", f"Bet {id} was placed twice.", bet=id)
        if kind in ("main", "behind"):
            if self.phase != BETTING:
                raise Illegal(
                    "illegal_bet",
                    f"A {kind} bet on box {box} came after betting closed.",
                    box=box,
                    bet=id,
                )
            if not 1 <= box <= rules.boxes:
                raise Illegal(
                    "illegal_bet",
                    f"Box {box} is not on a layout of {rules.boxes} boxes.",
                    box=box,
                    bet=id,
                )
            if hand != 0:
                raise Illegal(
                    "illegal_bet",
                    f"A {kind} bet must be on the original hand, not hand {hand}.",
                    box=box,
                    hand=hand,
                    bet=id,
                )
            if kind == "main":
                if not self.min_bet <= amount <= self.max_bet:
                    raise Illegal(
                        "illegal_bet",
                        f"A bet of {self.money(amount)} on box {box} is outside the table limits "
                        f"{self.money(self.min_bet)} to {self.money(self.max_bet)}.",
                        box=box,
                        bet=id,
                        expected=f"{self.min_bet}-{self.max_bet}",
                        recorded=str(amount),
                    )
                if self.box_bets.get(box) and not (
                    rules.back_betting or rules.dealer_plays_basic_strategy
                ):
                    raise Illegal(
                        "illegal_bet",
                        f"Box {box} already has a bet and this game takes one bettor per box.",
                        box=box,
                        bet=id,
                    )
            else:
                if not rules.back_betting:
                    raise Illegal(
                        "illegal_bet", "This game takes no bets behind a box.", box=box, bet=id
                    )
                base = self.bets.get(parent or "")
                if base is None or base.box != box or base.kind != "main":
                    raise Illegal(
                        "illegal_bet",
                        f"A bet behind box {box} must name a main bet on that box.",
                        box=box,
                        bet=id,
                    )
            return
        base = self.bets.get(parent or "")
        if base is None:
            raise Illegal(
                "illegal_bet",
                f"A {kind} stake must name the bet it belongs to.",
                box=box,
                hand=hand,
                bet=id,
            )
        if base.cashout is not None:
            raise Illegal(
                "illegal_bet",
                f"Bet {base.id} was cashed out and can take no more stakes.",
                box=box,
                hand=hand,
                bet=id,
            )
        if kind == "insurance":
            if self.phase != INSURANCE or not rules.insurance:
                raise Illegal(
                    "illegal_bet", "Insurance was taken when none was offered.", box=box, bet=id
                )
            if base.kind not in ("main", "behind") or base.insured or base.even_money:
                raise Illegal(
                    "illegal_bet", f"Bet {base.id} cannot be insured (again).", box=box, bet=id
                )
            if not base.wants_insurance:
                raise Illegal(
                    "illegal_bet",
                    f"An insurance stake of {self.money(amount)} was placed on bet {base.id}, which "
                    "never decided to insure.",
                    box=box,
                    bet=id,
                    expected="an insurance decision",
                    recorded=str(amount),
                )
            half = apply_ratio(base.amount, (1, 2), rules.rounding)
            if rules.insurance_stake == "half" and amount != half:
                raise Illegal(
                    "illegal_bet",
                    f"Insurance must be half the stake, {self.money(half)}, not {self.money(amount)}.",
                    box=box,
                    bet=id,
                    expected=str(half),
                    recorded=str(amount),
                )
            if rules.insurance_stake == "up_to_half" and not 1 <= 2 * amount <= base.amount:
                raise Illegal(
                    "illegal_bet",
                    f"Insurance of {self.money(amount)} is more than half the stake of {self.money(base.amount)}.",
                    box=box,
                    bet=id,
                    expected=f"<= {base.amount // 2}",
                    recorded=str(amount),
                )
            return
        if amount != base.amount:
            raise Illegal(
                "illegal_bet",
                f"A {kind} stake must equal the stake it doubles or splits, "
                f"{self.money(base.amount)}, not {self.money(amount)}.",
                box=box,
                hand=hand,
                bet=id,
                expected=str(base.amount),
                recorded=str(amount),
            )
        target = self.hands.get((box, hand))
        if kind == "double":
            if (
                target is None
                or base.box != box
                or base.hand != hand
                or not target.doubled
                or target.done
                or base.doubled
            ):
                raise Illegal(
                    "illegal_bet",
                    f"A double stake on box {box} hand {hand} where that hand was not doubled (or is already played).",
                    box=box,
                    hand=hand,
                    bet=id,
                )
            return
        if kind == "split":
            if (
                target is None
                or base.box != box
                or target.origin != base.hand
                or len(target.cards) > 1
                or (base.split is not None and hand in base.split)
            ):
                raise Illegal(
                    "illegal_bet",
                    f"A split stake on box {box} hand {hand} where no split made that hand.",
                    box=box,
                    hand=hand,
                    bet=id,
                )
            return
        raise Illegal(
            "illegal_bet", f"A {kind} bet is not a stake this game takes now.", box=box, bet=id
        )

    def can_place_bet(
        self, id: str, box: int, hand: int, amount: int, kind: BetKind, parent: str | None
    ) -> bool:
        try:
            self.verify_place_bet(id, box, hand, amount, kind, parent)
        except Illegal:
            return False
        return True

    def place_bet(
        self,
        id: str,
        box: int,
        hand: int,
        player: str | None,
        amount: int,
        kind: BetKind,
        parent: str | None,
        *,
        verify: bool = True,
    ) -> Bet:
        if verify:
            self.verify_place_bet(id, box, hand, amount, kind, parent)
        bet = Bet(id, box, hand, player, amount, kind, parent)
        self.bets[id] = bet
        if self.owed and parent is not None:
            self.owed.pop((kind, parent), None)
        if kind == "main" or kind == "behind":
            self.box_bets.setdefault(box, []).append(bet)
        else:
            base = self.bets.get(parent or "")
            if base is not None:
                if kind == "insurance":
                    base.insured = True
                elif kind == "double":
                    base.doubled = True
                elif kind == "split":
                    if base.split is None:
                        base.split = set()
                    base.split.add(hand)
        self.log.append(_new_op(Operation, ("bet", box, hand, amount, id)))
        return bet

    def close_betting(self) -> None:
        boxes = sorted(self.box_bets)
        for box in boxes:
            hand = Hand(box, 0)
            self.hands[(box, 0)] = hand
            self.box_hands[box] = [hand]
        first = [(box, 0) for box in boxes]
        if self.rules.hole_card == "none":
            self.targets = first + [DEALER_SPOT] + first
        else:
            self.targets = first + [DEALER_SPOT] + first + [DEALER_SPOT]
        self.phase = DEAL if boxes else DONE
        self.log.append(_new_op(Operation, ("close", None, None, None, None)))

    # --- cards ------------------------------------------------------------------------------

    def verify_deal(self, box: int, hand: int) -> None:
        expected = self.next_target()
        if expected == (box, hand):
            return
        where = "the dealer" if (box, hand) == DEALER_SPOT else f"box {box} hand {hand}"
        if self.phase in (DEALER, DONE) and (box, hand) == DEALER_SPOT:
            raise Illegal(
                "dealer_procedure",
                f"The dealer drew a card on {self.dealer_best} where the rules say the dealer's hand is finished.",
                expected="stand",
                recorded="draw",
            )
        if box and box not in self.box_bets:
            raise Illegal(
                "misdeal", f"A card was dealt to box {box}, which has no bet.", box=box, hand=hand
            )
        wanted = (
            "no card"
            if expected is None
            else (
                "the dealer" if expected == DEALER_SPOT else f"box {expected[0]} hand {expected[1]}"
            )
        )
        raise Illegal(
            "deal_order",
            f"A card went to {where} where the deal order gives it to {wanted}.",
            box=box or None,
            hand=hand if box else None,
            expected=wanted,
            recorded=where,
        )

    def deal(self, card: str, box: int, hand: int, *, verify: bool = True) -> None:
        if verify:
            self.verify_deal(box, hand)
        value = VALUE[card]
        phase = self.phase
        if box == 0:
            self.dealer.append(card)
            self.dealer_hard += value
            if value == 1:
                self.dealer_ace = True
        else:
            target = self.hands[(box, hand)]
            target.cards.append(card)
            target.hard += value
            if value == 1:
                target.ace = True
            target.awaiting = False
            if self.cashouts:
                for bet in self.box_bets.get(box, ()):
                    bet.offer = None
            if phase == DEAL:
                if len(target.cards) == 2 and target.ace and target.hard == 11:
                    target.done = True
            else:
                self._after_card(target)
        self.log.append(_new_op(Operation, ("card", box, hand, card, None)))
        self.cards_out.append((box, hand, card))
        if phase == DEAL:
            self.dealt += 1
            if self.dealt == len(self.targets):
                self._after_deal()
        elif phase == PLAY:
            if self.queue[self.turn].done:
                self._advance()
        elif phase == DEALER:
            if self.dealer_mode == DRAW:
                best = (
                    self.dealer_hard + 10
                    if self.dealer_ace and self.dealer_hard <= 11
                    else self.dealer_hard
                )
                if best > 17 or (
                    best == 17
                    and not (
                        self.rules.dealer_hits_soft_17
                        and self.dealer_ace
                        and self.dealer_hard <= 11
                    )
                ):
                    self.phase = DONE
            elif not self._dealer_wants_card():
                self.phase = DONE

    def _after_card(self, hand: Hand) -> None:
        if (
            hand.hard > 21
            or hand.best == 21
            or hand.doubled
            or (
                hand.from_split
                and hand.cards[0][0] == "A"
                and self.rules.split_aces_one_card
                and len(hand.cards) == 2
            )
        ):
            hand.done = True

    def _after_deal(self) -> None:
        up = self.dealer[0]
        if VALUE[up] == 1 and (self.rules.insurance or self.rules.even_money):
            self.phase = INSURANCE
            return
        self._after_insurance()

    def close_insurance(self) -> None:
        if self.phase == INSURANCE:
            self.log.append(_new_op(Operation, ("close_insurance", None, None, None, None)))
            self._after_insurance()

    def _after_insurance(self) -> None:
        up_value = VALUE[self.dealer[0]]
        policy = self.rules.hole_card
        if (policy == "peek" and up_value in (1, 10)) or (policy == "peek_ace" and up_value == 1):
            self.peeked = True
            if self.dealer_natural:
                self.phase = DONE
                return
        self.queue = [hand for box in sorted(self.box_hands) for hand in self.box_hands[box]]
        self.turn = 0
        self.phase = PLAY
        self._advance()

    def _advance(self) -> None:
        queue = self.queue
        while self.turn < len(queue) and queue[self.turn].done:
            self.turn += 1
        if self.turn == len(queue):
            self._start_dealer()

    def _start_dealer(self) -> None:
        rules = self.rules
        mode = NO_CARDS
        if rules.dealer_completes_when_all_bust:
            mode = DRAW
        else:
            for hand in self.hands.values():
                if hand.hard > 21 or hand.surrendered:
                    continue
                if not hand.natural(rules):
                    mode = DRAW
                    break
                mode = CHECK_ONLY
            if mode == NO_CARDS and not self.peeked:
                # an insurance decision on record settles against the dealer's natural even
                # where its stake is missing: that is the missing stake's own finding, not a
                # reason for the dealer to skip the check
                for bet in self.bets.values():
                    if bet.insured or bet.wants_insurance:
                        mode = CHECK_ONLY
                        break
        self.dealer_mode = mode
        self.phase = DEALER
        if not self._dealer_wants_card():
            self.phase = DONE

    def verify_reveal(self, card: str) -> None:
        if self.rules.hole_card == "none":
            raise Illegal(
                "unexpected_event",
                "A hole card was revealed in a game that deals none.",
                recorded=card,
            )
        if len(self.dealer) < 2:
            held = f"{len(self.dealer)} card" + ("" if len(self.dealer) == 1 else "s")
            raise Illegal(
                "unexpected_event",
                f"A hole card was revealed while the dealer held {held}: none had been dealt face down yet.",
                recorded=card,
            )
        if self.dealer[1] != card:
            raise Illegal(
                "card_out_of_sequence",
                f"The dealer revealed {card} but the hole card dealt was {self.dealer[1]}.",
                expected=self.dealer[1],
                recorded=card,
            )
        if self.revealed:
            raise Illegal("duplicate_event", "The hole card was revealed twice.", recorded=card)

    def reveal(self, card: str, *, verify: bool = True) -> None:
        if verify:
            self.verify_reveal(card)
        self.revealed = True
        self.log.append(_new_op(Operation, ("reveal", None, None, card, None)))

    # --- decisions ----------------------------------------------------------------------------

    def _verify_turn(self, hand: Hand, action: str) -> None:
        if self.phase != PLAY or self.queue[self.turn] is not hand:
            raise Illegal(
                "illegal_decision",
                f"{action.capitalize()} on {hand.label()} when it was not that hand's turn.",
                box=hand.box,
                hand=hand.number,
                recorded=action,
            )
        if hand.awaiting or len(hand.cards) < 2:
            raise Illegal(
                "illegal_decision",
                f"{action.capitalize()} on {hand.label()} before it had its cards.",
                box=hand.box,
                hand=hand.number,
                recorded=action,
            )

    def allowed(self, hand: Hand, action: str) -> str | None:
        """Why the rule set refuses ``action`` on ``hand`` now (None: it allows it): the
        rules of :mod:`.legality` asked with this hand's facts. It answers without
        raising and whatever the turn (``verify_decide`` checks the turn as well)."""
        if action == "hit" or action == "stand":
            return None
        cards = hand.cards
        first_two = len(cards) == 2 and not hand.decided
        if action == "double":
            hard = hand.hard
            soft = hand.ace and hard <= 11
            split_ace = hand.from_split and cards[0][0] == "A"
            return double_refusal(
                self.rules, first_two, hand.from_split, split_ace, soft, hard + 10 if soft else hard
            )
        if action == "split":
            pair, ranks = 0, None
            if first_two:
                one, two = cards
                ranks = (one[0], two[0])
                if VALUE[one] == VALUE[two]:
                    pair = VALUE[one]
            return split_refusal(
                self.rules, first_two, pair, len(self.box_hands[hand.box]), hand.from_split, ranks
            )
        if action == "surrender":
            return surrender_refusal(self.rules, first_two, hand.from_split, VALUE[self.dealer[0]])
        return f"{action} is not a play of a hand"

    def live_action(self, hand: Hand) -> HandAction:
        """What the live game of seed 000 does with ``hand``: its basic strategy, within
        the house rules (below 11 a hand draws, at 17 or more it stands). Memoised on
        everything the answer depends on besides the rule set and strategy, which are
        fixed for the memo's lifetime (one rule set of one replay)."""
        rules = self.rules
        best = hand.best
        if best >= rules.live_stand_from:
            return "stand"
        key = (
            tuple([card[0] for card in hand.cards]),
            self.dealer[0][0],
            hand.from_split,
            hand.decided,
            len(self.box_hands[hand.box]),
        )
        action = self.memo.get(key)
        if action is None:
            legal = ALWAYS | frozenset(a for a in _LIVE_OPTIONS if self.allowed(hand, a) is None)
            action = self.strategy.action(
                tuple(hand.cards), self.dealer[0], legal, split_done=hand.from_split
            )
            if action == "stand" and best < rules.live_must_hit_below:
                action = "hit"
            self.memo[key] = action
        return action

    def verify_decide(self, box: int, hand_no: int, action: str, bet: str | None = None) -> None:
        hand = self.hand(box, hand_no)
        self._verify_turn(hand, action)
        if hand.done:
            raise Illegal(
                "illegal_decision",
                f"{action.capitalize()} on {hand.label()}, which was already finished.",
                box=box,
                hand=hand_no,
                recorded=action,
            )
        reason = self.allowed(hand, action)
        if reason is not None:
            raise Illegal(
                "illegal_decision",
                f"{hand.label().capitalize()} chose to {action} on {' '.join(hand.cards)}, but {reason}.",
                box=box,
                hand=hand_no,
                recorded=action,
            )
        rules = self.rules
        if rules.dealer_plays_basic_strategy:
            wanted = self.live_action(hand)
            if wanted != action:
                raise Illegal(
                    "illegal_decision",
                    f"{hand.label().capitalize()} was played {action} on {' '.join(hand.cards)} "
                    f"against {self.dealer[0]}; the basic strategy says {wanted}.",
                    box=box,
                    hand=hand_no,
                    expected=wanted,
                    recorded=action,
                )
        elif bet is not None and rules.back_betting:
            decider = self.decider(box)
            if decider is not None and decider.id != bet:
                raise Illegal(
                    "illegal_decision",
                    f"Bet {bet} decided box {box}, but bet {decider.id} has the highest stake and plays the box.",
                    box=box,
                    hand=hand_no,
                    bet=bet,
                    expected=decider.id,
                    recorded=bet,
                )

    def can_decide(self, box: int, hand_no: int, action: str) -> bool:
        try:
            self.verify_decide(box, hand_no, action)
        except Illegal:
            return False
        return True

    def legal_actions(self, hand: Hand) -> frozenset[HandAction]:
        """What ``hand`` may do now (``can_decide`` for each action, without raising):
        nothing unless it is its turn with its cards dealt; in the live game the one play
        its basic strategy makes; else hit, stand and what the rule set ``allowed``."""
        cards = len(hand.cards)
        if (
            self.phase != PLAY
            or self.queue[self.turn] is not hand
            or hand.awaiting
            or cards < 2
            or hand.done
        ):
            return frozenset()
        if self.rules.dealer_plays_basic_strategy:
            return frozenset((self.live_action(hand),))
        if cards > 2 or hand.decided:  # every option is for a first two cards
            return ALWAYS
        allowed = self.allowed
        return ALWAYS | frozenset(a for a in OPTIONS if allowed(hand, a) is None)

    def decide(
        self,
        box: int,
        hand_no: int,
        action: HandAction,
        bet: str | None = None,
        *,
        verify: bool = True,
    ) -> None:
        if verify:
            self.verify_decide(box, hand_no, action, bet)
        hand = self.hands[(box, hand_no)]
        if self.cashouts:
            for stake in self.box_bets.get(box, ()):
                stake.offer = None
        if action == "hit":
            hand.awaiting = True
        elif action == "stand":
            hand.done = True
        elif action == "double":
            hand.doubled = True
            hand.awaiting = True
            self._owe_stake(box, hand_no, "double", hand_no)
        elif action == "split":
            number = max(h.number for h in self.box_hands[box]) + 1
            self._owe_stake(box, hand_no, "split", number)
            second = Hand(box, number, from_split=True, origin=hand_no)
            second.add(hand.cards.pop())
            first = Hand(box, hand_no, from_split=True)
            first.add(hand.cards[0])
            first.awaiting = True
            self.hands[(box, hand_no)] = first
            self.hands[(box, number)] = second
            hands = self.box_hands[box]
            hands[hands.index(hand)] = first
            hands.append(second)
            at = self.queue.index(hand)
            self.queue[at] = first
            self.queue.insert(at + 1, second)
            hand = first
        elif action == "surrender":
            hand.surrendered = True
            hand.done = True
        if action != "split":  # the two new hands start undecided (double after split)
            hand.decided = True
        self.log.append(_new_op(Operation, (action, box, hand_no, None, bet)))
        if hand.done:
            self._advance()

    # --- per-bet decisions: insurance, even money, cash-outs -------------------------------

    def verify_bet_decision(self, bet_id: str, action: str) -> None:
        bet = self.bets.get(bet_id)
        if bet is None or bet.kind not in ("main", "behind"):
            raise Illegal(
                "illegal_decision",
                f"{action.replace('_', ' ').capitalize()} names bet {bet_id}, which is no main bet of the round.",
                bet=bet_id,
                recorded=action,
            )
        if self.phase != INSURANCE:
            raise Illegal(
                "illegal_decision",
                f"{action.replace('_', ' ').capitalize()} for bet {bet_id} when the dealer's up card offered none.",
                box=bet.box,
                bet=bet_id,
                recorded=action,
            )
        if action == "insurance" and not self.rules.insurance:
            raise Illegal(
                "illegal_decision",
                "This game offers no insurance.",
                box=bet.box,
                bet=bet_id,
                recorded=action,
            )
        if (
            action == "insurance"
            and not self.rules.insurance_on_natural
            and self.hands[(bet.box, 0)].natural(self.rules)
        ):
            raise Illegal(
                "illegal_decision",
                f"Bet {bet_id} was insured on a blackjack; this game insures only a hand without "
                "blackjack (a blackjack is offered even money).",
                box=bet.box,
                bet=bet_id,
                expected="even_money" if self.rules.even_money else "no_insurance",
                recorded=action,
            )
        if action == "even_money":
            hand = self.hands[(bet.box, 0)]
            if not self.rules.even_money:
                raise Illegal(
                    "illegal_decision",
                    "This game offers no even money.",
                    box=bet.box,
                    bet=bet_id,
                    recorded=action,
                )
            if not hand.natural(self.rules) or bet.even_money:
                raise Illegal(
                    "illegal_decision",
                    f"Even money for bet {bet_id}, whose hand is no blackjack.",
                    box=bet.box,
                    bet=bet_id,
                    recorded=action,
                )

    def bet_decision(self, bet_id: str, action: BetDecision, *, verify: bool = True) -> None:
        if verify:
            self.verify_bet_decision(bet_id, action)
        if action == "even_money":
            self.bets[bet_id].even_money = True
        elif action == "insurance":
            self.insure(bet_id)
        self.log.append(_new_op(Operation, (action, None, None, None, bet_id)))

    def insure(self, bet_id: str) -> None:
        """Bet ``bet_id`` decided to insure: the record owes its stake (also where replay
        found the decision illegal, so that the stake placed with it is not a second finding)."""
        bet = self.bets.get(bet_id)
        if bet is not None and not bet.wants_insurance:
            bet.wants_insurance = True
            if not bet.insured:
                self.owed[("insurance", bet_id)] = (bet.box, 0)

    def missing_stakes(self) -> list[Illegal]:
        """The stakes decisions called for that the record has not placed (a double or
        split of the deciding bettor, an insurance decision's stake), each once: asked when
        the round moves past them (the next card, the next hand's decision, the settlement).
        A hand doubled or split without its stake would otherwise play for free."""
        missing = []
        for (kind, parent), (box, hand) in self.owed.items():
            what = {"insurance": "insured", "double": "doubled", "split": "split"}[kind]
            missing.append(
                Illegal(
                    "missing_stake",
                    f"Bet {parent} {what} on "
                    f"{'box ' + str(box) + (' hand ' + str(hand) if hand else '')} but no {kind} "
                    "stake was placed for it.",
                    box=box,
                    hand=hand,
                    bet=parent,
                    expected=f"a {kind} stake",
                    recorded="none",
                )
            )
        self.owed.clear()
        return missing

    def _owe_stake(self, box: int, hand_no: int, kind: str, new: int) -> None:
        """A double or split by the deciding bettor owes that bettor's stake on the hand
        (seed 000's live game and the bets behind a box add theirs by choice)."""
        decider = self.decider(box)
        if decider is None or self.rules.dealer_plays_basic_strategy:
            return
        for bet in (
            self.box_bets.get(box, ())
            if hand_no == 0
            else [
                b
                for b in self.bets.values()
                if b.box == box and b.hand == hand_no and b.kind == "split"
            ]
        ):
            if bet.id == decider.id or (bet.kind == "split" and self.root(bet) == decider.id):
                self.owed[(kind, bet.id)] = (box, new)

    def root(self, bet: Bet) -> str:
        """The main bet a split stake (of a split ...) comes from; a main bet's own id."""
        while bet.parent is not None and bet.parent in self.bets:
            bet = self.bets[bet.parent]
        return bet.id

    def _waiting(self, hand: Hand) -> bool:
        """Is ``hand`` the one whose turn it is, with its cards, before its decision?"""
        return (
            self.current is hand
            and not (hand.done or hand.doubled or hand.awaiting)
            and len(hand.cards) >= 2
        )

    def offers_open(self, hand: Hand) -> bool:
        """May the system offer the bets on ``hand`` a cash-out now (``verify_offer`` for
        the hand, without raising): a game with cash-outs, the hand waiting for its
        decision at a total from ``live_must_hit_below`` to ``live_stand_from`` - 1."""
        rules = self.rules
        return (
            self.cashouts
            and self._waiting(hand)
            and rules.live_must_hit_below <= hand.best < rules.live_stand_from
        )

    def verify_offer(self, bet_id: str, amount: int) -> None:
        rules = self.rules
        bet = self.bets.get(bet_id)
        if rules.surrender != "cash_out":
            raise Illegal(
                "illegal_decision",
                "A cash-out was offered in a game that has none.",
                bet=bet_id,
                recorded=str(amount),
            )
        if bet is None or bet.kind not in ("main", "split", "behind") or bet.cashout is not None:
            raise Illegal(
                "illegal_decision",
                f"A cash-out was offered on bet {bet_id}, which is not a live stake of a hand.",
                bet=bet_id,
                recorded=str(amount),
            )
        hand = self.hands.get((bet.box, bet.hand))
        if hand is None or not self._waiting(hand):
            raise Illegal(
                "illegal_decision",
                f"A cash-out was offered on bet {bet_id} when its hand was not waiting for a decision.",
                box=bet.box,
                hand=bet.hand,
                bet=bet_id,
                recorded=str(amount),
            )
        if not self.offers_open(hand):
            raise Illegal(
                "illegal_decision",
                f"A cash-out was offered on {hand.label()} at {hand.best}; offers are made only "
                f"from {rules.live_must_hit_below} to {rules.live_stand_from - 1}.",
                box=bet.box,
                hand=bet.hand,
                bet=bet_id,
                recorded=str(hand.best),
            )

    def offer_ratio(self, hand: Hand, left: Sequence[int]) -> Ratio:
        """The share of a stake on ``hand`` the system offers now (seed 000: "creata dal
        sistema su base statistica", 000:108): ``tables.engine.math.cashout.offer_share``
        for the hand against the up card, from ``left`` - the cards still in the shoe as
        ten counts by value, aces first (``ShoeTrack.left_by_value``, ``shoes.left_in``) -
        less the rule set's ``cashout_margin``. The same for every bet on the hand, so a
        dealer with thousands of bets on it values the hand once.
        Raises ValueError when ``left`` is empty (no card to value the hand with)."""
        rules = self.rules
        share = (_offer_share or _load_offer_share())(
            hand.cards,
            self.dealer[0],
            tuple(left),
            rules=rules,
            margin=rules.cashout_margin,
            split_done=hand.from_split,
        )
        return share.numerator, share.denominator

    def system_offer(self, bet_id: str, left: Sequence[int]) -> int:
        """The cash-out the system offers bet ``bet_id`` now: its stake times the hand's
        ``offer_ratio``, rounded by the rule set's policy. The dealer makes its offers
        with it; replay checks each recorded offer against it.
        Raises ValueError when ``left`` is empty (no card to value the hand with)."""
        bet = self.bets[bet_id]
        ratio = self.offer_ratio(self.hands[(bet.box, bet.hand)], left)
        return apply_ratio(bet.amount, ratio, self.rules.rounding)

    def offer_cashout(self, bet_id: str, amount: int, *, verify: bool = True) -> None:
        if verify:
            self.verify_offer(bet_id, amount)
        self.bets[bet_id].offer = amount
        self.log.append(_new_op(Operation, ("offer", None, None, amount, bet_id)))

    def verify_accept(self, bet_id: str, amount: int) -> None:
        bet = self.bets.get(bet_id)
        if bet is None or bet.offer is None:
            raise Illegal(
                "illegal_decision",
                f"Bet {bet_id} took a cash-out that was not on offer.",
                bet=bet_id,
                recorded=str(amount),
            )
        if bet.offer != amount:
            raise Illegal(
                "wrong_payout",
                f"Bet {bet_id} was offered {self.money(bet.offer)} to cash out but the record says "
                f"it took {self.money(amount)}.",
                box=bet.box,
                hand=bet.hand,
                bet=bet_id,
                expected=str(bet.offer),
                recorded=str(amount),
            )

    def accept_cashout(self, bet_id: str, amount: int, *, verify: bool = True) -> None:
        if verify:
            self.verify_accept(bet_id, amount)
        bet = self.bets[bet_id]
        bet.cashout = amount
        bet.offer = None
        self.log.append(_new_op(Operation, ("cashout", None, None, amount, bet_id)))

    # --- the end -----------------------------------------------------------------------------

    def close(self) -> list[Illegal]:
        """Close the round for settlement: what was still owed is returned (a card to a
        hand, a dealer draw), and whatever is still open is closed (a hand that stood
        without saying so, an insurance window)."""
        owed: list[Illegal] = []
        if self.phase in (BETTING, DEAL):
            owed.append(
                Illegal(
                    "misdeal", f"Round {self.number} was settled before its cards were all dealt."
                )
            )
            return owed
        if self.phase == PLAY:
            for hand in self.queue[self.turn :]:
                if hand.awaiting or len(hand.cards) < 2:
                    owed.append(
                        Illegal(
                            "misdeal",
                            f"{hand.label().capitalize()} was owed a card when the round was settled.",
                            box=hand.box,
                            hand=hand.number,
                        )
                    )
        if self.phase == INSURANCE:
            self._after_insurance()
        while self.phase == PLAY:
            hand = self.queue[self.turn]
            hand.awaiting = False
            hand.done = True
            self._advance()
        if self.phase == DEALER and self._dealer_wants_card():
            owed.append(
                Illegal(
                    "dealer_procedure",
                    f"The dealer stood on {self.dealer_best} where the rules say draw.",
                    expected="draw",
                    recorded="stand",
                )
            )
        return owed

    def settle(self) -> list[Settlement]:
        """Every bet's outcome and net in minor units (+ paid by the house, - taken)."""
        # the round's own facts once, not once per bet (a live round has thousands)
        facts = self._settle_facts()
        settle = self._settle
        return [settle(bet, *facts) for bet in self.bets.values()]

    def settle_bet(self, bet: Bet) -> Settlement:
        return self._settle(bet, *self._settle_facts())

    def _settle_facts(self) -> tuple[bool, int, Outcome]:
        return (
            self.dealer_natural,
            self.dealer_best,
            "carried" if self.rules.push_carries_over else "push",
        )

    def _settle(self, bet: Bet, dealer_natural: bool, dealer: int, push: Outcome) -> Settlement:
        rules = self.rules
        amount = bet.amount
        if bet.cashout is not None:
            return _new_op(Settlement, (bet.id, "cashed_out", bet.cashout - amount))
        if self.voided:
            return _new_op(Settlement, (bet.id, "push", 0))
        if bet.kind == "insurance":
            if dealer_natural:
                return _new_op(
                    Settlement,
                    (bet.id, "win", apply_ratio(amount, rules.insurance_pays, rules.rounding)),
                )
            return _new_op(Settlement, (bet.id, "lose", -amount))
        if bet.even_money:
            return _new_op(Settlement, (bet.id, "even_money", amount))
        hand = self.hands.get((bet.box, bet.hand))
        if hand is None:
            return _new_op(Settlement, (bet.id, "push", 0))
        if hand.surrendered:
            back = apply_ratio(amount, rules.surrender_returns, rules.rounding)
            return _new_op(Settlement, (bet.id, "surrender", back - amount))
        hard = hand.hard
        if hard > 21:
            return _new_op(Settlement, (bet.id, "lose", -amount))
        if (
            hard == 11
            and hand.ace
            and len(hand.cards) == 2
            and (not hand.from_split or rules.split_21_is_natural)
        ):  # Hand.natural
            if dealer_natural:
                return _new_op(Settlement, (bet.id, push, 0))
            return _new_op(
                Settlement,
                (bet.id, "natural", apply_ratio(amount, rules.natural_pays, rules.rounding)),
            )
        if dealer_natural:
            if bet.kind in ("double", "split") and rules.dealer_natural_takes == "original":
                return _new_op(Settlement, (bet.id, "push", 0))
            return _new_op(Settlement, (bet.id, "lose", -amount))
        mine = hard + 10 if hand.ace and hard <= 11 else hard
        if dealer > 21 or mine > dealer:
            return _new_op(Settlement, (bet.id, "win", amount))
        if mine < dealer:
            return _new_op(Settlement, (bet.id, "lose", -amount))
        return _new_op(Settlement, (bet.id, push, 0))
