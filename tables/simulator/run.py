"""A simulation run: every table's days through a sink, and the manifest of faults.

A sink takes each table's events chunk by chunk (``write``) and finishes (``finish``):
:class:`.output.JsonlWriter` behind :class:`FileSink` for a file, or
``tables.simulator.store.StoreSink`` straight into the event store.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import IO, Any, Protocol

from .config import SimConfig
from .day import Event, TableSim
from .output import JsonlWriter

MANIFEST_FORMAT = 1


class Sink(Protocol):
    def write(self, stream: str, first_version: int, events: list[Event], marks: dict[int, dict[str, Any]]) -> None: ...
    def finish(self, faults: list[dict[str, Any]]) -> None: ...


class FileSink:
    def __init__(self, out: IO[bytes], config: SimConfig) -> None:
        self.writer = JsonlWriter(out, config.clock_start, config.root)

    def write(self, stream: str, first_version: int, events: list[Event], marks: dict[int, dict[str, Any]]) -> None:
        self.writer.write(stream, first_version, events, marks)

    def finish(self, faults: list[dict[str, Any]]) -> None:
        return None

    @property
    def events(self) -> int:
        return self.writer.lines


def simulate(config: SimConfig, sink: Sink, *, progress: Callable[[int], None] | None = None) -> dict[str, Any]:
    """Run the simulation into ``sink``; return the manifest."""
    faults: list[dict[str, Any]] = []
    missed: list[dict[str, Any]] = []
    tables = []
    rounds = 0
    events = 0
    for spec in config.table_specs():
        sim = TableSim(config, spec)
        version = 1
        done = 0
        for chunk in sim.run():
            if chunk:
                sink.write(spec.code, version, chunk, sim.marks)
                version += len(chunk)
            if progress is not None and sim.number != done:
                progress(sim.number - done)
                done = sim.number
        rounds += sim.number
        events += version - 1
        faults.extend(sim.planted)
        missed.extend(sim.not_planted)
        tables.append({"table": spec.code, "ruleset": spec.rules.name, "min_bet": spec.min_bet, "max_bet": spec.max_bet,
                       "live": spec.live, "rounds": sim.number, "events": version - 1})
    sink.finish(faults)
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
    }


def _public(fault: dict[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in fault.items() if k != "altered_payload"}
    if "altered_payload" in fault:
        out["altered"] = {"player": fault["altered_payload"]["player"]}
    return out
