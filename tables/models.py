"""Read models (projections) of the tables, built from the event store by the rules
engine's replay (:mod:`tables.projections`). Nothing here is a record: every row can be
dropped and rebuilt from the events (``manage.py rebuild_projections``). Rows are
written by :mod:`tables.projections` only; the models hold no behaviour."""

from __future__ import annotations

from django.db import models


class Table(models.Model):
    """A table's stream as the projection last saw it."""

    stream = models.CharField(max_length=64, unique=True, verbose_name="table")
    ruleset = models.CharField(max_length=64, blank=True)
    currency = models.CharField(max_length=3, blank=True)
    min_bet = models.BigIntegerField(null=True, blank=True)
    max_bet = models.BigIntegerField(null=True, blank=True)
    # the last stream version folded into the projection
    projected_version = models.PositiveBigIntegerField(default=0)

    class Meta:
        ordering = ["stream"]

    def __str__(self) -> str:
        return self.stream


class TableDay(models.Model):
    """One gaming day of a table: the stream's versions from its ``table.opened``."""

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="days")
    gaming_day = models.DateField()
    first_version = models.PositiveBigIntegerField()
    last_version = models.PositiveBigIntegerField()
    rounds = models.PositiveIntegerField(default=0)
    bets = models.PositiveIntegerField(default=0)
    handle = models.BigIntegerField(default=0, help_text="sum of stakes, minor units")
    recorded_net = models.BigIntegerField(
        default=0, help_text="players' net as recorded (+ paid by the house)"
    )
    expected_net = models.BigIntegerField(default=0, help_text="players' net as the rules give it")

    class Meta:
        ordering = ["table", "gaming_day"]
        constraints = [
            models.UniqueConstraint(fields=["table", "gaming_day"], name="tables_tableday_unique")
        ]

    def __str__(self) -> str:
        return f"{self.table} {self.gaming_day}"


class Shoe(models.Model):
    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="shoes")
    gaming_day = models.DateField()
    shoe = models.CharField(max_length=64)
    shuffled_version = models.PositiveBigIntegerField()
    decks = models.PositiveSmallIntegerField()
    method = models.CharField(max_length=16)
    order_known = models.BooleanField()
    seed = models.CharField(max_length=2000, blank=True)
    cut_card = models.PositiveIntegerField(null=True, blank=True)
    rounds = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["table", "shuffled_version"]
        constraints = [
            models.UniqueConstraint(fields=["table", "shuffled_version"], name="tables_shoe_unique")
        ]

    def __str__(self) -> str:
        return f"{self.table} shoe {self.shoe}"


class Round(models.Model):
    class Status(models.TextChoices):
        SETTLED = "settled"
        VOIDED = "voided"
        OPEN = "open", "never settled"

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="rounds")
    gaming_day = models.DateField()
    number = models.PositiveBigIntegerField()
    shoe = models.ForeignKey(
        Shoe, null=True, blank=True, on_delete=models.SET_NULL, related_name="round_set"
    )
    status = models.CharField(max_length=16, choices=Status.choices)
    started_at = models.DateTimeField()
    first_version = models.PositiveBigIntegerField()
    last_version = models.PositiveBigIntegerField()
    # every stream version that belongs to the round, in order (corrections included)
    versions = models.JSONField(default=list)
    dealer_total = models.PositiveSmallIntegerField(null=True, blank=True)
    handle = models.BigIntegerField(default=0)
    recorded_net = models.BigIntegerField(null=True, blank=True)
    expected_net = models.BigIntegerField()
    corrected = models.BooleanField(
        default=False, help_text="a correction replaced some recorded settlements"
    )

    class Meta:
        ordering = ["table", "gaming_day", "number"]
        constraints = [
            models.UniqueConstraint(
                fields=["table", "gaming_day", "number"], name="tables_round_unique"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.table} {self.gaming_day} round {self.number}"


class Hand(models.Model):
    """A box's hand, or the dealer's (``box`` 0). ``cards`` is the list of
    ``{"card", "face", "version", "revealed_version"}`` in the order dealt."""

    # no foreign key in the database, as a bet's (below says why): its deferred check of
    # every hand's round at the commit is work the replay's process waits for
    round = models.ForeignKey(
        Round, on_delete=models.CASCADE, related_name="hands", db_constraint=False
    )
    box = models.PositiveSmallIntegerField(help_text="0 = the dealer")
    number = models.PositiveSmallIntegerField(help_text="0 = original hand, 1.. = split off")
    cards = models.JSONField(default=list)
    actions = models.JSONField(
        default=list, help_text="decisions in order (hit, stand, double, split, surrender)"
    )
    total = models.PositiveSmallIntegerField()
    soft = models.BooleanField()
    bust = models.BooleanField()
    doubled = models.BooleanField(default=False)
    surrendered = models.BooleanField(default=False)
    from_split = models.BooleanField(default=False)

    class Meta:
        ordering = ["round", "box", "number"]
        constraints = [
            models.UniqueConstraint(fields=["round", "box", "number"], name="tables_hand_unique")
        ]

    def __str__(self) -> str:
        return "dealer" if self.box == 0 else f"box {self.box} hand {self.number}"


class Bet(models.Model):
    """A stake with what was recorded for it and what the rules give (recomputed)."""

    # no index of its own: the unique (round, bet) index leads with round and serves every
    # look-up, join and delete by round; a second one was another entry to write for
    # every bet (10,000 in a live round), read by nothing the first does not serve.
    # No foreign key in the database either: its check of every bet's round at the
    # commit is work the replay's process waits for (10,000 bets a live round). Only the
    # projection writes bets and hands, each with the round it has just written, in one
    # transaction, and deletes a day's bets and hands before its rounds (Django's
    # cascade still follows the relation); rebuild_projections proves the rows equal to
    # a rebuild, and names any hand or bet left without its round
    # (tables.projections.snapshot)
    round = models.ForeignKey(
        Round, on_delete=models.CASCADE, related_name="bets", db_index=False, db_constraint=False
    )
    bet = models.CharField(max_length=64)
    box = models.PositiveSmallIntegerField()
    hand = models.PositiveSmallIntegerField()
    kind = models.CharField(max_length=16)
    amount = models.BigIntegerField()
    player = models.CharField(max_length=64, blank=True)
    parent = models.CharField(max_length=64, blank=True)
    recorded_outcome = models.CharField(max_length=16, blank=True)
    recorded_net = models.BigIntegerField(null=True, blank=True)
    expected_outcome = models.CharField(max_length=16, blank=True)
    expected_net = models.BigIntegerField(null=True, blank=True)
    matches = models.BooleanField(help_text="recorded = recomputed")

    class Meta:
        ordering = ["round", "box", "hand", "bet"]
        constraints = [models.UniqueConstraint(fields=["round", "bet"], name="tables_bet_unique")]
        # the few bets whose recorded settlement differs, by round: what reconciliation
        # asks of every table-day (without it, a scan of every bet of every table)
        indexes = [
            models.Index(
                fields=["round"], condition=models.Q(matches=False), name="tables_bet_mismatched"
            )
        ]

    def __str__(self) -> str:
        return self.bet


def mismatched_bets(table: Table, gaming_day: object) -> models.QuerySet[Bet]:
    """The table-day's bets whose recorded settlement is not the recomputed one - few, and
    found by the partial index ``tables_bet_mismatched`` (reconciliation asks it of every
    table-day)."""
    return Bet.objects.filter(round__table=table, round__gaming_day=gaming_day, matches=False)


class Alert(models.Model):
    """Something the floor must see now, derived from findings and checks (a read model
    of :mod:`tables.floor`): a high or critical finding, a failed verification of the
    record, a table silent too long. ``key`` names it across derivations, so deriving
    again adds nothing. Its acknowledgement is an event (``alert.acknowledged`` in the
    stream ``audit.alerts``), copied here with who, when and the note."""

    class Kind(models.TextChoices):
        FINDING = "finding", "finding"
        SILENT_TABLE = "silent_table", "table silent"
        VERIFY_FAILED = "verify_failed", "verification failed"

    key = models.CharField(max_length=200, unique=True)
    kind = models.CharField(max_length=16, choices=Kind.choices)
    severity = models.CharField(max_length=8, help_text="critical, high or medium")
    stream = models.CharField(
        max_length=64, blank=True, verbose_name="table", help_text="blank: the whole store"
    )
    gaming_day = models.DateField(null=True, blank=True)
    finding = models.ForeignKey(
        "audit.Finding", null=True, blank=True, on_delete=models.CASCADE, related_name="alerts"
    )
    message = models.TextField()
    raised_at = models.DateTimeField(db_index=True)
    acknowledged_by = models.CharField(max_length=150, blank=True)
    acknowledged_at = models.DateTimeField(null=True, blank=True)
    note = models.TextField(blank=True)
    # the version of its alert.acknowledged event in the stream audit.alerts
    event_version = models.PositiveBigIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["-raised_at", "-id"]

    def __str__(self) -> str:
        where = f" on {self.stream}" if self.stream else ""
        return f"{self.get_kind_display()}{where}: {self.message[:60]}"
