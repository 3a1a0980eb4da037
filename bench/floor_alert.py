"""Benchmark: a dealer's short pay, from the table device's REST append to the floor's alert.

    python bench/floor_alert.py                      # PostgreSQL (bench_floor), Redis at 127.0.0.1:6379
    python bench/floor_alert.py --db sqlite --rounds 300 --measured 40

A fresh database holds a full day of one table (``--rounds`` hoyle rounds, ingested and
projected); then a real Celery worker (a process, solo pool) on Redis and a real web
server (``runserver``, threaded) start, as in production but on one machine. The table's
device appends each further round over REST as a dealer's terminal would: the round up
to its last card in one request, then - once the worker has projected that, as it has
in the seconds a dealer takes to settle - the ``round.settled`` alone - every other one with a winning bet
short-paid. For each settlement the bench times:

- **append**: the device's POST of the ``round.settled`` (what the dealer waits for; the
  projection must not be in it: it runs after the commit, on the worker);
- **alert row**: from sending that POST to the floor's alert being in the database
  (the feed's task on the worker: the incremental fold, the finding, its alert);
- **on the floor**: to the dashboard's JSON poll naming it (polled here every 50 ms; the
  page polls every second, so a person sees it up to a second later).

Not a test: it prints figures (median, 90th percentile, max).
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PG_ADMIN = "postgresql://postgres@127.0.0.1:5432/postgres"
PG_BENCH = "postgresql://postgres@127.0.0.1:5432/bench_floor"
REDIS = "redis://127.0.0.1:6379/13"
TABLE = "BJ-09"
API_KEYS = ("id", "type", "schema_version", "occurred_at", "actor", "source", "payload")


def _fresh_database(kind: str, folder: Path) -> str:
    if kind == "sqlite":
        return f"sqlite:///{folder / 'floor.sqlite3'}"
    import psycopg

    with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
        conn.execute("DROP DATABASE IF EXISTS bench_floor WITH (FORCE)")
        conn.execute("CREATE DATABASE bench_floor")
    return PG_BENCH


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _day(rounds: int, extra: int) -> list[dict]:
    """The table's events: ``rounds + extra`` rounds of hoyle, dealt by the engine."""
    from tables.engine.presets import PRESETS
    from tables.engine.simulate import deal_table

    start = datetime.now(UTC).replace(microsecond=0)
    return copy.deepcopy(
        deal_table(
            PRESETS["hoyle"], seed="floor-bench", rounds=rounds + extra, table=TABLE, start=start
        ).events
    )


def _rounds_of(events: list[dict]) -> list[list[dict]]:
    """The events split at each round.started (the first part: the day's opening)."""
    parts: list[list[dict]] = [[]]
    for event in events:
        if event["type"] == "round.started":
            parts.append([])
        parts[-1].append(event)
    return parts


def _short_pay(settled: dict) -> bool:
    for settlement in settled["payload"]["settlements"]:
        if settlement["outcome"] == "win" and settlement["net"] > 1:
            settlement["net"] -= 1
            return True
    return False


def _post(url: str, token: str, body: dict) -> tuple[float, int]:
    data = json.dumps(body).encode()
    request = urllib.request.Request(
        url,
        data=data,
        method="POST",
        headers={"Authorization": f"Token {token}", "Content-Type": "application/json"},
    )
    began = time.perf_counter()
    with urllib.request.urlopen(request, timeout=30) as answer:
        answer.read()
        return time.perf_counter() - began, answer.status


def _summary(name: str, seconds: list[float]) -> str:
    ms = sorted(1000 * s for s in seconds)
    p90 = ms[min(len(ms) - 1, int(0.9 * len(ms)))]
    return (
        f"  {name:<32} median {statistics.median(ms):7.1f} ms   p90 {p90:7.1f} ms   max "
        f"{ms[-1]:7.1f} ms   (n={len(ms)})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", choices=["postgres", "sqlite"], default="postgres")
    parser.add_argument(
        "--rounds", type=int, default=400, help="rounds of the day before the measure (default 400)"
    )
    parser.add_argument(
        "--measured", type=int, default=40, help="rounds appended over REST and timed (default 40)"
    )
    args = parser.parse_args()

    folder = Path(tempfile.mkdtemp(prefix="floor-bench-"))
    url = _fresh_database(args.db, folder)
    queue = f"floor-bench-{uuid.uuid4().hex[:6]}"
    env = {
        **os.environ,
        "DATABASE_URL": url,
        "DJANGO_SETTINGS_MODULE": "casino.settings",
        "CELERY_BROKER_URL": REDIS,
        "CELERY_RESULT_BACKEND": "",
        "CELERY_TASK_DEFAULT_QUEUE": queue,
        "PROJECT_ON_APPEND": "true",
        "DEBUG": "true",
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
    }
    os.environ.update({k: v for k, v in env.items() if k != "CELERY_BROKER_URL"})
    os.environ["PROJECT_ON_APPEND"] = "false"
    sys.path.insert(0, str(ROOT))

    def manage(*command: str, **more: str) -> str:
        done = subprocess.run(
            [sys.executable, "manage.py", *command],
            cwd=ROOT,
            env={**env, **more},
            capture_output=True,
            text=True,
            check=True,
        )
        return done.stdout.strip()

    print(
        f"database: {args.db}; broker: Redis; a day of {args.rounds} rounds, then {args.measured} over REST"
    )
    manage("migrate", "-v0")
    import django

    django.setup()

    parts = _rounds_of(_day(args.rounds, args.measured))
    opening, rounds = parts[0], parts[1:]
    before, measured = rounds[: args.rounds], rounds[args.rounds :]
    day = folder / "day.jsonl"
    with day.open("w") as out:
        for event in [*opening, *(e for r in before for e in r)]:
            out.write(json.dumps({k: event[k] for k in (*API_KEYS, "stream")}) + "\n")
    began = time.perf_counter()
    manage("ingest", str(day), PROJECT_ON_APPEND="false")
    manage("catch_up", PROJECT_ON_APPEND="false")  # the day projected, as the feed would have
    print(
        f"  the day ingested and projected in {time.perf_counter() - began:.1f} s "
        f"({sum(len(r) for r in before) + len(opening):,} events)"
    )
    token = manage("create_device", TABLE)

    from django.contrib.auth import get_user_model
    from django.test import Client

    from audit.models import Event
    from tables.models import Alert, Table

    person, _ = get_user_model().objects.get_or_create(
        username="floor-bench", defaults={"is_staff": True, "is_superuser": True}
    )
    browser = Client()
    browser.force_login(person)
    session = browser.cookies["sessionid"].value

    port = _free_port()
    worker = subprocess.Popen(
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
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
            "-l",
            "WARNING",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    server = subprocess.Popen(
        [sys.executable, "manage.py", "runserver", f"127.0.0.1:{port}", "--noreload"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(100):
            try:
                urllib.request.urlopen(f"{base}/api/schema/", timeout=1)
                break
            except OSError:
                time.sleep(0.1)
        time.sleep(1.0)  # the worker
        appends, to_row, to_floor, projected = [], [], [], []
        stream_url = f"{base}/api/streams/{TABLE}/events"
        wins = 0
        for events in measured:
            at = next(i for i, e in enumerate(events) if e["type"] == "round.settled")
            before_settle, settled, after_settle = events[:at], events[at], events[at + 1 :]
            # every other round with a winning bet is short-paid (the others settle clean)
            short = any(
                x["outcome"] == "win" and x["net"] > 1 for x in settled["payload"]["settlements"]
            )
            short = short and (wins := wins + 1) % 2 == 0 and _short_pay(settled)
            version = (
                Event.objects.filter(stream=TABLE)
                .order_by("-version")
                .values_list("version", flat=True)
                .first()
            )
            _post(
                stream_url,
                token,
                {
                    "expected_version": version,
                    "events": [{k: e[k] for k in API_KEYS} for e in before_settle],
                },
            )
            settled_version = version + len(before_settle) + 1
            # the dealer settles a few seconds after the last card: by then the worker has
            # projected the round so far (waited for here, not timed)
            while not Table.objects.filter(
                stream=TABLE, projected_version__gte=settled_version - 1
            ).exists():
                time.sleep(0.01)
            sent = time.perf_counter()
            took, status = _post(
                stream_url,
                token,
                {
                    "expected_version": settled_version - 1,
                    "events": [{k: settled[k] for k in API_KEYS}],
                },
            )
            assert status == 201
            appends.append(took)
            floor_seen = row_seen = None
            deadline = sent + 30
            while time.perf_counter() < deadline:
                if (
                    row_seen is None
                    and short
                    and Alert.objects.filter(
                        stream=TABLE, kind="finding", finding__round=events[0]["payload"]["round"]
                    ).exists()
                ):
                    row_seen = time.perf_counter() - sent
                if short and row_seen is not None and floor_seen is None:
                    request = urllib.request.Request(
                        f"{base}/floor/figures", headers={"Cookie": f"sessionid={session}"}
                    )
                    with urllib.request.urlopen(request, timeout=10) as answer:
                        figures = json.loads(answer.read())
                    if f"round {events[0]['payload']['round']}," in figures["html"]["alerts"]:
                        floor_seen = time.perf_counter() - sent
                done = Table.objects.filter(
                    stream=TABLE, projected_version__gte=settled_version
                ).exists()
                if done and (not short or floor_seen is not None):
                    projected.append(time.perf_counter() - sent)
                    break
                time.sleep(0.01 if row_seen is None else 0.05)
            else:
                raise SystemExit(
                    f"round {events[0]['payload']['round']}: not projected within 30 s"
                )
            if short:
                to_row.append(row_seen)
                to_floor.append(floor_seen)
            if after_settle:  # what follows the settlement (a new shoe's shuffle), not timed
                _post(
                    stream_url,
                    token,
                    {
                        "expected_version": settled_version,
                        "events": [{k: e[k] for k in API_KEYS} for e in after_settle],
                    },
                )
        warm = slice(2, None)  # the worker's first folds start cold (from the last shuffle)
        print(_summary("append (round.settled)", appends[warm]))
        print(_summary("settled -> projected", projected[warm]))
        print(_summary("settled -> alert row", to_row))
        print(_summary("settled -> on the floor (poll)", to_floor))
        print(
            "  (the page itself polls every second: a person sees the alert up to 1 s after the last line)"
        )
    finally:
        for process in (server, worker):
            process.terminate()
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()


if __name__ == "__main__":
    main()
