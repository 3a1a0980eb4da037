"""Fixed shoes, scripted players and the envelope around them, for the engine's tests."""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from typing import Any

from tables.engine.dealing import Choices, DealtRound, ShoeCursor, Stake, deal_round
from tables.engine.envelope import EnvelopeWriter
from tables.engine.findings import Finding
from tables.engine.replay import ReplayResult, replay
from tables.engine.rules import RuleSet
from tables.engine.shoes import Shoe, commitment
from tables.engine.table_round import HandView

START = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
NO_CHOICES = Choices()
BURN = ["2D", "3D", "4D", "5D", "6D", "7D"]


def layout(rules: RuleSet, players: Sequence[str], dealer: str, play: str = "", draws: str = "") -> str:
    """The shoe's first cards for this deal, in the order the rule set deals them:
    ``players`` two cards per box, the ``dealer``'s two, then the cards of the play and
    the dealer's draws."""
    hands = [p.split() for p in players]
    up, second = dealer.split()
    first = [h[0] for h in hands] + [up] + [h[1] for h in hands]
    if rules.hole_card == "none":
        return " ".join(first + play.split() + [second] + draws.split())
    return " ".join(first + [second] + play.split() + draws.split())


def scripted(*actions: str) -> Any:
    """A player who makes ``actions`` in order, then stands."""
    queue = list(actions)

    def policy(view: HandView) -> str:
        if queue:
            action = queue.pop(0)
            assert action in view.legal, f"{action} is not legal on {view.cards} (legal: {sorted(view.legal)})"
            return action
        return "stand"

    return policy


def cards(text: str) -> list[str]:
    return text.split()


class Table:
    """One table's record, built round by round on a fixed shoe."""

    def __init__(self, rules: RuleSet, shoe_cards: str, *, cut_card: int | None = None, burns: int | None = None, known: bool = True) -> None:
        self.rules = rules
        burn = rules.burn_on_shuffle if burns is None else burns
        self.shoe = Shoe.arranged("S1", BURN[:burn] + cards(shoe_cards), decks=rules.decks)
        self.writer = EnvelopeWriter("T1", start=START, name="test")
        self.events: list[dict[str, Any]] = []
        self.rounds: list[DealtRound] = []
        self.write("table.opened", {"table": "T1", "ruleset": rules.name, "min_bet": rules.min_bet, "max_bet": rules.max_bet, "currency": "EUR", "gaming_day": "2026-11-29", "rules": _overrides(rules)})
        assert self.shoe.order is not None
        size = 52 * rules.decks
        if cut_card is None:
            cut_card = size - (sum(rules.penetration) // 2 if rules.penetration else 20)
        self.write("shoe.shuffled", {"shoe": "S1", "decks": rules.decks, "method": "machine", "order": list(self.shoe.order) if known else None, "commitment": commitment(self.shoe.order), "seed": None})
        self.write("shoe.cut", {"shoe": "S1", "position": 0, "cut_card": cut_card})
        self.cursor = ShoeCursor(self.shoe)
        for _ in range(burn):
            self.write("card.burned", {"shoe": "S1", "round": None, "card": self.cursor.next(), "face": "down", "reason": "after_shuffle"})

    def write(self, kind: str, payload: dict[str, Any]) -> dict[str, Any]:
        event = self.writer.write(kind, payload)
        self.events.append(event)
        return event

    def deal(self, stakes: Sequence[Stake] | Sequence[int] = (100,), *actions: str, choices: Choices = NO_CHOICES) -> DealtRound:
        number = len(self.rounds) + 1
        bets = [s if isinstance(s, Stake) else Stake(f"r{number}b{i + 1}", i + 1, s) for i, s in enumerate(stakes)]
        dealt = deal_round(self.rules, self.cursor, number, bets, scripted(*actions), choices=choices)
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
    hits = [i for i, e in enumerate(events) if e["type"] == type_ and all(e["payload"].get(k) == v for k, v in match.items())]
    return hits[nth]


def rewrap(events: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The same types and payloads in fresh envelopes (new ids, versions and chain), for
    records a test has cut or spliced."""
    writer = EnvelopeWriter("T1", start=START, name="rewrap")
    return [writer.write(e["type"], e["payload"]) for e in events]


def insert_before_last(events: Sequence[dict[str, Any]], kind: str, payload: dict[str, Any]) -> list[dict[str, Any]]:
    spliced = list(events[:-1]) + [{"type": kind, "payload": payload}] + [events[-1]]
    return rewrap(spliced)


def first_legal(rules: RuleSet, player: str, dealer: str) -> frozenset[str]:
    """The actions the rule set allows a fresh hand of ``player`` against ``dealer``'s up card."""
    seen: list[frozenset[str]] = []

    def policy(view: HandView) -> str:
        if not seen:
            seen.append(view.legal)
        return "stand"

    table = Table(rules, layout(rules, [player], dealer, draws="TC TC TC"))
    deal_round(rules, table.cursor, 1, [Stake("b", 1, max(100, rules.min_bet))], policy)
    return seen[0] if seen else frozenset()
