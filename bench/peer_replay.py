"""Benchmark: replay from the database beside the PyPI ``eventsourcing`` library loading
every aggregate, on one PostgreSQL database, back to back in one run.

    pip install -e '.[bench]'        # eventsourcing[postgres] 9.5.6
    python bench/peer_replay.py                            # a simulated 12-table day, 1,500 rounds each
    python bench/peer_replay.py --tables 4 --rounds 300 --repeat 1
    python bench/peer_replay.py --file day.jsonl --database bench_peer_replay_mine

One fresh database (``--database``, by default ``bench_peer_replay``, dropped and made
again) holds the day twice: ingested into the project's store (``manage.py ingest``) and
saved by the peer's ``Application`` on PostgreSQL as one aggregate a table, each line a
domain event of it (its type and payload), 5,000 events a transaction. Then, each in a
process of its own, ``--repeat`` times in turn:

* **peer, load every aggregate**: ``app.repository.get`` of each table's aggregate - its
  events read, each made a domain event by the library's mapper and applied by its
  mutator (which only advances the aggregate's version: no rule of the game is checked
  and nothing is written, so the peer does far less per event than the project);
* **project, replay_day --full**: every table of the day refolded through the rules
  engine - every card, decision and settlement checked, the read models (rounds, hands,
  bets, shoes, the dealer's figures) and the findings written - fanned out over one
  process per core (the default on PostgreSQL);
* **project, one process** (``--jobs 1``): the same in the command's own process.

It prints events per second and the ratios (the issue's goal: the project's replay at 3x
the peer's load or more) like for like - each timed from its work's start: the peer from
its ``Application``'s making (after the library's import), the project from the command's
call (after Django's set-up) - then each process's wall time with the interpreter's start
and the ratios by it, peak memory of each process and of its workers, and the load
average. Not a test: it prints figures.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import msgspec

sys.path.insert(0, str(Path(__file__).resolve().parent))

import day  # the day's phases: a command in a process of its own, its peak memory
from throwaway import database_name

from tables.engine import compiled  # (day.py put the checkout on the path)

ROOT = Path(__file__).resolve().parents[1]


def _peer_env(database: str) -> dict[str, str]:
    return {
        "PERSISTENCE_MODULE": "eventsourcing.postgres",
        "POSTGRES_DBNAME": database,
        "POSTGRES_HOST": "127.0.0.1",
        "POSTGRES_PORT": "5432",
        "POSTGRES_USER": "postgres",
        "POSTGRES_PASSWORD": "",
        "CREATE_TABLE": "true",
    }


try:  # the bench extra
    from eventsourcing.domain import Aggregate
except ImportError:  # pragma: no cover - said when the peer is asked for
    Aggregate = None

if Aggregate is not None:

    class TableDay(Aggregate):
        """The peer's aggregate: a table's day, one domain event a line of the file (its
        type and payload), applied by the library's own mutator. Its topic names this
        module as the script (``__main__``): both roles run it so."""

        class Recorded(Aggregate.Event):
            type: str
            payload: dict


def role_fill(database: str, path: str) -> dict:
    """The day's lines as the peer's domain events, saved 5,000 a transaction."""
    from eventsourcing.application import Application

    app = Application(env=_peer_env(database))
    decode = msgspec.json.Decoder().decode
    tables: dict[str, Any] = {}
    events = pending = 0
    with open(path, "rb") as lines:
        for text in lines:
            line = decode(text)
            table = tables.get(line["stream"])
            if table is None:
                table = tables[line["stream"]] = TableDay()
            table.trigger_event(TableDay.Recorded, type=line["type"], payload=line["payload"])
            events += 1
            pending += 1
            if pending >= 5000:
                app.save(*tables.values())
                pending = 0
    app.save(*tables.values())
    return {"events": events, "ids": {name: str(table.id) for name, table in tables.items()}}


def role_load(database: str, ids: list[str]) -> dict:
    """Every aggregate loaded: its events read, each made a domain event and applied."""
    import uuid

    from eventsourcing.application import Application

    started = time.perf_counter()
    app = Application(env=_peer_env(database))
    events = 0
    for text in ids:
        events += app.repository.get(uuid.UUID(text)).version
    return {
        "events": events,
        "seconds": time.perf_counter() - started,
        "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "children_peak_mib": 0,
    }


def _role(*argv: str) -> dict:
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, __file__, "--role", *argv],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode:
        raise SystemExit(f"peer {argv[0]}: {done.stderr.strip()[-2000:]}")
    return {
        **json.loads(done.stdout.strip().splitlines()[-1]),
        "wall": time.perf_counter() - started,
    }


def _day_of(path: Path) -> tuple[list[str], str, int]:
    """The file's streams (in the order they first come), its first gaming day, its events."""
    decode = msgspec.json.Decoder().decode
    streams: dict[str, None] = {}
    gaming_day = None
    events = 0
    with path.open("rb") as lines:
        for text in lines:
            line = decode(text)
            events += 1
            streams.setdefault(line["stream"], None)
            if gaming_day is None and line["type"] == "table.opened":
                gaming_day = line["payload"]["gaming_day"]
    if gaming_day is None:
        raise SystemExit(f"{path}: no table.opened, so no gaming day to replay")
    return list(streams), gaming_day, events


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", type=int, default=12)
    parser.add_argument("--rounds", type=int, default=1500, help="rounds per table")
    parser.add_argument(
        "--file", type=Path, help="a simulator file to use instead of simulating one"
    )
    parser.add_argument(
        "--repeat", type=int, default=3, help="runs of each, in turn (medians printed)"
    )
    parser.add_argument(
        "--database",
        type=database_name,
        default="bench_peer_replay",
        help="the PostgreSQL database to drop, make and fill (default bench_peer_replay)",
    )
    parser.add_argument("--role", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.role:
        role, database, argument = args.role
        print(
            json.dumps(
                role_fill(database, argument)
                if role == "fill"
                else role_load(database, json.loads(argument))
            )
        )
        return
    db = args.database
    with tempfile.TemporaryDirectory(prefix="bench-peer-replay-") as folder:
        path = args.file or Path(folder) / "day.jsonl"
        day._fresh_database(db)
        print(
            f"PostgreSQL database {db}, {os.cpu_count()} cores, engine: {compiled.described()}",
            flush=True,
        )
        if not args.file:
            day.phase(
                db,
                "simulate",
                "simulate",
                "--tables",
                str(args.tables),
                "--rounds",
                str(args.rounds),
                "--preset",
                "hoyle",
                "--preset",
                "it-classic",
                "--seed",
                "13",
                "--out",
                str(path),
            )
        streams, gaming_day, events = _day_of(path)
        day.phase(db, "ingest", "ingest", str(path))
        filled = _role("fill", db, str(path))
        assert filled["events"] == events, (filled["events"], events)
        ids = list(filled["ids"].values())
        print(
            f"{events:,} events of {len(streams)} tables, gaming day {gaming_day}: in the store and in the peer's "
            "recorder",
            flush=True,
        )
        runs: dict[str, list[dict]] = {
            "peer, load every aggregate": [],
            "project, replay_day --full": [],
            "project, replay_day --full --jobs 1": [],
        }
        loads = [os.getloadavg()[0]]
        for _ in range(args.repeat):
            runs["peer, load every aggregate"].append(_role("load", db, json.dumps(ids)))
            runs["project, replay_day --full"].append(
                day.phase(db, "replay_day", "replay_day", "--day", gaming_day, "--full")
            )
            runs["project, replay_day --full --jobs 1"].append(
                day.phase(
                    db, "replay_day", "replay_day", "--day", gaming_day, "--full", "--jobs", "1"
                )
            )
            loads.append(os.getloadavg()[0])
    # like for like: each timed from its work's start - the peer from its application's
    # making (after its imports), the project from the command's call (after Django's
    # set-up) - and, apart, each process's wall time with the interpreter's start
    work = {
        name: [
            run["seconds"] if name.startswith("peer") else run["command_seconds"] for run in done
        ]
        for name, done in runs.items()
    }
    walls = {
        name: [run["wall"] if name.startswith("peer") else run["seconds"] for run in done]
        for name, done in runs.items()
    }
    rates = {name: events / statistics.median(seconds) for name, seconds in work.items()}
    whole = {name: events / statistics.median(seconds) for name, seconds in walls.items()}
    print(
        f"{events:,} events, medians of {args.repeat}; load average (1 min) {min(loads):.1f} to {max(loads):.1f}"
    )
    print(f"{'':38} {'events/s':>10} {'work s':>8} {'process s':>10} {'peak MiB':>22}")
    for name, done in runs.items():
        peak = f"{statistics.median(r['peak_mib'] for r in done):.0f}"
        workers = statistics.median(r["children_peak_mib"] for r in done)
        if workers:
            peak += f" (workers {workers:.0f})"
        print(
            f"{name:38} {rates[name]:>10,.0f} {statistics.median(work[name]):>8.2f} "
            f"{statistics.median(walls[name]):>10.2f} {peak:>22}"
        )
    base, base_whole = rates["peer, load every aggregate"], whole["peer, load every aggregate"]
    print(
        f"ratio replay_day --full / peer's load: {rates['project, replay_day --full'] / base:.2f}x (goal >= 3x); "
        f"in one process: {rates['project, replay_day --full --jobs 1'] / base:.2f}x"
    )
    print(
        f"  each process's wall time, the interpreter's start included: "
        f"{whole['project, replay_day --full'] / base_whole:.2f}x; in one process: "
        f"{whole['project, replay_day --full --jobs 1'] / base_whole:.2f}x"
    )


if __name__ == "__main__":
    main()
