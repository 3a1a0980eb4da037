"""Benchmark: what the access log costs a request.

    python bench/access_log.py                  # SQLite and PostgreSQL
    python bench/access_log.py --db postgres --requests 5000

For each database (a fresh temporary SQLite file, or the PostgreSQL database
``bench_access``, dropped and re-created): the same API read (``GET /api/events``,
a page of the global feed, as a logged-in person) ``--requests`` times through Django's
test client with the access-log middleware, then without it, best of ``--repeat`` runs;
the difference per request is the log's cost. Then ``access_seal`` of all the rows
recorded. Not a test: it prints figures. The target is under 1 ms per request.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PG_ADMIN = "postgresql://postgres@127.0.0.1:5432/postgres"


def _database(kind: str, folder: Path) -> str:
    if kind == "sqlite":
        url = f"sqlite:///{folder / 'access.sqlite3'}"
    else:
        import psycopg

        with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
            conn.execute("DROP DATABASE IF EXISTS bench_access")
            conn.execute("CREATE DATABASE bench_access")
        url = "postgresql://postgres@127.0.0.1:5432/bench_access"
    env = {**os.environ, "DATABASE_URL": url, "DJANGO_SETTINGS_MODULE": "casino.settings"}
    subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True)
    return url


def _run(url: str, requests: int, repeat: int) -> None:
    os.environ["DATABASE_URL"] = url
    os.environ["DJANGO_SETTINGS_MODULE"] = "casino.settings"
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.test import Client, override_settings

    from audit.access import access_seal
    from audit.models import AccessRecord

    get_user_model().objects.create_superuser("bench", "bench@example.com", "a-long-bench-password")

    def timed(middleware: list[str]) -> float:
        best = float("inf")
        with override_settings(MIDDLEWARE=middleware, ALLOWED_HOSTS=["testserver"]):
            # a client loads the middleware chain once: one client per configuration
            client = Client()
            client.login(username="bench", password="a-long-bench-password")
            for _ in range(repeat):
                began = time.perf_counter()
                for _ in range(requests):
                    client.get("/api/events", {"after": 0, "limit": 10})
                best = min(best, time.perf_counter() - began)
        return best / requests

    without = [m for m in settings.MIDDLEWARE if m != "audit.access.AccessLogMiddleware"]
    timed(without)  # warm up
    with_log = timed(list(settings.MIDDLEWARE))
    plain = timed(without)
    rows = AccessRecord.objects.count()
    began = time.perf_counter()
    sealed = access_seal()
    seal_s = time.perf_counter() - began
    vendor = url.split(":")[0]
    print(f"{vendor:10s} request without log {plain * 1000:.3f} ms, with log {with_log * 1000:.3f} ms: "
          f"the log costs {(with_log - plain) * 1000:.3f} ms per request "
          f"({rows} rows; sealing them took {seal_s * 1000:.0f} ms: {sealed.payload['count'] if sealed else 0} rows)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", choices=("sqlite", "postgres", "both"), default="both")
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _run(args.child, args.requests, args.repeat)
        return
    kinds = ("sqlite", "postgres") if args.db == "both" else (args.db,)
    with tempfile.TemporaryDirectory() as folder:
        for kind in kinds:
            url = _database(kind, Path(folder))
            subprocess.run([sys.executable, __file__, "--child", url, "--requests", str(args.requests),
                            "--repeat", str(args.repeat)], check=True)


if __name__ == "__main__":
    main()
