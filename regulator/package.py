"""The regulator's package, exported from the store (``manage.py export_package``).

It lives in the project layer because it gathers what the layers below may not know of
each other: the record (events, signed heads, proofs, findings, the access log), the
rules engine's replay and the ledger's books (through the pure auditor, :mod:`auditor`,
which recomputes the same reports offline). The format is :mod:`auditor.layout`'s.

Bad input is found before anything is written (:class:`PackageError`, exit 2); the
package is built in a temporary folder beside ``--out`` and renamed into place at the
end, so a failure leaves nothing behind. Events are read with a server-side iterator and
written as they come, and each table's report rows as the table ends
(:mod:`.report_files`): memory holds one table's folds and rows, not the period's.
"""

from __future__ import annotations

import importlib.metadata
import shutil
import tempfile
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db.models import Max

from audit.access.log import access_export
from audit.findings.workflow import FINDINGS_STREAM
from audit.integrity import digests
from audit.models import AccessRecord, Event, Finding
from audit.record import merkle, signing
from audit.record.authority import refused_of
from audit.record.chain import format_timestamp
from audit.record.events import AUTHORITY, read_current
from audit.record.jsonl import encode_line
from audit.store.gaming_day import gaming_day_bounds
from audit.store.seals import seal_holds
from audit.store.streams import envelope_of
from auditor import layout
from auditor.reports import StreamAudit, fx_rates_entries, rule_set_entry, rule_set_key, struck_ids
from ledger import config as ledger_config
from ledger import fx
from tables.engine.math.figures import engine_math

from .report_files import ReportFiles

SERVER_STREAMS = "audit."


class PackageError(Exception):
    """Bad input: nothing was written (exit 2). ``field``: the input it is about (``day``,
    ``to``, ``table``, ``out``, ``previous``); ``missing``: the store has nothing there (an
    unknown table, a period with no table open: the REST API's 404, not 400)."""

    def __init__(self, message: str, *, field: str = "", missing: bool = False) -> None:
        super().__init__(message)
        self.field = field
        self.missing = missing


@dataclass(frozen=True, slots=True)
class Slice:
    """One table's events of the period: versions ``first`` .. ``last``."""

    table: str
    first: int
    last: int


def table_slices(day_from: date, day_to: date, tables: Sequence[str] = ()) -> list[Slice]:
    """Each table's versions from its first ``table.opened`` of a gaming day in the period
    to the event before its next ``table.opened`` after the period (or its last event)."""
    if day_to < day_from:
        raise PackageError(f"--to {day_to} is before --day {day_from}", field="to")
    for table in tables:
        if table.startswith(SERVER_STREAMS) or not Event.objects.filter(stream=table).exists():
            raise PackageError(
                f"--table {table}: the store has no table with that code",
                field="table",
                missing=True,
            )
    opened = Event.objects.filter(type="table.opened").exclude(stream__startswith=SERVER_STREAMS)
    if tables:
        opened = opened.filter(stream__in=tables)
    bounds: dict[str, list[int | None]] = {}
    for stream, version, payload in opened.order_by("stream", "version").values_list(
        "stream", "version", "payload"
    ):
        day = date.fromisoformat(payload["gaming_day"])
        first_last = bounds.setdefault(stream, [None, None])
        if day_from <= day <= day_to and first_last[0] is None:
            first_last[0] = version
        elif day > day_to and first_last[0] is not None and first_last[1] is None:
            first_last[1] = version - 1
    period = f"gaming day {day_from}" + (f" to {day_to}" if day_to != day_from else "")
    slices = []
    for table in sorted(set(tables) | set(bounds)):
        first, last = bounds.get(table, [None, None])
        if first is None:
            if tables:
                raise PackageError(
                    f"--table {table}: no gaming day of the table in {period}",
                    field="table",
                    missing=True,
                )
            continue
        if last is None:
            last = Event.objects.filter(stream=table).aggregate(v=Max("version"))["v"]
        slices.append(Slice(table, first, last))
    if not slices:
        raise PackageError(
            f"no table was open in {period}: nothing to export", field="day", missing=True
        )
    return slices


def check_out(out: Path, *, force: bool) -> None:
    if out.exists() and not force:
        raise PackageError(f"--out {out}: exists already (add --force to replace it)", field="out")
    if out.exists() and out.is_dir() != (out.suffix != ".zip"):
        raise PackageError(
            f"--out {out}: exists and is not a {'zip' if out.suffix == '.zip' else 'folder'}",
            field="out",
        )
    if not out.parent.is_dir():
        raise PackageError(f"--out {out}: the folder {out.parent} does not exist", field="out")
    try:
        with tempfile.TemporaryFile(dir=out.parent):
            pass
    except OSError as error:
        raise PackageError(
            f"--out {out}: cannot write in {out.parent} ({error.strerror or error})", field="out"
        ) from None


def previous_head(path: Path) -> dict[str, Any]:
    """The latest signed head of an earlier package (``--previous``)."""
    try:
        package = layout.Package(path)
        try:
            heads = package.manifest()["signed_heads"]
        finally:
            package.close()
        return dict(heads[-1])
    except (layout.Unreadable, KeyError, IndexError, TypeError) as error:
        raise PackageError(
            f"--previous {path}: not a readable package ({error})", field="previous"
        ) from None


def finding_rows(tables: Sequence[str], day_from: date, day_to: date) -> list[dict[str, Any]]:
    """The back-office's findings of the tables and days, current and superseded, each
    with its whole workflow trail (the events of ``audit.findings``)."""
    rows = Finding.objects.filter(
        stream__in=tables, gaming_day__gte=day_from, gaming_day__lte=day_to
    ).order_by("stream", "gaming_day", "round", "id")
    trails: dict[str, list[dict[str, Any]]] = {}
    fingerprints = {f.fingerprint for f in rows}
    for event in (
        Event.objects.filter(stream=FINDINGS_STREAM).order_by("version").iterator(chunk_size=2000)
    ):
        key = event.payload.get("finding")
        if key in fingerprints:
            trails.setdefault(key, []).append(
                {
                    "version": event.version,
                    "at": format_timestamp(event.occurred_at),
                    "by": event.payload.get("by", ""),
                    "action": event.type.removeprefix("finding."),
                    "previous": event.payload.get("previous", ""),
                    "note": event.payload.get("note") or "",
                }
            )
    return [
        {
            "id": f.pk,
            "table": f.stream,
            "gaming_day": f.gaming_day.isoformat() if f.gaming_day else None,
            "kind": f.kind,
            "severity": f.severity,
            "round": f.round,
            "box": f.box,
            "hand": f.hand,
            "bet": f.bet,
            "shift": f.shift,
            "slip": f.slip,
            "expected": f.expected,
            "recorded": f.recorded,
            "message": f.message,
            "event": str(f.event_id) if f.event_id else None,
            "event_version": f.event_version,
            "status": f.status,
            "superseded": f.superseded_by_id is not None,
            "trail": trails.get(f.fingerprint, []),
        }
        for f in rows
    ]


def access_rows(day_from: date, day_to: date) -> Iterator[dict[str, Any]]:
    start, end = gaming_day_bounds(day_from, day_to)
    return (
        {
            "id": r.pk,
            "at": format_timestamp(r.at),
            "principal": r.principal,
            "method": r.method,
            "path": r.path,
            "query": r.query,
            "what": r.what,
            "status": r.status,
            "address": r.address,
        }
        for r in AccessRecord.objects.filter(at__gte=start, at__lt=end)
        .order_by("pk")
        .iterator(chunk_size=2000)
    )


def covering_head(slices: Sequence[Slice]) -> signing.SignedTreeHead:
    """The latest signed head, signed anew when it does not cover every exported event."""
    last = max(
        (Event.objects.get(stream=s.table, version=s.last) for s in slices),
        key=lambda e: e.position,
    )
    sth = digests.latest_signed()
    # a head of an older leaf format is not the tree's any more: its proofs cannot be made
    if sth is None or sth.size <= digests.leaf_index(last) or sth.leaf_format != merkle.LEAF_FORMAT:
        try:
            sth, _ = digests.digest_sign()
        except digests.DigestError as error:
            raise PackageError(
                f"the period is not covered by a signed head and none can be signed: {error}"
            ) from None
    return sth


def _software_version() -> str:
    try:
        return importlib.metadata.version("blackjack-backoffice")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def export_package(
    *,
    day_from: date,
    day_to: date,
    tables: Sequence[str] = (),
    out: Path,
    force: bool = False,
    previous: Path | None = None,
    progress: Callable[[int], object] | None = None,
    total: Callable[[int], object] | None = None,
) -> dict[str, Any]:
    """Write the package; return its manifest. :class:`PackageError` on bad input
    (nothing written)."""
    slices = table_slices(day_from, day_to, tables)
    check_out(out, force=force)
    before = previous_head(previous) if previous is not None else None
    sth = covering_head(slices)
    if before is not None and before.get("leaf_format", 1) != sth.leaf_format:
        raise PackageError(
            f"--previous {previous}: its head's tree has leaves of format {before.get('leaf_format', 1)}, "
            f"this record's now format {sth.leaf_format} (each leaf commits to the event's seal): no "
            "consistency proof joins two formats; export without --previous (docs/regulator.md)",
            field="previous",
        )
    if before is not None and before.get("size", 0) > sth.size:
        raise PackageError(
            f"--previous {previous}: its head covers {before['size']:,} events, more than the "
            f"latest signed head ({sth.size:,}): it is not an earlier package of this record"
        )
    if total is not None:
        total(sum(s.last - s.first + 1 for s in slices))
    work = Path(tempfile.mkdtemp(dir=out.parent, prefix=f".{out.name}.part-"))
    try:
        manifest = _build(work, slices, sth, day_from, day_to, before, progress)
        if out.suffix == ".zip":
            built = work.with_suffix(".zip")
            layout.zip_folder(work, built)
            shutil.rmtree(work)
            work = built
        if out.exists():
            shutil.rmtree(out) if out.is_dir() else out.unlink()
        work.rename(out)
    except BaseException:
        if work.is_dir():
            shutil.rmtree(work, ignore_errors=True)
        else:
            work.unlink(missing_ok=True)
        raise
    return manifest


def export_logged(
    *,
    principal: str,
    address: str = "",
    day_from: date,
    day_to: date,
    tables: Sequence[str] = (),
    out: Path,
    **options: Any,
) -> dict[str, Any]:
    """:func:`export_package`, written to the access log as who exported what, where
    to, and whether it was written (200) or refused (400, :class:`PackageError`): the
    command, the REST API's task and the admin's all export through here."""
    period = day_from.isoformat() + (f"..{day_to.isoformat()}" if day_to != day_from else "")
    what = f"export_package {period} {','.join(tables) or 'every table'}"
    try:
        manifest = export_package(
            day_from=day_from, day_to=day_to, tables=tables, out=out, **options
        )
    except PackageError:
        access_export(principal=principal, what=what, path=str(out), status=400, address=address)
        raise
    access_export(
        principal=principal,
        what=f"{what} ({manifest['events']} events)",
        path=str(out.resolve()),
        status=200,
        address=address,
    )
    return manifest


def _build(
    folder: Path,
    slices: Sequence[Slice],
    sth: signing.SignedTreeHead,
    day_from: date,
    day_to: date,
    before: dict[str, Any] | None,
    progress: Callable[[int], object] | None,
) -> dict[str, Any]:
    (folder / layout.EVENTS_DIR).mkdir()
    (folder / "reports").mkdir()
    with ExitStack() as closing:
        reports = {
            name: ReportFiles(folder, name) for name in (*layout.RECOMPUTED, "findings", "access")
        }
        for report in reports.values():
            closing.callback(report.close)
        # the rates of the period's days, by which the books convert a foreign amount (the
        # manifest states them, so that the auditor books as the back-office does)
        rates = {
            key: rate
            for key, rate in fx.rates().items()
            if day_from <= date.fromisoformat(key[0]) <= day_to
        }
        streams, rule_sets, tables, counts = _tables(folder, slices, sth, reports, progress, rates)
        table_names = [part.table for part in slices]
        reports["findings"].write(finding_rows(table_names, day_from, day_to))
        reports["access"].write_all(access_rows(day_from, day_to))
    return _manifest(
        folder, sth, day_from, day_to, before, streams, rule_sets, tables, counts, rates
    )


def _drop_box(ruleset: str, overrides: Any) -> bool:
    return ledger_config.has_drop_box(ruleset)


def _tables(
    folder: Path,
    slices: Sequence[Slice],
    sth: signing.SignedTreeHead,
    reports: dict[str, ReportFiles],
    progress: Callable[[int], object] | None,
    rates: dict[tuple[str, str, str], Any],
) -> tuple[dict[str, Any], dict[str, Any], list[dict[str, Any]], Counter[str]]:
    """Each table's events written and folded, its report rows written as it ends:
    what the manifest says of the tables."""
    streams: dict[str, Any] = {}
    rule_sets: dict[str, Any] = {}
    counts: Counter[str] = Counter()
    tables = []
    for part in slices:
        rows = Event.objects.filter(
            stream=part.table, version__gte=part.first, version__lte=part.last
        )
        # who recorded each money-changing event, its seal checked here (the key is the
        # casino's): the folds of the back-office and the auditor's apply the same of them
        authority = {
            str(i): {"principal": principal, "sealed": seal_holds(digest, principal, seal)}
            for i, principal, seal, digest in rows.filter(type__in=list(AUTHORITY))
            .order_by("version")
            .values_list("event_id", "principal", "seal", "hash")
        }
        refused = refused_of(authority)
        struck = sorted(
            filter(
                None,
                (
                    struck_ids({"type": t, "payload": p})
                    for i, t, p in rows.filter(type="correction.recorded").values_list(
                        "event_id", "type", "payload"
                    )
                    if str(i) not in refused
                ),
            )
        )
        audit = StreamAudit(
            part.table,
            first_version=part.first,
            struck=struck,
            math=engine_math,
            authority=authority,
            rates=rates,
            drop_box=_drop_box,
        )
        name = layout.events_file(part.table)
        kinds: Counter[str] = Counter()
        first = last = None
        with (folder / name).open("wb") as raw:
            target = layout.GzipLines(raw)
            for number, row in enumerate(
                rows.order_by("version").iterator(chunk_size=2000), start=1
            ):
                envelope = envelope_of(row)
                target.write(encode_line(envelope))
                audit.add(
                    read_current(envelope.as_dict())
                )  # written as stored, folded in its current form
                kinds[row.type] += 1
                first = first or row
                last = row
                if progress is not None and number % 1000 == 0:
                    progress(1000)
            target.close()
        assert first is not None and last is not None
        if progress is not None:
            progress(sum(kinds.values()) % 1000)
        done = audit.finish()
        for report in layout.RECOMPUTED:
            reports[report].write(getattr(done, report))
        currencies = set()
        for payload in (
            rows.filter(type="table.opened").order_by("version").values_list("payload", flat=True)
        ):
            entry = rule_set_entry(payload["ruleset"], dict(payload.get("rules") or {}))
            # the figures the reconciliation's theoretical win used, exact ("n/d")
            math = engine_math(payload["ruleset"], dict(payload.get("rules") or {}))
            for key, figure in zip(
                ("house_edge", "variance", "covariance"), math or (None, None, None), strict=True
            ):
                entry[key] = None if figure is None else str(figure)
            entry["drop_box"] = _drop_box(payload["ruleset"], payload.get("rules") or {})
            rule_sets[rule_set_key(entry)] = entry
            currencies.add(payload["currency"])
        tables.append(
            {"table": part.table, "currencies": sorted(currencies), "gaming_days": audit.days}
        )
        proof = digests.inclusion_proof_of([last], sth)["proofs"][0]
        streams[part.table] = {
            "file": name,
            "events": sum(kinds.values()),
            "counts": dict(sorted(kinds.items())),
            "first_version": first.version,
            "last_version": last.version,
            "first_prev_hash": first.prev_hash,
            "last_hash": last.hash,
            "last_seal": last.seal,
            "first_position": first.position,
            "last_position": last.position,
            "first_index": digests.leaf_index(first),
            "struck": struck,
            "authority": authority,
            "gaming_days": audit.days,
            "inclusion": {"index": proof["index"], "leaf": proof["leaf"], "path": proof["path"]},
        }
        counts.update(kinds)
    return streams, rule_sets, tables, counts


def _manifest(
    folder: Path,
    sth: signing.SignedTreeHead,
    day_from: date,
    day_to: date,
    before: dict[str, Any] | None,
    streams: dict[str, Any],
    rule_sets: dict[str, Any],
    tables: list[dict[str, Any]],
    counts: Counter[str],
    rates: dict[tuple[str, str, str], Any],
) -> dict[str, Any]:
    files = {}
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        with path.open("rb") as stream:
            digest, size = layout.sha256_of(stream)
        files[path.relative_to(folder).as_posix()] = {"sha256": digest, "bytes": size}
    first_index = min(s["first_index"] for s in streams.values())
    manifest = {
        "format": layout.FORMAT,
        "format_version": layout.FORMAT_VERSION,
        "software": {"name": "blackjack-backoffice", "version": _software_version()},
        "casino": {
            "time_zone": settings.TIME_ZONE,
            "gaming_day_cutoff_hour": settings.GAMING_DAY_CUTOFF_HOUR,
        },
        "period": {"from": day_from.isoformat(), "to": day_to.isoformat()},
        "tables": tables,
        "rule_sets": rule_sets,
        "fx_rates": fx_rates_entries(rates),
        "streams": streams,
        "files": files,
        "event_counts": dict(sorted(counts.items())),
        "events": sum(counts.values()),
        "signed_heads": signed_heads(sth, first_index),
        "public_keys": {
            kid: signing.public_pem(key) for kid, key in sorted(digests.trusted_keys().items())
        },
        "previous": None
        if before is None
        else {
            "size": before["size"],
            "root": before["root"],
            "consistency": [
                node.hex()
                for node in merkle.consistency_proof(before["size"], sth.size, digests.subtrees())
            ],
        },
        "retention_years": settings.EVENT_RETENTION_YEARS,
    }
    data = layout.json_bytes(manifest)
    (folder / layout.MANIFEST).write_bytes(data)
    (folder / layout.SIGNATURE).write_bytes(
        layout.json_bytes(signing.sign_document(data, digests.signing_key()))
    )
    return manifest


def signed_heads(latest: signing.SignedTreeHead, first_index: int) -> list[dict[str, Any]]:
    """The signed heads that cover part of the period (size above its first event's
    leaf), oldest first, up to the one the proofs use; each with the consistency proof
    from the head before it, as stored. Only heads of the latest one's leaf format: no
    consistency proof joins a tree of another (audit.record.merkle)."""
    heads = []
    for payload in (
        Event.objects.filter(stream=digests.DIGEST_STREAM, type="digest.signed")
        .order_by("version")
        .values_list("payload", flat=True)
        .iterator(chunk_size=500)
    ):
        if (
            payload["size"] > first_index
            and payload["size"] <= latest.size
            and payload.get("leaf_format", 1) == latest.leaf_format
        ):
            heads.append(payload)
    if not heads or heads[-1]["size"] != latest.size or heads[-1]["root"] != latest.root.hex():
        heads.append(
            {**latest.as_dict(), "previous_size": None, "previous_root": None, "consistency": []}
        )
    return heads
