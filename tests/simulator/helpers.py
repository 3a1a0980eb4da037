"""Running the simulator in memory and auditing what it wrote."""
from __future__ import annotations

import io
import json
from collections import Counter
from typing import Any

from tables.engine.jsonl import replay_lines
from tables.simulator.chains import verify_lines
from tables.simulator.config import SimConfig
from tables.simulator.faults import KINDS
from tables.simulator.reconcile import reconcile_all
from tables.simulator.run import FileSink, simulate


def run(config: SimConfig) -> tuple[bytes, dict[str, Any]]:
    out = io.BytesIO()
    manifest = simulate(config, FileSink(out, config))
    return out.getvalue(), manifest


def audit(data: bytes | list[str]) -> Counter[tuple[str, ...]]:
    """Every finding of replay, reconciliation and the chain check, as
    (check, table, finding kind, round or version) - the manifest's terms."""
    # split on newlines only: str.splitlines would also cut at U+0085 or U+2028 inside a
    # JSON string (a seed may hold them)
    lines = _lines(data) if isinstance(data, bytes) else data
    found: Counter[tuple[str, ...]] = Counter()
    for result in replay_lines(lines):
        for f in result.findings:
            found[("replay", str(result.stream), f.kind, str(f.round))] += 1
    for f in reconcile_all(json.loads(line) for line in lines):
        found[("reconcile", f.stream, f.kind, f.gaming_day)] += 1
    for p in verify_lines(lines):
        found[("verify", p.stream, p.kind, str(p.version))] += 1
    return found


def expected(manifest: dict[str, Any]) -> Counter[tuple[str, ...]]:
    """What the manifest says the audit must find, in :func:`audit`'s terms."""
    want: Counter[tuple[str, ...]] = Counter()
    for fault in manifest["faults"]:
        finding = fault["finding"]
        check = KINDS[fault["kind"]].check
        assert finding["check"] == check
        if check == "replay":
            where = str(finding["round"])
        elif check == "reconcile":
            where = finding["gaming_day"]
        else:
            where = str(finding["version"])
        want[(check, fault["table"], finding["kind"], where)] += 1
    return want


def _lines(data: bytes) -> list[str]:
    return [line.decode() for line in data.split(b"\n") if line]


def events_of(data: bytes) -> list[dict[str, Any]]:
    return [json.loads(line) for line in _lines(data)]
