"""The books of the simulator's tables: every custody step recorded with its people
(fill and credit slips through their lifecycle, inventory slips, the drop box from
removal to posting), the chips reconciling with the record, each custody fault the
simulator plants found by the ledger exactly where the manifest says, nothing on clean
days, and the older (version 1) custody record still giving the same figures."""

from __future__ import annotations

import io
import json
from collections import defaultdict
from typing import Any

import pytest

from audit.record.events import read_current
from ledger.books import Thresholds, fold, reconcile
from ledger.config import drop_box_of
from tables.simulator.config import SimConfig
from tables.simulator.faults import KINDS
from tables.simulator.run import FileSink, simulate


def streams(config: SimConfig) -> tuple[dict[str, list[dict[str, Any]]], dict[str, Any]]:
    out = io.BytesIO()
    manifest = simulate(config, FileSink(out, config))
    by_stream: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for line in out.getvalue().splitlines():
        if line:
            event = read_current(json.loads(line))  # read as the readers read a file
            by_stream[event["stream"]].append(event)
    return by_stream, manifest


def ledger_findings(by_stream: dict[str, list[dict[str, Any]]]) -> set[tuple[str, str, str]]:
    """(table, gaming day, kind) of everything the books and the reconciliation of every
    day find, at the default thresholds."""
    found = set()
    for stream, events in by_stream.items():
        # the days whose game has a drop box (all but the live game's): their counts must be on record
        boxed = {
            e["payload"]["gaming_day"]
            for e in events
            if e["type"] == "table.opened" and drop_box_of(e["payload"]["ruleset"], ["it-live"])
        }
        books = fold(events, drop_box=boxed)
        found |= {(stream, f.gaming_day, f.kind) for f in books.findings}
        for day in books.days():
            found |= {(stream, f.gaming_day, f.kind) for f in reconcile(books.day(day)).findings}
    return found


CUSTODY = [kind for kind, fault in KINDS.items() if fault.check == "ledger"]


@pytest.mark.parametrize("seed", ["ledger-1", "ledger-2", "ledger-3"])
def test_the_ledger_finds_each_planted_custody_fault_and_nothing_else(seed: str) -> None:
    """At several seeds, custody faults at a rate: the ledger's findings are exactly the
    planted ones, by table, gaming day and kind."""
    rates = {kind: 0.04 for kind in CUSTODY} | {
        "opener_mismatch": 0.3,
        "chip_variance": 0.3,
        "drop_mismatch": 0.2,
    }
    by_stream, manifest = streams(
        SimConfig(tables=5, rounds=40, days=3, seed=seed, live_bets=30, rates=rates)
    )
    planted = {(f["table"], f["gaming_day"], f["finding"]["kind"]) for f in manifest["faults"]}
    assert len({kind for _, _, kind in planted}) >= 6, planted
    assert ledger_findings(by_stream) == planted


def test_a_fault_free_simulated_day_balances_and_reconciles() -> None:
    by_stream, manifest = streams(
        SimConfig(tables=4, rounds=40, days=2, seed="clean-ledger", live_bets=30)
    )
    assert manifest["faults"] == []
    reconciled = 0
    for events in by_stream.values():
        books = fold(events)
        assert books.findings == ()
        assert sum(books.trial_balance().values()) == 0
        for day in books.days():
            figures = books.day(day)
            if figures.chip_win is not None:
                reconciled += 1
                assert figures.chip_win == figures.recorded_win
            assert reconcile(figures, thresholds=Thresholds(report_above=0)).findings == ()
    assert reconciled >= 4


def test_the_older_custody_record_gives_the_same_figures() -> None:
    """A record of version 1 custody - the table-side steps only, without their people,
    counts without their slip, a drop count without its removal and posting - gives each
    day the same chip-count figures as the full record of version 2, and no finding."""
    by_stream, _ = streams(SimConfig(tables=3, rounds=30, days=2, seed="v1", live_bets=30))
    table_side = {
        "inventory.counted": ("kind", "chips", "counted_by", "witnessed_by"),
        "chips.filled": ("slip", "chips"),
        "chips.credited": ("slip", "chips"),
        "drop.counted": ("gaming_day", "cash", "markers", "currency", "counted_by"),
    }
    compared = 0
    for events in by_stream.values():
        as_v1 = []
        for e in events:
            if e["type"] in table_side:
                as_v1.append(
                    {
                        **e,
                        "schema_version": 1,
                        "payload": {k: e["payload"][k] for k in table_side[e["type"]]},
                    }
                )
            elif e["type"].split(".")[0] not in {
                "fill",
                "credit",
                "drop",
            }:  # the steps version 1 has no event for
                as_v1.append(e)
        # version 1 read as every reader hands events to the folds: lifted by the catalogue
        new, old = fold(events), fold([read_current(e) for e in as_v1])
        assert old.findings == () and new.findings == ()
        assert old.days() == new.days()
        for day in new.days():
            a, b = new.day(day), old.day(day)
            assert (a.opener, a.closer, a.fills, a.credits, a.drop, a.chip_win) == (
                b.opener,
                b.closer,
                b.fills,
                b.credits,
                b.drop,
                b.chip_win,
            )
            compared += a.chip_win is not None
        assert sum(old.trial_balance().values()) == 0
    assert compared >= 4
