"""A simulated day in the store, projected: what the analytics' screens and API read."""

from __future__ import annotations

from datetime import date
from typing import Any

from audit.feed.subscribers import catch_up
from tables.simulator.config import SimConfig
from tables.simulator.run import simulate
from tables.simulator.store import StoreSink

from .helpers import SEATED

DAY = date(2026, 11, 29)  # the simulator's first day with a seed


def simulated_into_store(
    settings: Any,
    seed: str = "screens",
    *,
    tables: int = 2,
    rounds: int = 150,
    rates: dict[str, float] | None = None,
) -> dict[str, Any]:
    """Two seated tables' day appended (nothing projected on append) and projected, with
    faults planted at ``rates``; the manifest."""
    settings.PROJECT_ON_APPEND = False
    config = SimConfig(tables=tables, rounds=rounds, seed=seed, presets=SEATED, rates=rates or {})
    manifest = simulate(config, StoreSink(config))
    catch_up("tables.projections")
    return manifest
