from __future__ import annotations

import pytest
from django.db import connection


@pytest.fixture
def on_postgres(db) -> None:
    """Skip (with the reason) unless the suite runs against PostgreSQL."""
    if connection.vendor != "postgresql":
        pytest.skip("PostgreSQL only: run with DATABASE_URL=postgresql://...")
