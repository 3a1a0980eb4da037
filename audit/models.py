from __future__ import annotations

from datetime import datetime

from django.conf import settings
from django.db import models
from django.db.models.fields.json import KeyTextTransform
from django.db.models.functions import Cast
from django.utils.translation import gettext_lazy as _


def opened_day() -> Cast:
    """A ``table.opened`` event's gaming day as text: the expression of the index
    audit_event_opened_day, which a query must repeat to use it (cast: a key's text alone
    is compared as JSON on SQLite)."""
    return Cast(KeyTextTransform("gaming_day", "payload"), models.TextField())


# the types that say who deals at a table on its gaming day (the partial index
# audit_event_staffing; a query must name them in this order to use it)
STAFFING = ("dealer.assigned", "table.opened")


class Event(models.Model):
    """One stored event. Rows are only ever inserted: database triggers (migration 0002)
    refuse UPDATE and DELETE, and TRUNCATE on PostgreSQL. On PostgreSQL the table is
    partitioned by gaming day (migration 0017, audit.store.partitions): there the primary key is
    (position, recorded_at) and the unique constraints below live in the key table
    audit_event_key; the model's state is as on SQLite."""

    # The global position. Appends take one lock for the whole transaction (see
    # audit.store.streams), so positions are handed out in commit order.
    position = models.BigAutoField(verbose_name=_("position"), primary_key=True)
    event_id = models.UUIDField(unique=True, editable=False, verbose_name="id")
    stream = models.CharField(verbose_name=_("table"), max_length=64, editable=False)
    version = models.PositiveBigIntegerField(verbose_name=_("version"), editable=False)
    type = models.CharField(verbose_name=_("type"), max_length=64, editable=False)
    schema_version = models.PositiveSmallIntegerField(
        verbose_name=_("schema version"), editable=False
    )
    occurred_at = models.DateTimeField(verbose_name=_("occurred at"), editable=False)
    recorded_at = models.DateTimeField(verbose_name=_("recorded at"), editable=False, db_index=True)
    actor = models.CharField(verbose_name=_("actor"), max_length=128, editable=False)
    source = models.CharField(verbose_name=_("source"), max_length=128, editable=False)
    payload = models.JSONField(verbose_name=_("payload"), editable=False)
    prev_hash = models.CharField(verbose_name=_("previous hash"), max_length=64, editable=False)
    hash = models.CharField(verbose_name=_("hash"), max_length=64, editable=False)
    # who appended it, as the server authenticated them (the actor is the client's word);
    # NULL for events stored before principals were recorded. Nullable, without a default,
    # so that adding the columns is a plain ALTER TABLE ... ADD COLUMN on SQLite too (its
    # table rebuild would drop the append-only triggers)
    principal = models.CharField(
        verbose_name=_("principal"), max_length=160, null=True, editable=False
    )
    # the store's HMAC of hash and principal (audit.store.seals): a row written past it has none
    seal = models.CharField(verbose_name=_("seal"), max_length=64, null=True, editable=False)

    class Meta:
        verbose_name = _("event")
        verbose_name_plural = _("events")
        db_table = "audit_event"
        ordering = ["position"]
        constraints = [
            # The database itself refuses a second writer at the same version.
            models.UniqueConstraint(
                fields=["stream", "version"], name="audit_event_stream_version"
            ),
            models.CheckConstraint(
                condition=models.Q(version__gte=1), name="audit_event_version_from_1"
            ),
        ]
        indexes = [
            # a gaming day's tables (tables.replay_service.day_streams): without it, finding a
            # day's openings scanned the whole record. Partial: openings are a few rows a day
            models.Index(
                opened_day(), condition=models.Q(type="table.opened"), name="audit_event_opened_day"
            ),
            # a table's dealers since it opened (audit.access.devices.assigned_dealers, on every
            # device's append that names one): read backwards to the last opening, without it
            # the stream since its opening walked. Partial: a few rows a day
            models.Index(
                fields=["stream", "version"],
                condition=models.Q(type__in=STAFFING),
                name="audit_event_staffing",
            ),
        ]
        permissions = [
            ("append_event", "Can append events to any table's stream"),
            # the catalogue's money-changing types (audit.record.events.AUTHORITY)
            ("correct_round", "Can record a round's correction or void"),
            ("void_slip", "Can record a fill or credit slip's void"),
            # the types recorded away from the table (audit.record.events.OFF_TABLE)
            ("record_count", "Can record the count room's count of a drop box"),
            (
                "record_cage",
                "Can record the cage's steps: a fill issued, a credit received, a marker redeemed",
            ),
            ("post_drop", "Can post a counted drop to the books"),
        ]

    def __str__(self) -> str:
        return f"{self.stream} v{self.version} {self.type}"


def openings_on(day: str) -> models.QuerySet[Event]:
    """The tables' ``table.opened`` events of gaming day ``day`` (ISO text), in no
    order: the partial index audit_event_opened_day serves them. No ORDER BY: asked for
    position order, SQLite walks every event in that order rather than sort the few
    openings."""
    return (
        Event.objects.alias(day=opened_day())
        .filter(type="table.opened", day=day)
        .exclude(stream__startswith="audit.")
        .order_by()
    )


class DeviceAccount(models.Model):
    """A table device (shoe reader, dealer terminal): its user may append to one stream."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="device_account",
        verbose_name=_("user"),
    )
    stream = models.CharField(
        verbose_name=_("table"), max_length=64, help_text="the table code this device records"
    )
    description = models.CharField(verbose_name=_("description"), max_length=200, blank=True)

    class Meta:
        verbose_name = _("device account")
        verbose_name_plural = _("device accounts")

    def __str__(self) -> str:
        return f"{self.user} -> {self.stream}"


class SubscriberPosition(models.Model):
    """How far one subscriber of the global feed (a read model, replay) has got: the
    last position it processed. Moved only forward, by compare-and-set (``UPDATE ...
    WHERE position = <the one it started from>``), after the subscriber has processed
    what lies between; a subscriber that fails keeps its position and is retried."""

    name = models.CharField(verbose_name=_("subscriber"), max_length=100, unique=True)
    position = models.PositiveBigIntegerField(verbose_name=_("position"), default=0)
    updated_at = models.DateTimeField(verbose_name=_("updated at"), null=True, blank=True)
    # the last failure, until the next success: what and since when
    error = models.TextField(verbose_name=_("error"), blank=True)
    failed_at = models.DateTimeField(verbose_name=_("failed at"), null=True, blank=True)

    class Meta:
        verbose_name = _("subscriber's position")
        verbose_name_plural = _("subscribers' positions")
        ordering = ["name"]

    def __str__(self) -> str:
        return f"{self.name} at {self.position}"


class StreamFailure(models.Model):
    """A table's stream that a subscriber of the feed (a read model) failed to follow:
    ``failures`` runs in a row (a database that does not answer is not counted). From
    ``SET_ASIDE_AFTER_FAILURES`` of them the stream is *set aside* (``set_aside_at``): the
    subscriber goes on with every other table and leaves this one where its read model
    stopped, with a critical finding (``stream_set_aside``), until it is taken back - a
    correction recorded in the stream (which may strike the event), or ``manage.py catch_up
    --take-back`` - and then follows it again. The row goes when the stream is followed
    again (:mod:`audit.feed.subscribers`)."""

    subscriber = models.CharField(verbose_name=_("subscriber"), max_length=100)
    stream = models.CharField(max_length=64, verbose_name=_("table"))
    failures = models.PositiveIntegerField(verbose_name=_("failures"), default=0)
    error = models.TextField(
        verbose_name=_("error"),
    )
    # the stream's first version in the batch that failed: where this read model stopped
    from_version = models.PositiveBigIntegerField(
        verbose_name=_("from version"), null=True, blank=True
    )
    first_failed_at = models.DateTimeField(
        verbose_name=_("first failed at"),
    )
    set_aside_at = models.DateTimeField(verbose_name=_("set aside at"), null=True, blank=True)

    class Meta:
        verbose_name = _("table set aside")
        verbose_name_plural = _("tables set aside")
        ordering = ["subscriber", "stream"]
        constraints = [
            models.UniqueConstraint(fields=["subscriber", "stream"], name="audit_streamfailure_one")
        ]

    def __str__(self) -> str:
        state = "set aside" if self.set_aside_at else f"failed {self.failures} time(s)"
        return f"{self.subscriber}: {self.stream} {state}"


class ReplayRun(models.Model):
    """One run of a check that records findings. Mostly a replay: of a table's gaming
    day, of one stream, or of a whole day (a parent run whose children are the per-table
    runs a Celery chord gathers); its counters move while it runs, so the admin and
    ``replay_day`` show its progress. The ledger's reconciliation of a table records its
    findings under a run of trigger ``reconciliation`` (no rounds: its counters stay 0 but
    the findings')."""

    class Status(models.TextChoices):
        RUNNING = "running"
        DONE = "done"
        FAILED = "failed"

    class Mode(models.TextChoices):
        INCREMENTAL = "incremental"
        FULL = "full"

    parent = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.CASCADE, related_name="children"
    )
    mode = models.CharField(verbose_name=_("mode"), max_length=16, choices=Mode.choices)
    # what started it: command, task, feed (the projections' subscriber of the feed), api,
    # ledger (the ledger needed the replay); reconciliation: the ledger's own check (not a
    # replay)
    trigger = models.CharField(verbose_name=_("trigger"), max_length=16, default="task")
    stream = models.CharField(
        verbose_name=_("table"),
        max_length=64,
        blank=True,
        help_text="blank: every table of the day",
    )
    gaming_day = models.DateField(verbose_name=_("gaming day"), null=True, blank=True)
    status = models.CharField(
        verbose_name=_("status"), max_length=16, choices=Status.choices, default=Status.RUNNING
    )
    started_at = models.DateTimeField(
        verbose_name=_("started at"),
    )
    finished_at = models.DateTimeField(verbose_name=_("finished at"), null=True, blank=True)
    tables_total = models.PositiveIntegerField(verbose_name=_("tables"), default=0)
    tables_done = models.PositiveIntegerField(verbose_name=_("tables done"), default=0)
    events = models.PositiveBigIntegerField(
        verbose_name=_("events"), default=0, help_text="events folded"
    )
    rounds = models.PositiveBigIntegerField(
        verbose_name=_("rounds"), default=0, help_text="rounds replayed"
    )
    findings = models.PositiveIntegerField(
        verbose_name=_("findings"), default=0, help_text="findings this run produced"
    )
    findings_new = models.PositiveIntegerField(verbose_name=_("new findings"), default=0)
    findings_superseded = models.PositiveIntegerField(
        verbose_name=_("findings superseded"), default=0
    )
    summary = models.JSONField(default=dict, blank=True)
    error = models.TextField(blank=True)

    class Meta:
        verbose_name = _("replay run")
        verbose_name_plural = _("replay runs")
        ordering = ["-started_at", "-id"]

    def __str__(self) -> str:
        what = self.stream or "every table"
        day = f" {self.gaming_day}" if self.gaming_day else ""
        return f"replay #{self.pk} {what}{day} ({self.mode}, {self.status})"


class Finding(models.Model):
    """What a check (replay, the ledger's reconciliation) found wrong, kept with its
    handling. Rows are created and updated by :mod:`audit.findings.workflow` only: a status change
    there is also an event in the stream ``audit.findings``. ``identity`` is what checking
    again matches, so it finds the same row instead of adding one; ``fingerprint`` is the
    row's name for good (events and alerts name it; see :mod:`audit.findings.workflow`).
    Where it is: table and gaming day; a round, box, hand and bet (replay's); a shift and
    a slip (the ledger's)."""

    class Status(models.TextChoices):
        OPEN = "open"
        ACKNOWLEDGED = "acknowledged"
        RESOLVED = "resolved"

    class Severity(models.TextChoices):
        CRITICAL = "critical"
        HIGH = "high"
        MEDIUM = "medium"
        LOW = "low"

    fingerprint = models.CharField(max_length=64, unique=True)
    identity = models.CharField(
        max_length=64, unique=True, help_text="what a check's run matches: not the message"
    )
    kind = models.CharField(max_length=32, db_index=True)
    severity = models.CharField(max_length=8, choices=Severity.choices, db_index=True)
    stream = models.CharField(max_length=64, verbose_name="table")
    gaming_day = models.DateField(null=True, blank=True)
    round = models.PositiveBigIntegerField(null=True, blank=True)
    box = models.PositiveSmallIntegerField(null=True, blank=True)
    hand = models.PositiveSmallIntegerField(null=True, blank=True)
    bet = models.CharField(max_length=64, blank=True)
    shift = models.CharField(max_length=32, blank=True, help_text="the ledger's: the shift's label")
    slip = models.CharField(
        max_length=64,
        blank=True,
        help_text="the ledger's: a fill, credit, inventory slip or marker",
    )
    expected = models.CharField(max_length=200, blank=True)
    recorded = models.CharField(max_length=200, blank=True)
    message = models.TextField()
    # the event that showed it, where one did
    event_id = models.UUIDField(null=True, blank=True)
    event_version = models.PositiveBigIntegerField(null=True, blank=True)
    status = models.CharField(
        max_length=16, choices=Status.choices, default=Status.OPEN, db_index=True
    )
    note = models.TextField(blank=True, help_text="why, at the last status change")
    status_changed_by = models.CharField(max_length=150, blank=True)
    status_changed_at = models.DateTimeField(null=True, blank=True)
    # the version of the status change's event in the stream audit.findings
    status_event_version = models.PositiveBigIntegerField(null=True, blank=True)
    run = models.ForeignKey(
        ReplayRun,
        on_delete=models.PROTECT,
        related_name="produced",
        help_text="the run that first produced it",
    )
    last_seen_run = models.ForeignKey(ReplayRun, on_delete=models.PROTECT, related_name="+")
    superseded_by = models.ForeignKey(
        ReplayRun,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="superseded",
        help_text="a later run that no longer produces it",
    )
    created_at = models.DateTimeField()

    class Meta:
        verbose_name = _("finding")
        verbose_name_plural = _("findings")
        ordering = ["stream", "gaming_day", "round", "id"]
        indexes = [
            models.Index(fields=["stream", "gaming_day", "round"], name="audit_finding_where")
        ]

    def __str__(self) -> str:
        where = f" round {self.round}" if self.round is not None else ""
        return f"{self.kind} on {self.stream}{where}"


class AccessRecord(models.Model):
    """One read of the back-office by a person: who, what, when, from where, outcome
    (audit.access.log). Rows are only inserted: a trigger refuses UPDATE, the application's
    database role holds no UPDATE or DELETE on the table (audit.store.roles), and batches of
    rows are sealed into the event store (``access.sealed`` in the stream
    ``audit.access``), so the Merkle tree covers them."""

    at = models.DateTimeField(verbose_name=_("at"), db_index=True)
    principal = models.CharField(
        verbose_name=_("principal"),
        max_length=160,
        db_index=True,
        help_text="user:NAME, or anonymous",
    )
    method = models.CharField(verbose_name=_("method"), max_length=8)
    path = models.CharField(verbose_name=_("path"), max_length=500)
    query = models.CharField(verbose_name=_("query"), max_length=1000, blank=True)
    # the view and its arguments, e.g. "admin:tables_round_change BJ-01/2026-11-29/12"
    what = models.CharField(verbose_name=_("what"), max_length=300, blank=True)
    status = models.PositiveSmallIntegerField(
        verbose_name=_("status"),
    )
    address = models.CharField(
        verbose_name=_("address"), max_length=64, blank=True, help_text="the client's address"
    )

    class Meta:
        verbose_name = _("access record")
        verbose_name_plural = _("access records")
        db_table = "audit_access"
        ordering = ["-id"]

    def __str__(self) -> str:
        return f"{self.at:%Y-%m-%d %H:%M:%S} {self.principal} {self.method} {self.path} -> {self.status}"


class MerkleState(models.Model):
    """The Merkle tree of the whole record as far as the subscriber ``audit.merkle`` has
    folded it (audit.integrity.digests): its size, the position of its last leaf, the perfect
    subtrees of its frontier and each stream's head among its leaves. One row."""

    name = models.CharField(max_length=32, primary_key=True, default="record")
    size = models.PositiveBigIntegerField(default=0)
    position = models.PositiveBigIntegerField(default=0)
    frontier = models.JSONField(default=list, help_text="[[leaves, hash hex], ...], largest first")
    streams = models.JSONField(default=dict, help_text="{stream: [version, hash]}")
    updated_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = _("Merkle tree state")
        verbose_name_plural = _("Merkle tree states")

    def __str__(self) -> str:
        return f"Merkle tree of {self.size:,} events"


class MerkleBlock(models.Model):
    """The root of one aligned block of leaves (``audit.integrity.digests.BLOCK`` of them): proofs
    read these instead of re-hashing every event, and verify names the first block that
    differs."""

    index = models.PositiveBigIntegerField(primary_key=True)
    first_position = models.PositiveBigIntegerField()
    last_position = models.PositiveBigIntegerField()
    hash = models.CharField(max_length=64)

    class Meta:
        verbose_name = _("Merkle block")
        verbose_name_plural = _("Merkle blocks")
        ordering = ["index"]

    def __str__(self) -> str:
        return f"block {self.index} (positions {self.first_position}..{self.last_position})"


class ApiToken(models.Model):
    """An API token, kept only as the SHA-256 of its text (audit.access.tokens): the text is
    shown once, when it is issued, and a copy of this table gives no one a login. Found
    by ``key_id`` (the token's first characters, not secret enough alone to log in), then
    compared in constant time; valid until ``expires_at`` or until revoked."""

    key_id = models.CharField(max_length=12, unique=True, editable=False)
    digest = models.CharField(max_length=64, editable=False, help_text="SHA-256 of the token, hex")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens"
    )
    created_at = models.DateTimeField(editable=False)
    expires_at = models.DateTimeField(editable=False)
    revoked_at = models.DateTimeField(null=True, blank=True, editable=False)
    # to the minute or so (audit.access.tokens.LAST_USED_STEP): a request writes it at most that often
    last_used_at = models.DateTimeField(null=True, blank=True, editable=False)

    class Meta:
        verbose_name = _("API token")
        verbose_name_plural = _("API tokens")
        ordering = ("-created_at",)

    def __str__(self) -> str:
        return f"{self.key_id}... of {self.user}"


class IngestRun(models.Model):
    """One ``manage.py ingest`` write pass, and with its steps (:class:`IngestStep`) how
    far it got. Append-only, as the steps are: made when it starts writing, never changed
    (the database refuses an UPDATE; the application's role holds no UPDATE or DELETE).
    Written in chunks (SQLite, a small file, or a file with a bad line): a step in the
    transaction of each chunk it commits, a finishing one at its end; a run left
    unfinished (the process killed, the database gone) has stored whole chunks only, so a
    stream may be cut short: ``verify`` names the run until a later ingest of the same
    file finishes it (stored lines are skipped, the rest appended). Written while it
    plans (PostgreSQL, a good file): the run and its finishing step in the one
    transaction that stores the whole file - a run cut short stores nothing and leaves
    no row."""

    file = models.CharField(max_length=1024)
    size = models.BigIntegerField()
    principal = models.CharField(max_length=160)
    started_at = models.DateTimeField()

    class Meta:
        verbose_name = _("ingest run")
        verbose_name_plural = _("ingest runs")

    def __str__(self) -> str:
        return f"ingest of {self.file} started {self.started_at:%Y-%m-%d %H:%M:%S}"

    def _last(self) -> IngestStep | None:
        return self.steps.order_by("-pk").first()

    @property
    def stored(self) -> int:
        """The events it stored, as its last step says (0 before its first chunk)."""
        last = self._last()
        return last.stored if last is not None else 0

    @property
    def line(self) -> int:
        """The last line it stored."""
        last = self._last()
        return last.line if last is not None else 0

    @property
    def finished_at(self) -> datetime | None:
        """When it - or a later run of the same file - finished it; None while unfinished."""
        last = self._last()
        return last.at if last is not None and last.finished else None


class IngestStep(models.Model):
    """How far an ingest run got: the events it has stored and the last line, written in
    the transaction of the chunk that stored them (``finished``: every line of the file is
    stored now, or was refused and reported). Append-only (:class:`IngestRun`)."""

    run = models.ForeignKey(IngestRun, on_delete=models.PROTECT, related_name="steps")
    stored = models.BigIntegerField()
    line = models.BigIntegerField(help_text="the last line stored")
    finished = models.BooleanField(default=False)
    at = models.DateTimeField()

    class Meta:
        verbose_name = _("ingest step")
        verbose_name_plural = _("ingest steps")


class AuthoritySeal(models.Model):
    """What one person may do, as the application last wrote it, sealed with the seal key
    (audit.access.authority_seal): the user's name, flags and password, their groups and the
    groups' permissions, their own permissions, their live API tokens and their device
    account, as canonical JSON, and an HMAC over it under the seal key, which the
    database's roles never hold. A row per change, never changed itself (the database
    refuses an UPDATE; the application's role holds no UPDATE or DELETE): the latest
    generation of a user is the one that counts, so an old seal cannot be put back."""

    # the user's id, not a foreign key: the rows are kept when a user is deleted
    user_id = models.BigIntegerField()
    generation = models.BigIntegerField()
    authority = models.TextField(help_text="canonical JSON of what was sealed")
    seal = models.CharField(max_length=64)
    sealed_at = models.DateTimeField()
    reason = models.CharField(
        max_length=120, help_text="what the application changed, or who re-sealed"
    )

    class Meta:
        verbose_name = _("authority seal")
        verbose_name_plural = _("authority seals")
        constraints = [
            models.UniqueConstraint(
                fields=["user_id", "generation"], name="audit_authorityseal_once"
            )
        ]

    def __str__(self) -> str:
        return f"authority of user {self.user_id}, generation {self.generation}"
