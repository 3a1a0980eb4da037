"""Celery task of the regulator's package: an id in, the build
(:func:`regulator.package_requests.package_build`), the request's status out."""

from __future__ import annotations

from celery import shared_task

from .package_requests import package_build


# the name it was registered under in casino: queued tasks still find it
@shared_task(name="casino.package_tasks.build_package")
def build_package_task(pk: int, address: str = "") -> dict[str, object]:
    """Build request ``pk``'s package; running it twice gives the same bytes."""
    row = package_build(pk, address)
    return {"id": row.pk, "status": row.status, "sha256": row.sha256, "message": row.message}
