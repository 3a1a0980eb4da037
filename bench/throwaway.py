"""What a benchmark's throwaway database needs from the settings: with ``DATABASE_URL``
set and ``DEBUG`` off, the settings refuse to start without a secret key of the
deployment's own (they fail closed), and the store seals every row with it. A benchmark's
database is thrown away, so a fixed key will do - unless the caller gives one."""
from __future__ import annotations

from collections.abc import MutableMapping

SECRET_KEY = "bench-only-" + "x" * 50


def throwaway(env: MutableMapping[str, str]) -> MutableMapping[str, str]:
    """``env`` (``os.environ`` or a child's) with the benchmark's secret key where it has none."""
    env.setdefault("SECRET_KEY", SECRET_KEY)
    return env
