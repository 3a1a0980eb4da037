"""The fold's public face, as a caller that folds a table over time uses it (the read
models): a view that does not change the fold, a checkpoint handed over and resumed, and
forgetting what came before a shuffle - each giving what one replay of the record gives."""

from __future__ import annotations

import copy
from collections import defaultdict
from typing import Any

import pytest

from tables.engine.presets import PRESETS
from tables.engine.replay import Replay, ReplayResult, replay
from tables.engine.simulate import deal_table

from .helpers import START


def _table(preset: str = "hoyle", rounds: int = 90) -> list[dict[str, Any]]:
    events = copy.deepcopy(
        deal_table(PRESETS[preset], seed="fold-api", rounds=rounds, start=START).events
    )
    # a short pay late in the day, and a card that is not the shoe's early on
    settled = [e for e in events if e["type"] == "round.settled" and e["payload"]["settlements"]]
    late = settled[-2]["payload"]["settlements"][0]
    late["net"] -= 1
    dealt = [e for e in events if e["type"] == "card.dealt"]
    dealt[20]["payload"]["card"] = "AS" if dealt[20]["payload"]["card"] != "AS" else "KD"
    return events


def _summary(result: ReplayResult) -> tuple[Any, ...]:
    return (
        sorted(
            (
                r.number,
                r.voided,
                r.settled,
                sorted((r.recorded or {}).items()),
                sorted(r.expected.items()),
            )
            for r in result.rounds
        ),
        sorted(result.findings, key=repr),
    )


def test_a_view_changes_nothing_and_folding_goes_on_after_it():
    """A view mid-round reports that round as never settled, but the fold goes on: the
    view at the end equals one replay of the record, and two views are equal."""
    events = _table()
    state = Replay()
    middle = next(
        i for i, e in enumerate(events) if e["type"] == "card.dealt" and i > len(events) // 2
    )
    for event in events[:middle]:
        state.apply(event)
    assert state.in_play is not None
    halfway = state.view()
    assert any(
        f.kind == "missing_event" and f.round == state.in_play.number for f in halfway.findings
    )
    assert _summary(state.view()) == _summary(halfway)
    for event in events[middle:]:
        state.apply(event)
    assert state.in_play is None
    assert _summary(state.view()) == _summary(replay(events))
    assert not any(f.kind == "missing_event" for f in state.view().findings)


def test_a_checkpoint_resumes_once_where_the_fold_left_off():
    events = _table()
    state = Replay()
    state.run(events[:1000])
    handed = state.checkpoint()
    with pytest.raises(RuntimeError, match="handed over"):
        state.apply(events[1000])
    resumed = Replay.resume(handed)
    resumed.run(events[1000:])
    assert _summary(resumed.view()) == _summary(replay(events))
    with pytest.raises(RuntimeError, match="resumed already"):
        Replay.resume(handed)


def _from(events: list[dict[str, Any]], version: int) -> Replay:
    """A fold that starts at ``version``: the day's table.opened first, for the rules."""
    state = Replay()
    opening = dict(events[0])
    opening.pop("version")
    state.apply(opening)
    state.skip_to(version)
    state.run(e for e in events if e["version"] >= version)
    return state


@pytest.mark.parametrize("preset", ["hoyle", "vegas-s17-das-ls"])
def test_forgetting_what_came_before_a_shuffle_gives_a_fold_started_there(preset):
    """A whole day folded, then everything before its last shuffle forgotten, holds
    what a fold started at that shuffle holds - and both go on alike."""
    events = _table(preset)
    shuffles = [e["version"] for e in events if e["type"] == "shoe.shuffled"]
    assert len(shuffles) >= 2
    point = shuffles[-1]
    cut = len(events) - 40
    whole = Replay()
    whole.run(events[:cut])
    whole.forget(point)
    fresh = _from(events[:cut], point)
    assert _summary(whole.view()) == _summary(fresh.view())
    assert min(r.number for r in whole.view().rounds) == min(r.number for r in fresh.view().rounds)
    for state in (whole, fresh):
        state.run(events[cut:])
    assert _summary(whole.view()) == _summary(fresh.view())
    assert any(f.kind == "wrong_payout" for f in whole.view().findings)
    assert len(whole.seen) == len(fresh.seen) - 1  # the opening, folded again by the fresh one


def test_a_round_lists_its_cards_and_its_hands_decisions():
    """A clean day: each round's cards are its card.dealt events in order, and each
    hand's decisions are its decision.made events (hits and stands included)."""
    events = deal_table(PRESETS["hoyle"], seed="accessors", rounds=30, start=START).events
    state = Replay()
    rounds = {}
    for event in events:
        state.apply(event)
        if state.in_play is not None:
            rounds[state.in_play.number] = state.in_play
    for number, round_ in rounds.items():
        mine = [e["payload"] for e in events if e["payload"].get("round") == number]
        cards = [
            (p["box"] or 0, p["hand"] or 0, p["card"]) for p in mine if "face" in p and "card" in p
        ]
        assert round_.dealt_cards() == cards
        decided: dict[tuple[int, int], list[str]] = defaultdict(list)
        for p in mine:
            if p.get("action") in ("hit", "stand", "double", "split", "surrender"):
                decided[(p["box"], p["hand"])].append(p["action"])
        assert round_.hand_actions() == dict(decided)


def test_events_given_as_other_mappings_fold_as_dicts_do():
    """The fold reads each event as a dict (the compiled build's own look-ups); an event
    given as another mapping (read-only, say) is read as its copy: the same result, the
    same findings."""
    from types import MappingProxyType

    events = _table()
    assert _summary(replay([MappingProxyType(e) for e in events])) == _summary(replay(events))
    assert replay(events).findings  # (the table's short pay and strange card are found either way)
