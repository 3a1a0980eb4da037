"""Benchmark: what checking a person's authority seal costs a request, and verify.

    python bench/authority_seal.py                  # SQLite and PostgreSQL
    python bench/authority_seal.py --db postgres --requests 5000

For each database (a fresh temporary SQLite file, or the PostgreSQL database
``bench_authority_<pid>``, dropped afterwards): a pit boss (the migrations' group, a
token) reads ``GET /api/findings`` with their token ``--requests`` times through Django's
test client, with the check and with it switched off, in ``--repeat`` alternating rounds
(on a shared machine a load that comes and goes then falls on both alike); the
difference of the medians per request is the check's cost. Then the check alone
(``authority_problem`` on a fresh user object: the one query and the HMAC), median of as
many calls; then ``authority_problems`` - what verify runs - over ``--people`` people.
Not a test: it prints figures, and the load average beside them.
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
PG_NAME = f"bench_authority_{os.getpid()}"


def _run(url: str, requests: int, repeat: int, people: int) -> None:
    os.environ["DATABASE_URL"] = url
    throwaway(os.environ)
    os.environ["DJANGO_SETTINGS_MODULE"] = "casino.settings"
    # the API's rate limit would answer most of these 429 (a cheaper request than a read)
    os.environ["API_REQUESTS_PER_MINUTE"] = "1000000"
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    logging.disable(logging.WARNING)
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group
    from django.test import Client, override_settings

    from audit.access import authentication
    from audit.access.authority_seal import authority_problem, authority_problems
    from audit.access.tokens import token_issue

    model = get_user_model()
    boss = model.objects.create_user("bench-boss", password="a-long-bench-password", is_staff=True)
    boss.groups.add(Group.objects.get(name="pit_boss"))
    token = token_issue(user=boss).text
    checked = authentication.authority_refusal

    def off(user: object) -> None:
        return None

    with override_settings(ALLOWED_HOSTS=["testserver"]):
        client = Client(HTTP_AUTHORIZATION=f"Token {token}")

        def timed(count: int, check: bool) -> float:
            authentication.authority_refusal = checked if check else off  # type: ignore[assignment]
            began = time.perf_counter()
            for _ in range(count):
                response = client.get(
                    "/api/findings", secure=True
                )  # DEBUG off: plain HTTP is redirected
            assert response.status_code == 200, (response.status_code, response.headers)
            return (time.perf_counter() - began) / count

        batch = max(1, requests // repeat)
        timed(50, True), timed(50, False)  # warm up
        with_check, without_check = [], []
        for _ in range(repeat):
            with_check.append(timed(batch, True))
            without_check.append(timed(batch, False))
    authentication.authority_refusal = checked
    direct = []
    for _ in range(requests):
        fresh = model.objects.get(pk=boss.pk)
        began = time.perf_counter()
        assert authority_problem(fresh) is None
        direct.append(time.perf_counter() - began)
    group = Group.objects.get(name="pit_boss")
    for number in range(people - 1):
        person = model.objects.create_user(f"bench-{number}", password=None, is_staff=True)
        person.groups.add(group)
        token_issue(user=person)
    began = time.perf_counter()
    assert authority_problems() == []
    every_s = time.perf_counter() - began
    with_ms, without_ms = (
        statistics.median(with_check) * 1000,
        statistics.median(without_check) * 1000,
    )
    vendor = url.split(":")[0]
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(
        f"{vendor:10s} token request without the check {without_ms:.3f} ms, with it {with_ms:.3f} ms (medians "
        f"of {repeat} alternating rounds of {batch}): the check costs {with_ms - without_ms:.3f} ms per request; "
        f"authority_problem alone: median {statistics.median(direct) * 1000:.3f} ms, 90th percentile "
        f"{statistics.quantiles(direct, n=10)[-1] * 1000:.3f} ms ({len(direct)} calls); verify's check of "
        f"{people} people: {every_s * 1000:.0f} ms; load average {load}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--db", choices=("sqlite", "postgres", "both"), default="both")
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=10, help="alternating rounds (default 10)")
    parser.add_argument(
        "--people", type=int, default=500, help="people for verify's check (default 500)"
    )
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _run(args.child, args.requests, args.repeat, args.people)
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
                        "--people",
                        str(args.people),
                    ],
                    check=True,
                )


if __name__ == "__main__":
    main()
