"""The audit of a simulated file against its manifest: what replay, the chip
reconciliation and the chain check find, next to what the manifest says they must.

Findings are compared as ``(check, table, kind, where)``: ``check`` is the owner of the
finding kind in the findings vocabulary - ``engine`` (replay; ``where`` is the round),
``ledger`` (the chip reconciliation; the gaming day) or ``integrity`` (the chain check;
the stream version). A chain check stops at a stream's first bad event, so only the
first tampering of a stream is expected from it.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from audit.record.jsonl import decode_lines
from audit.record.verify import verify
from tables.engine.jsonl import replay_events

from .faults import KINDS
from .reconcile import reconcile_all

Key = tuple[str, str, str, str]


@dataclass(frozen=True)
class Check:
    found: Counter[Key]
    expected: Counter[Key]

    @property
    def unexpected(self) -> Counter[Key]:
        return self.found - self.expected

    @property
    def missed(self) -> Counter[Key]:
        return self.expected - self.found

    @property
    def ok(self) -> bool:
        return self.found == self.expected


def found_in(lines: Iterable[str | bytes]) -> Counter[Key]:
    """Every finding of replay, reconciliation and the chain check in ``lines``, each
    decoded once by the record core's codec and checked by its chain verifier."""
    envelopes = list(decode_lines(lines))
    events = [envelope.as_dict() for _, envelope in envelopes]
    found: Counter[Key] = Counter()
    for result in replay_events(events):
        for f in result.findings:
            found[("engine", str(result.stream), f.kind, str(f.round))] += 1
    for r in reconcile_all(events):
        found[("ledger", r.stream, r.kind, r.gaming_day)] += 1
    for p in verify(envelopes, check_payloads=False).problems:
        found[("integrity", p.stream, p.kind, str(p.version))] += 1
    return found


def expected_of(manifest: Mapping[str, Any]) -> Counter[Key]:
    """What the manifest's faults must be found as."""
    want: Counter[Key] = Counter()
    first_tamper: dict[str, int] = {}
    for fault in manifest["faults"]:
        finding = fault["finding"]
        check = KINDS[fault["kind"]].check
        if check == "integrity":
            version = int(finding["version"])
            if fault["table"] not in first_tamper or version < first_tamper[fault["table"]]:
                first_tamper[fault["table"]] = version
            continue
        where = str(finding["round"]) if check == "engine" else str(finding["gaming_day"])
        want[(check, fault["table"], finding["kind"], where)] += 1
    for table, version in first_tamper.items():
        want[("integrity", table, "altered", str(version))] += 1
    return want


def check_lines(lines: Iterable[str | bytes], manifest: Mapping[str, Any]) -> Check:
    return Check(found_in(lines), expected_of(manifest))


def check_file(path: str, manifest: Mapping[str, Any]) -> Check:
    with open(path, "rb") as lines:  # binary: split at newlines only
        return check_lines(lines, manifest)
