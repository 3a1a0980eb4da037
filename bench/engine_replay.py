"""Benchmark: replay of pre-generated rounds of three boxes, from memory, by the engine
alone (no database, no JSON parsing, no payload validation). Prints rounds/s per preset.

    .venv/bin/python bench/engine_replay.py [--rounds 5000] [--repeat 3] [--preset NAME ...] [--cold]

Target (issue 3): 20,000 rounds/s on one core.

it-live's cash-out offers are valued on replay (about 1 ms each); the dealing that makes
the input values them first in this process, so by default the mathematics' caches are
warm. ``--cold`` clears them before every run, as a replay in its own process finds them.
"""
from __future__ import annotations

import argparse
import gc
import os
import sys
import time
import timeit
from datetime import UTC, datetime

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from tables.engine.math.cashout import clear_caches
from tables.engine.presets import PRESETS
from tables.engine.replay import replay
from tables.engine.simulate import deal_table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=5, help="best of N runs")
    parser.add_argument("--preset", action="append", choices=sorted(PRESETS))
    parser.add_argument("--cold", action="store_true", help="clear the cash-out valuation caches before each run")
    args = parser.parse_args()
    start = datetime(2026, 11, 29, tzinfo=UTC)
    # the machine's own pace, to read the figures against (CPython 3.11 on a recent
    # desktop core takes roughly 7-8 us for this)
    reference = min(timeit.repeat("sum(range(1000))", number=2000, repeat=5)) / 2000 * 1e6
    print(f"reference: sum(range(1000)) takes {reference:.1f} us on this machine")
    print(f"{'preset':<24}{'rounds':>8}{'events':>9}{'rounds/s':>11}{'events/s':>11}")
    for name in args.preset or list(PRESETS):
        table = deal_table(PRESETS[name], seed=f"bench-{name}", rounds=args.rounds, boxes=3, start=start, hashed=False)
        events = table.events
        gc.collect()
        gc.freeze()  # the pre-dealt input is long-lived: keep the collector from re-walking it
        best = float("inf")
        for _ in range(args.repeat):
            if args.cold:
                clear_caches()
            began = time.perf_counter()
            result = replay(events)
            best = min(best, time.perf_counter() - began)
        assert not result.findings, result.findings[:3]
        count = len(events)
        del table, events, result
        gc.unfreeze()
        print(f"{name:<24}{args.rounds:>8}{count:>9}{args.rounds / best:>11,.0f}{count / best:>11,.0f}")


if __name__ == "__main__":
    main()
