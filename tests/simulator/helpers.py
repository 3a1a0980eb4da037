"""Running the simulator in memory and auditing what it wrote."""

from __future__ import annotations

import io
import json
from collections import Counter
from typing import Any

from casino.simcheck import expected_of, found_in
from tables.simulator.config import SimConfig
from tables.simulator.faults import KINDS
from tables.simulator.run import FileSink, simulate


def run(config: SimConfig) -> tuple[bytes, dict[str, Any]]:
    out = io.BytesIO()
    manifest = simulate(config, FileSink(out, config))
    return out.getvalue(), manifest


def audit(data: bytes | list[str]) -> Counter[tuple[str, ...]]:
    """Every finding of replay, reconciliation and the chain check, as
    (check, table, finding kind, round / gaming day / version) - the manifest's terms."""
    lines = _lines(data) if isinstance(data, bytes) else data
    return Counter(found_in(lines))


def expected(manifest: dict[str, Any]) -> Counter[tuple[str, ...]]:
    """What the manifest says the audit must find, in :func:`audit`'s terms."""
    for fault in manifest["faults"]:
        assert fault["finding"]["check"] == KINDS[fault["kind"]].check
    return Counter(expected_of(manifest))


def _lines(data: bytes) -> list[str]:
    return [line.decode() for line in data.split(b"\n") if line]


def events_of(data: bytes) -> list[dict[str, Any]]:
    return [json.loads(line) for line in _lines(data)]
