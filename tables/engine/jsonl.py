"""Offline replay of an exported file: JSON Lines, one event envelope per line.

``replay_lines`` reads the lines, refuses unusable input with the line number and the
reason (:class:`UnusableInput`), groups the events by stream in file order and replays
each stream. Payloads are checked against the event catalogue here - the file comes
from outside the store - which the in-memory hot path does not do.
"""
from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from audit.record.events import PayloadError, validate_payload

from .replay import ReplayResult, replay
from .rules import RuleSet

REQUIRED = ("id", "stream", "type", "payload")


class UnusableInput(ValueError):
    def __init__(self, line: int, reason: str) -> None:
        super().__init__(f"line {line}: {reason}")
        self.line = line
        self.reason = reason


def read_events(lines: Iterable[str]) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            event = json.loads(line)
        except json.JSONDecodeError as error:
            raise UnusableInput(number, f"not JSON ({error.msg} at column {error.colno})") from None
        if not isinstance(event, dict):
            raise UnusableInput(number, "not a JSON object")
        missing = [key for key in REQUIRED if key not in event]
        if missing:
            raise UnusableInput(number, f"missing {', '.join(missing)}")
        version = event.get("version")
        if version is not None and (not isinstance(version, int) or isinstance(version, bool) or version < 1):
            raise UnusableInput(number, f"version {version!r} is not a positive integer")
        try:
            _, normal = validate_payload(event["type"], event.get("schema_version"), event["payload"])
        except PayloadError as error:
            raise UnusableInput(number, str(error)) from None
        events.append({**event, "payload": normal})
    return events


def replay_events(events: list[dict[str, Any]], rules: RuleSet | None = None) -> list[ReplayResult]:
    streams: dict[str, list[dict[str, Any]]] = {}
    for event in events:
        streams.setdefault(str(event["stream"]), []).append(event)
    results = []
    for stream, stream_events in streams.items():
        result = replay(stream_events, rules)
        if result.stream is None:
            result = ReplayResult(stream, result.rules, result.rounds, result.findings, result.events)
        results.append(result)
    return results


def replay_lines(lines: Iterable[str], rules: RuleSet | None = None) -> list[ReplayResult]:
    return replay_events(read_events(lines), rules)
