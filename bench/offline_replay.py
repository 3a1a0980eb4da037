"""Benchmark: ``manage.py replay FILE --json`` - the offline replay of an exported day -
its rounds/s and peak memory for files of two sizes, to show that memory does not grow
with the file.

    python bench/offline_replay.py                       # 12 tables x 500 and x 1,500 rounds
    python bench/offline_replay.py --tables 12 --rounds 500 1500 --before

For each size the simulator writes a day (``--seed``, 3 boxes a table, every preset in
turn) to a temporary file; then ``manage.py replay FILE --json`` runs in a process of its
own (its output thrown away), timed, and its peak resident set read when it exits.
``--before`` also runs, back to back on the same file, the engine's whole-file reader
(``tables.engine.offline.read_events`` + ``replay_events`` + ``json.dumps(indent=2)``),
what the command did before it streamed. ``--interleave`` deals the tables' lines out in
turn, as a file of tables written as they play would come. Not a test: it prints figures
(note the load average beside them).
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from package import _timed  # the child-process timer the package benchmark uses

# what `manage.py replay FILE --json` did before it streamed
_WHOLE_FILE = """
import json, sys, django
django.setup()
from tables.engine.offline import read_events, replay_events
from tables.engine.report import as_dict
with open(sys.argv[1], "rb") as lines:
    events = read_events(lines)
print(json.dumps(as_dict(replay_events(events)), indent=2, ensure_ascii=False))
"""


def _simulate(tables: int, rounds: int, path: Path, seed: str) -> tuple[int, int]:
    """(rounds, events) of a simulated day written to ``path``."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings")
    from tables.simulator.config import SimConfig
    from tables.simulator.run import simulate_file

    config = SimConfig(tables=tables, rounds=rounds, days=1, seed=seed, seats=3, live_bets=30)
    with path.open("wb") as out:
        manifest = simulate_file(config, out, jobs=2)
    return sum(t["rounds"] for t in manifest["tables"]), sum(
        t["events"] for t in manifest["tables"]
    )


def _interleave(path: Path) -> None:
    by_stream: dict[str, list[bytes]] = collections.defaultdict(list)
    with path.open("rb") as lines:
        for line in lines:
            by_stream[json.loads(line)["stream"]].append(line)
    queues = [collections.deque(q) for q in by_stream.values()]
    with path.open("wb") as out:
        while any(queues):
            for queue in queues:
                if queue:
                    out.write(queue.popleft())


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tables", type=int, default=12)
    parser.add_argument(
        "--rounds", type=int, nargs="+", default=[500, 1500], help="rounds per table, one file each"
    )
    parser.add_argument("--seed", default="bench-offline")
    parser.add_argument(
        "--before", action="store_true", help="also run the whole-file reader on the same file"
    )
    parser.add_argument(
        "--jobs",
        type=int,
        nargs="+",
        default=[1, 2],
        help="replay with each of these numbers of worker processes (default 1 2)",
    )
    parser.add_argument(
        "--interleave", action="store_true", help="deal the tables' lines out in turn"
    )
    args = parser.parse_args()
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "casino.settings"}
    print(
        f"load average {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}"
    )
    for size in args.rounds:
        with tempfile.TemporaryDirectory(prefix="bench-offline-") as name:
            folder = Path(name)
            path = folder / "day.jsonl"
            began = time.perf_counter()
            rounds, events = _simulate(args.tables, size, path, args.seed)
            if args.interleave:
                _interleave(path)
            print(
                f"--- {args.tables} tables x {size} rounds: {rounds:,} rounds, {events:,} events, "
                f"{path.stat().st_size / 2**20:,.0f} MiB{' interleaved' if args.interleave else ''} "
                f"(simulated in {time.perf_counter() - began:.1f} s)"
            )
            runs = [
                (
                    f"manage.py replay --json --jobs {jobs} (streamed)",
                    "script",
                    "manage.py",
                    ["replay", str(path), "--json", "--jobs", str(jobs)],
                )
                for jobs in args.jobs
            ]
            if args.before:
                runs.append(("whole-file reader (before)", "code", _WHOLE_FILE, [str(path)]))
            for label, mode, target, argv in runs:
                timed = _timed(mode, target, argv, env, folder)
                print(
                    f"  {label}: {rounds / timed.seconds:,.0f} rounds/s, {timed.rates(events)}, {timed.memory()}"
                )
    print(
        f"load average {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}"
    )


if __name__ == "__main__":
    main()
