from __future__ import annotations

from django.conf import settings
from django.db import models


class Event(models.Model):
    """One stored event. Rows are only ever inserted: database triggers (migration 0002)
    refuse UPDATE and DELETE, and TRUNCATE on PostgreSQL."""

    # The global position. Appends take one lock for the whole transaction (see
    # audit.store), so positions are handed out in commit order.
    position = models.BigAutoField(primary_key=True)
    event_id = models.UUIDField(unique=True, editable=False, verbose_name="id")
    stream = models.CharField(max_length=64, editable=False)
    version = models.PositiveBigIntegerField(editable=False)
    type = models.CharField(max_length=64, editable=False)
    schema_version = models.PositiveSmallIntegerField(editable=False)
    occurred_at = models.DateTimeField(editable=False)
    recorded_at = models.DateTimeField(editable=False, db_index=True)
    actor = models.CharField(max_length=128, editable=False)
    source = models.CharField(max_length=128, editable=False)
    payload = models.JSONField(editable=False)
    prev_hash = models.CharField(max_length=64, editable=False)
    hash = models.CharField(max_length=64, editable=False)

    class Meta:
        db_table = "audit_event"
        ordering = ["position"]
        constraints = [
            # The database itself refuses a second writer at the same version.
            models.UniqueConstraint(fields=["stream", "version"], name="audit_event_stream_version"),
            models.CheckConstraint(condition=models.Q(version__gte=1), name="audit_event_version_from_1"),
        ]
        permissions = [("append_event", "Can append events to any table's stream")]

    def __str__(self) -> str:
        return f"{self.stream} v{self.version} {self.type}"


class DeviceAccount(models.Model):
    """A table device (shoe reader, dealer terminal): its user may append to one stream."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="device_account"
    )
    stream = models.CharField(max_length=64, help_text="the table code this device records")
    description = models.CharField(max_length=200, blank=True)

    def __str__(self) -> str:
        return f"{self.user} -> {self.stream}"
