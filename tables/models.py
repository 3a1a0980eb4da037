"""Read models (projections) of the tables, built from the event store by the rules
engine's replay (:mod:`tables.projections`). Nothing here is a record: every row can be
dropped and rebuilt from the events (``manage.py rebuild_projections``). Rows are
written by :mod:`tables.projections` only; the models hold no behaviour."""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy


class Table(models.Model):
    """A table's stream as the projection last saw it."""

    stream = models.CharField(max_length=64, unique=True, verbose_name=_("table"))
    ruleset = models.CharField(max_length=64, blank=True, verbose_name=_("rule set"))
    currency = models.CharField(max_length=3, blank=True, verbose_name=_("currency"))
    min_bet = models.BigIntegerField(null=True, blank=True, verbose_name=_("min bet"))
    max_bet = models.BigIntegerField(null=True, blank=True, verbose_name=_("max bet"))
    # the last stream version folded into the projection
    projected_version = models.PositiveBigIntegerField(
        default=0, verbose_name=_("projected version")
    )

    class Meta:
        verbose_name = _("table")
        verbose_name_plural = _("tables")
        ordering = ["stream"]

    def __str__(self) -> str:
        return self.stream


class TableDay(models.Model):
    """One gaming day of a table: the stream's versions from its ``table.opened``."""

    table = models.ForeignKey(
        Table, on_delete=models.CASCADE, related_name="days", verbose_name=_("table")
    )
    gaming_day = models.DateField(verbose_name=_("gaming day"))
    first_version = models.PositiveBigIntegerField(verbose_name=_("first version"))
    last_version = models.PositiveBigIntegerField(verbose_name=_("last version"))
    rounds = models.PositiveIntegerField(default=0, verbose_name=_("rounds"))
    bets = models.PositiveIntegerField(default=0, verbose_name=_("bets"))
    handle = models.BigIntegerField(
        default=0, help_text=_("sum of stakes, minor units"), verbose_name=_("handle")
    )
    recorded_net = models.BigIntegerField(
        default=0,
        help_text=_("players' net as recorded (+ paid by the house)"),
        verbose_name=_("players' net recorded"),
    )
    expected_net = models.BigIntegerField(
        default=0,
        help_text=_("players' net as the rules give it"),
        verbose_name=_("players' net recomputed"),
    )

    class Meta:
        verbose_name = _("table-day")
        verbose_name_plural = _("table-days")
        ordering = ["table", "gaming_day"]
        constraints = [
            models.UniqueConstraint(fields=["table", "gaming_day"], name="tables_tableday_unique")
        ]

    def __str__(self) -> str:
        return f"{self.table} {self.gaming_day}"


class Shoe(models.Model):
    table = models.ForeignKey(
        Table, on_delete=models.CASCADE, related_name="shoes", verbose_name=_("table")
    )
    gaming_day = models.DateField(verbose_name=_("gaming day"))
    shoe = models.CharField(max_length=64, verbose_name=_("shoe"))
    shuffled_version = models.PositiveBigIntegerField(verbose_name=_("version of its shuffle"))
    decks = models.PositiveSmallIntegerField(verbose_name=_("decks"))
    method = models.CharField(max_length=16, verbose_name=_("shuffle method"))
    order_known = models.BooleanField(verbose_name=_("order known"))
    seed = models.CharField(max_length=2000, blank=True, verbose_name=_("seed"))
    cut_card = models.PositiveIntegerField(null=True, blank=True, verbose_name=_("cut card"))
    rounds = models.PositiveIntegerField(default=0, verbose_name=_("rounds"))

    class Meta:
        verbose_name = _("shoe")
        verbose_name_plural = _("shoes")
        ordering = ["table", "shuffled_version"]
        constraints = [
            models.UniqueConstraint(fields=["table", "shuffled_version"], name="tables_shoe_unique")
        ]

    def __str__(self) -> str:
        return _("%(table)s shoe %(shoe)s") % {"table": self.table, "shoe": self.shoe}


class Round(models.Model):
    class Status(models.TextChoices):
        SETTLED = "settled", pgettext_lazy("round", "Settled")
        VOIDED = "voided", pgettext_lazy("round", "Voided")
        OPEN = "open", pgettext_lazy("round", "never settled")

    table = models.ForeignKey(
        Table, on_delete=models.CASCADE, related_name="rounds", verbose_name=_("table")
    )
    gaming_day = models.DateField(verbose_name=_("gaming day"))
    number = models.PositiveBigIntegerField(verbose_name=_("number"))
    shoe = models.ForeignKey(
        Shoe,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="round_set",
        verbose_name=_("shoe"),
    )
    status = models.CharField(max_length=16, choices=Status.choices, verbose_name=_("status"))
    started_at = models.DateTimeField(verbose_name=_("started"))
    first_version = models.PositiveBigIntegerField(verbose_name=_("first version"))
    last_version = models.PositiveBigIntegerField(verbose_name=_("last version"))
    # every stream version that belongs to the round, in order (corrections included)
    versions = models.JSONField(default=list, verbose_name=_("versions"))
    dealer_total = models.PositiveSmallIntegerField(
        null=True, blank=True, verbose_name=_("dealer's total")
    )
    handle = models.BigIntegerField(default=0, verbose_name=_("handle"))
    recorded_net = models.BigIntegerField(
        null=True, blank=True, verbose_name=_("players' net recorded")
    )
    expected_net = models.BigIntegerField(verbose_name=_("players' net recomputed"))
    corrected = models.BooleanField(
        default=False,
        help_text=_("a correction replaced some recorded settlements"),
        verbose_name=_("corrected"),
    )

    class Meta:
        verbose_name = _("round")
        verbose_name_plural = _("rounds")
        ordering = ["table", "gaming_day", "number"]
        constraints = [
            models.UniqueConstraint(
                fields=["table", "gaming_day", "number"], name="tables_round_unique"
            ),
        ]

    def __str__(self) -> str:
        return _("%(table)s %(day)s round %(number)s") % {
            "table": self.table,
            "day": self.gaming_day,
            "number": self.number,
        }


class Hand(models.Model):
    """A box's hand, or the dealer's (``box`` 0). ``cards`` is the list of
    ``{"card", "face", "version", "revealed_version"}`` in the order dealt."""

    # no foreign key in the database, as a bet's (below says why): its deferred check of
    # every hand's round at the commit is work the replay's process waits for
    round = models.ForeignKey(
        Round,
        on_delete=models.CASCADE,
        related_name="hands",
        db_constraint=False,
        verbose_name=_("round"),
    )
    box = models.PositiveSmallIntegerField(help_text=_("0 = the dealer"), verbose_name=_("box"))
    number = models.PositiveSmallIntegerField(
        help_text=_("0 = original hand, 1.. = split off"), verbose_name=_("hand")
    )
    cards = models.JSONField(default=list, verbose_name=_("cards"))
    actions = models.JSONField(
        default=list,
        help_text=_("decisions in order (hit, stand, double, split, surrender)"),
        verbose_name=_("decisions"),
    )
    total = models.PositiveSmallIntegerField(verbose_name=_("total"))
    soft = models.BooleanField(verbose_name=_("soft"))
    bust = models.BooleanField(verbose_name=_("bust"))
    doubled = models.BooleanField(default=False, verbose_name=_("doubled"))
    surrendered = models.BooleanField(default=False, verbose_name=_("surrendered"))
    from_split = models.BooleanField(default=False, verbose_name=_("from a split"))

    class Meta:
        verbose_name = _("hand")
        verbose_name_plural = _("hands")
        ordering = ["round", "box", "number"]
        constraints = [
            models.UniqueConstraint(fields=["round", "box", "number"], name="tables_hand_unique")
        ]

    def __str__(self) -> str:
        if self.box == 0:
            return str(_("dealer"))
        return _("box %(box)s hand %(hand)s") % {"box": self.box, "hand": self.number}


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
        Round,
        on_delete=models.CASCADE,
        related_name="bets",
        db_index=False,
        db_constraint=False,
        verbose_name=_("round"),
    )
    bet = models.CharField(max_length=64, verbose_name=_("bet"))
    box = models.PositiveSmallIntegerField(verbose_name=_("box"))
    hand = models.PositiveSmallIntegerField(verbose_name=_("hand"))
    kind = models.CharField(max_length=16, verbose_name=_("kind"))
    amount = models.BigIntegerField(verbose_name=_("amount"))
    player = models.CharField(max_length=64, blank=True, verbose_name=_("player"))
    parent = models.CharField(max_length=64, blank=True, verbose_name=_("bet it is behind"))
    recorded_outcome = models.CharField(
        max_length=16, blank=True, verbose_name=_("outcome recorded")
    )
    recorded_net = models.BigIntegerField(null=True, blank=True, verbose_name=_("net recorded"))
    expected_outcome = models.CharField(
        max_length=16, blank=True, verbose_name=_("outcome recomputed")
    )
    expected_net = models.BigIntegerField(null=True, blank=True, verbose_name=_("net recomputed"))
    matches = models.BooleanField(help_text=_("recorded = recomputed"), verbose_name=_("matches"))

    class Meta:
        verbose_name = _("bet")
        verbose_name_plural = _("bets")
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
        FINDING = "finding", _("finding")
        SILENT_TABLE = "silent_table", _("table silent")
        VERIFY_FAILED = "verify_failed", _("verification failed")

    key = models.CharField(max_length=200, unique=True, verbose_name=_("key"))
    kind = models.CharField(max_length=16, choices=Kind.choices, verbose_name=_("kind"))
    severity = models.CharField(
        max_length=8, help_text=_("critical, high or medium"), verbose_name=_("severity")
    )
    stream = models.CharField(
        max_length=64, blank=True, verbose_name=_("table"), help_text=_("blank: the whole store")
    )
    gaming_day = models.DateField(null=True, blank=True, verbose_name=_("gaming day"))
    finding = models.ForeignKey(
        "audit.Finding",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="alerts",
        verbose_name=_("finding"),
    )
    message = models.TextField(verbose_name=_("message"))
    raised_at = models.DateTimeField(db_index=True, verbose_name=_("raised"))
    acknowledged_by = models.CharField(
        max_length=150, blank=True, verbose_name=_("acknowledged by")
    )
    acknowledged_at = models.DateTimeField(null=True, blank=True, verbose_name=_("acknowledged at"))
    note = models.TextField(blank=True, verbose_name=_("note"))
    # the version of its alert.acknowledged event in the stream audit.alerts
    event_version = models.PositiveBigIntegerField(
        null=True, blank=True, verbose_name=_("version of its event")
    )

    class Meta:
        verbose_name = _("alert")
        verbose_name_plural = _("alerts")
        ordering = ["-raised_at", "-id"]

    def __str__(self) -> str:
        if self.stream:
            return _("%(kind)s on %(table)s: %(message)s") % {
                "kind": self.get_kind_display(),
                "table": self.stream,
                "message": self.message[:60],
            }
        return f"{self.get_kind_display()}: {self.message[:60]}"
