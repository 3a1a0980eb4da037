"""Ingest of a JSON Lines file (format: ``audit.store.export``) into the event store.

Two passes, so that nothing of a stream with a bad line is stored and memory stays flat:

1. *Plan* (:mod:`.plan`). Every line is parsed and validated; lines already stored with
   the same content are skipped (so a file ingested twice is stored once); every other
   line is given its version, linked to its stream's previous event (the stored head, or
   the previous line) and hashed; restores' claimed hashes are checked. The finished rows
   go to a temporary spool file, not to memory. A bad line marks its stream bad.
2. *Write* (:mod:`.write`). The spool is read back and the rows of the good streams are
   written in file order, ``chunk`` rows per transaction, each under the store's append
   lock after one query confirms that no stream has moved on since the plan (a
   concurrent writer makes that stream fail from there on, reported with its line).

Each write pass keeps a checkpoint (an ``IngestRun`` and its ``IngestStep`` rows, both
append-only) in the transactions of its chunks, so an ingest that stops while writing
(killed, or the database gone: ``DatabaseLost``) leaves a record that ``verify`` names
until the same file is ingested again.

Which processes plan, and whether the rows are written while they are planned, is
:mod:`.strategy`'s choice (:func:`ingest_file`, the entry point).
"""

from __future__ import annotations

from .plan import IngestReport, line_refusals
from .strategy import DatabaseLost, ingest_file
from .write import unfinished_ingests

__all__ = ["DatabaseLost", "IngestReport", "ingest_file", "line_refusals", "unfinished_ingests"]
