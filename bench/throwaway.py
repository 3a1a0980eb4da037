"""What a benchmark's throwaway database needs from the settings: with ``DATABASE_URL``
set and ``DEBUG`` off, the settings refuse to start without a secret key and a seal key of
the deployment's own (they fail closed), and the store seals every row with the seal key. A
benchmark's database is thrown away, so fixed keys will do - unless the caller gives them."""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from collections.abc import Iterator, MutableMapping
from contextlib import contextmanager
from pathlib import Path

SECRET_KEY = "bench-only-" + "x" * 50
SEAL_KEY = "bench-only-seal-" + "s" * 50
# where a benchmark's signed heads are published (a deployment must name a place)
HEADS = Path(__file__).resolve().parents[1] / "var" / "bench-digests"
ROOT = Path(__file__).resolve().parents[1]
PG_ADMIN = "postgresql://postgres@127.0.0.1:5432/postgres"


def throwaway(env: MutableMapping[str, str]) -> MutableMapping[str, str]:
    """``env`` (``os.environ`` or a child's) with the benchmark's secret and seal keys and
    heads' folder where it has none."""
    env.setdefault("SECRET_KEY", SECRET_KEY)
    env.setdefault("SEAL_KEY", SEAL_KEY)
    env.setdefault("DIGEST_PUBLISHERS", str(HEADS))
    return env


def database_name(text: str) -> str:
    """A PostgreSQL database a benchmark may drop and make (an argparse type): lower-case
    letters, digits and _, and never one of the databases others use (the tests', the
    demo's, the server's own)."""
    if not re.fullmatch(r"[a-z][a-z0-9_]{0,62}", text) or text in (
        "postgres",
        "root",
        "test",
        "template0",
        "template1",
    ):
        raise argparse.ArgumentTypeError(
            f"{text!r}: a database this benchmark drops and makes again "
            "(lower-case letters, digits, _; not postgres, root, test or a template)"
        )
    return text


@contextmanager
def migrated_database(kind: str, folder: Path, name: str) -> Iterator[str]:
    """The URL of a fresh, migrated database for one run: a SQLite file in ``folder``, or
    the PostgreSQL database ``name`` made again (give each concurrent run its own) and
    dropped when the run is done."""
    if kind == "sqlite":
        url = f"sqlite:///{folder / (name + '.sqlite3')}"
    else:
        import psycopg

        with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name}")
            conn.execute(f"CREATE DATABASE {name}")
        url = f"postgresql://postgres@127.0.0.1:5432/{name}"
    env = dict(
        throwaway({**os.environ, "DATABASE_URL": url, "DJANGO_SETTINGS_MODULE": "casino.settings"})
    )
    subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True)
    try:
        yield url
    finally:
        if kind == "postgres":
            import psycopg

            with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
                conn.execute(f"DROP DATABASE IF EXISTS {name}")
