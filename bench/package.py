"""Benchmark: the regulator's package of a simulated gaming day - export, then offline
verification.

    python bench/package.py                          # SQLite, 20 tables, 120 rounds each
    python bench/package.py --tables 20 --rounds 120 --db postgres

In a fresh database (a temporary SQLite file, or the PostgreSQL database
``bench_package``, dropped and re-created) the simulator deals one gaming day of
``--tables`` tables straight into the event store (nothing projected on append) and a head
is signed. Then, each in a process of its own so that its peak memory (the process's
maximum resident set size) is its own:

- ``manage.py export_package`` of the day to a .zip, timed;
- ``blackjack-audit verify`` of the zip with Django made unimportable, timed.

``--scale`` repeats both for a day ``--scale`` times longer (rounds per table), to show
whether memory grows with the package. Not a test: it prints figures.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
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
    subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, env=_env(url, folder), check=True)
    return url


def _env(url: str, folder: Path) -> dict[str, str]:
    return {**os.environ, "DATABASE_URL": url, "DJANGO_SETTINGS_MODULE": "casino.settings", "PROJECT_ON_APPEND": "false",
            "DEBUG": "true", "DIGEST_SIGNING_KEY": str(folder / "key.pem"), "DIGEST_PUBLISH_DIR": str(folder / "heads")}


def _build(tables: int, rounds: int) -> None:
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from audit import digests
    from audit.models import Event
    from tables.simulator.config import SimConfig
    from tables.simulator.run import simulate
    from tables.simulator.store import StoreSink

    config = SimConfig(tables=tables, rounds=rounds, days=1, seed="bench-package", seats=3, live_bets=30)
    began = time.perf_counter()
    simulate(config, StoreSink(config))
    digests.digest_sign()
    print(f"  simulated {tables} tables x {rounds} rounds into the store: {Event.objects.count():,} events "
          f"in {time.perf_counter() - began:.1f} s")


# runs a script (or code) with its arguments, and writes its own peak resident set (KiB)
# to the file named by PEAK_FILE when it exits
_WRAPPER = """
import atexit, os, resource, runpy, sys
atexit.register(lambda: open(os.environ["PEAK_FILE"], "w").write(str(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)))
mode, target = sys.argv[1], sys.argv[2]
sys.argv = [target, *sys.argv[3:]]
if mode == "script":
    runpy.run_path(target, run_name="__main__")
else:
    exec(compile(target, "<bench>", "exec"), {"__name__": "__main__"})
"""


def _timed(mode: str, target: str, args: list[str], env: dict[str, str], folder: Path) -> tuple[float, int]:
    """(seconds, peak resident set in MiB) of a child process running ``target`` (a
    script, or code) with ``args``."""
    peak_file = folder / "peak"
    began = time.perf_counter()
    subprocess.run([sys.executable, "-c", _WRAPPER, mode, target, *args], cwd=ROOT,
                   env={**env, "PEAK_FILE": str(peak_file)}, check=True, stdout=subprocess.DEVNULL)
    took = time.perf_counter() - began
    return took, int(peak_file.read_text()) // 1024


def _run(kind: str, tables: int, rounds: int, folder: Path, keep: str | None) -> None:
    name = f"bench_package_{rounds}"
    url = _database(kind, folder, name)
    env = _env(url, folder)
    subprocess.run([sys.executable, __file__, "--child", "build", "--tables", str(tables), "--rounds", str(rounds)],
                   cwd=ROOT, env=env, check=True)
    out = folder / f"{name}.zip"
    took, peak = _timed("script", "manage.py", ["export_package", "--day", DAY, "--out", str(out)], env, folder)
    events = _events(out)
    print(f"  export_package: {events:,} events in {took:.2f} s = {events / took:,.0f} events/s, "
          f"peak memory {peak} MiB, package {out.stat().st_size / 1e6:.1f} MB")
    blocked = ("import sys; sys.modules['django'] = None; sys.modules['rest_framework'] = None\n"
               "from auditor.cli import main\nsys.exit(main(sys.argv[1:]))")
    took, peak = _timed("code", blocked, ["verify", str(out)], env, folder)
    print(f"  blackjack-audit verify (Django blocked): {events:,} events in {took:.2f} s = {events / took:,.0f} "
          f"events/s, peak memory {peak} MiB")
    if keep:
        shutil.copyfile(out, keep)


def _events(package: Path) -> int:
    sys.path.insert(0, str(ROOT))
    from auditor.layout import Package

    opened = Package(package)
    try:
        return int(opened.manifest()["events"])
    finally:
        opened.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", choices=("sqlite", "postgres"), default="sqlite")
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=120)
    parser.add_argument("--scale", type=int, default=1, help="also a day this many times longer")
    parser.add_argument("--keep", help="copy the (last) package here")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child == "build":
        _build(args.tables, args.rounds)
        return
    sizes = [args.rounds] + ([args.rounds * args.scale] if args.scale > 1 else [])
    for rounds in sizes:
        with tempfile.TemporaryDirectory() as folder:
            print(f"--- {args.db}: {args.tables} tables x {rounds} rounds, one gaming day")
            _run(args.db, args.tables, rounds, Path(folder), args.keep if rounds == sizes[-1] else None)


if __name__ == "__main__":
    main()
