"""Benchmark: reconciling a 100-table gaming day.

    python bench/reconcile.py                        # SQLite, 100 tables, 60 rounds each
    python bench/reconcile.py --db postgres --tables 100 --rounds 60

In a fresh database (a temporary SQLite file, or the PostgreSQL database
``bench_reconcile``, dropped and re-created): the simulator deals a gaming day of
``--tables`` tables (every preset in turn, three boxes, the live game with few bets)
straight into the event store, nothing projected on append; then the read models are
built - the tables' (the rules engine's replay, which gives the replayed win) and the
ledger's (its subscriber of the feed) - and timed apart; then the reconciliation of every
table-day (``ledger.reconciliation.reconcile_table_day``, what ``manage.py reconcile``
runs per table-day: the game provider's replayed win and edge, the four-way arithmetic,
the findings recorded) is timed, twice, in a fresh process - after the engine's house edge
of each rule set, which a process computes once, timed apart. Not a test: it prints
figures. The target is under 10 s for the reconciliation of the 100 table-days.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from throwaway import throwaway

ROOT = Path(__file__).resolve().parents[1]
PG_ADMIN = "postgresql://postgres@127.0.0.1:5432/postgres"


def _database(kind: str, folder: Path) -> str:
    if kind == "sqlite":
        url = f"sqlite:///{folder / 'reconcile.sqlite3'}"
    else:
        import psycopg

        with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
            conn.execute("DROP DATABASE IF EXISTS bench_reconcile")
            conn.execute("CREATE DATABASE bench_reconcile")
        url = "postgresql://postgres@127.0.0.1:5432/bench_reconcile"
    env = dict(
        throwaway({**os.environ, "DATABASE_URL": url, "DJANGO_SETTINGS_MODULE": "casino.settings"})
    )
    subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True)
    return url


def _setup(url: str) -> None:
    os.environ.update(
        DATABASE_URL=url, DJANGO_SETTINGS_MODULE="casino.settings", PROJECT_ON_APPEND="false"
    )
    throwaway(os.environ)
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()


def _build(url: str, tables: int, rounds: int) -> None:
    _setup(url)
    from audit.feed.subscribers import catch_up
    from audit.models import Event
    from tables.simulator.config import SimConfig
    from tables.simulator.run import simulate
    from tables.simulator.store import StoreSink

    config = SimConfig(
        tables=tables, rounds=rounds, days=1, seed="bench-reconcile", seats=3, live_bets=30
    )
    began = time.perf_counter()
    simulate(config, StoreSink(config))
    print(
        f"simulated {tables} tables x {rounds} rounds into the store: {Event.objects.count():,} events "
        f"in {time.perf_counter() - began:.1f} s"
    )
    began = time.perf_counter()
    catch_up("tables.projections")
    print(f"the tables' read models (replay): {time.perf_counter() - began:.1f} s")
    began = time.perf_counter()
    catch_up("ledger.books")
    print(
        f"the ledger's read models (its fold of every table, reconciled once on the way): "
        f"{time.perf_counter() - began:.1f} s"
    )


def _reconcile(url: str) -> None:
    """In a process of its own, so that the engine's house edge of each rule set is
    computed here (once per process, as any worker does the first time) and timed apart
    from the reconciliation."""
    _setup(url)
    from ledger import game
    from ledger import models as m
    from ledger.reconciliation import reconcile_table_day

    rows = list(
        m.Reconciliation.objects.filter(shift="").values_list(
            "table__stream", "gaming_day", "ruleset", "rules"
        )
    )
    games = {(ruleset, tuple(sorted(rules.items()))) for _, _, ruleset, rules in rows}
    began = time.perf_counter()
    for ruleset, rules in sorted(games):
        game.provider().game_math(ruleset=ruleset, rules=dict(rules))
    print(
        f"the engine's house edge of {len(games)} rule sets (once per process): {time.perf_counter() - began:.1f} s"
    )
    for label in ("first", "again"):
        began = time.perf_counter()
        states: Counter[str] = Counter()
        for table, day, _, _ in rows:
            done = reconcile_table_day(table=table, gaming_day=day)
            if done is not None:
                states[done.rows[0].state] += 1
        took = time.perf_counter() - began
        print(
            f"reconciling {len(rows)} table-days ({label}): {took:.2f} s ({took / len(rows) * 1000:.1f} ms each); "
            + ", ".join(f"{n} {state}" for state, n in sorted(states.items()))
        )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--db", choices=("sqlite", "postgres", "both"), default="sqlite")
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=60)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--phase", choices=("build", "reconcile"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        if args.phase == "build":
            _build(args.child, args.tables, args.rounds)
        else:
            _reconcile(args.child)
        return
    kinds = ("sqlite", "postgres") if args.db == "both" else (args.db,)
    with tempfile.TemporaryDirectory() as folder:
        for kind in kinds:
            url = _database(kind, Path(folder))
            print(f"--- {kind}")
            for phase in ("build", "reconcile"):
                subprocess.run(
                    [
                        sys.executable,
                        __file__,
                        "--child",
                        url,
                        "--phase",
                        phase,
                        "--tables",
                        str(args.tables),
                        "--rounds",
                        str(args.rounds),
                    ],
                    check=True,
                )


if __name__ == "__main__":
    main()
