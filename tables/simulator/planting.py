"""How each fault of a round is planted: one planter per fault kind of the ``round``
moment (:data:`.faults.KINDS`), registered here by kind.

A planter gets the round as it was dealt (:class:`DealtEvents`: its events, still to be
written, and the engine's round) and changes what is recorded so that the audit finds
exactly the fault's one finding; it answers whether the round allowed the fault (a
short pay needs a winning bet). A fault of the dealer's own play cannot be made after
the fact: its planter carries the :class:`~tables.engine.dealing.DealerMistake` the
dealer deals the round with, and records the fault where the mistake was made.

The two other moments - a fill recorded twice, a closing count short - are planted
where the table's day reaches them (:mod:`.day`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tables.engine.cards import RANKS, VALUE
from tables.engine.dealing import DealerMistake
from tables.engine.shoes import ShoeTrack
from tables.engine.table_round import DRAW, Round

from .faults import KINDS, FaultAt

if TYPE_CHECKING:
    from .day import TableSim

Emitted = tuple[str, dict[str, Any]]


@dataclass(slots=True)
class DealtEvents:
    """A round as the dealer dealt it, before it is written."""

    events: list[Emitted]
    round: Round
    number: int
    base: int  # the stream version ``events[0]`` will have
    mistaken: bool  # the dealer made the mistake it was asked to


Plant = Callable[["TableSim", str, DealtEvents, "FaultAt | None"], bool]


@dataclass(frozen=True, slots=True)
class Planter:
    kind: str
    plant: Plant
    mistake: DealerMistake | None = None  # the dealer's own mistake, dealt in the round


PLANTERS: dict[str, Planter] = {}


def planter(*kinds: str, mistake: DealerMistake | None = None) -> Callable[[Plant], Plant]:
    """Register the decorated function as the planter of ``kinds``."""

    def register(plant: Plant) -> Plant:
        for kind in kinds:
            if KINDS[kind].moment != "round" or kind in PLANTERS:
                raise ValueError(f"{kind} is not a round fault without a planter")
            PLANTERS[kind] = Planter(kind, plant, mistake)
        return plant

    return register


# --- the settlement ------------------------------------------------------------------------


@planter("short_pay", "overpay", "natural_even_money")
def _wrong_payout(sim: TableSim, kind: str, dealt: DealtEvents, requested: FaultAt | None) -> bool:
    events, number = dealt.events, dealt.number
    settled = events[-1][1]
    want = ("natural",) if kind == "natural_even_money" else ("win", "natural")
    choices = [
        i for i, s in enumerate(settled["settlements"]) if s["outcome"] in want and s["net"] > 0
    ]
    if not choices:
        return False
    i = choices[sim.fault_rng.randrange(len(choices))]
    items = [dict(s) for s in settled["settlements"]]
    item = items[i]
    expected = f"{item['outcome']} {item['net']:+d}"
    if kind == "short_pay":
        item["net"] -= 500 if item["net"] > 500 else 50
    elif kind == "overpay":
        item["net"] += 500
    else:
        item["outcome"], item["net"] = "win", dealt.round.bets[item["bet"]].amount
    events[-1] = ("round.settled", {"round": number, "settlements": items})
    sim.plant(
        kind,
        dealt.base + len(events) - 1,
        "round.settled",
        round=number,
        bet=item["bet"],
        expected=expected,
        recorded=f"{item['outcome']} {item['net']:+d}",
        requested=requested,
    )
    return True


# --- the dealer's own play -------------------------------------------------------------------


class _StandsOn16(DealerMistake):
    """The dealer stops on 16: the round is settled on it, the cards stay in the shoe."""

    def stops(self, round: Round) -> bool:
        return len(round.dealer) >= 2 and round.dealer_best == 16


class _DrawsOn17(DealerMistake):
    """The dealer draws on a standing 17; the pit burns the card."""

    def draws(self, round: Round) -> bool:
        return round.dealer_mode == DRAW and len(round.dealer) >= 2 and round.dealer_best == 17


@planter("dealer_stands_16", mistake=_StandsOn16())
def _dealer_stands(sim: TableSim, kind: str, dealt: DealtEvents, requested: FaultAt | None) -> bool:
    if not dealt.mistaken:
        return False
    index = len(dealt.events) - 1  # the settlement: where replay finds the draw owed
    sim.plant(
        kind, dealt.base + index, dealt.events[index][0], round=dealt.number, requested=requested
    )
    return True


@planter("dealer_draws_17", mistake=_DrawsOn17())
def _dealer_draws(sim: TableSim, kind: str, dealt: DealtEvents, requested: FaultAt | None) -> bool:
    if not dealt.mistaken:
        return False
    events = dealt.events
    index = next(i for i in range(len(events) - 1, -1, -1) if events[i][0] == "card.dealt")
    sim.plant(kind, dealt.base + index, events[index][0], round=dealt.number, requested=requested)
    return True


# --- the cards -------------------------------------------------------------------------------


@planter("card_out_of_sequence")
def _out_of_sequence(
    sim: TableSim, kind: str, dealt: DealtEvents, requested: FaultAt | None
) -> bool:
    if "hidden" in sim.shoe_faults:
        return False
    events = dealt.events
    cards = [i for i, (t, p) in enumerate(events) if t == "card.dealt" and p["box"] is not None]
    i = cards[sim.fault_rng.randrange(len(cards))]
    payload = dict(events[i][1])
    card = payload["card"]
    payload["card"] = RANKS[(RANKS.index(card[0]) + 1) % 13] + card[1]
    events[i] = ("card.dealt", payload)
    sim.shoe_faults.add("sequence")
    sim.plant(
        kind,
        dealt.base + i,
        "card.dealt",
        round=dealt.number,
        expected=card,
        recorded=payload["card"],
        requested=requested,
    )
    return True


@planter("impossible_card")
def _impossible(sim: TableSim, kind: str, dealt: DealtEvents, requested: FaultAt | None) -> bool:
    if sim.shoe_faults or sim.shuffled is None:
        return False
    events = dealt.events
    decks = sim.rules.decks
    counts: dict[str, int] = {}
    for card in sim.order[: sim.round_pos]:
        counts[card] = counts.get(card, 0) + 1
    # on the live table, replay values cash-out offers from the shoe as it counts it: no
    # offer may follow the impossible card within its round
    offers = [i for i, (t, _) in enumerate(events) if t == "cashout.offered"]
    last_offer = offers[-1] if offers else -1
    for i, (t, p) in enumerate(events):
        if t == "card.burned":  # burned once the bets are down (seed 002): out of the shoe too
            counts[p["card"]] = counts.get(p["card"], 0) + 1
            continue
        if t != "card.dealt":
            continue
        card = p["card"]
        if p["box"] is not None and i > last_offer:
            value = VALUE[card]
            gone = [
                c
                for c in sorted(VALUE)
                if VALUE[c] == value and c != card and counts.get(c, 0) >= decks
            ]
            if gone:
                payload = dict(p)
                payload["card"] = gone[0]
                events[i] = ("card.dealt", payload)
                # the shoe was shuffled by hand: its order is not on record
                sim.shuffled.update(method="hand", order=None, commitment=None, seed=None)
                sim.shoe_faults.add("hidden")
                _follow_as_recorded(sim, events)
                sim.plant(
                    kind,
                    dealt.base + i,
                    "card.dealt",
                    round=dealt.number,
                    recorded=gone[0],
                    requested=requested,
                )
                return True
        counts[card] = counts.get(card, 0) + 1
    return False


def _follow_as_recorded(sim: TableSim, events: list[Emitted]) -> None:
    """From now on the dealer counts the cards left in the shoe as replay will: a shoe
    without a recorded order, every card out as it was recorded (the impossible one
    refused, so its value counts one card more than the shoe holds)."""
    shoe = sim.cursor
    assert shoe is not None
    track = ShoeTrack(shoe.shoe.id, shoe.shoe.decks, None)
    for card in sim.order[: sim.round_pos]:  # burned and dealt before this round
        track.draw(card)
    for t, p in events:
        if t == "card.dealt" or t == "card.burned":  # burns once the bets are down (seed 002) too
            track.draw(p["card"])
    shoe.track = track


@planter("wrong_face")
def _wrong_face(sim: TableSim, kind: str, dealt: DealtEvents, requested: FaultAt | None) -> bool:
    events = dealt.events
    cards = [i for i, (t, p) in enumerate(events) if t == "card.dealt" and p["box"] is not None]
    if not cards:
        return False
    i = cards[sim.fault_rng.randrange(len(cards))]
    payload = dict(events[i][1])
    face = payload["face"]
    payload["face"] = "up" if face == "down" else "down"
    events[i] = ("card.dealt", payload)
    sim.plant(
        kind,
        dealt.base + i,
        "card.dealt",
        round=dealt.number,
        expected=face,
        recorded=payload["face"],
        requested=requested,
    )
    return True


# --- the stakes ----------------------------------------------------------------------------------


@planter("missing_stake")
def _missing_stake(sim: TableSim, kind: str, dealt: DealtEvents, requested: FaultAt | None) -> bool:
    """The deciding bettor's double or split stake is never recorded (nor settled): the
    hand plays on for the stakes before it. Not a stake another one names (a double after
    the split), nor one carried to the next round."""
    events, r = dealt.events, dealt.round
    if r.rules.dealer_plays_basic_strategy:
        return False  # the live game's stakes are every player's own choice
    settled = events[-1][1]
    carried = {s["bet"] for s in settled["settlements"] if s["outcome"] == "carried"}
    named = {p["parent"] for t, p in events if t == "bet.placed"}
    for i, (t, p) in enumerate(events):
        if (
            t != "bet.placed"
            or p["kind"] not in ("double", "split")
            or p["bet"] in named
            or p["bet"] in carried
        ):
            continue
        decider = r.decider(p["box"])
        base = r.bets.get(p["parent"])
        if (
            decider is None
            or base is None
            or not (base.id == decider.id or (base.kind == "split" and r.root(base) == decider.id))
        ):
            continue
        del events[i]
        events[-1] = (
            "round.settled",
            {**settled, "settlements": [s for s in settled["settlements"] if s["bet"] != p["bet"]]},
        )
        # the stake's absence shows at the event after it
        sim.plant(
            kind,
            dealt.base + i,
            events[i][0],
            round=dealt.number,
            bet=p["parent"],
            requested=requested,
        )
        return True
    return False


@planter("insurance_without_decision")
def _insurance_without_decision(
    sim: TableSim, kind: str, dealt: DealtEvents, requested: FaultAt | None
) -> bool:
    """A bet's decision to insure is never recorded, its insurance stake is: the other
    direction of a missing stake (a stake no decision called for). Replay settles the
    stake by the rules all the same, so the round's settlement stays right."""
    events = dealt.events
    for i, (t, p) in enumerate(events):
        if t != "decision.made" or p["action"] != "insurance":
            continue
        stake = next(
            j
            for j in range(i + 1, len(events))
            if events[j][0] == "bet.placed"
            and events[j][1]["kind"] == "insurance"
            and events[j][1]["parent"] == p["bet"]
        )
        del events[i]
        stake -= 1
        sim.plant(
            kind,
            dealt.base + stake,
            "bet.placed",
            round=dealt.number,
            bet=events[stake][1]["bet"],
            requested=requested,
        )
        return True
    return False


# --- the record --------------------------------------------------------------------------------


@planter("missing_event")
def _missing(sim: TableSim, kind: str, dealt: DealtEvents, requested: FaultAt | None) -> bool:
    events = dealt.events
    i = next(i for i, (t, _) in enumerate(events) if t == "betting.closed")
    del events[i]
    # nothing carries the missing event's version: the manifest names the one after it
    sim.plant(
        kind,
        dealt.base + i,
        events[i][0],
        round=dealt.number,
        requested=requested,
        missing="betting.closed",
    )
    return True


@planter("duplicate_event")
def _duplicate(sim: TableSim, kind: str, dealt: DealtEvents, requested: FaultAt | None) -> bool:
    events = dealt.events
    # not a pushed stake placed again: its second copy would claim a carried bet that is
    # no longer on the layout (illegal_bet) before it is seen as a repeat
    fresh = [
        i
        for i, (t, p) in enumerate(events)
        if t == "bet.placed" and not (p["kind"] == "main" and p["parent"])
    ]
    if not fresh:
        return False
    i = fresh[0]
    events.insert(i + 1, ("bet.placed", dict(events[i][1])))
    sim.plant(
        kind,
        dealt.base + i + 1,
        "bet.placed",
        round=dealt.number,
        bet=events[i][1]["bet"],
        requested=requested,
    )
    return True


@planter("tamper")
def _tamper(sim: TableSim, kind: str, dealt: DealtEvents, requested: FaultAt | None) -> bool:
    events, base = dealt.events, dealt.base
    i = next(i for i, (t, _) in enumerate(events) if t == "bet.placed")
    record = sim.plant(
        kind,
        base + i,
        "bet.placed",
        round=dealt.number,
        requested=requested,
        stream=sim.code,
        version=base + i,
    )
    altered = dict(events[i][1])
    altered["player"] = "P-" + format(sim.fault_rng.getrandbits(32), "08x")
    record["altered_payload"] = altered
    return True
