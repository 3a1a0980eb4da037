"""The audit of a simulated file against its manifest (``simulate --check``): what
replay, the ledger's books and reconciliation and the chain check find, next to what the
manifest says they must. It lives in ``casino`` because it brings the engine and the
ledger together, which neither ``tables`` nor ``ledger`` may import from the other.

Findings are compared as ``(check, table, kind, where)``: ``check`` is the owner of the
finding kind in the findings vocabulary - ``engine`` (replay; ``where`` is the round),
``ledger`` (the books of each stream and the reconciliation of each of its days, at
the default thresholds; the gaming day) or ``integrity`` (the chain check;
the stream version). A chain check stops at a stream's first bad event, so only the
first tampering of a stream is expected from it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from audit.record.events import read_current
from audit.record.jsonl import decode_lines
from audit.record.verify import verify
from ledger.books import fold, reconcile
from ledger.config import has_drop_box
from tables.engine.replay import replay
from tables.simulator.faults import KINDS

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
    """Every finding of replay, the books and the chain check in ``lines``, each decoded
    once by the record core's codec and checked by its chain verifier."""
    envelopes = list(decode_lines(lines))
    streams: dict[str, list[Mapping[str, Any]]] = {}
    for _, envelope in envelopes:
        event = envelope.as_dict()
        streams.setdefault(event["stream"], []).append(event)
    found = found_in_streams(streams)
    for p in verify(envelopes, check_payloads=False).problems:
        found[("integrity", p.stream, p.kind, str(p.version))] += 1
    return found


def found_in_streams(streams: Mapping[str, Sequence[Mapping[str, Any]]]) -> Counter[Key]:
    """What replay and the books find in each stream's events (envelope dicts, in
    version order): the engine's findings by round, the ledger's by gaming day."""
    found: Counter[Key] = Counter()
    for stream, written in streams.items():
        # read as every reader hands events to the folds: each payload in its current form
        events = [read_current(dict(event)) for event in written]
        for f in replay(events).findings:
            found[("engine", stream, f.kind, str(f.round))] += 1
        # the days whose game has a chip tray and a drop box (their counts and drop must be on record)
        boxed = {
            e["payload"]["gaming_day"]
            for e in events
            if e["type"] == "table.opened" and has_drop_box(e["payload"]["ruleset"])
        }
        books = fold(events, drop_box=boxed)
        for finding in [
            *books.findings,
            *(f for day in books.days() for f in reconcile(books.day(day)).findings),
        ]:
            found[("ledger", stream, finding.kind, str(finding.gaming_day))] += 1
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
