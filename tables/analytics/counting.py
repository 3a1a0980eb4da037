"""Every main bet beside the Hi-Lo true count of its shoe when it was placed.

The count is the one a player at the table could keep, read from the record: each
face-up card counts when it is dealt, a face-down card (the dealer's hole card, a
double dealt face down) when the round ends and it is shown, a card burned face up at
once; a shuffle starts the count again. The true count is the running count divided by
the decks still in the shoe (every card dealt or burned, seen or not, is out of it),
never by less than a quarter deck.

A bet is a stake a player chose before the cards: ``main`` bets, not those carried over
from a push (they have a ``parent``), not the live game's (its bettors share the hands
the dealer plays; no box of its own).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from tables.engine.cards import HI_LO
from tables.engine.presets import PRESETS
from tables.engine.rules import RuleSet

DECK = 52
MIN_DECKS_LEFT = 0.25


@dataclass(frozen=True)
class CountedBet:
    table: str
    gaming_day: str
    round: int
    bet: str
    player: str
    amount: int
    true_count: float


def counted_bets(events: Iterable[Mapping[str, Any]]) -> list[CountedBet]:
    """The players' main bets of a table's events, each with the true count it was
    placed at. Tables whose dealer plays the hands (the live game) give none."""
    out: list[CountedBet] = []
    table = day = ""
    live = False
    cards_in_shoe = 0
    out_of_shoe = 0
    running = 0
    hidden: list[str] = []  # this round's face-down cards, counted when it ends
    for event in events:
        kind = event["type"]
        p = event["payload"]
        if kind == "card.dealt":
            out_of_shoe += 1
            if p["face"] == "up":
                running += HI_LO[p["card"]]
            else:
                hidden.append(p["card"])
        elif kind == "bet.placed":
            if not live and p["kind"] == "main" and p.get("parent") is None and p.get("player"):
                decks_left = max((cards_in_shoe - out_of_shoe) / DECK, MIN_DECKS_LEFT)
                out.append(
                    CountedBet(
                        table,
                        day,
                        p["round"],
                        p["bet"],
                        p["player"],
                        p["amount"],
                        running / decks_left,
                    )
                )
        elif kind in ("round.settled", "round.voided"):
            running += sum(HI_LO[card] for card in hidden)
            hidden = []
        elif kind == "card.burned":
            out_of_shoe += 1
            if p["face"] == "up" and p.get("card"):
                running += HI_LO[p["card"]]
        elif kind == "shoe.shuffled":
            cards_in_shoe, out_of_shoe, running, hidden = p["decks"] * DECK, 0, 0, []
        elif kind == "table.opened":
            table, day = p["table"], p["gaming_day"]
            live = table_rules(p).dealer_plays_basic_strategy
    return out


def table_rules(opened: Mapping[str, Any]) -> RuleSet:
    """The rule set a ``table.opened`` names, with its overrides, as replay reads it
    (an unknown or unusable one: hoyle, as replay falls back - and reports)."""
    base = PRESETS.get(opened["ruleset"]) or PRESETS["hoyle"]
    try:
        return base.with_overrides(opened.get("rules") or {})
    except ValueError:
        return base
