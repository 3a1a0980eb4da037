"""A simulation run: every table's days through a sink, and the manifest of faults.

A sink takes each table's events chunk by chunk (``write``) and finishes (``finish``):
:class:`.output.JsonlWriter` behind :class:`FileSink` for a file, or
``tables.simulator.store.StoreSink`` straight into the event store.
"""

from __future__ import annotations

import dataclasses
import os
import tempfile
from collections.abc import Callable
from typing import IO, Any, Protocol

from audit.record.collector import bulk_work
from audit.record.jsonl import with_position
from audit.record.processes import process_pool
from tables.engine.strategy import computed_strategy

from .config import SimConfig, TableSpec
from .day import Event, TableSim
from .output import JsonlWriter

MANIFEST_FORMAT = 1


class Sink(Protocol):
    def write(
        self, stream: str, first_version: int, events: list[Event], marks: dict[int, dict[str, Any]]
    ) -> None: ...
    def finish(self, faults: list[dict[str, Any]]) -> None: ...


class FileSink:
    def __init__(self, out: IO[bytes], config: SimConfig) -> None:
        self.writer = JsonlWriter(out, config.clock_start, config.root)

    def write(
        self, stream: str, first_version: int, events: list[Event], marks: dict[int, dict[str, Any]]
    ) -> None:
        self.writer.write(stream, first_version, events, marks)

    def finish(self, faults: list[dict[str, Any]]) -> None:
        return None

    @property
    def events(self) -> int:
        return self.writer.lines


def _table(
    config: SimConfig, spec: TableSpec, sink: Sink, progress: Callable[[int], None] | None
) -> tuple[TableSim, dict[str, Any]]:
    sim = TableSim(config, spec)
    version = 1
    done = 0
    # bulk work: the table dealt and written, the collector's young threshold raised
    # (audit.record.collector)
    with bulk_work():
        for chunk in sim.run():
            if chunk:
                sink.write(spec.code, version, chunk, sim.marks)
                version += len(chunk)
            if progress is not None and sim.number != done:
                progress(sim.number - done)
                done = sim.number
    # who played (the live game's bettors are no one's players): the answer the analytics
    # must find - the counters flagged, the casual players' errors (``strategy_errors``)
    players = [] if spec.live else [{"player": p.id, "kind": p.kind} for p in sim.people.values()]
    return sim, {
        "table": spec.code,
        "ruleset": spec.rules.name,
        "min_bet": spec.min_bet,
        "max_bet": spec.max_bet,
        "live": spec.live,
        "rounds": sim.number,
        "events": version - 1,
        "players": players,
    }


def simulate(
    config: SimConfig, sink: Sink, *, progress: Callable[[int], None] | None = None
) -> dict[str, Any]:
    """Run the simulation into ``sink``; return the manifest."""
    faults: list[dict[str, Any]] = []
    missed: list[dict[str, Any]] = []
    errors: list[dict[str, Any]] = []
    tables = []
    for spec in config.table_specs():
        sim, table = _table(config, spec, sink, progress)
        faults.extend(sim.planted)
        missed.extend(sim.not_planted)
        errors.extend(sim.strategy_errors)
        tables.append(table)
    sink.finish(faults)
    return _manifest(config, tables, faults, missed, errors)


def _worker(
    config: SimConfig, index: int, folder: str
) -> tuple[str, dict[str, Any], list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]:
    spec = config.table_specs()[index]
    path = os.path.join(folder, f"{index:05d}.jsonl")
    with open(path, "wb") as out:
        sim, table = _table(config, spec, FileSink(out, config), None)
    return path, table, sim.planted, sim.not_planted, sim.strategy_errors


def simulate_file(
    config: SimConfig,
    out: IO[bytes],
    *,
    jobs: int = 1,
    progress: Callable[[int], None] | None = None,
) -> dict[str, Any]:
    """:func:`simulate` into a file, the tables dealt by ``jobs`` processes at once. The
    bytes are the same whatever ``jobs`` is: tables are independent streams, each written
    whole in table order, and positions are renumbered as the parts are joined."""
    pool = process_pool(jobs, spawn=True) if jobs > 1 and config.tables > 1 else None
    if pool is None:
        return simulate(config, FileSink(out, config), progress=progress)
    if config.start is None:  # one clock for every worker
        config = dataclasses.replace(config, start=config.clock_start)
    specs = config.table_specs()
    for spec in specs:  # computed once here, inherited by the forked workers
        if not spec.live:
            computed_strategy(spec.rules)
    faults: list[dict[str, Any]] = []
    missed: list[dict[str, Any]] = []
    errors: list[dict[str, Any]] = []
    tables = []
    position = 0
    with tempfile.TemporaryDirectory(prefix="simulate-") as folder, pool:
        parts = [pool.submit(_worker, config, spec.index, folder) for spec in specs]
        for part in parts:
            path, table, planted, not_planted, strategy_errors = part.result()
            offset = position
            with open(path, "rb") as lines:
                for line in lines:
                    position += 1
                    out.write(with_position(line, position))
            os.unlink(path)
            for fault in planted:
                if "line" in fault:
                    fault["line"] += offset
            faults.extend(planted)
            missed.extend(not_planted)
            errors.extend(strategy_errors)
            tables.append(table)
            if progress is not None:
                progress(table["rounds"])
    return _manifest(config, tables, faults, missed, errors)


def _manifest(
    config: SimConfig,
    tables: list[dict[str, Any]],
    faults: list[dict[str, Any]],
    missed: list[dict[str, Any]],
    errors: list[dict[str, Any]],
) -> dict[str, Any]:
    rounds = sum(t["rounds"] for t in tables)
    events = sum(t["events"] for t in tables)
    return {
        "format": MANIFEST_FORMAT,
        "seed": config.seed,
        "start": config.clock_start.isoformat(),
        "days": config.days,
        "rounds": rounds,
        "events": events,
        "tables": tables,
        "faults": [_public(f) for f in faults],
        "not_planted": missed,
        "strategy_errors": errors,
    }


def _public(fault: dict[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in fault.items() if k != "altered_payload"}
    if "altered_payload" in fault:
        out["altered"] = {"player": fault["altered_payload"]["player"]}
    return out
