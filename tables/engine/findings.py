"""Findings: what replay found wrong, as frozen values.

``kind`` is one of :data:`KINDS`; ``round``, ``box``, ``hand`` and ``bet`` say where
(None where it does not apply); ``expected`` and ``recorded`` are short texts (a card,
an amount, an action); ``message`` is one sentence a pit boss understands; ``event`` is
the id of the event that showed it, when one did.
"""
from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

KINDS: MappingProxyType[str, str] = MappingProxyType(
    {
        "wrong_payout": "a bet's recorded settlement differs from the one the rules give",
        "wrong_cashout_offer": "a cash-out offer differs from the one the system computes from the hand's expected value (seed 000)",
        "missing_settlement": "a bet of a settled round has no settlement recorded",
        "unknown_bet": "a settlement or correction names a bet the round never took",
        "illegal_decision": "a decision the rule set does not allow for that hand at that moment",
        "illegal_bet": "a stake the rule set or the moment does not allow (limits, kind, amount)",
        "dealer_procedure": "the dealer drew or stood where the rules dictate otherwise",
        "deal_order": "a card went to another place than the deal order of the rule set says",
        "card_out_of_sequence": "a card is not the next card of the shoe's recorded order",
        "impossible_card": "a card the shoe cannot hold any more (or a shoe already empty)",
        "shoe_procedure": "burns, cut card, commitment or reshuffle not as the rule set says",
        "misdeal": "a card to a box without a bet, or a hand dealt a wrong number of cards",
        "missing_event": "an event the record must contain is not there (version gap, unsettled round)",
        "duplicate_event": "the same event (id or stream version) recorded twice",
        "unexpected_event": "an event that belongs to no open round or comes after its end",
        "invalid_correction": "a correction that names no known event or bet",
        "unknown_rule_set": "no table.opened, or a rule set or override the engine does not know (replay uses a stand-in)",
    }
)


@dataclass(frozen=True, slots=True)
class Finding:
    kind: str
    message: str
    round: int | None = None
    box: int | None = None
    hand: int | None = None
    bet: str | None = None
    expected: str | None = None
    recorded: str | None = None
    event: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown finding kind {self.kind!r}")

    def as_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "round": self.round,
            "box": self.box,
            "hand": self.hand,
            "bet": self.bet,
            "expected": self.expected,
            "recorded": self.recorded,
            "event": self.event,
            "message": self.message,
        }


class Illegal(Exception):
    """Raised by a ``verify_*`` check: the finding it amounts to, without its place in
    the record (replay adds the round and the event)."""

    def __init__(
        self,
        kind: str,
        message: str,
        *,
        box: int | None = None,
        hand: int | None = None,
        bet: str | None = None,
        expected: str | None = None,
        recorded: str | None = None,
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.box = box
        self.hand = hand
        self.bet = bet
        self.expected = expected
        self.recorded = recorded

    def finding(self, round: int | None, event: str | None) -> Finding:
        return Finding(
            kind=self.kind,
            message=self.message,
            round=round,
            box=self.box,
            hand=self.hand,
            bet=self.bet,
            expected=self.expected,
            recorded=self.recorded,
            event=event,
        )
