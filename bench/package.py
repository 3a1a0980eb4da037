"""Benchmark: the regulator's package of a simulated gaming day - export, then offline
verification.

    python bench/package.py                          # SQLite, 20 tables, 120 rounds each
    python bench/package.py --tables 20 --rounds 120 --db postgres

In a fresh database (a temporary SQLite file, or the PostgreSQL database
``bench_package_ROUNDS``, dropped and re-created; ``--database NAME`` makes it
``NAME_ROUNDS``, one of your own on a shared server) the simulator deals one gaming day of
``--tables`` tables straight into the event store (nothing projected on append) and a
head is signed. Then, each in a process of its own so that its peak memory (the process's
maximum resident set size) is its own:

- ``manage.py export_package`` of the day to a .zip, timed;
- ``blackjack-audit verify`` of the zip with Django made unimportable, timed.

``--verify PACKAGE ...`` only verifies packages made before (``--keep``), with ``--jobs``
worker processes (each number given, back to back: two packages of different lengths
show whether memory grows with the package); every figure comes with its CPU time,
steadier than the wall clock on a shared machine, and a worker's peak memory apart.

``--scale`` repeats both for a day ``--scale`` times longer (rounds per table), to show
whether memory grows with the package. ``--traced PACKAGE ...``: what the audit of each
package's longest table holds once its events are read, and its peak while its reports
are made, by tracemalloc (slow: about 4 times the table's check). Not a test: it prints
figures.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tables.engine import compiled  # which engine build the figures are of

PG_ADMIN = "postgresql://postgres@127.0.0.1:5432/postgres"
DAY = "2026-11-29"


def _database(kind: str, folder: Path, name: str) -> str:
    if kind == "sqlite":
        url = f"sqlite:///{folder / (name + '.sqlite3')}"
    else:
        import psycopg

        with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name}")
            conn.execute(f"CREATE DATABASE {name}")
        url = f"postgresql://postgres@127.0.0.1:5432/{name}"
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, env=_env(url, folder), check=True
    )
    return url


def _env(url: str, folder: Path) -> dict[str, str]:
    return {
        **os.environ,
        "DATABASE_URL": url,
        "DJANGO_SETTINGS_MODULE": "casino.settings",
        "PROJECT_ON_APPEND": "false",
        "DEBUG": "true",
        "DIGEST_SIGNING_KEY": str(folder / "key.pem"),
        "DIGEST_PUBLISHERS": str(folder / "heads"),
    }


def _build(tables: int, rounds: int) -> None:
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from audit.integrity import digests
    from audit.models import Event
    from tables.simulator.config import SimConfig
    from tables.simulator.run import simulate
    from tables.simulator.store import StoreSink

    config = SimConfig(
        tables=tables, rounds=rounds, days=1, seed="bench-package", seats=3, live_bets=30
    )
    began = time.perf_counter()
    simulate(config, StoreSink(config))
    digests.digest_sign()
    print(
        f"  simulated {tables} tables x {rounds} rounds into the store: {Event.objects.count():,} events "
        f"in {time.perf_counter() - began:.1f} s"
    )


# runs a script (or code) with its arguments, and writes to the file named by PEAK_FILE
# when it exits: its own peak resident set (KiB), the largest of its worker processes',
# and the CPU seconds of both (on a shared machine the CPU time is the steadier figure)
_WRAPPER = """
import atexit, os, resource, runpy, sys
def _peak():
    me, workers = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = me.ru_utime + me.ru_stime + workers.ru_utime + workers.ru_stime
    open(os.environ["PEAK_FILE"], "w").write(f"{me.ru_maxrss} {workers.ru_maxrss} {cpu}")
atexit.register(_peak)
mode, target = sys.argv[1], sys.argv[2]
sys.argv = [target, *sys.argv[3:]]
if mode == "script":
    runpy.run_path(target, run_name="__main__")
else:
    exec(compile(target, "<bench>", "exec"), {"__name__": "__main__"})
"""


@dataclass(frozen=True)
class Timed:
    seconds: float  # wall clock
    peak: int  # MiB, the process's own peak resident set
    workers: int  # MiB, the largest peak of its worker processes (0: none)
    cpu: float  # seconds of CPU, the process's and its workers'

    def memory(self) -> str:
        return f"peak memory {self.peak} MiB" + (
            f" (each worker at most {self.workers} MiB)" if self.workers else ""
        )

    def rates(self, events: int) -> str:
        return (
            f"{events:,} events in {self.seconds:.2f} s = {events / self.seconds:,.0f} events/s "
            f"({self.cpu:.2f} s of CPU = {events / self.cpu:,.0f} events per CPU second)"
        )


def _timed(mode: str, target: str, args: list[str], env: dict[str, str], folder: Path) -> Timed:
    """How a child process running ``target`` (a script, or code) with ``args`` went."""
    peak_file = folder / "peak"
    began = time.perf_counter()
    subprocess.run(
        [sys.executable, "-c", _WRAPPER, mode, target, *args],
        cwd=ROOT,
        env={**env, "PEAK_FILE": str(peak_file)},
        check=True,
        stdout=subprocess.DEVNULL,
    )
    took = time.perf_counter() - began
    own, workers, cpu = peak_file.read_text().split()
    return Timed(took, int(own) // 1024, int(workers) // 1024, float(cpu))


def _run(
    kind: str,
    tables: int,
    rounds: int,
    folder: Path,
    keep: str | None,
    jobs: list[int],
    database: str = "bench_package",
) -> None:
    name = f"{database}_{rounds}"
    url = _database(kind, folder, name)
    env = _env(url, folder)
    subprocess.run(
        [
            sys.executable,
            __file__,
            "--child",
            "build",
            "--tables",
            str(tables),
            "--rounds",
            str(rounds),
        ],
        cwd=ROOT,
        env=env,
        check=True,
    )
    out = folder / f"{name}.zip"
    timed = _timed(
        "script", "manage.py", ["export_package", "--day", DAY, "--out", str(out)], env, folder
    )
    events = _events(out)
    print(
        f"  export_package: {timed.rates(events)}, {timed.memory()}, package {out.stat().st_size / 1e6:.1f} MB"
    )
    verify(out, events, env, folder, jobs)
    if keep:
        shutil.copyfile(out, keep)


def verify(package: Path, events: int, env: dict[str, str], folder: Path, jobs: list[int]) -> None:
    """``blackjack-audit verify`` of ``package`` with Django made unimportable, once per
    number of worker processes in ``jobs``, back to back."""
    blocked = (
        "import sys; sys.modules['django'] = None; sys.modules['rest_framework'] = None\n"
        "from auditor.cli import main\nsys.exit(main(sys.argv[1:]))"
    )
    for count in jobs:
        timed = _timed("code", blocked, ["verify", str(package), "--jobs", str(count)], env, folder)
        print(
            f"  blackjack-audit verify --jobs {count} (Django blocked): {timed.rates(events)}, {timed.memory()}"
        )


def traced(package: Path) -> None:
    """What the audit of the package's longest table holds (tracemalloc) once its events
    are read, and the traced peak while its reports are made."""
    import gc
    import tracemalloc

    sys.path.insert(0, str(ROOT))
    from audit.record.collector import bulk_work
    from auditor import layout
    from auditor.check import _Check

    opened = layout.Package(package)
    try:
        manifest = opened.manifest()
        name, meta = max(manifest["streams"].items(), key=lambda item: item[1]["events"])
        check = _Check(opened, manifest, {})
        rows = 0

        def count(batch: list[object]) -> None:
            nonlocal rows
            rows += len(batch)

        with bulk_work():
            gc.collect()
            tracemalloc.start()
            try:
                audit = check.stream(name, meta, None)
                if audit is None:
                    raise SystemExit(f"{package}: {name}'s events cannot be read")
                gc.collect()
                held = tracemalloc.get_traced_memory()[0]
                tracemalloc.reset_peak()
                audit.finish(rounds=count)
                peak = tracemalloc.get_traced_memory()[1]
            finally:
                tracemalloc.stop()
    finally:
        opened.close()
    print(
        f"  {name} ({meta['events']:,} events, {rows:,} rounds): its audit holds {held / 2**20:.2f} MiB once its "
        f"events are read, and peaks at {peak / 2**20:.2f} MiB while its reports are made (tracemalloc)"
    )


def _events(package: Path) -> int:
    sys.path.insert(0, str(ROOT))
    from auditor.layout import Package

    opened = Package(package)
    try:
        return int(opened.manifest()["events"])
    finally:
        opened.close()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--db", choices=("sqlite", "postgres"), default="sqlite")
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=120)
    parser.add_argument("--scale", type=int, default=1, help="also a day this many times longer")
    parser.add_argument("--keep", help="copy the (last) package here")
    parser.add_argument(
        "--jobs",
        type=int,
        nargs="+",
        default=[1, 2],
        help="verify with each of these numbers of worker processes (default 1 2)",
    )
    parser.add_argument(
        "--verify",
        metavar="PACKAGE",
        nargs="+",
        help="only verify these packages, back to back (no database, no export)",
    )
    parser.add_argument(
        "--traced",
        metavar="PACKAGE",
        nargs="+",
        help="what the longest table's audit holds, by tracemalloc (no database, no export)",
    )
    parser.add_argument(
        "--database",
        default="bench_package",
        help="the PostgreSQL database's name, its rounds appended (one of your own on a shared server)",
    )
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child == "build":
        _build(args.tables, args.rounds)
        return
    if args.traced:
        for package in map(Path, args.traced):
            print(
                f"--- {package}, load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}, "
                f"engine: {compiled.described()}"
            )
            traced(package)
        return
    if args.verify:
        for package in map(Path, args.verify):
            with tempfile.TemporaryDirectory() as folder:
                print(
                    f"--- {package}, load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}, "
                    f"engine: {compiled.described()}"
                )
                verify(package, _events(package), dict(os.environ), Path(folder), args.jobs)
        return
    sizes = [args.rounds] + ([args.rounds * args.scale] if args.scale > 1 else [])
    for rounds in sizes:
        with tempfile.TemporaryDirectory() as folder:
            print(
                f"--- {args.db}: {args.tables} tables x {rounds} rounds, one gaming day, engine: {compiled.described()}"
            )
            _run(
                args.db,
                args.tables,
                rounds,
                Path(folder),
                args.keep if rounds == sizes[-1] else None,
                args.jobs,
                args.database,
            )


if __name__ == "__main__":
    main()
