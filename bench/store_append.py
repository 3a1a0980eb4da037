"""Benchmark: appending rounds of 25 events to the event store.

    python bench/store_append.py                 # SQLite and PostgreSQL, default sizes
    python bench/store_append.py --db postgres --rounds 8000

    python bench/store_append.py --db postgres --database part_bench   # another database

(a) bulk ingest of a JSON Lines file (``ingest_file``: parse, validate, hash, insert);
(b) four writer processes on four tables, one round (25 events) per transaction through
``events_append``; (c) ``verify`` of what (a) stored.

Each scenario runs in a fresh process on a fresh database (a temporary SQLite file, or
the PostgreSQL database ``--database``, by default ``bench_blackjack``, dropped and
re-created) and prints events per second, that process's peak resident memory and, on
PostgreSQL, the CPU time per event of the process and of its database backend (from
``/proc/<pid>/stat``: the server is local) - steadier than wall time on a shared
machine. Not a test: it prints figures.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from throwaway import database_name, throwaway

ROOT = Path(__file__).resolve().parents[1]
PG_ADMIN = "postgresql://postgres@127.0.0.1:5432/postgres"
PG_SERVER = "postgresql://postgres@127.0.0.1:5432/"


def _setup_django(url: str) -> None:
    os.environ["DATABASE_URL"] = url
    throwaway(os.environ)
    # the store alone: no read models brought up to date after each append
    os.environ["PROJECT_ON_APPEND"] = "false"
    os.environ["DJANGO_SETTINGS_MODULE"] = "casino.settings"
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()


def _peak_mib() -> float:
    """The peak resident memory of this process or of any child it waited for (ingest
    plans in child processes), whichever is larger."""
    return (
        max(
            resource.getrusage(who).ru_maxrss
            for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)
        )
        / 1024
    )


def _cpu_seconds() -> dict[str, float]:
    """CPU time so far (user + system) of this process and its waited-for children
    (ingest's planners) and, on PostgreSQL, of this connection's backend (with its pid:
    ingest closes its connection before it forks its planners and writes through a new
    one)."""
    own = sum(
        getattr(resource.getrusage(resource.RUSAGE_SELF), f) for f in ("ru_utime", "ru_stime")
    )
    children = sum(
        getattr(resource.getrusage(resource.RUSAGE_CHILDREN), f) for f in ("ru_utime", "ru_stime")
    )
    backend, pid = 0.0, 0
    from django.db import connection

    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_backend_pid()")
            pid = cursor.fetchone()[0]
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        backend = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime
    return {"cpu": own, "children_cpu": children, "backend_cpu": backend, "pid": pid}


def _cpu_used(before: dict[str, float]) -> dict[str, float]:
    """CPU spent since ``before``; a backend that is not the one then counts whole."""
    now = _cpu_seconds()
    used = {name: now[name] - before[name] for name in ("cpu", "children_cpu", "backend_cpu")}
    if now["pid"] != before["pid"]:
        used["backend_cpu"] = now["backend_cpu"]
    return used


def _per_event(figures: dict) -> str:
    us = {k: figures[k] / figures["events"] * 1e6 for k in ("cpu", "children_cpu", "backend_cpu")}
    return (
        f"  CPU/event: process {us['cpu']:.1f} us, planners {us['children_cpu']:.1f} us, "
        f"backend {us['backend_cpu']:.1f} us"
    )


def _fresh_database(kind: str, folder: Path, database: str) -> str:
    if kind == "sqlite":
        for old in folder.glob("bench.sqlite3*"):
            old.unlink()
        url = f"sqlite:///{folder / 'bench.sqlite3'}"
    else:
        import psycopg

        with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {database}")
            conn.execute(f"CREATE DATABASE {database}")
        url = PG_SERVER + database
    env = dict(
        throwaway({**os.environ, "DATABASE_URL": url, "DJANGO_SETTINGS_MODULE": "casino.settings"})
    )
    subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True)
    return url


def _write_file(path: Path, rounds: int, tables: int) -> int:
    _setup_django(f"sqlite:///{path}.unused")
    from tests.samples import round_events

    count = 0
    with path.open("w") as out:
        for r in range(rounds):
            stream = f"T{r % tables + 1:02d}"
            for event in round_events(r // tables + 1, rng_seed=r):
                out.write(
                    json.dumps(
                        {
                            "id": str(event.id),
                            "stream": stream,
                            "type": event.type,
                            "occurred_at": event.occurred_at.isoformat(),
                            "actor": event.actor,
                            "source": "bench",
                            "payload": event.payload,
                        }
                    )
                    + "\n"
                )
                count += 1
    return count


def role_ingest(url: str, path: str) -> None:
    _setup_django(url)
    from django.db import connection

    from audit.store.ingest import ingest_file

    connection.ensure_connection()
    cpu = _cpu_seconds()
    started = time.perf_counter()
    if os.environ.get("BENCH_PROFILE"):  # a cProfile of the ingest, for finding hot spots
        import cProfile

        with cProfile.Profile() as profile:
            report = ingest_file(path)
        profile.dump_stats(os.environ["BENCH_PROFILE"])
    else:
        report = ingest_file(path)
    elapsed = time.perf_counter() - started
    assert report.ok, report.bad_lines[:3]
    print(
        json.dumps(
            {"events": report.stored, "seconds": elapsed, "peak_mib": _peak_mib(), **_cpu_used(cpu)}
        )
    )


def role_verify(url: str) -> None:
    _setup_django(url)
    from audit.integrity.chains import verify_chains

    started = time.perf_counter()
    report = verify_chains()
    elapsed = time.perf_counter() - started
    assert report.ok, report.problems[:3]
    print(json.dumps({"events": report.events, "seconds": elapsed, "peak_mib": _peak_mib()}))


def role_writer(url: str, stream: str, rounds: int) -> None:
    _setup_django(url)
    from django.db import connection

    from audit.store.streams import events_append
    from tests.samples import round_events

    batches = [round_events(r + 1, rng_seed=r) for r in range(rounds)]
    connection.ensure_connection()
    cpu = _cpu_seconds()
    started = time.perf_counter()
    for r, batch in enumerate(batches):
        events_append(stream=stream, expected_version=25 * r, events=batch)
    elapsed = time.perf_counter() - started
    print(
        json.dumps(
            {
                "events": 25 * rounds,
                "seconds": elapsed,
                "peak_mib": _peak_mib(),
                "start": started,
                "end": started + elapsed,
                **_cpu_used(cpu),
            }
        )
    )


def _run(*args: str) -> dict:
    done = subprocess.run(
        [sys.executable, __file__, *args], check=False, cwd=ROOT, capture_output=True, text=True
    )
    if done.returncode != 0:
        raise SystemExit(done.stderr)
    return json.loads(done.stdout.strip().splitlines()[-1])


def bench(kind: str, rounds: int, writer_rounds: int, database: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        data = folder / "rounds.jsonl"
        _write_file(data, rounds, tables=8)
        url = _fresh_database(kind, folder, database)
        a = _run("--role", "ingest", "--url", url, "--file", str(data))
        print(
            f"{kind:8} (a) bulk ingest   {a['events']:>8} events  {a['events'] / a['seconds']:>9,.0f} events/s"
            f"  peak {a['peak_mib']:.0f} MiB" + (_per_event(a) if kind == "postgres" else "")
        )
        v = _run("--role", "verify", "--url", url)
        print(
            f"{kind:8} (c) verify         {v['events']:>8} events  {v['events'] / v['seconds']:>9,.0f} events/s"
            f"  peak {v['peak_mib']:.0f} MiB (rows streamed in chunks)"
        )
        url = _fresh_database(kind, folder, database)
        procs = [
            subprocess.Popen(
                [
                    sys.executable,
                    __file__,
                    "--role",
                    "writer",
                    "--url",
                    url,
                    "--stream",
                    f"W{i}",
                    "--rounds",
                    str(writer_rounds),
                ],
                cwd=ROOT,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for i in range(4)
        ]
        results = []
        for proc in procs:
            out, err = proc.communicate()
            if proc.returncode != 0:
                raise SystemExit(err)
            results.append(json.loads(out.strip().splitlines()[-1]))
        events = sum(r["events"] for r in results)
        wall = max(r["end"] for r in results) - min(r["start"] for r in results)
        print(
            f"{kind:8} (b) 4 writers      {events:>8} events  {events / wall:>9,.0f} events/s"
            f"  ({events / 25 / wall:,.0f} rounds/s, one per transaction)"
            f"  peak {max(r['peak_mib'] for r in results):.0f} MiB per writer"
            + (
                _per_event(
                    {
                        k: sum(r[k] for r in results)
                        for k in ("events", "cpu", "children_cpu", "backend_cpu")
                    }
                )
                if kind == "postgres"
                else ""
            )
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--db", choices=["sqlite", "postgres", "both"], default="both")
    parser.add_argument("--rounds", type=int, default=8000, help="rounds in the ingest file")
    parser.add_argument("--writer-rounds", type=int, default=400, help="rounds per writer in (b)")
    parser.add_argument(
        "--database",
        type=database_name,
        default="bench_blackjack",
        help="the PostgreSQL database to drop, make and fill (default bench_blackjack)",
    )
    parser.add_argument("--role", help=argparse.SUPPRESS)
    parser.add_argument("--url", help=argparse.SUPPRESS)
    parser.add_argument("--file", help=argparse.SUPPRESS)
    parser.add_argument("--stream", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.role == "ingest":
        return role_ingest(args.url, args.file)
    if args.role == "verify":
        return role_verify(args.url)
    if args.role == "writer":
        return role_writer(args.url, args.stream, args.rounds)
    for kind in ["sqlite", "postgres"] if args.db == "both" else [args.db]:
        bench(kind, args.rounds, args.writer_rounds, args.database)


if __name__ == "__main__":
    main()
