"""Laws over generated inputs: any seed and rule set gives a day that replays clean, and
any single fault, wherever it is asked for, is found there and nothing else is."""

from __future__ import annotations

from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tables.engine.presets import PRESETS
from tables.simulator.config import SimConfig
from tables.simulator.faults import KINDS, FaultAt

from .helpers import audit, expected, run

_SETTINGS = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
# seeds a shoe can record (free text without control or format characters)
SEEDS = st.text(st.characters(blacklist_categories=("Cc", "Cf", "Cs")), min_size=1, max_size=8)


@_SETTINGS
@given(
    seed=SEEDS,
    preset=st.sampled_from(sorted(PRESETS)),
    seats=st.one_of(st.none(), st.integers(1, 7)),
)
def test_any_seed_and_rule_set_replays_clean(seed: str, preset: str, seats: int | None) -> None:
    data, _ = run(
        SimConfig(tables=1, presets=(preset,), rounds=25, seed=seed, seats=seats, live_bets=10)
    )
    assert audit(data) == Counter()


@_SETTINGS
@given(
    seed=SEEDS,
    preset=st.sampled_from(sorted(PRESETS)),
    kind=st.sampled_from(sorted(KINDS)),
    at=st.integers(1, 30),
)
def test_any_single_fault_is_found_where_planted_and_alone(
    seed: str, preset: str, kind: str, at: int
) -> None:
    if PRESETS[preset].dealer_plays_basic_strategy and kind in ("chip_variance", "fill_twice"):
        return  # a live table has no chips (the command refuses it)
    config = SimConfig(
        tables=1,
        presets=(preset,),
        rounds=40,
        seed=seed,
        live_bets=10,
        at=(FaultAt(kind, "BJ-01", at),),
    )
    data, manifest = run(config)
    assert len(manifest["faults"]) + len(manifest["not_planted"]) == 1
    assert audit(data) == expected(manifest)
