"""Benchmark: what the access log costs a request.

    python bench/access_log.py                  # SQLite and PostgreSQL
    python bench/access_log.py --db postgres --requests 5000

For each database (a fresh temporary SQLite file, or the PostgreSQL database
``bench_access_<pid>``, dropped afterwards): the same API read (``GET /api/events``,
a page of the global feed, as a logged-in person) ``--requests`` times through Django's
test client with the access-log middleware and without it, in ``--repeat`` alternating
rounds (on a shared machine a load that comes and goes then falls on both alike); the
difference of the medians per request is the log's cost. Then what the middleware adds
alone: ``access_record`` called directly, median of as many calls. Then ``access_seal``
of all the rows recorded. Not a test: it prints figures, and the load average beside
them. The target is under 1 ms per request.
"""

from __future__ import annotations

import argparse
import logging
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from throwaway import ROOT, migrated_database, throwaway

# a database of this run's own (another run on the machine may be using one), dropped after
PG_NAME = f"bench_access_{os.getpid()}"


def _run(url: str, requests: int, repeat: int) -> None:
    os.environ["DATABASE_URL"] = url
    throwaway(os.environ)
    os.environ["DJANGO_SETTINGS_MODULE"] = "casino.settings"
    # the API's rate limit would answer most of these 429 (a cheaper request than a read)
    os.environ["API_REQUESTS_PER_MINUTE"] = "1000000"
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    # the axes and request log lines are not figures
    logging.disable(logging.WARNING)
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.test import Client, RequestFactory, override_settings

    from audit.access.log import access_record, access_seal
    from audit.models import AccessRecord

    user = get_user_model().objects.create_superuser(
        "bench", "bench@example.com", "a-long-bench-password"
    )

    without = [m for m in settings.MIDDLEWARE if m != "audit.access.log.AccessLogMiddleware"]
    # a client loads the middleware chain once: one client per configuration
    with override_settings(ALLOWED_HOSTS=["testserver"]):
        with override_settings(MIDDLEWARE=list(settings.MIDDLEWARE)):
            logged = Client()
            logged.force_login(
                user
            )  # not through the login: django-axes' backend wants the request
        with override_settings(MIDDLEWARE=without):
            plain = Client()
            plain.force_login(user)

        def timed(client: Client, count: int) -> float:
            began = time.perf_counter()
            for _ in range(count):
                client.get("/api/events", {"after": 0, "limit": 10})
            return (time.perf_counter() - began) / count

        batch = max(1, requests // repeat)
        timed(plain, 50), timed(logged, 50)  # warm up
        with_log, without_log = [], []
        for _ in range(repeat):
            with_log.append(timed(logged, batch))
            without_log.append(timed(plain, batch))
    request = RequestFactory().get("/api/events", {"after": 0, "limit": 10})
    request.user = user
    direct = []
    for _ in range(requests):
        began = time.perf_counter()
        access_record(request, 200)
        direct.append(time.perf_counter() - began)
    with_ms, without_ms = statistics.median(with_log) * 1000, statistics.median(without_log) * 1000
    rows = AccessRecord.objects.count()
    began = time.perf_counter()
    sealed = access_seal()
    seal_s = time.perf_counter() - began
    vendor = url.split(":")[0]
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(
        f"{vendor:10s} request without log {without_ms:.3f} ms, with log {with_ms:.3f} ms (medians of {repeat} "
        f"alternating rounds of {batch}): the log costs {with_ms - without_ms:.3f} ms per request; "
        f"access_record alone: median {statistics.median(direct) * 1000:.3f} ms, "
        f"90th percentile {statistics.quantiles(direct, n=10)[-1] * 1000:.3f} ms ({len(direct)} calls); "
        f"sealing {rows} rows took {seal_s * 1000:.0f} ms ({sealed.payload['count'] if sealed else 0} sealed); "
        f"load average {load}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--db", choices=("sqlite", "postgres", "both"), default="both")
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=10, help="alternating rounds (default 10)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _run(args.child, args.requests, args.repeat)
        return
    kinds = ("sqlite", "postgres") if args.db == "both" else (args.db,)
    with tempfile.TemporaryDirectory() as folder:
        for kind in kinds:
            with migrated_database(kind, Path(folder), PG_NAME) as url:
                subprocess.run(
                    [
                        sys.executable,
                        __file__,
                        "--child",
                        url,
                        "--requests",
                        str(args.requests),
                        "--repeat",
                        str(args.repeat),
                    ],
                    check=True,
                )


if __name__ == "__main__":
    main()
