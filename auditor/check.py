"""``blackjack-audit verify``: everything a package says, checked from the package alone.

In order, each disagreement kept (none stops the others, except a package that cannot be
read at all - :class:`.layout.Unreadable`, exit 2):

1. **the manifest's signature** (``manifest.sig``, the casino's Ed25519 key): any byte of
   the manifest changed, or a forged signature;
2. **the files**: each one's SHA-256 and size against the manifest; a file missing, or
   one the manifest does not list;
3. **the signed tree heads**: each signature; each head's consistency proof from the one
   before it (the record only grew); with ``--previous``, the proof that this package's
   latest head grew from the earlier package's;
4. **each table's events**: every line decoded strictly by the one JSON Lines codec, the
   chain checked by the one verifier (:mod:`audit.record.verify`) from the hash the
   period starts after, each stream head the latest signed head names in the period
   compared, and the inclusion proof of the stream's last event in the latest head (the
   chain's links then prove every event before it); the manifest's counts, versions and
   hashes compared with the file's; every rule set re-hashed;
5. **the reports**: rounds, reconciliation and checks recomputed from the events (the
   engine's replay, the ledger's books) and compared line by line with both the CSV and
   the JSON; the findings and the access log (the back-office's word) checked for CSV and
   JSON saying the same.

Tables are independent: with several, step 4 and the recomputation of step 5 run in
worker processes (``--jobs``, default one per processor), each reading its own tables
from the package; what they find is reported in table order, as one process would.

Keys: ``--key`` pins the casino's published public keys; without it the previous
package's keys are trusted (``--previous``), else the package's own (the summary says
which: a package's own keys prove integrity since signing, not who signed).
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import tempfile
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import IO, Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from audit.record import merkle, signing
from audit.record.collector import bulk_work
from audit.record.events import read_current
from audit.record.jsonl import LineError, decode_hashed
from audit.record.processes import can_fork, cpus, process_pool
from audit.record.verify import Head, Verifier
from tables.engine.math import cashout
from tables.engine.math.figures import analysed_math as engine_math
from tables.engine.presets import PRESETS

from . import layout
from .reports import (
    COLUMNS,
    DropBox,
    Spool,
    StreamAudit,
    StreamReports,
    rates_of,
    render,
    rule_set_entry,
    rule_set_key,
    stated_drop_box,
    stated_math,
)

# differing lines listed per report file; the rest counted
LINES_PER_FILE = 10


@dataclass(frozen=True, slots=True)
class Disagreement:
    """What the package says that its own contents, its proofs or a recomputation do not
    bear out. ``check`` is which check; ``file``/``line``/``stream``/``version`` where."""

    check: str
    detail: str
    file: str | None = None
    line: int | None = None
    stream: str | None = None
    version: int | None = None
    expected: str | None = None
    found: str | None = None

    def __str__(self) -> str:
        where = "".join(
            [
                self.file or "",
                f":{self.line}" if self.line is not None else "",
                (" " if self.file else "") + f"stream {self.stream}" if self.stream else "",
                f" version {self.version}" if self.version is not None else "",
            ]
        ).strip()
        said = "".join(
            [
                f"\n    expected: {self.expected}" if self.expected is not None else "",
                f"\n    found:    {self.found}" if self.found is not None else "",
            ]
        )
        return f"[{self.check}] {where + ': ' if where else ''}{self.detail}{said}"


@dataclass
class Outcome:
    summary: list[str] = field(default_factory=list)
    disagreements: list[Disagreement] = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        return 1 if self.disagreements else 0


def load_keys(paths: Iterable[str | Path]) -> dict[str, Ed25519PublicKey]:
    keys = {}
    for path in paths:
        try:
            key = signing.load_public_key(Path(path).read_bytes())
        except OSError as error:
            raise layout.BadRequest(f"--key {path}: {error.strerror or error}") from None
        except signing.UnusableKey as error:
            raise layout.BadRequest(f"--key {path}: {error}") from None
        keys[signing.key_id(key)] = key
    return keys


def _manifest_keys(manifest: Mapping[str, Any], where: str) -> dict[str, Ed25519PublicKey]:
    keys = {}
    for kid, pem in dict(manifest.get("public_keys") or {}).items():
        try:
            key = signing.load_public_key(str(pem).encode())
        except signing.UnusableKey as error:
            raise layout.Unreadable(f"{where}: public key {kid}: {error}") from None
        keys[str(kid)] = key
    return keys


class _Check:
    def __init__(
        self,
        package: layout.Package,
        manifest: dict[str, Any],
        keys: dict[str, Ed25519PublicKey],
        *,
        edges: bool = False,
    ):
        self.package = package
        self.manifest = manifest
        self.keys = keys
        self.edges = (
            edges  # the house edges analysed again by the engine, not taken from the manifest
        )
        self.version = int(manifest.get("format_version") or 1)
        # 7: the days' exchange rates and the rule sets' drop boxes, as the back-office's books use them
        self.rates: dict[tuple[str, str, str], Fraction] = {}
        self.drop_box: DropBox | None = None
        if self.version >= 7:
            try:
                self.rates = rates_of(manifest.get("fx_rates") or [])
            except ValueError as error:
                raise layout.Unreadable(
                    f"{package.path}: {layout.MANIFEST} is malformed: {error}"
                ) from None
            self.drop_box = stated_drop_box(manifest.get("rule_sets") or {})
        self.outcome = Outcome()
        self.broken_files: set[str] = set()

    def disagree(self, check: str, detail: str, **where: Any) -> None:
        self.outcome.disagreements.append(Disagreement(check, detail, **where))

    # --- 1 and 2: the manifest's signature, the files ------------------------------------------

    def signature(self) -> None:
        try:
            signed = json.loads(self.package.read(layout.SIGNATURE))
        except (layout.Unreadable, ValueError) as error:
            self.disagree(
                "signature",
                f"the manifest's signature cannot be read ({error})",
                file=layout.SIGNATURE,
            )
            return
        why = signing.verify_document(
            self.package.read(layout.MANIFEST),
            signed if isinstance(signed, dict) else {},
            self.keys,
        )
        if why is not None:
            self.disagree(
                "signature",
                f"{layout.MANIFEST} and its signature {layout.SIGNATURE} do not agree: {why}",
                file=layout.MANIFEST,
            )

    def files(self) -> None:
        listed: dict[str, Any] = self.manifest["files"]
        present = set(self.package.names())
        for name in sorted(present - set(listed) - {layout.MANIFEST, layout.SIGNATURE}):
            self.disagree("files", "a file the manifest does not list", file=name)
        for name, meta in sorted(listed.items()):
            if name not in present:
                self.disagree("files", "listed in the manifest but missing", file=name)
                self.broken_files.add(name)
                continue
            with self.package.open(name) as stream:
                digest, size = layout.sha256_of(stream)
            if digest != meta.get("sha256") or size != meta.get("bytes"):
                self.disagree(
                    "files",
                    "the file's SHA-256 is not the manifest's: the file changed",
                    file=name,
                    expected=f"{meta.get('sha256')} ({meta.get('bytes')} bytes)",
                    found=f"{digest} ({size} bytes)",
                )
                self.broken_files.add(name)

    # --- 3: signed heads -------------------------------------------------------------------------

    def heads(self, previous: dict[str, Any] | None) -> signing.SignedTreeHead | None:
        heads: list[tuple[signing.SignedTreeHead, dict[str, Any]]] = []
        for number, data in enumerate(self.manifest["signed_heads"]):
            try:
                sth = signing.SignedTreeHead.from_dict(data)
            except (ValueError, TypeError) as error:
                self.disagree(
                    "heads", f"signed head {number} cannot be read: {error}", file=layout.MANIFEST
                )
                continue
            why = signing.verify_head(sth, self.keys)
            if why is not None:
                self.disagree(
                    "heads",
                    f"the signed head of {sth.size:,} events: its signature does not hold: {why}",
                    file=layout.MANIFEST,
                    expected=f"a signature by {', '.join(sorted(self.keys))}",
                    found=f"{sth.signature.hex()[:32]}... by key {sth.key_id}",
                )
            if heads and heads[-1][0].leaf_format != sth.leaf_format:
                before = heads[-1][0]
                self.disagree(
                    "heads",
                    f"the signed head of {sth.size:,} events has leaves of format {sth.leaf_format}, "
                    f"the one of {before.size:,} events before it format {before.leaf_format}: no consistency "
                    "proof joins trees of two leaf formats, so this package cannot show that the record "
                    "only grew between them",
                    file=layout.MANIFEST,
                )
            elif heads:
                before = heads[-1][0]
                proof = [bytes.fromhex(node) for node in data.get("consistency") or []]
                if (
                    data.get("previous_size") != before.size
                    or data.get("previous_root") != before.root.hex()
                    or not merkle.verify_consistency(
                        before.size, sth.size, before.root, sth.root, proof
                    )
                ):
                    self.disagree(
                        "heads",
                        f"the signed head of {sth.size:,} events does not prove that it grew from "
                        f"the one of {before.size:,} events before it (consistency proof)",
                        file=layout.MANIFEST,
                    )
            heads.append((sth, data))
        if not heads:
            self.disagree("heads", "the manifest holds no signed head", file=layout.MANIFEST)
            return None
        latest = heads[-1][0]
        recorded = self.manifest.get("previous")
        if recorded is not None:
            proof = [bytes.fromhex(node) for node in recorded.get("consistency") or []]
            if not merkle.verify_consistency(
                recorded["size"], latest.size, bytes.fromhex(recorded["root"]), latest.root, proof
            ):
                self.disagree(
                    "previous",
                    f"the consistency proof from the previous package's head "
                    f"({recorded['size']:,} events) to this one's ({latest.size:,}) does not hold",
                    file=layout.MANIFEST,
                )
        if previous is not None:
            if previous.get("leaf_format", 1) != latest.leaf_format:
                self.disagree(
                    "previous",
                    f"the previous package's head has leaves of format "
                    f"{previous.get('leaf_format', 1)}, this package's format {latest.leaf_format}: no "
                    "consistency proof joins trees of two leaf formats",
                    file=layout.MANIFEST,
                )
            elif recorded is None:
                self.disagree(
                    "previous",
                    "the package carries no consistency proof from a previous package's head "
                    "(export it with --previous)",
                    file=layout.MANIFEST,
                )
            elif (recorded["size"], recorded["root"]) != (previous["size"], previous["root"]):
                self.disagree(
                    "previous",
                    "the package proves growth from another head than the previous package's",
                    file=layout.MANIFEST,
                    expected=f"size {previous['size']} root {previous['root']}",
                    found=f"size {recorded['size']} root {recorded['root']}",
                )
        return latest

    # --- 4: each table's events ------------------------------------------------------------------

    def stream(
        self, name: str, meta: Mapping[str, Any], latest: signing.SignedTreeHead | None
    ) -> StreamAudit | None:
        """The table's events checked and folded: its audit, to :meth:`StreamAudit.finish`
        (None, the audit closed, when its events cannot be read)."""
        audit = StreamAudit(
            name,
            first_version=meta["first_version"],
            struck=meta.get("struck") or (),
            events=meta.get("events"),
            authority=meta.get("authority") or {},
            math=engine_math if self.edges else stated_math(self.manifest.get("rule_sets") or {}),
            rates=self.rates,
            drop_box=self.drop_box,
        )
        done = None
        try:
            done = self._events(name, meta, latest, audit)
        finally:
            if done is None:
                audit.close()
        return done

    def _events(
        self,
        name: str,
        meta: Mapping[str, Any],
        latest: signing.SignedTreeHead | None,
        audit: StreamAudit,
    ) -> StreamAudit | None:
        file = meta["file"]
        first = meta["first_version"]
        known: dict[str, tuple[int, str]] = {}
        if latest is not None and name in latest.streams:
            version, digest = latest.streams[name]
            if first <= version <= meta["last_version"]:
                known[name] = (version, digest)
            elif version < meta["last_version"]:
                self.disagree(
                    "inclusion",
                    f"the latest signed head ends the stream at version {version}, before the "
                    "package's last event",
                    file=file,
                    stream=name,
                    version=meta["last_version"],
                )
        verifier = Verifier(
            heads=known,
            start=lambda _: Head(first - 1, meta["first_prev_hash"], 0),
            check_payloads=False,
        )
        counts: dict[str, int] = {}
        last = None
        line = 0
        rule_sets = self.manifest.get("rule_sets") or {}
        check, add = verifier.check, audit.add  # once per line: held in locals
        try:
            for line, text in enumerate(self.package.lines(file), start=1):
                envelope, event = decode_hashed(text, line)
                if envelope.stream != name:
                    self.disagree(
                        "events",
                        "an event of another stream",
                        file=file,
                        line=line,
                        stream=name,
                        version=envelope.version,
                        expected=name,
                        found=envelope.stream,
                    )
                    return None
                problem = check(envelope, line)
                if problem is not None:
                    self.disagree(
                        "chain",
                        f"{problem.kind}: {problem.detail}",
                        file=file,
                        line=line,
                        stream=name,
                        version=problem.version,
                    )
                kind = envelope.type
                if kind == "table.opened":
                    entry = rule_set_entry(
                        event["payload"]["ruleset"], event["payload"].get("rules") or {}
                    )
                    stated = rule_sets.get(rule_set_key(entry))
                    if stated is None or stated.get("hash") != entry["hash"]:
                        self.disagree(
                            "rule_sets",
                            "the table opened with a rule set the manifest does not list",
                            file=file,
                            line=line,
                            stream=name,
                            version=envelope.version,
                            expected=rule_set_key(entry),
                            found=", ".join(sorted(rule_sets)) or "none",
                        )
                add(read_current(event))  # hashed as stored, folded in its current form
                counts[kind] = counts.get(kind, 0) + 1
                last = envelope
        except LineError as error:
            self.disagree(
                "events", f"not an event: {error.reason}", file=file, line=error.line, stream=name
            )
            return None
        except layout.CorruptFile as error:  # gzip's CRC and length checks, a cut file
            self.disagree(
                "events",
                f"the file cannot be decompressed ({error.reason})",
                file=file,
                line=line or None,
                stream=name,
            )
            return None
        for problem in verifier.finish().problems:
            if problem.kind == "truncated":
                self.disagree(
                    "chain",
                    f"{problem.kind}: {problem.detail}",
                    file=file,
                    line=problem.line,
                    stream=name,
                    version=problem.version,
                )
        if last is None:
            self.disagree("events", "the file holds no event", file=file, stream=name)
            return None
        stated = {
            "events": meta.get("events"),
            "counts": meta.get("counts"),
            "last_version": meta.get("last_version"),
            "last_hash": meta.get("last_hash"),
            "last_position": meta.get("last_position"),
        }
        found = {
            "events": line,
            "counts": dict(sorted(counts.items())),
            "last_version": last.version,
            "last_hash": last.hash,
            "last_position": last.position,
        }
        for key in stated:
            if stated[key] != found[key]:
                self.disagree(
                    "manifest",
                    f"the manifest's {key} is not the file's",
                    file=file,
                    line=line,
                    stream=name,
                    version=last.version,
                    expected=str(stated[key]),
                    found=str(found[key]),
                )
        if sorted(audit.struck_seen) != sorted(meta.get("struck") or ()):
            self.disagree(
                "manifest",
                "the events a correction strikes are not the manifest's",
                file=file,
                stream=name,
                expected=str(sorted(meta.get("struck") or ())),
                found=str(sorted(audit.struck_seen)),
            )
        listed = sorted(meta.get("authority") or {})
        if self.version >= 6 and sorted(audit.authority_seen) != listed:
            self.disagree(
                "manifest",
                "the events that change money (corrections, voids) are not the ones whose "
                "authority the manifest states",
                file=file,
                stream=name,
                expected=str(listed),
                found=str(sorted(audit.authority_seen)),
            )
        self.inclusion(name, meta, last, line, latest)
        return audit

    def inclusion(
        self,
        name: str,
        meta: Mapping[str, Any],
        last: Any,
        line: int,
        latest: signing.SignedTreeHead | None,
    ) -> None:
        if latest is None or last.position is None:
            return
        proof = meta.get("inclusion") or {}
        # the leaf as the head's tree made it: from format 2 it commits to the event's seal,
        # which the manifest carries (the seal itself is the casino's to check, not the package's)
        leaf = merkle.event_leaf(
            stream=name,
            version=last.version,
            position=last.position,
            event_hash=last.hash,
            seal=meta.get("last_seal"),
            leaf_format=latest.leaf_format,
        )
        path = [bytes.fromhex(node) for node in proof.get("path") or []]
        if not merkle.verify_inclusion(
            int(proof.get("index", -1)), latest.size, leaf, path, latest.root
        ):
            self.disagree(
                "inclusion",
                f"the stream's last event is not in the signed head of {latest.size:,} events "
                "(its inclusion proof does not lead to the head's root)",
                file=meta["file"],
                line=line,
                stream=name,
                version=last.version,
                expected=f"root {latest.root.hex()}",
                found=f"leaf {leaf.hex()}",
            )

    # --- 5: reports --------------------------------------------------------------------------------

    def reports(self, spools: Mapping[str, Spool], unread: Sequence[str]) -> int:
        """The recomputed reports (spooled a table at a time) against the package's. The
        rows of a table whose events could not be read are left out of the comparison
        (that table's disagreement is named already; its report lines are still covered
        by the files' hashes)."""
        for table in unread:
            self.disagree(
                "reports",
                "the table's report lines are not recomputed: its events cannot be read",
                stream=table,
            )
        for name, spool in spools.items():
            mine = spool.finish()
            if spool.blank:
                self.compare_older(name, spool, mine, unread)
                continue
            if not unread:
                for kind, spooled in mine.items():
                    self.compare_spooled(
                        layout.report_file(name, kind), spooled, "recomputed from the events"
                    )
                continue
            # the CSV's own lines of the other tables (a table's code is its first cell, and
            # has no comma); the JSON's rows of the other tables, as the exporter writes them
            try:
                lines = self.package.read(layout.report_file(name, "csv")).splitlines(keepends=True)
            except layout.Unreadable:
                lines = []
            kept = b"".join(
                lines[:1]
                + [
                    x
                    for x in lines[1:]
                    if x.split(b",", 1)[0].decode("utf-8", "replace") not in unread
                ]
            )
            self.compare(
                layout.report_file(name, "csv"),
                mine["csv"].read(),
                "recomputed from the events",
                found=kept,
            )
            stated = self.rows_of(name)
            if stated is not None:
                theirs = render(
                    name, [r for r in stated if r.get("table") not in unread], self.version
                )["json"]
                self.compare(
                    layout.report_file(name, "json"),
                    mine["json"].read(),
                    "recomputed from the events",
                    found=theirs,
                )
        for name in layout.REPORTS:
            if name in layout.RECOMPUTED:
                continue
            stated = self.rows_of(name)
            if stated is not None:
                for kind, data in render(name, stated, self.version).items():
                    self.compare(
                        layout.report_file(name, kind),
                        data,
                        f"as {layout.report_file(name, 'json')} states it",
                    )
        return spools["rounds"].rows

    def compare_older(
        self, name: str, spool: Spool, mine: Mapping[str, IO[bytes]], unread: Sequence[str]
    ) -> None:
        """An older format version's report against the recomputed one, with the columns
        reworded since (:data:`auditor.reports.REWORDED_IN`) left empty on both sides."""
        how = f"recomputed from the events (format {self.version}: {', '.join(sorted(spool.blank))} not compared)"
        file = layout.report_file(name, "csv")
        try:
            rows = list(
                csv.DictReader(io.StringIO(self.package.read(file).decode("utf-8", "replace")))
            )
        except layout.Unreadable:
            self.disagree("reports", "missing", file=file)
        else:
            kept = [
                {**r, **dict.fromkeys(spool.blank)} for r in rows if r.get("table") not in unread
            ]
            self.compare(file, mine["csv"].read(), how, found=layout.csv_bytes(spool.columns, kept))
        stated = self.rows_of(name)
        if stated is not None:
            rendered = render(
                name,
                [r for r in stated if r.get("table") not in unread],
                self.version,
                compared=True,
            )
            self.compare(
                layout.report_file(name, "json"), mine["json"].read(), how, found=rendered["json"]
            )

    def rows_of(self, name: str) -> list[dict[str, Any]] | None:
        file = layout.report_file(name, "json")
        try:
            rows = json.loads(self.package.read(file))["rows"]
            if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
                raise TypeError("rows: expected a list of objects")
            return rows
        except (layout.Unreadable, ValueError, KeyError, TypeError) as error:
            self.disagree("reports", f"cannot be read ({error})", file=file)
            return None

    def compare_spooled(self, file: str, expected: IO[bytes], how: str) -> None:
        """:meth:`compare` of a long file: the two told apart by their digests as they are
        read, and held whole only when they differ (to list the lines that do)."""
        try:
            with self.package.open(file) as found:
                same = layout.sha256_of(found) == layout.sha256_of(expected)
        except layout.Unreadable:
            self.disagree("reports", "missing", file=file)
            return
        if not same:
            expected.seek(0)
            self.compare(file, expected.read(), how, found=self.package.read(file))

    def compare(self, file: str, expected: bytes, how: str, *, found: bytes | None = None) -> None:
        if found is None:
            try:
                found = self.package.read(file)
            except layout.Unreadable:
                self.disagree("reports", "missing", file=file)
                return
        if found == expected:
            return
        want, got = (
            expected.decode("utf-8", "replace").splitlines(),
            found.decode("utf-8", "replace").splitlines(),
        )
        listed = 0
        for number in range(1, max(len(want), len(got)) + 1):
            a = want[number - 1] if number <= len(want) else "(no line)"
            b = got[number - 1] if number <= len(got) else "(no line)"
            if a == b:
                continue
            listed += 1
            if listed > LINES_PER_FILE:
                continue
            stream = b.split(",", 1)[0] if file.endswith(".csv") and number > 1 else None
            self.disagree(
                "reports",
                f"the line differs from the report {how}",
                file=file,
                line=number,
                stream=stream or None,
                expected=a,
                found=b,
            )
        if listed > LINES_PER_FILE:
            self.disagree(
                "reports", f"... and {listed - LINES_PER_FILE} more differing lines", file=file
            )


# (package, manifest, table, its manifest entry, latest head, --edges, where its round rows go)
_Job = tuple[
    str | Path, dict[str, Any], str, Mapping[str, Any], signing.SignedTreeHead | None, bool, str
]
_Done = tuple[list[Disagreement], StreamReports | None, int, int]
ROUND_ROWS = "rounds"  # the report whose rows grow with the rounds: spooled by the table's process


def _table(job: _Job) -> _Done:
    """One table's events checked and folded: (its disagreements, its recomputed report
    rows - None when its events cannot be read -, its events, its round rows). The round
    report's rows are not in the reports: they are written as they are made to the files
    ``part`` + ``.csv`` and ``.json``, as a part of a spool (:meth:`.Spool.take`). The
    table's folds are let go here: memory holds one table's at a time. Bulk work: the
    collector's young threshold raised (audit.record.collector; a worker process spawned
    rather than forked does not inherit the parent's)."""
    with bulk_work():
        return _table_checked(job)


def _table_checked(job: _Job) -> _Done:
    path, manifest, name, meta, latest, edges, part = job
    package = layout.Package(path)
    try:
        check = _Check(package, manifest, {}, edges=edges)
        audit = check.stream(name, meta, latest)
        if audit is None:
            return check.outcome.disagreements, None, 0, 0
        with open(part + ".csv", "wb") as csv_part, open(part + ".json", "wb") as json_part:
            rows = Spool(
                ROUND_ROWS, check.version, files=(csv_part, json_part), compared=True, part=True
            )
            reports = audit.finish(rounds=rows.add)
        return check.outcome.disagreements, reports, audit.replay.count, rows.rows
    finally:
        package.close()
        # another table deals from other shoes: its compositions are not these
        cashout.clear_caches()


def _prepare_offers(manifest: Mapping[str, Any]) -> None:
    """:func:`cashout.prepare` of each rule set the manifest lists that the engine knows
    (one it does not know, or a manifest that lies, is left to the checks to name)."""
    for entry in dict(manifest.get("rule_sets") or {}).values():
        try:
            rules = PRESETS[entry["ruleset"]].with_overrides(entry.get("overrides") or {})
        except (KeyError, TypeError, ValueError, AttributeError):
            continue
        cashout.prepare(rules)


def _each_table(jobs: Sequence[_Job], processes: int | None) -> Iterator[_Done]:
    """:func:`_table` of each job, in order: tables are independent, so with several
    tables they are fanned out over ``processes`` worker processes (default: one per
    processor), each reading its table from the package itself."""
    processes = min(len(jobs), processes or cpus())
    pool = process_pool(processes, spawn=True) if processes > 1 else None
    if pool is None:
        yield from map(_table, jobs)
        return
    # forked where this process may fork: the workers inherit what is imported (and what
    # is blocked), and the cash-out charts worked out here once rather than once per worker
    if can_fork():
        _prepare_offers(jobs[0][1])
    # the longest tables first, so that no worker is left with a long one at the end (the
    # manifest's count of each stream's events; a count it lies about only costs time);
    # the results still in the jobs' order
    order = sorted(range(len(jobs)), key=lambda number: -_events_of(jobs[number]))
    with pool:
        futures = {number: pool.submit(_table, jobs[number]) for number in order}
        for number in range(len(jobs)):
            yield futures[number].result()


def _events_of(job: _Job) -> int:
    count = job[3].get("events") if isinstance(job[3], Mapping) else None
    return count if isinstance(count, int) else 0


def verify_package(
    path: str | Path,
    *,
    previous: str | Path | None = None,
    keys: Sequence[str | Path] = (),
    edges: bool = False,
    processes: int | None = None,
) -> Outcome:
    """Check a package (see the module's docstring). :class:`.layout.Unreadable` when it
    cannot be read at all. ``processes``: how many worker processes check the tables
    (default one per processor; 1 checks them in this process). Bulk work: the
    collector's young threshold is raised while it runs (audit.record.collector)."""
    with bulk_work():
        return _verify(path, previous=previous, keys=keys, edges=edges, processes=processes)


def _verify(
    path: str | Path,
    *,
    previous: str | Path | None,
    keys: Sequence[str | Path],
    edges: bool,
    processes: int | None,
) -> Outcome:
    package = layout.Package(path)
    earlier = layout.Package(previous) if previous is not None else None
    spools: dict[str, Spool] = {}
    stack = contextlib.ExitStack()  # the folder of the tables' round rows
    try:
        manifest = package.manifest()  # its members' shapes checked (layout._Manifest)
        previous_manifest = earlier.manifest() if earlier is not None else None
        if keys:
            trusted, source = load_keys(keys), "pinned with --key"
        elif previous_manifest is not None:
            trusted, source = (
                _manifest_keys(previous_manifest, str(previous)),
                "the previous package's",
            )
        else:
            trusted, source = (
                _manifest_keys(manifest, str(path)),
                "the package's own; pin them with --key",
            )
        check = _Check(package, manifest, trusted, edges=edges)
        check.signature()
        check.files()
        previous_head = previous_manifest["signed_heads"][-1] if previous_manifest else None
        latest = check.heads(previous_head)
        spools.update(
            (name, Spool(name, check.version, compared=True)) for name in layout.RECOMPUTED
        )
        unread = []
        events = 0
        parts = stack.enter_context(tempfile.TemporaryDirectory(prefix="blackjack-audit-"))
        jobs = [
            (path, manifest, name, meta, latest, edges, os.path.join(parts, str(number)))
            for number, (name, meta) in enumerate(sorted(manifest["streams"].items()))
        ]
        for job, (disagreements, reports, count, rows) in zip(
            jobs, _each_table(jobs, processes), strict=True
        ):
            # in table order whatever the order the tables were done in: the same report
            check.outcome.disagreements.extend(disagreements)
            if reports is not None:
                events += count
                for name, spool in spools.items():
                    if name == ROUND_ROWS:
                        with (
                            open(job[6] + ".csv", "rb") as csv_part,
                            open(job[6] + ".json", "rb") as json_part,
                        ):
                            spool.take(csv_part, json_part, rows)
                    else:
                        spool.add(getattr(reports, name))
            else:
                unread.append(job[2])
            for suffix in (".csv", ".json"):
                with contextlib.suppress(FileNotFoundError):
                    os.remove(job[6] + suffix)
        rounds = check.reports(spools, unread)
    finally:
        stack.close()
        for spool in spools.values():
            spool.close()
        package.close()
        if earlier is not None:
            earlier.close()
    outcome = check.outcome
    period = manifest.get("period") or {}
    outcome.summary = [
        (
            f"package {path}: format {manifest['format_version']}, made by "
            f"{manifest.get('software', {}).get('version')}, gaming days {period.get('from')} to {period.get('to')}"
        ),
        f"keys: {', '.join(sorted(trusted)) or 'none'} ({source})",
        f"signed heads: {len(manifest['signed_heads'])}"
        + (
            f", the latest of {latest.size:,} events, root {latest.root.hex()[:16]}..."
            if latest
            else ""
        ),
        f"tables: {len(manifest['streams'])}, events: {events:,}, rounds replayed: {rounds:,}",
        f"files: {len(manifest['files'])} hashed"
        + (", consistency with the previous package checked" if previous is not None else ""),
        "all agree"
        if not outcome.disagreements
        else f"{len(outcome.disagreements)} disagreement(s)",
    ]
    return outcome


__all__ = ["COLUMNS", "Disagreement", "Outcome", "verify_package"]
