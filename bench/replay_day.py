"""Benchmark: ``manage.py replay_day --full`` of one gaming day from the database, in
process (one table after another, and --jobs processes) and on Celery workers through a
real broker. Prints events/s and rounds/s of each, timed by the day's replay run (its
start to its end, without the command's start-up), and the load average beside them.

    DATABASE_URL=postgresql://... .venv/bin/python bench/replay_day.py --day 2026-11-29 \\
        [--jobs 1 --jobs 2] [--workers 2] [--broker redis://127.0.0.1:6379/2] \\
        [--checkout DIR] [--repeat 1]

The day must be in the store: e.g. ``manage.py simulate --tables 12 --rounds 1500
--live-bets 10 --seed bench --out day.jsonl`` then ``manage.py ingest day.jsonl``.
``--checkout DIR`` times another checkout of the project on the same database first (its
manage.py, in process, one table after another): before and after, back to back.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

from throwaway import throwaway

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings")
throwaway(os.environ)

import django

django.setup()

from audit.models import ReplayRun


def _replay(root: Path, day: str, env: dict[str, str], extra: list[str]) -> tuple[float, int, int]:
    """Run replay_day --full from ``root``; (seconds, events, rounds) of its day run."""
    before = (
        ReplayRun.objects.filter(parent__isnull=True)
        .order_by("-pk")
        .values_list("pk", flat=True)
        .first()
        or 0
    )
    subprocess.run(
        [sys.executable, "manage.py", "replay_day", "--day", day, "--full", *extra],
        cwd=root,
        env=env,
        check=True,
        stdout=subprocess.DEVNULL,
    )
    run = ReplayRun.objects.filter(parent__isnull=True, pk__gt=before).latest("pk")
    assert run.status == ReplayRun.Status.DONE and run.finished_at is not None, run.status
    return (run.finished_at - run.started_at).total_seconds(), run.events, run.rounds


def _print(label: str, seconds: float, events: int, rounds: int) -> None:
    load = os.getloadavg()[0]
    print(
        f"{label:<34}{events:>10,}{rounds:>8,}{seconds:>9.2f}{events / seconds:>12,.0f}{rounds / seconds:>10,.0f}"
        f"{load:>7.2f}",
        flush=True,
    )


def _on_workers(day: str, workers: int, broker: str, repeat: int) -> None:
    queue = f"bench-{uuid.uuid4().hex[:8]}"
    env = {
        **os.environ,
        "CELERY_BROKER_URL": broker,
        "CELERY_RESULT_BACKEND": broker,
        "CELERY_TASK_DEFAULT_QUEUE": queue,
        "PROJECT_ON_APPEND": "false",
    }
    processes = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "casino",
                "worker",
                "--pool=solo",
                "-Q",
                queue,
                "-n",
                f"bench{k}@%h",
                "--without-gossip",
                "--without-mingle",
                "--without-heartbeat",
                "-l",
                "WARNING",
            ],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
        )
        for k in range(workers)
    ]
    try:
        time.sleep(5)  # the workers' start-up is not the replay's
        for _ in range(repeat):
            _print(f"on {workers} Celery workers", *_replay(ROOT, day, env, ["--timeout", "3600"]))
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            process.wait(timeout=60)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--day", required=True, help="the gaming day in the store, YYYY-MM-DD")
    parser.add_argument(
        "--jobs",
        type=int,
        action="append",
        help="in-process runs with this many processes (repeatable; default 1 and 2)",
    )
    parser.add_argument("--workers", type=int, default=2, help="Celery workers (0: none)")
    parser.add_argument("--broker", default="redis://127.0.0.1:6379/2")
    parser.add_argument(
        "--checkout",
        type=Path,
        action="append",
        default=[],
        help="another checkout of the project to time first (in process)",
    )
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    from django.db import connection

    if connection.vendor != "postgresql":
        sys.exit(
            "bench/replay_day.py: DATABASE_URL must name PostgreSQL (the figures are PostgreSQL's)"
        )
    env = {**os.environ, "CELERY_BROKER_URL": "", "PROJECT_ON_APPEND": "false"}
    print(f"replay_day --day {args.day} --full on {os.cpu_count()} cores")
    print(
        f"{'how':<34}{'events':>10}{'rounds':>8}{'seconds':>9}{'events/s':>12}{'rounds/s':>10}{'load':>7}"
    )
    for checkout in args.checkout:
        for _ in range(args.repeat):
            _print(f"in process, {checkout.name}", *_replay(checkout, args.day, env, []))
    for jobs in args.jobs or [1, 2]:
        for _ in range(args.repeat):
            _print(
                f"in process, --jobs {jobs}", *_replay(ROOT, args.day, env, ["--jobs", str(jobs)])
            )
    if args.workers:
        _on_workers(args.day, args.workers, args.broker, args.repeat)


if __name__ == "__main__":
    main()
