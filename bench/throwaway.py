"""What a benchmark's throwaway database needs from the settings: with ``DATABASE_URL``
set and ``DEBUG`` off, the settings refuse to start without a secret key and a seal key of
the deployment's own (they fail closed), and the store seals every row with the seal key. A
benchmark's database is thrown away, so fixed keys will do - unless the caller gives them."""

from __future__ import annotations

import argparse
import re
from collections.abc import MutableMapping
from pathlib import Path

SECRET_KEY = "bench-only-" + "x" * 50
SEAL_KEY = "bench-only-seal-" + "s" * 50
# where a benchmark's signed heads are published (a deployment must name a place)
HEADS = Path(__file__).resolve().parents[1] / "var" / "bench-digests"


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
