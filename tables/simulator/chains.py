"""The hash chains of a JSON Lines file, checked offline.

``manage.py verify`` checks the chains in the database; a file (a simulator's output, an
export handed to the regulator) is checked here with nothing but ``audit.chain``: per
stream, in file order, versions must run 1, 2, 3 ..., each ``prev_hash`` must be the
hash of the line before it in the stream, and each line's content must match its hash.
The first bad line of each stream is reported, with the kind ``manage.py verify`` uses
(``bad_start``, ``gap``, ``broken_link``, ``altered``).
"""
from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass

from audit.record.chain import GENESIS_HASH, event_hash, parse_timestamp


@dataclass(frozen=True)
class ChainProblem:
    stream: str
    version: int
    line: int
    event_id: str
    kind: str  # bad_start | gap | broken_link | altered
    detail: str

    def __str__(self) -> str:
        return f"{self.stream}: line {self.line} (version {self.version}, id {self.event_id}): {self.kind}: {self.detail}"


def verify_lines(lines: Iterable[str | bytes]) -> list[ChainProblem]:
    heads: dict[str, tuple[int, str]] = {}
    broken: set[str] = set()
    problems: list[ChainProblem] = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        event = json.loads(line)
        stream = event["stream"]
        if stream in broken:
            continue
        version, prev = heads.get(stream, (0, GENESIS_HASH))
        problem = None
        if event["version"] != version + 1:
            problem = ("bad_start", f"the stream starts at version {event['version']}") if version == 0 else \
                ("gap", f"version {event['version']} follows {version}")
        elif event["prev_hash"] != prev:
            problem = ("broken_link", "prev_hash is not the previous line's hash")
        else:
            computed = event_hash(
                id=event["id"], stream=stream, version=event["version"], type=event["type"],
                schema_version=event["schema_version"], occurred_at=parse_timestamp(event["occurred_at"]),
                recorded_at=parse_timestamp(event["recorded_at"]), actor=event["actor"], source=event["source"],
                payload=event["payload"], prev_hash=event["prev_hash"],
            )
            if computed != event["hash"]:
                problem = ("altered", f"the content does not match its hash (stored {event['hash'][:12]}..., computed {computed[:12]}...)")
        if problem is not None:
            problems.append(ChainProblem(stream, event["version"], number, event["id"], *problem))
            broken.add(stream)
            continue
        heads[stream] = (event["version"], event["hash"])
    return problems


def verify_file(path: str) -> list[ChainProblem]:
    with open(path, "rb") as lines:
        return verify_lines(lines)
