"""What-if re-settlement: a table's rounds settled again with other payouts, the same
cards and the same plays - what the day would have paid under, say, 6:5 naturals.

The table's events are replayed twice by the engine's one fold: once as recorded, once
with the table's ``table.opened`` naming the changed rules (the events are copied; the
record is never touched). Each bet's settlement under the table's own rules is set
beside the one under the changed rules. Only parameters that change what a settled hand
pays can be changed (:data:`PAYOUTS`): a rule that changes the play - the dealer hitting
soft 17, doubling or splitting rules - would change the cards that follow, and the
record cannot say what they would have been.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from tables.engine.replay import replay
from tables.engine.rules import RuleSet

from .counting import table_rules

PAYOUTS = ("natural_pays", "insurance_pays", "surrender_returns", "rounding")


class WhatIfError(ValueError):
    """Changes that are not payouts, or values the rules refuse."""


@dataclass(frozen=True)
class BetChange:
    table: str
    round: int
    bet: str
    player: str
    kind: str
    amount: int
    outcome: str
    net: int  # the players' net under the table's rules (replayed)
    what_if_outcome: str
    what_if_net: int  # ... under the changed rules

    @property
    def difference(self) -> int:
        """The house's gain (+) or loss from the change on this bet."""
        return self.net - self.what_if_net


def changed_rules(rules: RuleSet, changes: Mapping[str, Any]) -> RuleSet:
    unknown = sorted(set(changes) - set(PAYOUTS))
    if unknown:
        raise WhatIfError(
            f"{', '.join(unknown)}: only payouts can be changed ({', '.join(PAYOUTS)})"
        )
    try:
        return rules.with_overrides(dict(changes))
    except (ValueError, TypeError) as error:
        raise WhatIfError(str(error)) from None


def resettle(events: Iterable[Mapping[str, Any]], changes: Mapping[str, Any]) -> list[BetChange]:
    """Every settled bet of a table's events, under its rules and under ``changes``."""
    events = list(events)
    changed: list[Mapping[str, Any]] = []
    players: dict[tuple[int, str], str] = {}
    table = ""
    for event in events:
        if event["type"] == "table.opened":
            p = event["payload"]
            table = p["table"]
            changed_rules(
                table_rules(p), changes
            )  # refuse what cannot be applied, before replaying
            event = {**event, "payload": {**p, "rules": {**(p.get("rules") or {}), **changes}}}
        elif event["type"] == "bet.placed":
            p = event["payload"]
            players[(p["round"], p["bet"])] = p.get("player") or ""
        changed.append(event)
    as_is = replay(events, check_offers=False)
    what_if = {r.number: r for r in replay(changed, check_offers=False).rounds}
    out = []
    for result in as_is.rounds:
        other = what_if.get(result.number)
        if result.voided or other is None:
            continue
        for bet, settlement in result.expected.items():
            alt = other.expected.get(bet)
            if alt is None or bet not in result.bets:
                continue
            _box, _hand, kind, amount = result.bets[bet]
            out.append(
                BetChange(
                    table,
                    result.number,
                    bet,
                    players.get((result.number, bet), ""),
                    kind,
                    amount,
                    settlement.outcome,
                    settlement.net,
                    alt.outcome,
                    alt.net,
                )
            )
    return out


@dataclass(frozen=True)
class Totals:
    key: str
    bets: int
    changed: int
    net: int
    what_if_net: int

    @property
    def difference(self) -> int:
        return self.net - self.what_if_net


def totals(rows: Iterable[BetChange], by: str) -> list[Totals]:
    """Sums per ``table`` or ``player`` (the bets of no player: ``""``), the largest
    change for the house first."""
    sums: dict[str, list[int]] = {}
    for row in rows:
        s = sums.setdefault(getattr(row, by), [0, 0, 0, 0])
        s[0] += 1
        s[1] += row.net != row.what_if_net
        s[2] += row.net
        s[3] += row.what_if_net
    out = [Totals(key, *values) for key, values in sums.items()]
    out.sort(key=lambda t: (-abs(t.difference), t.key))
    return out
