"""The access log: every read of the back-office by a person - who, what, when, from
where, outcome - kept append-only and sealed into the record.

- :class:`AccessLogMiddleware` records each GET or HEAD under ``/admin/`` and ``/api/``
  (pages, lists, round reviews, API reads, exports, proofs) once the response is ready,
  whoever asked, the anonymous included - except table devices, which are not people
  and read only their own stream. Writes are not recorded here: every write the
  back-office makes is an event in the store, with its author.
- :func:`access_seal` (a periodic Celery task, and at the end of a gaming day) appends
  an ``access.sealed`` event to the stream ``audit.access`` naming the rows since the
  last seal and the SHA-256 of their canonical form. From then on the Merkle tree and the
  signed tree heads cover them: a row changed, removed or added later no longer matches
  its seal, which :func:`access_seals_problems` (``manage.py verify``) reports.
- Retention (``ACCESS_LOG_RETENTION_DAYS``, at least 90: AGCO Registrar's Standards
  6.1): :func:`access_purge`, run by the owner role (the application's may not delete),
  removes sealed rows older than that and records it as ``access.purged``.
- :func:`access_export` records an export that is not a read of a page (the regulator's
  package, by command or by a Celery task) the same way.
"""

from __future__ import annotations

import hashlib
import re
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import connection, transaction
from django.http import HttpRequest, HttpResponse
from django.urls import Resolver404, resolve

from audit.models import AccessRecord, DeviceAccount, Event
from audit.record.chain import canonical_json, format_timestamp
from audit.store.streams import NewEvent, events_append, stream_version

from .clients import client_address

ACCESS_STREAM = "audit.access"
_READS = frozenset(("GET", "HEAD"))
_WATCHED = ("/admin/", "/api/")
_NOT_READS = ("/admin/jsi18n/", "/admin/login/", "/admin/logout/")


def principal_of(request: HttpRequest) -> str | None:
    """``user:NAME`` for a person, ``anonymous``, or None for a table device (not logged)."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return "anonymous"
    if getattr(user, "device_account", None) is not None:
        return None
    return f"user:{user.get_username()}"


def _what(request: HttpRequest) -> str:
    """The view and its arguments: what was read, in the URL's own words."""
    match = getattr(request, "resolver_match", None)
    if match is None:
        try:
            match = resolve(request.path_info)
        except Resolver404:
            return ""
    name = (
        f"{match.namespace}:{match.url_name}"
        if match.namespace
        else (match.url_name or match.view_name)
    )
    args = "/".join(str(v) for v in (*match.args, *match.kwargs.values()))
    return f"{name} {args}".strip()[:300]


def _device_known(user: object) -> bool | None:
    """Whether the user is a table device, when that is known without a query (the
    authentication or a permission looked its device account up already); else None."""
    if not getattr(user, "is_authenticated", False):
        return False
    relation = get_user_model()._meta.get_field("device_account")
    return getattr(user, "device_account", None) is not None if relation.is_cached(user) else None


def _insert_one_round_trip(row: AccessRecord, user_id: int | None) -> None:
    """PostgreSQL, outside any transaction: the row in one simple query - its own
    transaction, an asynchronous commit, and the device check (no row for a device's
    user) - so a read pays one round trip to the database, not five. On a loaded
    machine each round trip waits for the database to be scheduled: this is what the
    log costs, not the insert."""
    fields = [f for f in AccessRecord._meta.concrete_fields if not f.primary_key]
    columns = ", ".join(connection.ops.quote_name(f.column) for f in fields)
    values = [f.get_db_prep_save(getattr(row, f.attname), connection) for f in fields]
    devices = DeviceAccount._meta
    with connection.cursor() as cursor:
        cursor.execute(
            "BEGIN; SET LOCAL synchronous_commit TO OFF; "
            f"INSERT INTO {connection.ops.quote_name(AccessRecord._meta.db_table)} ({columns}) "
            f"SELECT {', '.join(['%s'] * len(values))} "
            f"WHERE NOT EXISTS (SELECT FROM {connection.ops.quote_name(devices.db_table)} "
            f"WHERE {connection.ops.quote_name(devices.get_field('user').column)} = %s); COMMIT",
            [*values, user_id],
        )


_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def printable(text: str) -> str:
    """``text`` with each control character written ``\\xNN``: a request's path or query
    may carry one (``%00`` decoded), which the log keeps legible, and PostgreSQL's text
    could not hold as a NUL."""
    return _CONTROL.sub(lambda found: f"\\x{ord(found.group()):02x}", text)


def access_record(
    request: HttpRequest, status: int, *, now: datetime | None = None
) -> AccessRecord | None:
    """Record one read: the row offered (on PostgreSQL's one-round-trip path the database
    itself leaves out a device's), or None when it is known not to be a person's."""
    user = getattr(request, "user", None)
    device = _device_known(user)
    if device:
        return None
    name = user.get_username() if user is not None and user.is_authenticated else None
    row = AccessRecord(
        at=now or datetime.now(UTC),
        principal=(f"user:{name}" if name is not None else "anonymous")[:160],
        method=request.method or "",
        path=printable(request.path)[:500],
        query=printable(request.META.get("QUERY_STRING", ""))[:1000],
        what=printable(_what(request)),
        status=status,
        address=client_address(request),
    )
    if (
        connection.vendor == "postgresql"
        and connection.get_autocommit()
        and not connection.in_atomic_block
    ):
        _insert_one_round_trip(row, None if name is None else user.pk)  # type: ignore[union-attr]
        return row
    if device is None and principal_of(request) is None:
        return None
    with transaction.atomic():
        if connection.vendor == "postgresql":
            # Don't wait for the WAL flush: it would cost each read a disk sync. A
            # database crash can lose the last fraction of a second of access
            # rows (wal_writer_delay); a crash of the application loses nothing.
            with connection.cursor() as cursor:
                cursor.execute("SET LOCAL synchronous_commit TO OFF")
        row.save(force_insert=True)
    return row


def access_export(
    *,
    principal: str,
    what: str,
    path: str,
    status: int,
    address: str = "",
    now: datetime | None = None,
) -> AccessRecord:
    """Record an export made outside a request's read (``manage.py export_package``, the
    package a Celery task builds for a REST or admin request): the whole record of a
    period leaves the back-office, so it is logged like a read, with method ``EXPORT``,
    the file written as the path and 200 (written) or 400 (refused, nothing written)."""
    row = AccessRecord(
        at=now or datetime.now(UTC),
        principal=principal[:160],
        method="EXPORT",
        path=path[:500],
        what=what[:300],
        status=status,
        address=address[:64],
    )
    row.save(force_insert=True)
    return row


class AccessLogMiddleware:
    """Records reads under /admin/ and /api/ after the view has answered (so the
    outcome is known), outside the view's transaction."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        path = request.path
        if (
            request.method in _READS
            and path.startswith(_WATCHED)
            and not path.startswith(_NOT_READS)
        ):
            access_record(request, response.status_code)
        return response


# --- seals ----------------------------------------------------------------------------------


def row_bytes(row: AccessRecord) -> bytes:
    return (
        canonical_json(
            {
                "id": row.pk,
                "at": format_timestamp(row.at),
                "principal": row.principal,
                "method": row.method,
                "path": row.path,
                "query": row.query,
                "what": row.what,
                "status": row.status,
                "address": row.address,
            }
        )
        + b"\n"
    )


def _rows(first: int, last: int) -> Iterator[AccessRecord]:
    return (
        AccessRecord.objects.filter(pk__gte=first, pk__lte=last)
        .order_by("pk")
        .iterator(chunk_size=2000)
    )


def _digest(first: int, last: int) -> tuple[int, str]:
    sha = hashlib.sha256()
    count = 0
    for row in _rows(first, last):
        sha.update(row_bytes(row))
        count += 1
    return count, sha.hexdigest()


def _payloads(kind: str) -> Iterator[dict[str, int | str]]:
    return (
        Event.objects.filter(stream=ACCESS_STREAM, type=kind)
        .order_by("version")
        .values_list("payload", flat=True)
        .iterator()
    )


def _sealed_through() -> int:
    last = (
        Event.objects.filter(stream=ACCESS_STREAM, type="access.sealed")
        .order_by("-version")
        .values_list("payload", flat=True)
        .first()
    )
    return int(last["last"]) if last else 0


def access_seal(*, now: datetime | None = None) -> Event | None:
    """Seal the rows recorded since the last seal (None when there are none). A row
    whose transaction has not committed yet is left for the next seal: only rows up to
    the highest id committed now are taken, and ids are handed out in order."""
    now = now or datetime.now(UTC)
    for _ in range(5):
        start = _sealed_through() + 1
        last = (
            AccessRecord.objects.filter(pk__gte=start)
            .order_by("-pk")
            .values_list("pk", flat=True)
            .first()
        )
        if last is None:
            return None
        count, digest = _digest(start, last)
        event = NewEvent(
            id=uuid.uuid4(),
            type="access.sealed",
            occurred_at=now,
            actor="server:access-log",
            source="back-office",
            payload={"first": start, "last": last, "count": count, "digest": digest},
        )
        from audit.store.errors import VersionConflict

        try:
            with transaction.atomic():
                return events_append(
                    principal="server:access-log",
                    stream=ACCESS_STREAM,
                    expected_version=stream_version(ACCESS_STREAM),
                    events=[event],
                    now=now,
                )[0]
        except VersionConflict:
            continue  # another sealer got there first: seal what is left after it
    return None


@dataclass(frozen=True, slots=True)
class SealProblem:
    first: int
    last: int
    detail: str

    def __str__(self) -> str:
        return f"access log rows {self.first}..{self.last}: {self.detail}"


def access_seals_problems() -> list[SealProblem]:
    """Every seal whose rows no longer hash to it (a row changed, removed or slipped in)."""
    purged = max((int(p["through"]) for p in _payloads("access.purged")), default=0)
    problems = []
    for seal in _payloads("access.sealed"):
        first, last = int(seal["first"]), int(seal["last"])
        if last <= purged:
            continue
        count, digest = _digest(first, last)
        if count != seal["count"]:
            problems.append(
                SealProblem(first, last, f"{count} rows where {seal['count']} were sealed")
            )
        elif digest != seal["digest"]:
            problems.append(
                SealProblem(first, last, "the rows no longer match their seal (one was changed)")
            )
    return problems


def access_purge(*, retention_days: int | None = None, now: datetime | None = None) -> int:
    """Remove sealed rows older than the retention (the owner role runs it: the
    application's role may not delete); record what went as ``access.purged``."""
    days = retention_days if retention_days is not None else settings.ACCESS_LOG_RETENTION_DAYS
    if days < 90:
        raise ValueError("the access log is kept at least 90 days (AGCO Registrar's Standards 6.1)")
    now = now or datetime.now(UTC)
    before = now - timedelta(days=days)
    # whole seals only, every row of which is older than the retention (ids grow with time)
    newest_old = (
        AccessRecord.objects.filter(at__lt=before)
        .order_by("-pk")
        .values_list("pk", flat=True)
        .first()
        or 0
    )
    through = max(
        (int(p["last"]) for p in _payloads("access.sealed") if int(p["last"]) <= newest_old),
        default=0,
    )
    if through == 0:
        return 0
    with transaction.atomic():
        count, _ = AccessRecord.objects.filter(pk__lte=through).delete()
        events_append(
            principal="server:access-log",
            stream=ACCESS_STREAM,
            expected_version=stream_version(ACCESS_STREAM),
            events=[
                NewEvent(
                    id=uuid.uuid4(),
                    type="access.purged",
                    occurred_at=now,
                    actor="server:access-log",
                    source="back-office",
                    payload={
                        "through": through,
                        "count": count,
                        "before": format_timestamp(before),
                    },
                )
            ],
            now=now,
        )
    return count
