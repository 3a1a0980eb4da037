"""A day without faults: every preset, several tables, two gaming days - replay finds
nothing, the chips reconcile, the chains hold, the limits are kept."""

from __future__ import annotations

from collections import Counter

import pytest

from tables.engine.presets import PRESETS
from tables.simulator.config import SimConfig

from .helpers import audit, events_of, run


@pytest.fixture(scope="module")
def clean() -> tuple[bytes, dict, list[dict]]:
    data, manifest = run(SimConfig(tables=9, rounds=60, days=2, seed="clean", live_bets=120))
    return data, manifest, events_of(data)


def test_a_fault_free_day_replays_without_a_finding(clean: tuple[bytes, dict, list[dict]]) -> None:
    data, manifest, _ = clean
    assert manifest["faults"] == [] and manifest["not_planted"] == []
    assert audit(data) == Counter()


def test_every_preset_deals_and_the_day_has_its_events(
    clean: tuple[bytes, dict, list[dict]],
) -> None:
    _, manifest, events = clean
    assert {t["ruleset"] for t in manifest["tables"]} == set(PRESETS)
    types = Counter(e["type"] for e in events)
    for kind in (
        "table.opened",
        "table.closed",
        "dealer.assigned",
        "inventory.counted",
        "buyin.recorded",
        "drop.counted",
        "shoe.shuffled",
        "shoe.cut",
        "card.burned",
        "round.started",
        "bet.placed",
        "card.dealt",
        "decision.made",
        "card.revealed",
        "round.settled",
        "cashout.offered",
        "cashout.accepted",
    ):
        assert types[kind], kind
    assert (
        types["table.opened"] == 18 and types["drop.counted"] == 14
    )  # the two live tables have no drop
    assert {e["payload"]["gaming_day"] for e in events if e["type"] == "table.opened"} == {
        "2026-11-29",
        "2026-11-30",
    }
    # dealers rotate; back bettors bet behind on it-sabot; the live table has crowds
    assert len({e["payload"]["dealer"] for e in events if e["type"] == "dealer.assigned"}) > 9
    assert any(e["payload"]["kind"] == "behind" for e in events if e["type"] == "bet.placed")
    live_round = Counter(
        e["payload"]["round"]
        for e in events
        if e["stream"] == "BJ-01" and e["type"] == "bet.placed" and e["payload"]["kind"] == "main"
    )
    assert set(live_round.values()) == {120}


def test_table_limits_are_respected(clean: tuple[bytes, dict, list[dict]]) -> None:
    limits = {}
    for e in clean[2]:
        p = e["payload"]
        if e["type"] == "table.opened":
            limits[e["stream"]] = (p["min_bet"], p["max_bet"])
        elif e["type"] == "bet.placed" and p["kind"] in ("main", "behind"):
            low, high = limits[e["stream"]]
            assert low <= p["amount"] <= high, (e["stream"], p)


def test_the_counter_raises_the_bet_and_chips_move(clean: tuple[bytes, dict, list[dict]]) -> None:
    events = clean[2]
    per_player: dict[str, set[int]] = {}
    for e in events:
        if (
            e["type"] == "bet.placed"
            and e["payload"]["kind"] == "main"
            and e["payload"]["player"].startswith("P")
        ):
            per_player.setdefault(e["payload"]["player"], set()).add(e["payload"]["amount"])
    assert max(len(v) for v in per_player.values()) >= 3  # some player spreads the bet
    assert any(e["type"] in ("chips.filled", "chips.credited") for e in events)


@pytest.mark.parametrize("seed", ["a", "b", "c"])
def test_other_seeds_replay_clean_too(seed: str) -> None:
    data, _ = run(SimConfig(tables=7, rounds=30, seed=seed, live_bets=20))
    assert audit(data) == Counter()
