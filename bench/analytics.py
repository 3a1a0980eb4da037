"""The analytics on simulated days: how fast each runs, and how counter detection does -
the false-positive rate (players who do not count, flagged) and the detection rate
(counters flagged) over many seeds. Prints its figures; no database.

    .venv/bin/python bench/analytics.py [--seeds 20] [--tables 6] [--rounds 480]
"""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from tables.analytics.accuracy import accuracy, decisions
from tables.analytics.counters import MIN_BETS, assess
from tables.analytics.counting import counted_bets
from tables.analytics.whatif import resettle
from tables.simulator.config import SimConfig
from tables.simulator.run import FileSink, simulate

SEATED = (
    "hoyle",
    "it-classic",
    "eu-online",
    "vegas-s17-das-ls",
    "it-sabot",
    "vegas-6to5-single-deck",
)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--tables", type=int, default=6)
    parser.add_argument("--rounds", type=int, default=480)
    args = parser.parse_args()
    timing = {"count": 0.0, "accuracy": 0.0, "what-if": 0.0}
    rounds = bets_seen = 0
    assessed = {
        "basic": [0, 0],
        "casual": [0, 0],
        "counter": [0, 0],
    }  # [flagged, with >= MIN_BETS bets]
    detectable = [0, 0]  # counters with >= MIN_BETS bets and >= 10 at +2: [flagged, all]
    for seed in range(args.seeds):
        config = SimConfig(
            tables=args.tables, rounds=args.rounds, seed=f"bench-{seed}", presets=SEATED
        )
        out = io.BytesIO()
        manifest = simulate(config, FileSink(out, config))
        kind = {p["player"]: p["kind"] for t in manifest["tables"] for p in t["players"]}
        streams: dict[str, list[dict]] = {}
        for line in out.getvalue().splitlines():
            event = json.loads(line)
            streams.setdefault(event["stream"], []).append(event)
        rounds += manifest["rounds"]
        start = time.perf_counter()
        bets = [b for events in streams.values() for b in counted_bets(events)]
        rows = assess(bets)
        timing["count"] += time.perf_counter() - start
        bets_seen += len(bets)
        start = time.perf_counter()
        accuracy([d for events in streams.values() for d in decisions(events)])
        timing["accuracy"] += time.perf_counter() - start
        start = time.perf_counter()
        for events in streams.values():
            resettle(events, {"natural_pays": "6:5"})
        timing["what-if"] += time.perf_counter() - start
        for row in rows:
            k = kind.get(row.player)
            if k in assessed and row.bets >= MIN_BETS:
                assessed[k][0] += row.flagged
                assessed[k][1] += 1
            if k == "counter" and row.bets >= MIN_BETS and row.high_bets >= 10:
                detectable[0] += row.flagged
                detectable[1] += 1
    print(
        f"{args.seeds} seeds x {args.tables} tables x {args.rounds} rounds: {rounds} rounds, {bets_seen} bets"
    )
    for name, seconds in timing.items():
        print(f"  {name:9s} {seconds:7.2f} s  {rounds / seconds:8.0f} rounds/s")
    for k, (flagged, n) in assessed.items():
        print(
            f"  {k:8s} players with >= {MIN_BETS} bets: {n:5d}, flagged {flagged} ({100 * flagged / max(n, 1):.2f}%)"
        )
    print(
        f"  counters with >= {MIN_BETS} bets and >= 10 at +2 or more: {detectable[1]}, flagged {detectable[0]}"
        f" ({100 * detectable[0] / max(detectable[1], 1):.1f}%)"
    )


if __name__ == "__main__":
    main()
