"""Benchmark: how long a committed event waits for a signed head that covers it.

    python bench/head_window.py                       # PostgreSQL and SQLite, 20 s each
    python bench/head_window.py --db postgres --seconds 60 --interval-ms 1000

Until a signed head covers an event, a database superuser could cut it off without a trace
(docs/security.md): this is the window. For each database (the PostgreSQL database
``bench_heads_<pid>``, or a temporary SQLite file; thrown away after): the signer runs as
a deployment runs it - ``manage.py digest --follow``, a process of its own, publishing to a
folder - while this process appends a round (25 events) to one of four tables, first
steadily (``--rate`` appends a second, for ``--seconds``), then sparsely (an append every
2.3 s after a quiet spell, for as long). A thread watches the published ``latest.json``
(every 2 ms); an append's window is from its commit (``events_append`` returned) to the
moment a head whose size covers its last event is there to read. Prints the median, 95th
percentile and maximum of each phase, the heads published and stored, and the load
average. Not a test:
the target (1 s) is the docs', the figures are this machine's.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from throwaway import throwaway

ROOT = Path(__file__).resolve().parents[1]
PG_ADMIN = "postgresql://postgres@127.0.0.1:5432/postgres"
PG_NAME = f"bench_heads_{os.getpid()}"


def _database(kind: str, folder: Path) -> str:
    if kind == "sqlite":
        return f"sqlite:///{folder / 'heads.sqlite3'}"
    import psycopg

    with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {PG_NAME}")
        conn.execute(f"CREATE DATABASE {PG_NAME}")
    return f"postgresql://postgres@127.0.0.1:5432/{PG_NAME}"


def _drop(kind: str) -> None:
    if kind == "postgres":
        import psycopg

        with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {PG_NAME} WITH (FORCE)")


class Watcher(threading.Thread):
    """Reads the publisher's latest.json every 2 ms; keeps (when first seen, size)."""

    def __init__(self, path: Path) -> None:
        super().__init__(daemon=True)
        self.path, self.seen, self.done = path, [], threading.Event()

    def run(self) -> None:
        last = -1
        while not self.done.is_set():
            try:
                size = json.loads(self.path.read_bytes())["size"]
            except (OSError, ValueError, KeyError):
                size = last
            if size != last:
                self.seen.append((time.monotonic(), size))
                last = size
            time.sleep(0.002)

    def covered_at(self, index: int) -> float | None:
        """When a head covering leaf ``index`` was first there to read."""
        return next((at for at, size in self.seen if size > index), None)


def _phase(
    name: str, gaps: list[float], watcher: Watcher, start_round: int
) -> tuple[list[tuple[float, object]], int]:
    from audit.store.streams import events_append, stream_version
    from tests.samples import round_events, table_opened

    commits = []
    round_no = start_round
    for n, gap in enumerate(gaps):
        table = f"BJ-{n % 4:02d}"
        version = stream_version(table)
        events = ([table_opened(table)] if version == 0 else []) + round_events(round_no)
        stored = events_append(stream=table, expected_version=version, events=events)
        commits.append((time.monotonic(), stored[-1]))
        round_no += 1
        time.sleep(gap)
    return commits, round_no


def _windows(commits: list[tuple[float, object]], watcher: Watcher) -> list[float]:
    from audit.integrity.digests import leaf_index

    windows = []
    for committed, last in commits:
        seen = watcher.covered_at(leaf_index(last))
        if seen is None:
            raise SystemExit(
                f"no head covering the append committed at {committed:.3f} was published"
            )
        windows.append(max(0.0, seen - committed))
    return windows


def _say(name: str, windows: list[float]) -> None:
    ordered = sorted(windows)
    p95 = ordered[max(0, round(0.95 * len(ordered)) - 1)]
    print(
        f"  {name:<7} {len(windows):>4} appends: window median {statistics.median(windows) * 1000:6.0f} ms, "
        f"p95 {p95 * 1000:6.0f} ms, max {max(windows) * 1000:6.0f} ms"
    )


def run(kind: str, seconds: float, rate: float, interval_ms: int) -> None:
    with tempfile.TemporaryDirectory(prefix="bench-heads-") as tmp:
        folder = Path(tmp)
        url = _database(kind, folder)
        env = dict(
            throwaway(
                {
                    **os.environ,
                    "DATABASE_URL": url,
                    "DJANGO_SETTINGS_MODULE": "casino.settings",
                    "DIGEST_SIGNING_KEY": str(folder / "key.pem"),
                    "DIGEST_PUBLISHERS": str(folder / "heads"),
                    "DIGEST_INTERVAL_MS": str(interval_ms),
                    "PROJECT_ON_APPEND": "false",
                }
            )
        )
        signer = None
        try:
            subprocess.run(
                [sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True
            )
            subprocess.run(
                [sys.executable, "manage.py", "digest", "--new-key", str(folder / "key.pem")],
                cwd=ROOT,
                env=env,
                check=True,
                stdout=subprocess.DEVNULL,
            )
            os.environ.update(env)
            sys.path.insert(0, str(ROOT))
            import django

            django.setup()
            (folder / "heads").mkdir()  # the publisher's mount, there before the signer starts
            signer = subprocess.Popen(
                [sys.executable, "manage.py", "digest", "--follow"],
                cwd=ROOT,
                env=env,
                stdout=subprocess.DEVNULL,
            )
            watcher = Watcher(folder / "heads" / "latest.json")
            watcher.start()
            time.sleep(2)  # the signer started and found nothing to sign
            steady, next_round = _phase("steady", [1 / rate] * int(seconds * rate), watcher, 1)
            time.sleep(interval_ms / 1000 + 1)
            sparse, _ = _phase("sparse", [2.3] * max(3, int(seconds / 2.3)), watcher, next_round)
            time.sleep(interval_ms / 1000 + 1)
            watcher.done.set()
            from audit.integrity.digests import DIGEST_STREAM
            from audit.models import Event

            stored = Event.objects.filter(stream=DIGEST_STREAM).count()
            print(
                f"{kind}: signer interval {interval_ms} ms, {len(watcher.seen):,} heads published "
                f"({stored:,} stored in the record), load average "
                + " ".join(f"{x:.2f}" for x in os.getloadavg())
            )
            _say("steady", _windows(steady, watcher))
            _say("sparse", _windows(sparse, watcher))
        finally:
            if signer is not None:
                signer.terminate()
                signer.wait(timeout=30)
            from django.db import connections

            connections.close_all()
            _drop(kind)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--db", choices=["postgres", "sqlite"], help="one database (default: both, in turn)"
    )
    parser.add_argument(
        "--seconds", type=float, default=20, help="how long each phase appends (default 20)"
    )
    parser.add_argument(
        "--rate", type=float, default=10, help="steady appends a second (default 10)"
    )
    parser.add_argument(
        "--interval-ms",
        type=int,
        default=500,
        help="the signer's DIGEST_INTERVAL_MS (default 500, the setting's)",
    )
    args = parser.parse_args()
    for kind in [args.db] if args.db else ["postgres", "sqlite"]:
        # one database per process: Django is set up once, for the database it was given
        if args.db is None:
            subprocess.run(
                [
                    sys.executable,
                    __file__,
                    "--db",
                    kind,
                    "--seconds",
                    str(args.seconds),
                    "--rate",
                    str(args.rate),
                    "--interval-ms",
                    str(args.interval_ms),
                ],
                check=True,
            )
        else:
            run(kind, args.seconds, args.rate, args.interval_ms)


if __name__ == "__main__":
    main()
