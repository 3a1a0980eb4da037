from __future__ import annotations

import pytest
from django.db import connection


@pytest.fixture
def on_postgres(db) -> None:
    """Skip (with the reason) unless the suite runs against PostgreSQL."""
    if connection.vendor != "postgresql":
        pytest.skip("PostgreSQL only: run with DATABASE_URL=postgresql://...")


@pytest.fixture
def pools(monkeypatch) -> list[int]:
    """The process pools the back-office's fan-out (audit.feed.fanout) opens, by their size."""
    from audit.feed import fanout

    opened: list[int] = []
    real = fanout.process_pool

    def counted(workers, **kwargs):
        pool = real(workers, **kwargs)
        if pool is not None:
            opened.append(workers)
        return pool

    monkeypatch.setattr(fanout, "process_pool", counted)
    return opened


@pytest.fixture(scope="session", autouse=True)
def digest_signing_key() -> None:
    """The test process's signing key for tree heads (production refuses to make one)."""
    from pathlib import Path

    from django.conf import settings

    from audit.integrity.digests import write_new_key

    if not Path(settings.DIGEST_SIGNING_KEY).exists():
        write_new_key(Path(settings.DIGEST_SIGNING_KEY))


@pytest.fixture(autouse=True)
def _clean_publish_dir(settings) -> None:
    """No published head outlives the test that signed it (verify reads the folders)."""
    import shutil

    for folder in settings.DIGEST_PUBLISHERS:
        if "://" not in folder:
            shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(autouse=True)
def _clear_cache() -> None:
    """No throttle's count outlives its test (the cache is the process's memory)."""
    from django.core.cache import cache

    cache.clear()


@pytest.fixture(autouse=True)
def _demo_roles_undone():
    """A demo run on PostgreSQL goes on as its application role (casino.demo): after the
    test, back to the test database's superuser (a transactional test's flush empties the
    event table, which that role may not), and its roles dropped (they are the cluster's,
    not the test database's)."""
    yield
    from casino.demo import demo_database_roles_undo

    roles = demo_database_roles_undo()
    if roles:
        with connection.cursor() as cursor:
            cursor.execute(f"REASSIGN OWNED BY {roles[0]} TO CURRENT_USER")
            cursor.execute(f"DROP OWNED BY {roles[0]}, {roles[1]}")
            cursor.execute(f"DROP ROLE {roles[0]}, {roles[1]}")
