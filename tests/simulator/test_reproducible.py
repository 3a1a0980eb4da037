"""A seed fixes the output to the byte; without one, runs differ."""

from __future__ import annotations

from datetime import UTC, datetime

from tables.simulator.config import SimConfig
from tables.simulator.faults import parse_at

from .helpers import run


def _config(seed: str | None, **more: object) -> SimConfig:
    return SimConfig(tables=7, rounds=12, seed=seed, live_bets=40, **more)  # type: ignore[arg-type]


def test_the_same_seed_gives_byte_identical_output() -> None:
    faults = (
        parse_at("short_pay@BJ-02:3"),
        parse_at("tamper@BJ-03:4"),
        parse_at("impossible_card@BJ-07:2"),
    )
    first, manifest_1 = run(_config("same", at=faults, rates={"overpay": 0.1}))
    second, manifest_2 = run(_config("same", at=faults, rates={"overpay": 0.1}))
    assert first == second
    assert manifest_1 == manifest_2


def test_another_seed_or_no_seed_gives_other_output() -> None:
    start = datetime(2026, 11, 29, 13, tzinfo=UTC)
    one, _ = run(_config("one", start=start))
    two, _ = run(_config("two", start=start))
    unseeded_1, _ = run(_config(None, start=start))
    unseeded_2, _ = run(_config(None, start=start))
    assert len({one, two, unseeded_1, unseeded_2}) == 4


def test_an_unseeded_run_records_no_shoe_seed_and_a_seeded_one_does() -> None:
    from .helpers import events_of

    seeded, _ = run(_config("s"))
    unseeded, _ = run(_config(None))
    shuffles = [e["payload"] for e in events_of(seeded) if e["type"] == "shoe.shuffled"]
    assert shuffles and all(p["seed"] and p["order"] for p in shuffles)
    shuffles = [e["payload"] for e in events_of(unseeded) if e["type"] == "shoe.shuffled"]
    assert shuffles and all(p["seed"] is None and p["order"] for p in shuffles)


def test_tables_dealt_in_parallel_give_the_same_bytes() -> None:
    import io

    from tables.simulator.run import simulate_file

    config = _config("jobs", at=(parse_at("tamper@BJ-04:3"), parse_at("short_pay@BJ-06:2")))
    alone, manifest_alone = run(config)
    out = io.BytesIO()
    manifest_jobs = simulate_file(config, out, jobs=2)
    assert out.getvalue() == alone
    assert manifest_jobs == manifest_alone
