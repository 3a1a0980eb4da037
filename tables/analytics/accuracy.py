"""Strategy accuracy: each player's decisions against the basic-strategy chart the
mathematics computes for the table's rules, and what the errors cost.

The table's events are folded by the engine's replay (the one fold); before each
decision is folded, the round in play (``Replay.in_play``) gives the hand as it stood -
its cards, the dealer's up card, whether it came from a split - and the round itself
says what the rules allowed it (``Round.allowed``). The chart's play for that hand is
the engine's computed strategy (``tables.engine.strategy.computed_strategy``), the very
one the simulator's players play.

**Cost** of an error: the expected value of the chart's play less that of the play
made, playing on by the chart either way, from the shoe less the up card and the hand's
cards (``tables.engine.math.ev.Position``), times the hand's stake - minor units,
rounded to the unit. The chart is a total-dependent one, so now and then the play it
calls for is not the best for the exact cards, and an "error" there costs a little less
than nothing; such rows are kept as they are, never hidden.

Insurance and even money are bets, not plays of the hand, and are not counted here.
The live game (the dealer plays every hand by the chart) has no players' decisions.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any

from audit.record.events.fields import HandAction
from tables.engine.cards import VALUE
from tables.engine.math.composition import Composition, remaining
from tables.engine.math.ev import Position
from tables.engine.math.rulesview import PlayRules
from tables.engine.math.strategy import chart_for
from tables.engine.replay import Replay
from tables.engine.rules import RuleSet
from tables.engine.strategy import computed_strategy
from tables.engine.table_round import ALWAYS, OPTIONS, Hand, Round

PLAYS = frozenset(("hit", "stand", "double", "split", "surrender"))


@dataclass(frozen=True)
class Decision:
    table: str
    gaming_day: str
    round: int
    box: int
    hand: int
    player: str
    stake: int
    cards: tuple[str, ...]
    up: str
    action: str
    chart: str
    cost: int  # expected value given up, minor units (0 where the play is the chart's)

    @property
    def error(self) -> bool:
        return self.action != self.chart


def legal_plays(current: Round, hand: Hand) -> frozenset[HandAction]:
    """What the rules let ``hand`` do on its cards now (the round's ``legal_actions``
    without asking whose turn it is: a decision is looked at just before it is folded)."""
    if len(hand.cards) > 2 or hand.decided:
        return ALWAYS
    return ALWAYS | frozenset(a for a in OPTIONS if current.allowed(hand, a) is None)


@lru_cache(maxsize=4096)
def _position(rules: RuleSet, up: int, comp: Composition) -> Position:
    return Position(PlayRules.of(rules), up, comp)


def play_values(
    rules: RuleSet, cards: tuple[str, ...], up: str, *, from_split: bool, plays: frozenset[str]
) -> dict[str, float]:
    """The expected value of each of ``plays`` for the hand, per unit of its stake,
    playing on by the rule set's chart."""
    values = [VALUE[c] for c in cards]
    pair = values[0] if len(values) == 2 and values[0] == values[1] else 0
    position = _position(rules, VALUE[up], remaining(rules.decks, (up, *cards)))
    return position.values(
        sum(values),
        1 in values,
        len(cards),
        pair,
        after_split=from_split,
        policy=chart_for(rules),
        legal=plays,
    )


def decisions(events: Iterable[Mapping[str, Any]]) -> list[Decision]:
    """Every player's play of a hand in a table's events, against the chart."""
    replay = Replay()
    out: list[Decision] = []
    day = ""
    for event in events:
        kind = event["type"]
        if kind == "table.opened":
            day = event["payload"]["gaming_day"]
        elif kind == "decision.made" and event["payload"]["action"] in PLAYS:
            found = _decision(replay, event["payload"], day)
            if found is not None:
                out.append(found)
        replay.apply(event)
    return out


def _decision(replay: Replay, p: Mapping[str, Any], day: str) -> Decision | None:
    current = replay.in_play
    rules = replay.rules
    if (
        current is None
        or rules is None
        or current.number != p["round"]
        or rules.dealer_plays_basic_strategy
    ):
        return None
    try:
        hand = current.hand(p["box"], p["hand"])
    except (KeyError, ValueError):
        return None  # a decision for a hand the round does not hold: replay's finding, not a play
    decider = current.decider(p["box"])
    up = current.up
    if decider is None or up is None or len(hand.cards) < 2 or hand.done:
        return None
    cards = tuple(hand.cards)
    legal = legal_plays(current, hand)
    chart = computed_strategy(rules).action(cards, up, legal, split_done=hand.from_split)
    action = p["action"]
    cost = 0
    if action != chart and action in legal:
        values = play_values(
            rules, cards, up, from_split=hand.from_split, plays=frozenset((action, chart))
        )
        cost = round((Fraction(values[chart]) - Fraction(values[action])) * decider.amount)
    return Decision(
        table=replay.stream or "",
        gaming_day=day,
        round=current.number,
        box=p["box"],
        hand=p["hand"],
        player=decider.player or "",
        stake=decider.amount,
        cards=cards,
        up=up,
        action=action,
        chart=chart,
        cost=cost,
    )


@dataclass(frozen=True)
class PlayerAccuracy:
    player: str
    tables: tuple[str, ...]
    decisions: int
    errors: int
    accuracy: Fraction | None  # share of decisions that were the chart's
    cost: int  # expected value the errors gave up, minor units
    by_action: tuple[tuple[str, int], ...]  # errors by the play made instead


def accuracy(rows: Iterable[Decision]) -> list[PlayerAccuracy]:
    """Per player: decisions, errors, accuracy and cost; the costliest first."""
    by_player: dict[str, list[Decision]] = {}
    for row in rows:
        by_player.setdefault(row.player, []).append(row)
    out = []
    for player, made in by_player.items():
        errors = [d for d in made if d.error]
        kinds: dict[str, int] = {}
        for d in errors:
            kinds[d.action] = kinds.get(d.action, 0) + 1
        out.append(
            PlayerAccuracy(
                player=player,
                tables=tuple(sorted({d.table for d in made})),
                decisions=len(made),
                errors=len(errors),
                accuracy=Fraction(len(made) - len(errors), len(made)) if made else None,
                cost=sum(d.cost for d in errors),
                by_action=tuple(sorted(kinds.items())),
            )
        )
    out.sort(key=lambda r: (-r.cost, -r.errors, r.player))
    return out
