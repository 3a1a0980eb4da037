"""Laws that hold for every dealt table (hypothesis): money is conserved, replay is
deterministic, a legal round replays clean, and one tampering gives exactly its finding."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from tables.engine.cards import VALUE
from tables.engine.presets import PRESETS
from tables.engine.replay import Replay, replay
from tables.engine.simulate import DealtTable, deal_table
from tables.engine.table_round import ACTIONS

from .helpers import edit, kinds, rewrap

START = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
FAST = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])

tables = st.builds(
    lambda name, seed, rounds, boxes: (
        name,
        deal_table(
            PRESETS[name],
            seed=str(seed),
            rounds=rounds,
            boxes=boxes,
            start=START,
            bettors=2,
            hashed=False,
        ),
    ),
    st.sampled_from(sorted(PRESETS)),
    st.integers(0, 10**9),
    st.integers(1, 6),
    st.integers(1, 5),
)


def _bets(table: DealtTable) -> dict[str, dict[str, Any]]:
    return {e["payload"]["bet"]: e["payload"] for e in table.events if e["type"] == "bet.placed"}


@FAST
@given(tables)
def test_money_is_conserved_in_every_round(dealt: tuple[str, DealtTable]) -> None:
    """Every chip is either back with its player, carried on the layout, or the house's:
    players + house + layout is the same before and after each round, no bet loses more
    than its stake, and a carried stake is exactly what the next round finds."""
    _, table = dealt
    bets = _bets(table)
    players = house = layout = 0
    for number, settlements in sorted(table.settlements.items()):
        before = players + house + layout
        carried_in = {
            b["bet"]: b
            for b in bets.values()
            if b["round"] == number and b["kind"] == "main" and b["parent"] is not None
        }
        for bet in bets.values():
            if bet["round"] == number and bet["bet"] not in carried_in:
                players -= bet["amount"]
                layout += bet["amount"]
        assert {s.bet for s in settlements} == {b for b, p in bets.items() if p["round"] == number}
        for s in settlements:
            amount = bets[s.bet]["amount"]
            assert isinstance(s.net, int) and s.net >= -amount
            house -= s.net
            if s.outcome == "carried":
                assert s.net == 0
                continue
            layout -= amount
            players += amount + s.net
        assert players + house + layout == before
        assert layout == sum(bets[s.bet]["amount"] for s in settlements if s.outcome == "carried")


@FAST
@given(tables)
def test_every_dealt_round_replays_clean_and_replay_is_deterministic(
    dealt: tuple[str, DealtTable],
) -> None:
    """A table the engine dealt replays with no finding, recomputing the dealer's own
    settlements; replaying it twice gives the same result."""
    _, table = dealt
    first, second = replay(table.events), replay(table.events)
    assert first.findings == ()
    assert first == second
    for played in first.rounds:
        assert {b: (s.outcome, s.net) for b, s in played.expected.items()} == {
            s.bet: (s.outcome, s.net) for s in table.settlements[played.number]
        }


@FAST
@given(tables, st.data())
def test_one_changed_card_gives_exactly_card_out_of_sequence(
    dealt: tuple[str, DealtTable], data: st.DataObject
) -> None:
    """Changing one dealt card of a shoe whose order is recorded gives one finding,
    card_out_of_sequence, and nothing else (replay plays on with the shoe's card)."""
    _, table = dealt
    cards = [i for i, e in enumerate(table.events) if e["type"] == "card.dealt"]
    index = data.draw(st.sampled_from(cards))
    original = table.events[index]["payload"]["card"]
    other = data.draw(st.sampled_from(sorted(c for c in VALUE if c != original)))
    assert kinds(replay(edit(table.events, index, card=other)).findings) == ["card_out_of_sequence"]


@FAST
@given(tables, st.data())
def test_one_illegal_decision_gives_exactly_illegal_decision(
    dealt: tuple[str, DealtTable], data: st.DataObject
) -> None:
    """Replacing one hit or stand with an action the rules refuse at that moment gives one
    finding, illegal_decision, and nothing else (an illegal decision changes no play)."""
    _, table = dealt
    events = table.events
    choices = [
        i
        for i, e in enumerate(events)
        if e["type"] == "decision.made" and e["payload"]["action"] in ("hit", "stand")
    ]
    if not choices:
        return
    index = data.draw(st.sampled_from(choices))
    state = Replay()
    for event in events[:index]:
        state.apply(event)
    p = events[index]["payload"]
    assert state.round is not None
    state.round.close_insurance()  # a hand's decision closes the insurance window, as in replay
    refused = [a for a in ACTIONS if not state.round.can_decide(p["box"], p["hand"], a)]
    if not refused:
        return
    action = data.draw(st.sampled_from(refused))
    assert kinds(replay(edit(events, index, action=action)).findings) == ["illegal_decision"]


@FAST
@given(tables, st.data())
def test_one_changed_payout_gives_exactly_wrong_payout(
    dealt: tuple[str, DealtTable], data: st.DataObject
) -> None:
    """Changing the net of one recorded settlement gives one finding, wrong_payout, for
    that bet."""
    _, table = dealt
    events = table.events
    settled = [
        i
        for i, e in enumerate(events)
        if e["type"] == "round.settled" and e["payload"]["settlements"]
    ]
    index = data.draw(st.sampled_from(settled))
    settlements = [dict(s) for s in events[index]["payload"]["settlements"]]
    which = data.draw(st.integers(0, len(settlements) - 1))
    settlements[which]["net"] += data.draw(st.integers(-500, 500).filter(bool))
    found = replay(edit(events, index, settlements=settlements)).findings
    assert kinds(found) == ["wrong_payout"]
    assert found[0].bet == settlements[which]["bet"]


@FAST
@given(tables, st.data())
def test_replay_reports_rather_than_raises_on_any_tampering(
    dealt: tuple[str, DealtTable], data: st.DataObject
) -> None:
    """Dropped, repeated, swapped or altered events give findings, never an exception: a
    damaged record is what an audit is for."""
    _, table = dealt
    events = list(table.events)
    for _ in range(data.draw(st.integers(1, 3))):
        j = data.draw(st.integers(1, len(events) - 1))
        how = data.draw(
            st.sampled_from(["drop", "repeat", "swap", "card", "action", "amount", "hand"])
        )
        payload = dict(events[j]["payload"])
        if how == "drop":
            del events[j]
            continue
        if how == "repeat":
            events.insert(j, events[data.draw(st.integers(0, len(events) - 1))])
            continue
        if how == "swap" and j + 1 < len(events):
            events[j], events[j + 1] = events[j + 1], events[j]
            continue
        if how == "card" and payload.get("card") is not None:
            payload["card"] = data.draw(st.sampled_from(sorted(VALUE)))
        elif how == "action" and "action" in payload:
            payload["action"] = data.draw(
                st.sampled_from(
                    [
                        "hit",
                        "stand",
                        "double",
                        "split",
                        "surrender",
                        "insurance",
                        "no_insurance",
                        "even_money",
                    ]
                )
            )
        elif how == "amount" and "amount" in payload:
            payload["amount"] = data.draw(st.integers(0, 1000))
        elif how == "hand" and payload.get("hand") is not None:
            payload["hand"] = data.draw(st.integers(0, 3))
        events[j] = {**events[j], "payload": payload}
    result = replay(events)
    assert isinstance(result.findings, tuple)


live_tables = st.builds(
    lambda seed, rounds, boxes: deal_table(
        PRESETS["it-live"],
        seed=str(seed),
        rounds=rounds,
        boxes=boxes,
        start=START,
        bettors=2,
        hashed=False,
    ),
    st.integers(0, 10**9),
    st.integers(2, 8),
    st.integers(2, 5),
)


@FAST
@given(live_tables, st.data())
def test_one_changed_cash_out_offer_gives_exactly_wrong_cashout_offer(
    table: DealtTable, data: st.DataObject
) -> None:
    """Seed 000 (000:108): changing the amount of one system cash-out offer - and, where
    the player took it, the amount taken and the settlement with it, as a wrong offer
    would run through the record - gives one finding, wrong_cashout_offer, for that bet."""
    events = table.events
    offers = [i for i, e in enumerate(events) if e["type"] == "cashout.offered"]
    assume(offers)
    index = data.draw(st.sampled_from(offers))
    p = events[index]["payload"]
    delta = data.draw(st.integers(-p["amount"], 500).filter(bool))
    changed = edit(events, index, amount=p["amount"] + delta)
    for j in range(index + 1, len(events)):
        e = changed[j]
        if e["type"] == "cashout.offered" and e["payload"]["bet"] == p["bet"]:
            break  # not taken: a later offer replaced it
        if e["type"] == "cashout.accepted" and e["payload"]["bet"] == p["bet"]:
            changed = edit(changed, j, amount=p["amount"] + delta)
        elif e["type"] == "round.settled":
            settlements = [
                dict(s, net=s["net"] + delta)
                if s["bet"] == p["bet"] and s["outcome"] == "cashed_out"
                else s
                for s in e["payload"]["settlements"]
            ]
            changed = edit(changed, j, settlements=settlements)
            break
    found = replay(changed).findings
    assert kinds(found) == ["wrong_cashout_offer"]
    assert (
        found[0].bet == p["bet"]
        and found[0].recorded == str(p["amount"] + delta)
        and found[0].expected == str(p["amount"])
    )


@FAST
@given(tables, st.data())
def test_one_flipped_face_gives_exactly_wrong_face(
    dealt: tuple[str, DealtTable], data: st.DataObject
) -> None:
    """Turning one dealt card's face over gives one finding, wrong_face, for that card."""
    _, table = dealt
    cards = [i for i, e in enumerate(table.events) if e["type"] == "card.dealt"]
    index = data.draw(st.sampled_from(cards))
    face = table.events[index]["payload"]["face"]
    found = replay(edit(table.events, index, face="up" if face == "down" else "down")).findings
    assert kinds(found) == ["wrong_face"]
    assert found[0].recorded != face


@FAST
@given(tables, st.data())
def test_one_missing_stake_gives_exactly_missing_stake(
    dealt: tuple[str, DealtTable], data: st.DataObject
) -> None:
    """Leaving out one stake a decision called for (the deciding bettor's double or split,
    an insurance decision's stake) and its settlement gives one finding, missing_stake,
    for the bet it belonged to. Stakes another stake or a carried bet names are kept (their
    absence is another finding, of the stake that names them)."""
    _, table = dealt
    events = table.events
    named = {e["payload"].get("parent") for e in events if e["type"] == "bet.placed"}
    state = Replay()
    owed = []
    for i, event in enumerate(events):
        p = event["payload"]
        current = state.round
        if (
            event["type"] == "bet.placed"
            and current is not None
            and (p["kind"], p["parent"]) in current.owed
            and p["bet"] not in named
        ):
            owed.append(i)
        state.apply(event)
    assume(owed)
    index = data.draw(st.sampled_from(owed))
    stake = events[index]["payload"]
    settled = next(i for i in range(index, len(events)) if events[i]["type"] == "round.settled")
    kept = [s for s in events[settled]["payload"]["settlements"] if s["bet"] != stake["bet"]]
    changed = edit(events, settled, settlements=kept)
    found = replay(rewrap([e for i, e in enumerate(changed) if i != index])).findings
    assert kinds(found) == ["missing_stake"]
    assert found[0].bet == stake["parent"]


@FAST
@given(tables, st.data())
def test_one_shoe_against_the_rules_gives_exactly_shoe_procedure(
    dealt: tuple[str, DealtTable], data: st.DataObject
) -> None:
    """A shoe of more decks than the game's (its order not on record), or a cut card
    beyond the shoe's cards, gives one finding, shoe_procedure. (Cash-out offers are not
    valued here: the system values them from the shoe's decks, so they follow them.)"""
    name, table = dealt
    rules = PRESETS[name]
    events = table.events
    if data.draw(st.booleans()):
        index = data.draw(
            st.sampled_from([i for i, e in enumerate(events) if e["type"] == "shoe.shuffled"])
        )
        decks = data.draw(st.integers(rules.decks + 1, 12))
        changed = edit(events, index, decks=decks, order=None, commitment=None)
    else:
        index = data.draw(
            st.sampled_from([i for i, e in enumerate(events) if e["type"] == "shoe.cut"])
        )
        changed = edit(events, index, cut_card=52 * rules.decks + data.draw(st.integers(1, 10**6)))
    assert kinds(replay(changed, check_offers=False).findings) == ["shoe_procedure"]
