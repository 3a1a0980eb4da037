"""Archival of a gaming day's partition (PostgreSQL): DETACH it from the event table, but
only once a regulator's package verified here covers every event in it.

The check, in order (any failure refuses, nothing is detached):

1. the partition is one of a past gaming day, attached;
2. the package verifies with the offline auditor (:func:`auditor.check.verify_package`,
   in this process), its signed heads under this store's own keys (not the package's);
3. every table event of the partition is in the package, with the same hash (the
   partition's rows and the package's lines compared stream by stream, in version order);
4. the server's own events of that day (``audit.*``: signed heads, access-log seals,
   findings' changes, which a package carries as reports rather than as events) are
   covered by the package's latest signed head: its tree size is above their leaves.

5. each stream's events in the partition carry on from where the stream's archived part
   ends (its versions 1 .. n archived before, the partition holding n + 1 onwards with
   none of them elsewhere): days are detached oldest first, so that what stays attached of
   a stream is always a whole tail of it.

Then, in one transaction under the append lock: the partition is detached; its events'
Merkle leaves (position, stream, version, hash, seal) are copied to ``audit_event_detached``, so
that the signed heads still check over their positions (audit.integrity.digests); and the detach is
recorded as a ``store.partition_detached`` event in the stream ``audit.store`` - the day,
the partition, the package's manifest SHA-256 and latest signed head, the events and
positions, each stream's versions, and every stream's archived head so far, from which
``verify`` checks each chain on (audit.integrity.chains). Its row trigger was the table's (a clone,
which DETACH drops), so it gets its own again: the detached table stays append-only (its
TRUNCATE trigger is its own already). Only the table's owner may detach; the application
role cannot. Dumping and dropping the detached table are the owner's steps
(docs/event-store.md).

It lives in the project layer, beside the package's export, because it needs the offline
auditor, which stands above the record.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

from django.db import connection, transaction

from audit.integrity import digests
from audit.integrity.chains import archived_heads
from audit.models import Event
from audit.record import signing
from audit.record.jsonl import decode_line
from audit.store import immutability
from audit.store.gaming_day import gaming_day
from audit.store.partitions import (
    DETACH_STREAM,
    DETACHED,
    LEAVES,
    TABLE,
    partition_name,
    partitions,
)
from audit.store.streams import NewEvent, events_append, stream_version, take_append_lock
from auditor import layout
from auditor.check import verify_package

from .package import SERVER_STREAMS


class ArchiveRefused(Exception):
    """The partition cannot be detached (yet): the message says why."""


ARCHIVIST = "server:archive"


@dataclass(frozen=True, slots=True)
class Detached:
    name: str
    events: int
    streams: int
    recorded: Event  # the store.partition_detached event


def _stream_spans(name: str) -> list[tuple[str, int, int, int]]:
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT stream, min(version), max(version), count(*) FROM {name} GROUP BY stream ORDER BY stream"
        )
        return cursor.fetchall()


def _hashes(name: str, stream: str) -> Iterator[tuple[int, str]]:
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT version, hash FROM {name} WHERE stream = %s ORDER BY version", [stream]
        )
        yield from cursor.fetchall()


def _package_hashes(
    package: layout.Package, meta: dict[str, Any], low: int, high: int
) -> Iterator[tuple[int, str]]:
    for number, line in enumerate(package.lines(meta["file"]), start=1):
        envelope = decode_line(line, number)
        if low <= envelope.version <= high:
            yield envelope.version, envelope.hash


def _in_order(
    name: str, spans: list[tuple[str, int, int, int]], archived: dict[str, tuple[int, str]]
) -> None:
    """Refuse unless each stream of partition ``name`` carries on from its archived part
    and has all its versions up to the partition's last there (module doc, 5)."""
    for stream, low, high, count in spans:
        after = archived.get(stream, (0, ""))[0]
        if low != after + 1 or count != high - low + 1:
            held = (
                f"versions 1 to {after} are archived"
                if after
                else "none of its versions is archived"
            )
            raise ArchiveRefused(
                f"{name}: stream {stream} has versions {low} to {high} there ({count} events) and {held}: its "
                f"versions {after + 1} to {high} are not all in this partition (an earlier day's partition, or the "
                "default one, still holds some): detach the days in order, oldest first"
            )


def _covered(
    package: layout.Package, manifest: dict[str, Any], name: str
) -> list[tuple[str, int, int, int]]:
    """Refuse unless the package holds every event of partition ``name`` (module doc, 3
    and 4); the partition's (stream, first version, last version, events)."""
    spans = _stream_spans(name)
    for stream, low, high, _ in spans:
        if stream.startswith(SERVER_STREAMS):
            continue
        meta = manifest["streams"].get(stream)
        if meta is None or meta["first_version"] > low or meta["last_version"] < high:
            held = (
                "none of it"
                if meta is None
                else f"versions {meta['first_version']} to {meta['last_version']}"
            )
            raise ArchiveRefused(
                f"{name}: table {stream} has versions {low} to {high} there; the package holds {held}"
            )
        stored = list(_hashes(name, stream))
        packed = dict(_package_hashes(package, meta, low, high))
        for version, hash in stored:
            if packed.get(version) != hash:
                raise ArchiveRefused(
                    f"{name}: table {stream} version {version}: the package's event differs or is missing"
                )
    server = Event.objects.raw(
        f"SELECT * FROM {name} WHERE stream LIKE %s ORDER BY position DESC LIMIT 1",
        [SERVER_STREAMS + "%"],
    )
    last = next(iter(server), None)
    if last is not None:
        size = manifest["signed_heads"][-1]["size"] if manifest["signed_heads"] else 0
        if size <= digests.leaf_index(last):
            raise ArchiveRefused(
                f"{name}: the package's latest signed head ({size:,} events) does not cover the "
                f"server's events of the day (up to position {last.position})"
            )
    return spans


def _check_package(path: Path) -> tuple[layout.Package, dict[str, Any]]:
    try:
        outcome = verify_package(path, processes=1)
    except layout.Unreadable as error:
        raise ArchiveRefused(f"--package {path}: {error}") from None
    if outcome.disagreements:
        raise ArchiveRefused(
            f"--package {path}: {len(outcome.disagreements)} disagreement(s) when verified, "
            f"the first: {outcome.disagreements[0]}"
        )
    package = layout.Package(path)
    manifest = package.manifest()
    ours = {kid: signing.public_pem(key) for kid, key in digests.trusted_keys().items()}
    foreign = sorted(kid for kid, pem in manifest["public_keys"].items() if ours.get(kid) != pem)
    if foreign:
        package.close()
        raise ArchiveRefused(
            f"--package {path}: signed with key(s) this store does not trust: {', '.join(foreign)}"
        )
    return package, manifest


def detach_day(day: date, package_path: Path, *, now: datetime | None = None) -> Detached:
    """Detach gaming day ``day``'s partition after checking ``package_path`` covers it
    (module doc). :class:`ArchiveRefused` when it does not, or cannot be done."""
    name = partition_name(day)
    today = gaming_day(now or datetime.now(UTC))
    if day >= today:
        raise ArchiveRefused(f"{day}: only a gaming day before today ({today}) may be archived")
    if name not in {p.name for p in partitions(connection)}:
        raise ArchiveRefused(f"{day}: the event table has no partition {name} attached")
    package, manifest = _check_package(package_path)
    try:
        if not manifest["signed_heads"]:
            raise ArchiveRefused(f"--package {package_path}: it holds no signed head")
        head = manifest["signed_heads"][-1]
        cited = {
            "size": head["size"],
            "root": head["root"],
            "timestamp": head["timestamp"],
            "key_id": head["key_id"],
        }
        package_sha256 = hashlib.sha256(package.read(layout.MANIFEST)).hexdigest()
        with transaction.atomic(durable=True):
            _in_order(name, _stream_spans(name), archived_heads())  # the cheap refusal first
            spans = _covered(package, manifest, name)
            # the append lock before the table's, as an appender takes them; it also makes
            # detaches take turns, so each reads the archived heads the one before recorded
            take_append_lock()
            if _stream_spans(name) != spans:  # a restore wrote into the day meanwhile
                raise ArchiveRefused(
                    f"{name}: events were written to it while it was checked; run again"
                )
            archived = archived_heads()
            _in_order(name, spans, archived)  # again: another detach may have gone first
            with connection.cursor() as cursor:
                cursor.execute("SET LOCAL lock_timeout = '10s'")
                cursor.execute(f"ALTER TABLE {TABLE} DETACH PARTITION {name}")
                trigger = immutability.PG_TRIGGERS[0]
                cursor.execute(
                    f"CREATE TRIGGER {trigger} BEFORE UPDATE OR DELETE ON {name} "
                    f"FOR EACH ROW EXECUTE FUNCTION {immutability.FUNCTION}()"
                )
                cursor.execute(f"ALTER TABLE {name} ENABLE ALWAYS TRIGGER {trigger}")
                cursor.execute(
                    f"INSERT INTO {LEAVES} (position, stream, version, hash, seal, day) "
                    f"SELECT position, stream, version, hash, seal, %s FROM {name} ORDER BY position",
                    [day],
                )
                cursor.execute(f"SELECT count(*), min(position), max(position) FROM {name}")
                events, first, last = cursor.fetchone()
                cursor.execute(
                    f"SELECT DISTINCT ON (stream) stream, version, hash FROM {name} "
                    "ORDER BY stream, version DESC"
                )
                archived.update(
                    {stream: (version, digest) for stream, version, digest in cursor.fetchall()}
                )
            recorded = _record(
                day=day,
                name=name,
                package_sha256=package_sha256,
                head=cited,
                events=events,
                positions=(first or 0, last or 0),
                spans=spans,
                archived=archived,
                now=now,
            )
    finally:
        package.close()
    return Detached(name, events, len(spans), recorded)


def _record(
    *,
    day: date,
    name: str,
    package_sha256: str,
    head: dict[str, Any],
    events: int,
    positions: tuple[int, int],
    spans: list[tuple[str, int, int, int]],
    archived: dict[str, tuple[int, str]],
    now: datetime | None,
) -> Event:
    """The detach as a ``store.partition_detached`` event of ``audit.store``, in the
    detach's own transaction (the append lock is held already)."""
    at = now or datetime.now(UTC)
    payload = {
        "day": day.isoformat(),
        "partition": name,
        "package_sha256": package_sha256,
        "signed_head": head,
        "events": events,
        "first_position": positions[0],
        "last_position": positions[1],
        "streams": {stream: [low, high] for stream, low, high, _ in spans},
        "archived": {
            stream: [version, digest] for stream, (version, digest) in sorted(archived.items())
        },
    }
    [stored] = events_append(
        principal=ARCHIVIST,
        stream=DETACH_STREAM,
        expected_version=stream_version(DETACH_STREAM),
        now=at,
        events=[
            NewEvent(
                id=uuid.uuid4(),
                type=DETACHED,
                payload=payload,
                occurred_at=at,
                actor=ARCHIVIST,
                source="back-office",
            )
        ],
    )
    return stored
