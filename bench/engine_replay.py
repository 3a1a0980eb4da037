"""Benchmark: replay of pre-generated rounds of three boxes, from memory, by the engine
alone (no database, no JSON parsing, no payload validation). Prints rounds/s per preset.

    .venv/bin/python bench/engine_replay.py [--rounds 5000] [--repeat 5] [--preset NAME ...]
        [--cold] [--against CHECKOUT]

Target (issues 3 and 13): 20,000 rounds/s on one core. Rates are CPU time of this
process (the machine is shared: wall time counts other processes' turns too), the best
of ``--repeat`` runs, with the load average printed beside them; the previous run's
result is freed before the next is timed.

``--against CHECKOUT`` also replays the same events with the engine of another checkout
(e.g. ``/work/main``, its ``tables/engine`` sources copied into a temporary package, so
always pure Python), runs of the two alternating in this one process: on a shared
machine the only honest before/after. Where this checkout's engine has a compiled build
(``python -m tables.engine.compiled build``: docs/engine.md, The compiled build)
``--against .`` compares the build with its own pure-Python sources;
``BLACKJACK_ENGINE=pure`` times the sources alone.

it-live's cash-out offers are valued on replay (each an exact valuation); the dealing
that makes the input values them first in this process, so by default the mathematics'
caches are warm. ``--cold`` clears them before every run, as a replay in its own process
finds them. Either way they are cleared once a preset's figures are printed: no later
preset uses them (they are per rule set), and kept alive they slow the presets timed
after it-live (their events are made among the caches' objects), which a replay in its
own process never meets.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import os
import shutil
import sys
import tempfile
import time
import timeit
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from tables.engine import compiled
from tables.engine.math.cashout import clear_caches
from tables.engine.presets import PRESETS
from tables.engine.replay import replay
from tables.engine.simulate import deal_table

Engine = tuple[Callable[..., Any], Callable[[], None]]  # replay, clear_caches


def other_engine(checkout: str) -> Engine:
    """The engine of another checkout, imported as the package ``engine_against`` (its
    modules import one another relatively; the record core is this checkout's)."""
    source = os.path.join(checkout, "tables", "engine")
    if not os.path.isdir(source):
        sys.exit(f"--against: {source} is not a directory")
    home = tempfile.mkdtemp(prefix="engine-against-")
    shutil.copytree(
        source,
        os.path.join(home, "engine_against"),
        ignore=shutil.ignore_patterns("__pycache__", "*.so", "_compiled"),
    )
    sys.path.insert(0, home)
    module = importlib.import_module("engine_against.replay")
    cashout = importlib.import_module("engine_against.math.cashout")
    return module.replay, cashout.clear_caches


def timed_run(engine: Engine, events: list[dict[str, Any]], cold: bool) -> float:
    """One run's CPU time."""
    run, clear = engine
    if cold:
        clear()
    gc.collect()
    began = time.process_time()
    result = run(events)
    took = time.process_time() - began
    assert not result.findings, result.findings[:3]
    return took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=5, help="best of N runs")
    parser.add_argument("--preset", action="append", choices=sorted(PRESETS))
    parser.add_argument(
        "--cold", action="store_true", help="clear the cash-out valuation caches before each run"
    )
    parser.add_argument(
        "--against", metavar="CHECKOUT", help="also time another checkout's engine, alternating"
    )
    args = parser.parse_args()
    engines: dict[str, Engine] = {"this": (replay, clear_caches)}
    if args.against:
        engines = {"against": other_engine(args.against), **engines}
    start = datetime(2026, 11, 29, tzinfo=UTC)
    # the machine's own pace, printed beside the figures: runs of one machine at
    # different minutes are read against it
    reference = min(timeit.repeat("sum(range(1000))", number=2000, repeat=5)) / 2000 * 1e6
    print(
        f"reference: sum(range(1000)) takes {reference:.1f} us on this machine; "
        f"load average {' '.join(f'{load:.2f}' for load in os.getloadavg())}; this engine: "
        f"{compiled.described()}{'; against: pure Python' if args.against else ''}"
    )
    print(
        f"{'preset':<24}{'engine':<9}{'rounds':>8}{'events':>9}{'rounds/s':>11}{'events/s':>11}  (CPU time)"
    )
    for name in args.preset or list(PRESETS):
        table = deal_table(
            PRESETS[name],
            seed=f"bench-{name}",
            rounds=args.rounds,
            boxes=3,
            start=start,
            hashed=False,
        )
        events = table.events
        del table
        gc.collect()
        gc.freeze()  # the pre-dealt input is long-lived: keep the collector from re-walking it
        best = dict.fromkeys(engines, float("inf"))
        for _ in range(args.repeat):
            for label, engine in engines.items():
                best[label] = min(best[label], timed_run(engine, events, args.cold))
        count = len(events)
        del events
        gc.unfreeze()
        for _run, clear in engines.values():
            clear()
        for label in engines:
            print(
                f"{name:<24}{label:<9}{args.rounds:>8}{count:>9}"
                f"{args.rounds / best[label]:>11,.0f}{count / best[label]:>11,.0f}"
            )
        if args.against:
            print(f"{'':<24}{'ratio':<9}{'':>17}{best['against'] / best['this']:>10.2f}x")


if __name__ == "__main__":
    main()
