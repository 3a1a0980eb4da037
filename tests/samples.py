"""Schema-valid sample events for tests and benchmarks of the store.

They are valid payloads, not legal blackjack: the store checks schemas and chains, the
rules engine checks the game. For legal rounds use the engine's dealer.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

from audit.store.streams import NewEvent

T0 = datetime(2026, 11, 29, 20, 0, tzinfo=UTC)
_CARDS = [r + s for s in "SHDC" for r in "23456789TJQKA"]


def sample_event(
    type_: str,
    payload: dict[str, Any],
    *,
    at: datetime = T0,
    actor: str = "dealer:D1",
    source: str = "test",
    event_id: uuid.UUID | None = None,
) -> NewEvent:
    return NewEvent(
        id=event_id or uuid.uuid4(),
        type=type_,
        payload=payload,
        occurred_at=at,
        actor=actor,
        source=source,
    )


def table_opened(table: str = "T1", *, at: datetime = T0) -> NewEvent:
    return sample_event(
        "table.opened",
        {
            "table": table,
            "ruleset": "hoyle",
            "min_bet": 200,
            "max_bet": 50_000,
            "currency": "EUR",
            "gaming_day": at.date().isoformat(),
        },
        at=at,
    )


def round_events(
    round_no: int, *, boxes: int = 3, at: datetime = T0, rng_seed: int = 0
) -> list[NewEvent]:
    """25 events for three boxes: start, bets, deal, decisions, reveal, settle."""
    seq = iter(range(10_000))
    card = lambda: _CARDS[(round_no * 31 + rng_seed * 7 + next(seq) * 11) % 52]
    tick = iter(timedelta(seconds=s) for s in range(10_000))
    ev: list[NewEvent] = []

    def add(type_: str, payload: dict[str, Any]) -> None:
        ev.append(sample_event(type_, payload, at=at + next(tick)))

    add("round.started", {"round": round_no, "shoe": "S1"})
    for box in range(1, boxes + 1):
        add(
            "bet.placed",
            {
                "round": round_no,
                "bet": f"r{round_no}b{box}",
                "box": box,
                "hand": 0,
                "player": f"P{box}",
                "amount": 1000 * box,
                "kind": "main",
                "parent": None,
            },
        )
    add("betting.closed", {"round": round_no})
    for box in range(1, boxes + 1):
        add("card.dealt", {"round": round_no, "box": box, "hand": 0, "card": card(), "face": "up"})
    add("card.dealt", {"round": round_no, "box": None, "hand": None, "card": card(), "face": "up"})
    for box in range(1, boxes + 1):
        add("card.dealt", {"round": round_no, "box": box, "hand": 0, "card": card(), "face": "up"})
    add(
        "card.dealt", {"round": round_no, "box": None, "hand": None, "card": card(), "face": "down"}
    )
    for box in range(1, boxes + 1):
        add(
            "decision.made",
            {"round": round_no, "box": box, "hand": 0, "action": "hit", "bet": None},
        )
        add("card.dealt", {"round": round_no, "box": box, "hand": 0, "card": card(), "face": "up"})
        add(
            "decision.made",
            {"round": round_no, "box": box, "hand": 0, "action": "stand", "bet": None},
        )
    add("card.revealed", {"round": round_no, "card": card()})
    add("card.dealt", {"round": round_no, "box": None, "hand": None, "card": card(), "face": "up"})
    add(
        "round.settled",
        {
            "round": round_no,
            "settlements": [
                {
                    "bet": f"r{round_no}b{box}",
                    "outcome": "win" if box % 2 else "lose",
                    "net": 1000 * box if box % 2 else -1000 * box,
                }
                for box in range(1, boxes + 1)
            ],
        },
    )
    return ev
