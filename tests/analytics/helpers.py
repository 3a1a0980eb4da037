"""Simulated days for the analytics, dealt in memory (no database): the events of each
table as the store would hand them to replay, and the manifest that says who played
and what the casual players got wrong."""

from __future__ import annotations

import io
import json
from functools import lru_cache
from typing import Any

from tables.simulator.config import SimConfig
from tables.simulator.run import FileSink, simulate

SEATED = (
    "hoyle",
    "it-classic",
    "eu-online",
    "vegas-s17-das-ls",
    "it-sabot",
    "vegas-6to5-single-deck",
)


@lru_cache(maxsize=8)
def simulated(
    seed: str, *, tables: int = 4, rounds: int = 250
) -> tuple[dict[str, list[dict[str, Any]]], dict[str, Any]]:
    """The events of each table (by stream, in version order) and the manifest."""
    config = SimConfig(tables=tables, rounds=rounds, seed=seed, presets=SEATED)
    out = io.BytesIO()
    manifest = simulate(config, FileSink(out, config))
    streams: dict[str, list[dict[str, Any]]] = {}
    for line in out.getvalue().splitlines():
        event = json.loads(line)
        streams.setdefault(event["stream"], []).append(event)
    return streams, manifest


def kinds(manifest: dict[str, Any]) -> dict[str, str]:
    """Each player's kind as the simulator made them (basic, casual, counter, back)."""
    return {p["player"]: p["kind"] for table in manifest["tables"] for p in table["players"]}
