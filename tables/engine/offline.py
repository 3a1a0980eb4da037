"""Offline replay of an exported file: JSON Lines, one event envelope per line.

Lines are decoded by the record core's codec (``audit.record.jsonl``), strictly: a line
that is not an envelope makes the file unusable (:class:`UnusableInput`, naming the
line and the member). By default every line must be hash-chained and the chains are
checked with the core's verifier (``audit.record.verify``) before anything is replayed:
a broken chain is :class:`BrokenChain`, with every problem. ``verify_chain=False`` reads
lines without the chain's members as well (version, schema version, recorded_at,
prev_hash and hash optional, as ingest takes them) and checks nothing of the chain.

The events are grouped by stream in file order and each stream is replayed.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from audit.record.events import read_current
from audit.record.jsonl import (
    LineError,
    NotChained,
    checked_payload,
    decode_fields,
    decode_line,
    numbered,
)
from audit.record.verify import Problem, verify

from .replay import ReplayResult, replay
from .rules import RuleSet


class UnusableInput(ValueError):
    """A line that is not an envelope; ``not_chained`` when it lacks only the members of
    the hash chain (it reads with ``verify_chain=False``)."""

    def __init__(self, line: int, reason: str, *, not_chained: bool = False) -> None:
        super().__init__(f"line {line}: {reason}")
        self.line = line
        self.reason = reason
        self.not_chained = not_chained


class BrokenChain(ValueError):
    """The file's hash chains do not hold; ``problems`` says where and how."""

    def __init__(self, problems: list[Problem]) -> None:
        super().__init__(f"{len(problems)} stream(s) with a broken chain")
        self.problems = problems


def read_events(lines: Iterable[str | bytes], *, verify_chain: bool = True) -> list[dict[str, Any]]:
    """The file's events as envelope dicts, in file order (see the module's docstring)."""
    try:
        if not verify_chain:
            return [_unchained(text, number) for number, text in numbered(lines)]
        envelopes = [(number, decode_line(text, number)) for number, text in numbered(lines)]
    except LineError as error:
        raise UnusableInput(
            error.line or 0, error.reason, not_chained=isinstance(error, NotChained)
        ) from None
    report = verify(envelopes, check_payloads=False)  # the codec has checked the payloads
    if not report.ok:
        raise BrokenChain(report.problems)
    return [read_current(envelope.as_dict()) for _, envelope in envelopes]


def _unchained(text: str | bytes, number: int) -> dict[str, Any]:
    """A line read without its chain, its payload in its type's current form."""
    fields = decode_fields(text, number)
    schema_version, payload = checked_payload(fields, number)
    return read_current(
        {
            "id": str(fields.id),
            "stream": fields.stream,
            "version": fields.version,
            "type": fields.type,
            "schema_version": schema_version,
            "payload": payload,
        }
    )


def replay_events(events: list[dict[str, Any]], rules: RuleSet | None = None) -> list[ReplayResult]:
    streams: dict[str, list[dict[str, Any]]] = {}
    for event in events:
        streams.setdefault(str(event["stream"]), []).append(event)
    results = []
    for stream, stream_events in streams.items():
        result = replay(stream_events, rules)
        if result.stream is None:
            result = ReplayResult(
                stream, result.rules, result.rounds, result.findings, result.events
            )
        results.append(result)
    return results


def replay_lines(
    lines: Iterable[str | bytes], rules: RuleSet | None = None, *, verify_chain: bool = True
) -> list[ReplayResult]:
    return replay_events(read_events(lines, verify_chain=verify_chain), rules)
