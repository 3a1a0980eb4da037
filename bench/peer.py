"""Benchmark: the project's bulk ingest against the PyPI ``eventsourcing`` library, side by side.

    pip install -e '.[bench]'        # eventsourcing[postgres] 9.5.6
    python bench/peer.py                               # a simulated 12-table day, 1,500 rounds each
    python bench/peer.py --tables 4 --rounds 300 --repeat 1
    python bench/peer.py --file day.jsonl              # an existing simulator file

The same JSON Lines file goes into the same PostgreSQL server, back to back in one run:

* **peer, per round**: the peer's application recorder (``PostgresApplicationRecorder``:
  a global notification order, as the store's position) takes each table's round - the
  lines from one ``round.started`` to the next - in one transaction, each line decoded and
  its payload kept as the stored state. No validation, no hashing: what the peer does
  when an application saves a round;
* **peer, batched**: the same recorder, 5,000 events a transaction (its bulk insert);
* **project**: ``manage.py ingest`` of the file (every line parsed and validated against
  its schema, chained, hashed, sealed; planning in two processes).

Each runs on a fresh database (``bench_peer``, dropped and made again), and ``--repeat``
times in turn; the medians are printed, with the ratios, the CPU time of the process and
its children, each process's peak resident memory (RSS high-water) and the load average
(the machine may be shared: compare figures of one run only). Not a test: it prints.
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
import uuid
from pathlib import Path

from throwaway import database_name, throwaway

ROOT = Path(__file__).resolve().parents[1]
ADMIN = {"host": "127.0.0.1", "port": 5432, "user": "postgres", "dbname": "postgres"}
DATABASE = "bench_peer"  # --database gives another
URL = f"postgresql://postgres@127.0.0.1:5432/{DATABASE}"
NAMESPACE = uuid.UUID("6f1d3c1e-6a55-4a4e-9d39-2f4f7c1a9b10")  # a stream's aggregate id


def _env(**extra: str) -> dict[str, str]:
    env = {
        **os.environ,
        "DATABASE_URL": URL,
        "DJANGO_SETTINGS_MODULE": "casino.settings",
        "PROJECT_ON_APPEND": "false",
        **extra,
    }
    return dict(throwaway(env))


def _fresh_database(migrate: bool) -> None:
    import psycopg

    with psycopg.connect(**ADMIN, autocommit=True) as conn:  # type: ignore[arg-type]
        conn.execute(f"DROP DATABASE IF EXISTS {DATABASE}")
        conn.execute(f"CREATE DATABASE {DATABASE}")
    if migrate:
        subprocess.run(
            [sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, env=_env(), check=True
        )


def _peak_mib(who: int) -> float:
    return resource.getrusage(who).ru_maxrss / 1024


def _cpu(who: int) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def simulate(path: Path, tables: int, rounds: int) -> None:
    subprocess.run(
        [
            sys.executable,
            "manage.py",
            "simulate",
            "--tables",
            str(tables),
            "--rounds",
            str(rounds),
            "--preset",
            "hoyle",
            "--preset",
            "it-classic",
            "--seed",
            "13",
            "--out",
            str(path),
        ],
        cwd=ROOT,
        env=_env(),
        check=True,
        stdout=subprocess.DEVNULL,
    )


def role_peer(path: str, batch: int) -> dict:
    """One peer run, in this process: the file into the peer's recorder."""
    from eventsourcing.persistence import StoredEvent
    from eventsourcing.postgres import PostgresApplicationRecorder, PostgresDatastore

    datastore = PostgresDatastore(DATABASE, ADMIN["host"], ADMIN["port"], ADMIN["user"], "")
    recorder = PostgresApplicationRecorder(datastore, events_table_name="peer_events")
    recorder.create_table()
    loads, dumps = json.loads, json.dumps
    started, cpu = time.perf_counter(), _cpu(resource.RUSAGE_SELF)
    events = 0
    pending: dict[str, list[StoredEvent]] = {}  # a table's round so far
    versions: dict[str, int] = {}

    def flush(rows: list[StoredEvent]) -> None:
        nonlocal events
        if rows:
            recorder.insert_events(rows)
            events += len(rows)

    bulk: list[StoredEvent] = []
    with open(path, "rb") as lines:
        for text in lines:
            line = loads(text)
            stream = line["stream"]
            version = versions[stream] = versions.get(stream, 0) + 1
            stored = StoredEvent(
                originator_id=uuid.uuid5(NAMESPACE, stream),
                originator_version=version,
                topic=line["type"],
                state=dumps(line["payload"]).encode(),
            )
            if batch:
                bulk.append(stored)
                if len(bulk) >= batch:
                    flush(bulk)
                    bulk = []
                continue
            if line["type"] == "round.started":
                flush(pending.pop(stream, []))
            pending.setdefault(stream, []).append(stored)
    flush(bulk)
    for rows in pending.values():
        flush(rows)
    datastore.close()
    seconds = time.perf_counter() - started
    return {
        "events": events,
        "seconds": seconds,
        "cpu": _cpu(resource.RUSAGE_SELF) - cpu,
        "peak_mib": _peak_mib(resource.RUSAGE_SELF),
    }


def _peer(path: Path, batch: int) -> dict:
    _fresh_database(migrate=False)
    done = subprocess.run(
        [
            sys.executable,
            __file__,
            "--role",
            "peer",
            "--file",
            str(path),
            "--batch",
            str(batch),
            "--database",
            DATABASE,
        ],
        cwd=ROOT,
        env=_env(),
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode:
        raise SystemExit(done.stderr)
    return json.loads(done.stdout.strip().splitlines()[-1])


def _project(path: Path, tree: Path = ROOT) -> dict:
    """``ingest_file`` (what ``manage.py ingest`` runs) in a child process, from ``tree``
    (another checkout of the project: ``--before``): its time, the CPU time and peak
    memory of it and of its planning processes."""
    _fresh_database(migrate=True)
    done = subprocess.run(
        [sys.executable, "-c", _INGEST, str(path)],
        cwd=tree,
        env=_env(PYTHONPATH=str(tree)),
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode:
        raise SystemExit(done.stderr)
    return json.loads(done.stdout.strip().splitlines()[-1])


# the command's own code path, timed from the call (not from Python's start, as the
# peer's); CPU of this process and of its planning processes, and their peak memory apart
_INGEST = """
import json, os, resource, sys, time
import django
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings")
django.setup()
from audit.store.ingest import ingest_file
cpu = lambda who: resource.getrusage(who).ru_utime + resource.getrusage(who).ru_stime
before = cpu(resource.RUSAGE_SELF) + cpu(resource.RUSAGE_CHILDREN)
started = time.perf_counter()
report = ingest_file(sys.argv[1])
seconds = time.perf_counter() - started
assert report.ok, report.bad_lines[:3]
print(json.dumps({"events": report.stored, "seconds": seconds,
                  "cpu": cpu(resource.RUSAGE_SELF) + cpu(resource.RUSAGE_CHILDREN) - before,
                  "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "children_peak_mib": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024}))
"""


def _median(runs: list[dict], key: str) -> float:
    return statistics.median(run[key] for run in runs)


def main() -> None:
    global DATABASE, URL
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", type=int, default=12)
    parser.add_argument("--rounds", type=int, default=1500, help="rounds per table")
    parser.add_argument("--file", help="a simulator file to use instead of simulating one")
    parser.add_argument(
        "--repeat", type=int, default=3, help="runs of each, in turn (medians printed)"
    )
    parser.add_argument(
        "--before",
        type=Path,
        help="another checkout of the project (an earlier commit) to run "
        "beside this one: its ingest, into the same database schema",
    )
    parser.add_argument(
        "--database",
        type=database_name,
        default=DATABASE,
        help="the PostgreSQL database each run drops and makes again (default bench_peer)",
    )
    parser.add_argument("--role", help=argparse.SUPPRESS)
    parser.add_argument("--batch", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    DATABASE, URL = args.database, f"postgresql://postgres@127.0.0.1:5432/{args.database}"
    if args.role == "peer":
        print(json.dumps(role_peer(args.file, args.batch)))
        return
    with tempfile.TemporaryDirectory(prefix="bench-peer-") as folder:
        path = Path(args.file) if args.file else Path(folder) / "day.jsonl"
        if not args.file:
            simulate(path, args.tables, args.rounds)
        results: dict[str, list[dict]] = {
            "peer, one round a transaction": [],
            "peer, 5,000 a transaction": [],
            "project, manage.py ingest": [],
        }
        if args.before:
            results["project before (--before)"] = []
        loads = [os.getloadavg()[0]]
        for _ in range(args.repeat):
            results["peer, one round a transaction"].append(_peer(path, 0))
            results["peer, 5,000 a transaction"].append(_peer(path, 5000))
            results["project, manage.py ingest"].append(_project(path))
            if args.before:
                results["project before (--before)"].append(_project(path, args.before))
            loads.append(os.getloadavg()[0])
    rates = {
        name: _median([{"rate": r["events"] / r["seconds"]} for r in runs], "rate")
        for name, runs in results.items()
    }
    events = results["project, manage.py ingest"][0]["events"]
    print(
        f"{events:,} events, medians of {args.repeat}; load average (1 min) {min(loads):.1f} to {max(loads):.1f} "
        f"on {os.cpu_count()} cores"
    )
    print(f"{'':32} {'events/s':>10} {'wall s':>8} {'CPU s':>7} {'peak MiB':>18}")
    for name, runs in results.items():
        peak = f"{_median(runs, 'peak_mib'):.0f}"
        if "children_peak_mib" in runs[0]:
            peak += f" (planners {_median(runs, 'children_peak_mib'):.0f})"
        print(
            f"{name:32} {rates[name]:>10,.0f} {_median(runs, 'seconds'):>8.2f} {_median(runs, 'cpu'):>7.2f} {peak:>18}"
        )
    project = rates["project, manage.py ingest"]
    print(
        f"ratio project / peer per round: {project / rates['peer, one round a transaction']:.2f}x (goal >= 3x); "
        f"project / peer batched: {project / rates['peer, 5,000 a transaction']:.2f}x (goal >= 2x); "
        f"project: {project:,.0f} events/s (goal >= 50,000)"
    )
    if args.before:
        before = rates["project before (--before)"]
        print(
            f"before (--before): {before / rates['peer, one round a transaction']:.2f}x the peer per round, "
            f"{before / rates['peer, 5,000 a transaction']:.2f}x batched; this checkout / before: "
            f"{project / before:.2f}x"
        )


if __name__ == "__main__":
    main()
