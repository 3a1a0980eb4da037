"""The regulator's own rows: a regulator's or compliance's request for the package
(:mod:`regulator.package`), built by a Celery task (:mod:`regulator.tasks`).

A request is a workflow row, not part of the record: the package it names carries the
record's proofs itself, and who asked for it and when is in the access log too.

The model keeps the label it was made under, ``casino``, so that its table, its
migrations (``casino/migrations``), its permissions (``casino.add_packagerequest``,
granted to the regulator group and compliance) and its admin's address
(``/admin/casino/packagerequest/``) stay as they were. A change to its fields is a
migration of ``casino``; ``casino/models.py`` imports it so that Django treats casino as
an app with models (its content type and permissions made again after a flush)."""

from __future__ import annotations

from django.db import models


class PackageRequest(models.Model):
    class Status(models.TextChoices):
        QUEUED = "queued", "queued"
        BUILDING = "building", "building"
        READY = "ready", "ready"
        FAILED = "failed", "failed"

    class Via(models.TextChoices):
        API = "api", "REST API"
        ADMIN = "admin", "admin"

    requested_by = models.CharField(max_length=160, help_text="user:NAME")
    requested_at = models.DateTimeField(db_index=True)
    via = models.CharField(max_length=8, choices=Via.choices)
    day_from = models.DateField("first gaming day")
    day_to = models.DateField("last gaming day")
    tables = models.JSONField(
        default=list, blank=True, help_text="the tables' codes; empty: every table open"
    )
    status = models.CharField(
        max_length=10, choices=Status.choices, default=Status.QUEUED, db_index=True
    )
    message = models.TextField(blank=True, help_text="why it failed")
    file = models.CharField(max_length=300, blank=True, help_text="the zip's name in PACKAGE_DIR")
    sha256 = models.CharField(max_length=64, blank=True)
    size = models.BigIntegerField(null=True, blank=True, help_text="bytes")
    events = models.BigIntegerField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    keep_until = models.DateField(help_text="kept EVENT_RETENTION_YEARS from the request")

    class Meta:
        app_label = "casino"
        ordering = ["-id"]
        verbose_name = "package request"

    def __str__(self) -> str:
        days = self.day_from.isoformat() + (
            f" to {self.day_to.isoformat()}" if self.day_to != self.day_from else ""
        )
        return (
            f"package {self.pk}: {days}, {', '.join(self.tables) or 'every table'} ({self.status})"
        )
