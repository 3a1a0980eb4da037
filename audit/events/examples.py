"""One valid payload of every event type, at its current schema version: the catalogue's
tests and docs/events.md use them."""
from __future__ import annotations

from typing import Any

EXAMPLES: dict[str, dict[str, Any]] = {
    "table.opened": {"table": "BJ-01", "ruleset": "hoyle", "min_bet": 200, "max_bet": 50_000,
                     "currency": "EUR", "gaming_day": "2026-11-29", "rules": {"decks": 6}},
    "table.closed": {"gaming_day": "2026-11-29"},
    "dealer.assigned": {"dealer": "D-0042"},
    "inventory.counted": {"kind": "opening", "chips": [{"denomination": 500, "count": 100},
                                                       {"denomination": 2500, "count": 40}],
                          "counted_by": "D-0042", "witnessed_by": "PB-7"},
    "chips.filled": {"slip": "F-1001", "chips": [{"denomination": 500, "count": 20}]},
    "chips.credited": {"slip": "C-2001", "chips": [{"denomination": 10_000, "count": 5}]},
    "buyin.recorded": {"box": 3, "player": None, "method": "cash", "amount": 20_000, "currency": "EUR"},
    "drop.counted": {"gaming_day": "2026-11-29", "cash": 1_250_000, "markers": 0, "currency": "EUR",
                     "counted_by": "CR-1"},
    "shoe.shuffled": {"shoe": "S-17", "decks": 6, "method": "machine", "order": None,
                      "commitment": "a" * 64, "seed": None},
    "shoe.cut": {"shoe": "S-17", "position": 140, "cut_card": 240},
    "card.burned": {"shoe": "S-17", "round": None, "card": "7C", "face": "down", "reason": "after_shuffle"},
    "round.started": {"round": 1, "shoe": "S-17"},
    "bet.placed": {"round": 1, "bet": "r1-b3", "box": 3, "hand": 0, "player": "P-88", "amount": 2500,
                   "kind": "main", "parent": None},
    "betting.closed": {"round": 1},
    "card.dealt": {"round": 1, "box": 3, "hand": 0, "card": "AS", "face": "up"},
    "decision.made": {"round": 1, "box": 3, "hand": 0, "action": "stand", "bet": None},
    "cashout.offered": {"round": 1, "bet": "r1-b3", "amount": 1800},
    "cashout.accepted": {"round": 1, "bet": "r1-b3", "amount": 1800},
    "card.revealed": {"round": 1, "card": "TD"},
    "round.settled": {"round": 1, "settlements": [{"bet": "r1-b3", "outcome": "natural", "net": 3750}]},
    "round.voided": {"round": 1, "reason": "cards left in the discard holder", "authorised_by": "PB-7"},
    "correction.recorded": {"round": 1, "corrects": None,
                            "settlements": [{"bet": "r1-b3", "outcome": "win", "net": 2500}],
                            "reason": "short pay corrected", "authorised_by": "PB-7"},
}
