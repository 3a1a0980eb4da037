"""Fixed shoes, scripted players and the envelope around them, for the engine's tests."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime
from typing import Any

from audit.record.events.fields import HandAction
from tables.engine.dealing import (
    DealerMistake,
    DealtRound,
    OptIn,
    Seats,
    ShoeCursor,
    Stake,
    SystemOffer,
    deal_round,
)
from tables.engine.envelope import EnvelopeWriter
from tables.engine.illegal import Finding
from tables.engine.replay import ReplayResult, replay
from tables.engine.rules import RuleSet
from tables.engine.shoes import Shoe, commitment
from tables.engine.table_round import Bet, Hand

START = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
BURN = ["2D", "3D", "4D", "5D", "6D", "7D"]


def layout(
    rules: RuleSet, players: Sequence[str], dealer: str, play: str = "", draws: str = ""
) -> str:
    """The shoe's first cards for this deal, in the order the rule set deals them:
    ``players`` two cards per box, the ``dealer``'s two, then the cards of the play and
    the dealer's draws."""
    hands = [p.split() for p in players]
    up, second = dealer.split()
    first = [h[0] for h in hands] + [up] + [h[1] for h in hands]
    if rules.hole_card == "none":
        return " ".join(first + play.split() + [second] + draws.split())
    return " ".join(first + [second] + play.split() + draws.split())


_NOBODY = Seats()


class Choices(Seats):
    """The people at a test table: the hands played as ``script`` says (each action
    asserted legal), then standing; every other choice from the callable given for it,
    the protocol's default where none is. ``legal_seen``: what each decision offered."""

    def __init__(
        self,
        *,
        script: Sequence[str] = (),
        insure: Callable[[Bet], int] = _NOBODY.insure,
        even_money: Callable[[Bet], bool] = _NOBODY.even_money,
        opt_in: Callable[[Bet, OptIn], bool] = _NOBODY.opt_in,
        offer: Callable[[Bet, Hand, str, SystemOffer], int | None] = _NOBODY.offer,
        accept: Callable[[Bet, int], bool] = _NOBODY.accept,
    ) -> None:
        self.script = list(script)
        self._insure, self._even_money, self._opt_in = insure, even_money, opt_in
        self._offer, self._accept = offer, accept
        self.legal_seen: list[frozenset[HandAction]] = []

    def scripted(self, *actions: str) -> Choices:
        """These choices, with the hands played as ``actions`` say."""
        return Choices(
            script=actions,
            insure=self._insure,
            even_money=self._even_money,
            opt_in=self._opt_in,
            offer=self._offer,
            accept=self._accept,
        )

    def decide(self, bet: Bet, hand: Hand, up: str, legal: frozenset[HandAction]) -> HandAction:
        self.legal_seen.append(legal)
        if self.script:
            action = self.script.pop(0)
            assert action in legal, (
                f"{action} is not legal on {hand.cards} (legal: {sorted(legal)})"
            )
            return action  # type: ignore[return-value]
        return "stand"

    def insure(self, bet: Bet) -> int:
        return self._insure(bet)

    def even_money(self, bet: Bet) -> bool:
        return self._even_money(bet)

    def opt_in(self, bet: Bet, action: OptIn) -> bool:
        return self._opt_in(bet, action)

    def offer(self, bet: Bet, hand: Hand, up: str, system: SystemOffer) -> int | None:
        return self._offer(bet, hand, up, system)

    def accept(self, bet: Bet, amount: int) -> bool:
        return self._accept(bet, amount)


NO_CHOICES = Choices()


def system_offers(bet: Bet, hand: Hand, up: str, system: SystemOffer) -> int:
    """Every bet is offered the system's cash-out whenever the round allows one."""
    return system(bet)


def cards(text: str) -> list[str]:
    return text.split()


class Table:
    """One table's record, built round by round on a fixed shoe."""

    def __init__(
        self,
        rules: RuleSet,
        shoe_cards: str,
        *,
        cut_card: int | None = None,
        burns: int | None = None,
        known: bool = True,
    ) -> None:
        self.rules = rules
        burn = rules.burn_on_shuffle if burns is None else burns
        self.shoe = Shoe.arranged("S1", BURN[:burn] + cards(shoe_cards), decks=rules.decks)
        self.writer = EnvelopeWriter("T1", start=START, name="test")
        self.events: list[dict[str, Any]] = []
        self.rounds: list[DealtRound] = []
        self.write(
            "table.opened",
            {
                "table": "T1",
                "ruleset": rules.name,
                "min_bet": rules.min_bet,
                "max_bet": rules.max_bet,
                "currency": "EUR",
                "gaming_day": "2026-11-29",
                "rules": _overrides(rules),
            },
        )
        assert self.shoe.order is not None
        size = 52 * rules.decks
        if cut_card is None:
            cut_card = size - (sum(rules.penetration) // 2 if rules.penetration else 20)
        self.write(
            "shoe.shuffled",
            {
                "shoe": "S1",
                "decks": rules.decks,
                "method": "machine",
                "order": list(self.shoe.order) if known else None,
                "commitment": commitment(self.shoe.order),
                "seed": None,
            },
        )
        self.write("shoe.cut", {"shoe": "S1", "position": 0, "cut_card": cut_card})
        self.cursor = ShoeCursor(self.shoe)
        # burned right after the shuffle, or by the dealer once round 1's bets are down (seed 002)
        self.round_burns = burn if rules.burn_when == "bets_down" else 0
        for _ in range(burn - self.round_burns):
            self.write(
                "card.burned",
                {
                    "shoe": "S1",
                    "round": None,
                    "card": self.cursor.next(),
                    "face": "down",
                    "reason": "after_shuffle",
                },
            )

    def write(self, kind: str, payload: dict[str, Any]) -> dict[str, Any]:
        event = self.writer.write(kind, payload)
        self.events.append(event)
        return event

    def deal(
        self,
        stakes: Sequence[Stake] | Sequence[int] = (100,),
        *actions: str,
        choices: Choices = NO_CHOICES,
        mistake: DealerMistake | None = None,
    ) -> DealtRound:
        number = len(self.rounds) + 1
        bets = [
            s if isinstance(s, Stake) else Stake(f"r{number}b{i + 1}", i + 1, s)
            for i, s in enumerate(stakes)
        ]
        burns, self.round_burns = self.round_burns, 0
        dealt = deal_round(
            self.rules,
            self.cursor,
            number,
            bets,
            choices.scripted(*actions),
            mistake=mistake,
            burns=burns,
        )
        for kind, payload in dealt.events:
            self.write(kind, payload)
        self.rounds.append(dealt)
        return dealt

    def replay(self) -> ReplayResult:
        return replay(self.events)


def _overrides(rules: RuleSet) -> dict[str, Any]:
    from tables.engine.presets import PRESETS

    base = PRESETS.get(rules.name)
    if base is None or base == rules:
        return {}
    mine, theirs = rules.as_overrides(), base.as_overrides()
    return {k: v for k, v in mine.items() if theirs[k] != v}


def nets(dealt: DealtRound) -> dict[str, tuple[str, int]]:
    return {s.bet: (s.outcome, s.net) for s in dealt.settlements}


def kinds(findings: Iterable[Finding]) -> list[str]:
    return [f.kind for f in findings]


def targets(dealt: DealtRound) -> list[tuple[Any, Any, str]]:
    """(box, hand, face) of every card dealt, in order."""
    return [(p["box"], p["hand"], p["face"]) for kind, p in dealt.events if kind == "card.dealt"]


def actions_of(dealt: DealtRound) -> list[str]:
    return [p["action"] for kind, p in dealt.events if kind == "decision.made"]


def edit(events: list[dict[str, Any]], index: int, **payload: Any) -> list[dict[str, Any]]:
    """A copy of ``events`` with event ``index``'s payload changed."""
    out = list(events)
    out[index] = {**events[index], "payload": {**events[index]["payload"], **payload}}
    return out


def find(events: list[dict[str, Any]], type_: str, nth: int = 0, **match: Any) -> int:
    hits = [
        i
        for i, e in enumerate(events)
        if e["type"] == type_ and all(e["payload"].get(k) == v for k, v in match.items())
    ]
    return hits[nth]


def rewrap(events: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The same types and payloads in fresh envelopes (new ids, versions and chain), for
    records a test has cut or spliced."""
    writer = EnvelopeWriter("T1", start=START, name="rewrap")
    return [writer.write(e["type"], e["payload"]) for e in events]


def insert_before_last(
    events: Sequence[dict[str, Any]], kind: str, payload: dict[str, Any]
) -> list[dict[str, Any]]:
    spliced = list(events[:-1]) + [{"type": kind, "payload": payload}] + [events[-1]]
    return rewrap(spliced)


def first_legal(rules: RuleSet, player: str, dealer: str) -> frozenset[str]:
    """The actions the rule set allows a fresh hand of ``player`` against ``dealer``'s up card."""
    seats = Choices()
    table = Table(rules, layout(rules, [player], dealer, draws="TC TC TC"))
    deal_round(rules, table.cursor, 1, [Stake("b", 1, max(100, rules.min_bet))], seats)
    return frozenset(seats.legal_seen[0]) if seats.legal_seen else frozenset()
