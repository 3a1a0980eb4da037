"""Findings of the rules engine: the engine reports the kinds the record core's
vocabulary (:mod:`audit.record.findings`) gives the owner ``engine``, as its frozen
:class:`Finding` values. ``Illegal`` is how a ``verify_*`` check says what it refused.
"""

from __future__ import annotations

from audit.record.findings import Finding, kinds_of

# the kinds replay reports (a subset of the one vocabulary)
KINDS = kinds_of("engine")

__all__ = ["KINDS", "Finding", "Illegal"]


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
