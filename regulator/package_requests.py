"""The regulator's package on request: the regulator group asks over REST
(:mod:`regulator.package_api`), compliance from the admin (:mod:`regulator.admin`); a Celery
task (:mod:`regulator.tasks`) builds it with the same code as ``manage.py
export_package`` (:func:`regulator.package.export_logged`) into ``PACKAGE_DIR``, where it is
kept ``EVENT_RETENTION_YEARS``.

Bad input is refused when asked, before a request exists: the same checks as the
command's (:func:`regulator.package.table_slices`), so a request that is queued only fails
for a reason the store gives later (a folder that cannot be written, a head that cannot
be signed) - and then says why on the request.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Sequence
from datetime import UTC, date, datetime
from pathlib import Path

from django.conf import settings
from django.db import transaction

from audit.integrity.digests import DigestError

from .models import PackageRequest
from .package import PackageError, export_logged, table_slices

log = logging.getLogger(__name__)


def package_dir() -> Path:
    return Path(settings.PACKAGE_DIR)


def _keep_until(today: date) -> date:
    years = settings.EVENT_RETENTION_YEARS
    try:
        return today.replace(year=today.year + years)
    except ValueError:  # 29 February
        return today.replace(year=today.year + years, day=28)


def package_request(
    *,
    principal: str,
    day_from: date,
    day_to: date,
    tables: Sequence[str],
    via: str,
    address: str = "",
) -> PackageRequest:
    """Check the input as the command does (:class:`PackageError`, nothing stored),
    store the request and queue its build once the request is committed."""
    table_slices(day_from, day_to, tables)
    now = datetime.now(UTC)
    row = PackageRequest.objects.create(
        requested_by=principal[:160],
        requested_at=now,
        via=via,
        day_from=day_from,
        day_to=day_to,
        tables=sorted(set(tables)),
        keep_until=_keep_until(now.date()),
    )
    from .tasks import build_package_task

    pk = row.pk
    # the worker must find the row: sent when it is committed (address: the access log's)
    transaction.on_commit(lambda: build_package_task.delay(pk, address))
    return row


def package_build(pk: int, address: str = "") -> PackageRequest:
    """Build a queued request's package (the task's body). Building one twice makes the
    same bytes (the export is deterministic), so a retried task changes nothing."""
    row = PackageRequest.objects.get(pk=pk)
    folder = package_dir()
    name = f"package-{row.pk}-{row.day_from.isoformat()}-{row.day_to.isoformat()}.zip"
    PackageRequest.objects.filter(pk=pk).update(status=PackageRequest.Status.BUILDING, message="")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        manifest = export_logged(
            principal=row.requested_by,
            address=address,
            day_from=row.day_from,
            day_to=row.day_to,
            tables=row.tables,
            out=folder / name,
            force=True,
        )
    except Exception as error:
        # the request says why, whatever it was: never left "building" for ever
        known = isinstance(error, PackageError | DigestError)
        message = str(error) if known else f"writing {folder / name} failed: {error}"
        PackageRequest.objects.filter(pk=pk).update(
            status=PackageRequest.Status.FAILED,
            message=message[:5000],
            finished_at=datetime.now(UTC),
        )
        log.warning("package request %s failed: %s", pk, message)
        if not known and not isinstance(error, OSError):
            raise
        return PackageRequest.objects.get(pk=pk)
    digest = hashlib.sha256()
    with (folder / name).open("rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    PackageRequest.objects.filter(pk=pk).update(
        status=PackageRequest.Status.READY,
        file=name,
        sha256=digest.hexdigest(),
        size=(folder / name).stat().st_size,
        events=manifest["events"],
        finished_at=datetime.now(UTC),
    )
    return PackageRequest.objects.get(pk=pk)


def package_file(row: PackageRequest) -> Path | None:
    """The ready package's zip, None when not ready or gone."""
    if row.status != PackageRequest.Status.READY or not row.file:
        return None
    path = package_dir() / row.file
    return path if path.is_file() else None
