"""JSON Lines exchange format: the store exported, one envelope a line.

The format and its codec are the record core's (``audit.record.jsonl``): one envelope
per line, ``id``, ``stream``, ``version``, ``position``, ``type``, ``schema_version``,
``occurred_at``, ``recorded_at``, ``actor``, ``source``, ``payload``, ``prev_hash``,
``hash``, encoded as RFC 8785 JSON. Exports carry payloads as stored (not upcast), so
every line can be re-hashed by anyone.

Ingest (``audit.store.ingest.lines``) accepts the same lines. ``id``, ``stream``, ``type``,
``occurred_at``, ``actor``, ``source`` and ``payload`` are required. ``version`` (when
given) must follow on from the stream's previous line or its stored head; without it
events go to the end of the stream. ``recorded_at`` and ``hash`` come together or not
at all: given, the event is a restore - the server time is kept and the hash must match;
absent, the event is new and is stamped now. ``position`` and ``prev_hash`` are the
store's and are ignored on input (the chain is recomputed and, for restores, checked
through ``hash``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import IO

from audit.record.jsonl import encode_line
from audit.store.streams import envelope_of, iter_events


def export_events(
    out: IO[str], *, stream: str | None = None, progress: Callable[[int], None] | None = None
) -> int:
    """Write every event (or one stream's) in position order; return how many.
    ``progress(n)``: n more events written (every thousand, and at the end)."""
    count = 0
    for event in iter_events(stream=stream):
        out.write(encode_line(envelope_of(event)).decode())
        count += 1
        if progress is not None and not count % 1000:
            progress(1000)
    if progress is not None and count % 1000:
        progress(count % 1000)
    return count
