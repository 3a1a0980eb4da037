"""Benchmark: simulator generation speed - three-box rounds dealt by the engine and
written as hash-chained JSON Lines to a file. Prints rounds/s and events/s per preset
and for one run over every non-live preset.

    .venv/bin/python bench/simulate_speed.py [--rounds 3000] [--preset NAME ...] [--jobs N] [--repeat 3] [--profile]

Target (issue 5): 20,000 three-box rounds/s.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import sys
import tempfile
import time
import timeit

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from tables.engine.presets import PRESETS
from tables.engine.strategy import computed_strategy
from tables.simulator.config import SimConfig
from tables.simulator.run import simulate_file

NON_LIVE = tuple(name for name, rules in PRESETS.items() if not rules.dealer_plays_basic_strategy)


def measure(
    presets: tuple[str, ...], rounds: int, tables: int, jobs: int = 1, repeat: int = 1
) -> tuple[float, int, int, int]:
    """Best time of ``repeat`` runs (the machine is shared: the best run is the one
    least disturbed), with the rounds, events and bytes written."""
    config = SimConfig(tables=tables, presets=presets, rounds=rounds, seed="bench", seats=3)
    best = float("inf")
    for _ in range(repeat):
        with tempfile.NamedTemporaryFile(suffix=".jsonl") as out:
            began = time.perf_counter()
            manifest = simulate_file(config, out, jobs=jobs)
            out.flush()
            best = min(best, time.perf_counter() - began)
            size = os.path.getsize(out.name)
    return best, manifest["rounds"], manifest["events"], size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3000, help="rounds per table")
    parser.add_argument("--preset", action="append", choices=NON_LIVE)
    parser.add_argument(
        "--profile", action="store_true", help="profile one run over every preset instead"
    )
    parser.add_argument("--repeat", type=int, default=3, help="best of N runs (default 3)")
    parser.add_argument(
        "--jobs",
        type=int,
        default=os.cpu_count() or 1,
        help="processes for the run over every preset (default: the CPUs)",
    )
    args = parser.parse_args()
    presets = tuple(args.preset or NON_LIVE)
    for name in presets:  # the computed basic strategies, once per process, outside the timing
        computed_strategy(PRESETS[name])
    if args.profile:
        profile = cProfile.Profile()
        profile.runcall(measure, presets, args.rounds // 2, len(presets))
        pstats.Stats(profile).sort_stats("tottime").print_stats(25)
        return
    reference = min(timeit.repeat("sum(range(1000))", number=2000, repeat=5)) / 2000 * 1e6
    print(f"reference: sum(range(1000)) takes {reference:.1f} us on this machine")
    print(f"{'preset':<24}{'rounds':>8}{'events':>9}{'MB':>7}{'rounds/s':>11}{'events/s':>11}")
    for name in presets:
        took, rounds, events, size = measure((name,), args.rounds, 1, repeat=args.repeat)
        print(
            f"{name:<24}{rounds:>8}{events:>9}{size / 1e6:>7.1f}{rounds / took:>11,.0f}{events / took:>11,.0f}"
        )
    for jobs in sorted({1, args.jobs}):
        took, rounds, events, size = measure(presets, args.rounds, len(presets), jobs, args.repeat)
        label = f"all of them, {jobs} job{'s' if jobs > 1 else ''}"
        print(
            f"{label:<24}{rounds:>8}{events:>9}{size / 1e6:>7.1f}{rounds / took:>11,.0f}{events / took:>11,.0f}"
        )


if __name__ == "__main__":
    main()
