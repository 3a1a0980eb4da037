"""Benchmark: one live round (it-live, seed 000's game: thousands of bettors behind the
seven boxes) recorded, stored, replayed and settled, timed by phase.

    .venv/bin/python bench/live_round.py [--bettors 10000] [--db sqlite|postgres] [--repeat 3]
        [--profile PHASE] [--checkout DIR]

One table, one gaming day of one round, seeded, in a fresh database (SQLite: a temporary
file; PostgreSQL: ``bench_live_round`` on 127.0.0.1, dropped and made again, or
``--url``), nothing projected on append (``PROJECT_ON_APPEND=false``). The phases:

1. **deal**: the simulator's table deals the round - every bettor's bet, the dealer's
   cards, the crowd's opt-ins, insurance and cash-out offers, and the settlement (the
   engine's ``Round.settle``, timed apart as **settle**, is part of it);
2. **encode**: the events written as the store's JSON Lines (envelopes, hash chain);
3. **ingest**: ``ingest_file`` of those lines into the store (parsed, validated, chained,
   hashed, sealed, written) - how a recorded round reaches the store in bulk, as
   ``manage.py ingest`` runs it (on PostgreSQL the round's 7.9 MB file is written as it is
   planned; on two cores by a thread beside this process's planning);
4. **append**: the same round appended again by the simulator's store sink (the
   store's ``streams_append``, in batches of 2,000: the checks and chain the devices'
   appends go through), as another table;
5. **replay**: ``replay_table --full`` of the ingested table's day: the engine's fold
   (every bet settled again and compared with the recorded settlement: **settle** again),
   the read models (round, hands, bets) and the findings written.

The goal (issue 13): deal + ingest + replay <= 0.5 s for 10,000 bettors. It prints CPU
time of this process (``time.process_time``: the database server's share is not in it)
and wall time of each phase, the best of ``--repeat`` runs each in a fresh database, and
the load average: the machine may be shared. Beside each phase, the part of its CPU time
the garbage collector took. Not a test: it prints figures.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import io
import os
import pstats
import sys
import tempfile
import time
from collections.abc import Callable
from contextlib import contextmanager
from datetime import date
from pathlib import Path
from typing import Any

from throwaway import throwaway

ROOT = Path(__file__).resolve().parents[1]
# --checkout DIR: time another checkout of the project (its code, this script): before and
# after, run back to back
CHECKOUT = (
    Path(sys.argv[sys.argv.index("--checkout") + 1]).resolve() if "--checkout" in sys.argv else ROOT
)
sys.path.insert(0, str(CHECKOUT))
# ... from its own folder: Celery's Django fixup puts the working directory first on
# sys.path when the app is made, and every module of the project imported after that (all
# but casino's) would otherwise come from wherever the script was started
os.chdir(CHECKOUT)
ADMIN = "postgresql://postgres@127.0.0.1:5432/postgres"
DEFAULT_PG = "postgresql://postgres@127.0.0.1:5432/bench_live_round"
PHASES = ("deal", "encode", "ingest", "append", "replay")
GOAL = ("deal", "ingest", "replay")


def _database(args: argparse.Namespace, folder: str) -> str:
    if args.db == "sqlite":
        return f"sqlite:///{folder}/live_round.sqlite3"
    return args.url


def _fresh(url: str) -> None:
    """An empty, migrated database at ``url`` (this process's connections closed first)."""
    from django.core.management import call_command
    from django.db import connections

    connections.close_all()
    if url.startswith("sqlite"):
        path = url.removeprefix("sqlite:///")
        if os.path.exists(path):
            os.remove(path)
    else:
        import psycopg

        name = url.rsplit("/", 1)[1]
        with psycopg.connect(ADMIN, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
            conn.execute(f"CREATE DATABASE {name}")
    call_command("migrate", verbosity=0)


class Timer:
    """CPU and wall seconds of each phase, and the CPU the garbage collector took in it
    (its collections walk the whole heap, Django's included, so a phase that makes many
    objects pays for every object the process holds); ``--profile PHASE`` puts cProfile
    around one."""

    def __init__(self, profile: str | None) -> None:
        self.cpu: dict[str, float] = {}
        self.wall: dict[str, float] = {}
        self.gc: dict[str, float] = {}
        self.profile = profile
        self.profiler: cProfile.Profile | None = None
        self._collecting = 0.0
        self._collected = 0.0

    def _on_gc(self, stage: str, info: dict[str, int]) -> None:
        if stage == "start":
            self._collecting = time.process_time()
        else:
            self._collected += time.process_time() - self._collecting

    @contextmanager
    def phase(self, name: str):
        profiler = cProfile.Profile() if name == self.profile else None
        cpu, wall = time.process_time(), time.perf_counter()
        self._collected = 0.0
        gc.callbacks.append(self._on_gc)
        if profiler is not None:
            profiler.enable()
        try:
            yield
        finally:
            if profiler is not None:
                profiler.disable()
                self.profiler = profiler
            gc.callbacks.remove(self._on_gc)
            self.cpu[name] = self.cpu.get(name, 0.0) + time.process_time() - cpu
            self.wall[name] = self.wall.get(name, 0.0) + time.perf_counter() - wall
            self.gc[name] = self.gc.get(name, 0.0) + self._collected


def _settle_clock() -> Callable[[], float]:
    """Time spent in the engine's ``Round.settle``, whoever calls it (bench-only wrap)."""
    from tables.engine.table_round import Round

    spent = [0.0]
    settle = Round.settle

    def timed(self: Round) -> Any:
        began = time.process_time()
        try:
            return settle(self)
        finally:
            spent[0] += time.process_time() - began

    Round.settle = timed  # type: ignore[method-assign]

    def take() -> float:
        value, spent[0] = spent[0], 0.0
        return value

    return take


def one_run(
    bettors: int, folder: str, url: str, profile: str | None
) -> tuple[Timer, dict[str, Any]]:
    from audit.store.ingest import ingest_file
    from tables.replay_service import replay_table
    from tables.simulator.config import SimConfig
    from tables.simulator.day import TableSim
    from tables.simulator.output import JsonlWriter
    from tables.simulator.store import StoreSink

    _fresh(url)
    settled = _settle_clock()
    timer = Timer(profile)
    config = SimConfig(
        tables=1, presets=("it-live",), rounds=1, seed="live-round", live_bets=bettors, prefix="LR-"
    )
    spec = config.table_specs()[0]
    with timer.phase("deal"):
        sim = TableSim(config, spec)
        chunks = [chunk for chunk in sim.run() if chunk]
    timer.cpu["settle (in deal)"] = settled()
    events = sum(len(chunk) for chunk in chunks)
    path = os.path.join(folder, "round.jsonl")
    with timer.phase("encode"), open(path, "wb") as out:
        writer = JsonlWriter(out, config.clock_start, config.root)
        version = 1
        for chunk in chunks:
            writer.write(spec.code, version, chunk, sim.marks)
            version += len(chunk)
    with timer.phase("ingest"):
        report = ingest_file(path)
    assert report.stored == events and not report.bad_lines, (
        report.stored,
        events,
        report.bad_lines[:3],
    )
    other = SimConfig(
        tables=1, presets=("it-live",), rounds=1, seed="live-round", live_bets=bettors, prefix="LA-"
    )
    with timer.phase("append"):
        sink = StoreSink(other)
        version = 1
        for chunk in chunks:
            sink.write(other.table_specs()[0].code, version, chunk, {})
            version += len(chunk)
    _, gaming_day = config.day(0)
    with timer.phase("replay"):
        summary = replay_table(
            stream=spec.code, day=date.fromisoformat(gaming_day), full=True, trigger="command"
        )
    timer.cpu["settle (in replay)"] = settled()
    assert summary["rounds"] == 1 and summary["events"] == events, summary
    assert summary["findings"] == 0, summary
    return timer, {"events": events, "findings": summary["findings"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bettors", type=int, default=10_000)
    parser.add_argument("--db", choices=("sqlite", "postgres"), default="sqlite")
    parser.add_argument(
        "--url", default=DEFAULT_PG, help="with --db postgres: the database to drop and make again"
    )
    parser.add_argument(
        "--repeat", type=int, default=3, help="best of N runs, each in a fresh database"
    )
    parser.add_argument(
        "--sort", choices=("cumulative", "tottime"), default="cumulative", help="--profile's order"
    )
    parser.add_argument(
        "--checkout", help="time the project at this folder (default: this checkout)"
    )
    parser.add_argument(
        "--profile", choices=PHASES, help="print cProfile's top functions of this phase (last run)"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="live-round-") as folder:
        url = _database(args, folder)
        os.environ.update(
            {
                "DATABASE_URL": url,
                "DJANGO_SETTINGS_MODULE": "casino.settings",
                "PROJECT_ON_APPEND": "false",
            }
        )
        throwaway(os.environ)
        import django

        django.setup()
        runs = [one_run(args.bettors, folder, url, args.profile) for _ in range(args.repeat)]
    timers = [t for t, _ in runs]
    facts = runs[0][1]
    from tables.engine import compiled  # the checkout's

    print(
        f"{CHECKOUT}: one live round, {args.bettors:,} bettors, {facts['events']:,} events, {args.db}; "
        f"best of {args.repeat}; load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores; "
        f"engine: {compiled.described()}"
    )
    print(f"{'phase':<20}{'CPU s':>9}{'wall s':>9}{'of CPU: gc':>12}")
    names = [*PHASES[:1], "settle (in deal)", *PHASES[1:], "settle (in replay)"]
    for name in names:
        best = min(timers, key=lambda t: t.cpu[name])
        if name in PHASES:
            print(
                f"{name:<20}{best.cpu[name]:>9.3f}{min(t.wall[name] for t in timers):>9.3f}{best.gc[name]:>12.3f}"
            )
        else:
            print(f"{name:<20}{best.cpu[name]:>9.3f}")
    cpu = min(sum(t.cpu[n] for n in GOAL) for t in timers)
    wall = min(sum(t.wall[n] for n in GOAL) for t in timers)
    print(f"{'deal+ingest+replay':<20}{cpu:>9.3f}{wall:>9.3f}   (goal: <= 0.5 s)")
    if args.profile:
        profiler = timers[-1].profiler
        assert profiler is not None
        text = io.StringIO()
        pstats.Stats(profiler, stream=text).sort_stats(args.sort).print_stats(35)
        print(text.getvalue())


if __name__ == "__main__":
    main()
