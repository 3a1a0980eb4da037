"""The ledger's read models, built from the event store by the ledger's fold
(:mod:`ledger.projection`, following the global feed), and the sign-offs.

Every row but a table's pit and the sign-offs can be dropped and built again from the
events. Amounts are integers of the table currency's minor units; house results
(wins, variances) are positive when the house won. Rows are written by
:mod:`ledger.projection`, :mod:`ledger.reconciliation` and :mod:`ledger.signoff` only;
the models hold no behaviour.
"""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _


class LedgerTable(models.Model):
    """A table as the ledger knows it. ``pit`` is where it stands: from the setting
    ``LEDGER_PITS`` (``pit_source`` settings), or chosen in the admin (``admin``: a later
    change of the setting leaves it)."""

    class PitSource(models.TextChoices):
        SETTINGS = "settings", _("Settings")
        ADMIN = "admin", _("Admin")

    stream = models.CharField(max_length=64, unique=True, verbose_name=_("table"))
    currency = models.CharField(max_length=3, blank=True, verbose_name=_("currency"))
    ruleset = models.CharField(
        verbose_name=_("game"),
        max_length=64,
        blank=True,
        help_text=_("the rule set of its latest gaming day"),
    )
    pit = models.CharField(max_length=32, blank=True, verbose_name=_("pit"))
    pit_source = models.CharField(
        verbose_name=_("pit from"),
        max_length=8,
        choices=PitSource.choices,
        default=PitSource.SETTINGS,
    )
    # the last stream version the ledger folded
    folded_version = models.PositiveBigIntegerField(default=0, verbose_name=_("version folded"))

    class Meta:
        ordering = ["stream"]
        # not "table": the admin's index would list "Tables" twice, this beside the game's
        verbose_name = _("table's pit")
        verbose_name_plural = _("tables' pits")
        permissions = [("sign_off", _("Can sign off and reopen a table's gaming day"))]

    def __str__(self) -> str:
        return self.stream


class Reconciliation(models.Model):
    """One table's gaming day (``shift`` blank) or one shift of it: the figures the
    ledger's fold gives, their four-way reconciliation (chip-count, recorded, replayed
    and theoretical win) as last computed, and the day's accounting state. The rows of a
    signed-off day are kept as they were signed (:mod:`ledger.projection`)."""

    class State(models.TextChoices):
        OPEN = "open", _("open")
        INCOMPLETE = "incomplete", _("incomplete")
        REPLAY_PENDING = "replay_pending", _("the replay not yet available")
        NO_DROP_BOX = "no_drop_box", _("no drop box")
        COUNTED = "counted", _("counted, a variance not explained")
        RECONCILED = "reconciled", _("reconciled")
        SIGNED = "signed", _("signed off")
        ADJUSTED = "adjusted", _("signed off, adjusted")

    table = models.ForeignKey(
        LedgerTable, on_delete=models.CASCADE, related_name="periods", verbose_name=_("table")
    )
    gaming_day = models.DateField(verbose_name=_("gaming day"))
    shift = models.CharField(
        max_length=32,
        blank=True,
        help_text=_("blank: the whole gaming day"),
        verbose_name=_("shift"),
    )
    currency = models.CharField(max_length=3)
    ruleset = models.CharField(max_length=64, blank=True, verbose_name=_("game"))
    rules = models.JSONField(
        default=dict, blank=True, help_text=_("the table's rule overrides that day")
    )
    final = models.BooleanField(
        default=False, help_text=_("the record is complete for the day (a later day opened)")
    )
    first_version = models.PositiveBigIntegerField(default=0)
    # --- the figures (the fold's)
    opener = models.BigIntegerField(null=True, blank=True)
    opener_chips = models.JSONField(null=True, blank=True)
    closer = models.BigIntegerField(null=True, blank=True)
    closer_chips = models.JSONField(null=True, blank=True)
    fills = models.BigIntegerField(default=0)
    credits = models.BigIntegerField(default=0)
    buyins_cash = models.BigIntegerField(default=0)
    markers_issued = models.BigIntegerField(default=0)
    drop_cash = models.BigIntegerField(null=True, blank=True)
    drop_markers = models.BigIntegerField(null=True, blank=True)
    drop_chips = models.BigIntegerField(null=True, blank=True)
    handle = models.BigIntegerField(default=0)
    stake_squares = models.DecimalField(max_digits=40, decimal_places=0, default=0)
    initial_stakes = models.BigIntegerField(
        null=True,
        blank=True,
        help_text=_("main bets and the bets behind them (null: folded before it was kept)"),
    )
    insurance_stakes = models.BigIntegerField(default=0)
    insurance_squares = models.DecimalField(max_digits=40, decimal_places=0, default=0)
    hand_squares = models.DecimalField(
        max_digits=40,
        decimal_places=0,
        default=0,
        help_text=_("per settled round, each box's initial stake squared, summed"),
    )
    round_squares = models.DecimalField(
        max_digits=40,
        decimal_places=0,
        default=0,
        help_text=_("per settled round, its initial stakes summed and squared, summed"),
    )
    settled_win = models.BigIntegerField(default=0)
    corrections = models.BigIntegerField(default=0)
    rounds = models.PositiveIntegerField(default=0)
    bets = models.PositiveIntegerField(default=0)
    between_shifts = models.BigIntegerField(default=0)
    duplicates = models.JSONField(
        default=list, blank=True, help_text=_("[[slip, value], ...] recorded twice")
    )
    conversions = models.JSONField(
        default=list,
        blank=True,
        help_text=_("amounts recorded in a foreign currency, booked at the day's rate: both kept"),
    )
    round_numbers = models.JSONField(
        default=list, blank=True, help_text=_("the rounds started in the period")
    )
    trial_balance = models.JSONField(
        default=dict, blank=True, help_text=_("{account: balance}; sums to 0")
    )
    # --- the reconciliation
    chip_win = models.BigIntegerField(null=True, blank=True)
    recorded_win = models.BigIntegerField(default=0)
    replayed_win = models.BigIntegerField(null=True, blank=True)
    theoretical_win = models.BigIntegerField(null=True, blank=True)
    theoretical_sd = models.BigIntegerField(null=True, blank=True)
    interval_low = models.BigIntegerField(null=True, blank=True)
    interval_high = models.BigIntegerField(null=True, blank=True)
    edge = models.CharField(
        max_length=80,
        blank=True,
        help_text=_("the house edge per initial stake, an exact fraction"),
    )
    game_variance = models.CharField(
        max_length=80, blank=True, help_text=_("variance per unit of initial stake, exact")
    )
    game_covariance = models.CharField(
        max_length=80,
        blank=True,
        help_text=_("covariance of two boxes of one round per unit staked, exact"),
    )
    insurance_edge = models.CharField(
        max_length=80, blank=True, help_text=_("insurance's house edge, exact")
    )
    insurance_variance = models.CharField(
        max_length=80, blank=True, help_text=_("insurance's variance per unit, exact")
    )
    chip_variance = models.BigIntegerField(null=True, blank=True)
    replay_variance = models.BigIntegerField(null=True, blank=True)
    explanations = models.JSONField(
        default=dict, blank=True, help_text=_("the known differences, chip and replay")
    )
    findings = models.JSONField(
        default=list, blank=True, help_text=_("what this period's reconciliation found")
    )
    unexplained = models.BooleanField(default=False, help_text=_("a variance beyond the threshold"))
    reconciled_version = models.PositiveBigIntegerField(default=0)
    reconciled_at = models.DateTimeField(null=True, blank=True)
    # --- the accounting state (docs/accounting.md, "States")
    state = models.CharField(max_length=16, choices=State.choices, default=State.OPEN)
    drop_box = models.BooleanField(
        default=True, help_text=_("the game has a chip tray and a drop box by design")
    )
    missing = models.JSONField(
        default=list,
        blank=True,
        help_text=_("what the record lacks, as the kinds of the findings that name it"),
    )
    # --- period close: a signed day keeps its rows as signed; what arrived later is here,
    # and is posted into the first open day of the table (its ``adjustments``)
    late = models.JSONField(
        default=dict,
        blank=True,
        help_text="signed day: {figures: {name: now - signed}, win, drop, house_result} of the "
        "events after signing",
    )
    adjusted_into = models.DateField(
        null=True,
        blank=True,
        help_text=_("signed day: the gaming day its later events were posted into"),
    )
    adjustments = models.JSONField(
        default=list,
        blank=True,
        help_text="[{gaming_day, figures, win, drop, house_result}] posted into this day "
        "from signed days",
    )
    adjustment_win = models.BigIntegerField(
        default=0, help_text=_("the chip-count win the adjustments posted into this day add")
    )
    adjustment_drop = models.BigIntegerField(
        default=0, help_text=_("the drop the adjustments posted into this day add")
    )
    adjustment_house_result = models.BigIntegerField(
        default=0,
        help_text=_("the house result (recorded win) the adjustments posted into this day add"),
    )

    class Meta:
        verbose_name = _("reconciliation")
        verbose_name_plural = _("reconciliations")
        ordering = ["table", "gaming_day", "shift"]
        constraints = [
            models.UniqueConstraint(
                fields=["table", "gaming_day", "shift"], name="ledger_reconciliation_unique"
            ),
        ]
        indexes = [models.Index(fields=["gaming_day", "shift"], name="ledger_rec_day")]

    def __str__(self) -> str:
        return f"{self.table} {self.gaming_day}" + (f" shift {self.shift}" if self.shift else "")

    @property
    def drop(self) -> int | None:
        if self.drop_cash is None:
            return None
        return self.drop_cash + (self.drop_markers or 0) + (self.drop_chips or 0)


class Slip(models.Model):
    """A fill or credit slip: its state and each step's chips, people and event."""

    class Kind(models.TextChoices):
        FILL = "fill", _("Fill")
        CREDIT = "credit", _("Credit")

    table = models.ForeignKey(
        LedgerTable, on_delete=models.CASCADE, related_name="slips", verbose_name=_("table")
    )
    number = models.CharField(max_length=64, verbose_name=_("number"))
    kind = models.CharField(max_length=8, choices=Kind.choices, verbose_name=_("kind"))
    gaming_day = models.DateField(verbose_name=_("gaming day"))
    shift = models.CharField(max_length=32, blank=True, verbose_name=_("shift"))
    state = models.CharField(
        max_length=16,
        help_text=_("complete, voided, or the last step recorded"),
        verbose_name=_("state"),
    )
    value = models.BigIntegerField(default=0, help_text=_("the chips of its first step"))
    # {step: {"event": id, "chips": {denomination: count}, "value": minor units}}
    steps = models.JSONField(default=dict)
    people = models.JSONField(default=dict, help_text=_("{role: person}"))
    void_reason = models.CharField(max_length=2000, blank=True, verbose_name=_("why voided"))
    legacy = models.BooleanField(
        default=False, help_text=_("recorded before custody steps were (complete by itself)")
    )

    class Meta:
        verbose_name = _("fill or credit slip")
        verbose_name_plural = _("fill and credit slips")
        ordering = ["table", "gaming_day", "number"]
        constraints = [
            models.UniqueConstraint(fields=["table", "number"], name="ledger_slip_unique")
        ]

    def __str__(self) -> str:
        return f"{self.kind} slip {self.number}"


class InventorySlip(models.Model):
    """One opening or closing count of a table's tray."""

    table = models.ForeignKey(
        LedgerTable, on_delete=models.CASCADE, related_name="counts", verbose_name=_("table")
    )
    gaming_day = models.DateField(verbose_name=_("gaming day"))
    shift = models.CharField(max_length=32, blank=True, verbose_name=_("shift"))
    kind = models.CharField(max_length=8, help_text=_("opening or closing"), verbose_name=_("kind"))
    slip = models.CharField(max_length=64, blank=True, verbose_name=_("slip"))
    chips = models.JSONField(default=dict, help_text=_("{denomination: count}"))
    value = models.BigIntegerField()
    counted_by = models.CharField(max_length=64, blank=True, verbose_name=_("counted by"))
    witnessed_by = models.CharField(max_length=64, blank=True, verbose_name=_("witnessed by"))
    event_id = models.UUIDField(null=True, blank=True)
    version = models.PositiveBigIntegerField(null=True, blank=True, verbose_name=_("version"))

    class Meta:
        verbose_name = _("inventory slip")
        verbose_name_plural = _("inventory slips")
        ordering = ["table", "gaming_day", "version"]

    def __str__(self) -> str:
        return f"{self.kind} count {self.table} {self.gaming_day} {self.shift}"


class DropBox(models.Model):
    """One drop box (or one shift's compartment) of a table's gaming day: removed,
    counted, posted."""

    table = models.ForeignKey(
        LedgerTable, on_delete=models.CASCADE, related_name="drops", verbose_name=_("table")
    )
    gaming_day = models.DateField(verbose_name=_("gaming day"))
    shift = models.CharField(
        max_length=32,
        blank=True,
        help_text=_("blank: the whole day's box"),
        verbose_name=_("shift"),
    )
    state = models.CharField(
        max_length=16, help_text=_("removed, counted, posted"), verbose_name=_("state")
    )
    counted_cash = models.BigIntegerField(null=True, blank=True)
    counted_markers = models.BigIntegerField(null=True, blank=True)
    counted_chips = models.BigIntegerField(null=True, blank=True)
    posted_cash = models.BigIntegerField(null=True, blank=True)
    posted_markers = models.BigIntegerField(null=True, blank=True)
    posted_chips = models.BigIntegerField(null=True, blank=True)
    removed_event = models.UUIDField(null=True, blank=True)
    count_event = models.UUIDField(null=True, blank=True)
    post_event = models.UUIDField(null=True, blank=True)

    class Meta:
        verbose_name = _("drop")
        verbose_name_plural = _("drops")
        ordering = ["table", "gaming_day", "shift"]
        constraints = [
            models.UniqueConstraint(
                fields=["table", "gaming_day", "shift"], name="ledger_drop_unique"
            )
        ]

    def __str__(self) -> str:
        return f"drop {self.table} {self.gaming_day}" + (f" {self.shift}" if self.shift else "")

    @property
    def counted(self) -> int | None:
        if self.counted_cash is None:
            return None
        return self.counted_cash + (self.counted_markers or 0) + (self.counted_chips or 0)


class Marker(models.Model):
    """Credit extended at a table: issued, redeemed (in part) at the cage. ``redeemed`` is
    what the redemptions folded with its issue saw; the aging
    (:func:`ledger.selectors.marker_aging`) sums :class:`MarkerRedemption` rows, which
    hold every redemption whatever day it came."""

    table = models.ForeignKey(
        LedgerTable, on_delete=models.CASCADE, related_name="markers", verbose_name=_("table")
    )
    number = models.CharField(max_length=64, verbose_name=_("number"))
    gaming_day = models.DateField(verbose_name=_("gaming day"))
    player = models.CharField(max_length=64, blank=True, verbose_name=_("player"))
    amount = models.BigIntegerField()
    currency = models.CharField(max_length=3, blank=True)
    redeemed = models.BigIntegerField(default=0)
    event_id = models.UUIDField(null=True, blank=True)

    class Meta:
        verbose_name = _("marker")
        verbose_name_plural = _("markers")
        ordering = ["table", "gaming_day", "number"]
        constraints = [
            models.UniqueConstraint(fields=["table", "number"], name="ledger_marker_unique")
        ]

    def __str__(self) -> str:
        return f"marker {self.number}"


class MarkerRedemption(models.Model):
    """One ``marker.redeemed``: a payment on a marker at the cage, in the gaming day it was
    recorded in (the marker may have been issued days before)."""

    table = models.ForeignKey(LedgerTable, on_delete=models.CASCADE, related_name="redemptions")
    marker = models.CharField(max_length=64)
    gaming_day = models.DateField()
    amount = models.BigIntegerField()
    currency = models.CharField(max_length=3)
    method = models.CharField(max_length=8, help_text=_("cash, chips or cheque"))
    event_id = models.UUIDField(null=True, blank=True)

    class Meta:
        verbose_name = _("marker redemption")
        verbose_name_plural = _("marker redemptions")
        ordering = ["table", "gaming_day", "marker"]
        indexes = [models.Index(fields=["marker", "gaming_day"], name="ledger_redemption_marker")]

    def __str__(self) -> str:
        return f"marker {self.marker} redeemed {self.gaming_day}"


class SignOff(models.Model):
    """Accounting's sign-off of a table's gaming day: the figures signed and their hash,
    who, when, why; reopened with a note. Each change is an event in the stream
    ``audit.ledger`` (``ledger.signed_off``, ``ledger.reopened``), appended in the same
    transaction as the row is written (:mod:`ledger.signoff`)."""

    class Status(models.TextChoices):
        SIGNED = "signed", _("signed off")
        REOPENED = "reopened", _("Reopened")

    table = models.CharField(max_length=64, verbose_name=_("table"))
    gaming_day = models.DateField(verbose_name=_("gaming day"))
    status = models.CharField(max_length=16, choices=Status.choices, verbose_name=_("status"))
    figures = models.JSONField(default=dict, help_text=_("the figures signed"))
    figures_hash = models.CharField(max_length=64)
    signed_by = models.CharField(max_length=150, verbose_name=_("signed by"))
    signed_at = models.DateTimeField(verbose_name=_("signed at"))
    note = models.TextField(blank=True, verbose_name=_("note"))
    state = models.CharField(
        max_length=16, blank=True, help_text=_("the day's accounting state when it was signed")
    )
    exceptions = models.JSONField(
        default=list,
        blank=True,
        help_text=_("what the note signs over: the kinds of what was missing or not explained"),
    )
    reopened_by = models.CharField(max_length=150, blank=True, verbose_name=_("reopened by"))
    reopened_at = models.DateTimeField(null=True, blank=True)
    reopen_note = models.TextField(blank=True, verbose_name=_("why reopened"))
    event_version = models.PositiveBigIntegerField(
        help_text=_("the last change's event in audit.ledger")
    )

    class Meta:
        verbose_name = _("sign-off")
        verbose_name_plural = _("sign-offs")
        ordering = ["table", "gaming_day"]
        constraints = [
            models.UniqueConstraint(fields=["table", "gaming_day"], name="ledger_signoff_unique")
        ]

    def __str__(self) -> str:
        return f"{self.table} {self.gaming_day} {self.status}"


class FxRate(models.Model):
    """The rate at which the casino takes ``currency`` at its tables of currency ``house``
    on ``gaming_day``: one unit of ``currency`` is ``numerator / denominator`` units of
    ``house``. Written with its event ``fx.rate_set`` in the stream ``audit.ledger``, in
    one transaction (:mod:`ledger.fx`); a later rate of the same day and pair replaces
    it (its event stays)."""

    gaming_day = models.DateField()
    currency = models.CharField(max_length=3)
    house = models.CharField(max_length=3)
    numerator = models.PositiveBigIntegerField()
    denominator = models.PositiveBigIntegerField()
    set_by = models.CharField(max_length=150)
    set_at = models.DateTimeField()
    note = models.TextField(blank=True)
    event_version = models.PositiveBigIntegerField(help_text=_("its event in audit.ledger"))

    class Meta:
        verbose_name = _("exchange rate")
        verbose_name_plural = _("exchange rates")
        ordering = ["gaming_day", "currency", "house"]
        constraints = [
            models.UniqueConstraint(
                fields=["gaming_day", "currency", "house"], name="ledger_fxrate_unique"
            )
        ]

    def __str__(self) -> str:
        return f"{self.gaming_day} 1 {self.currency} = {self.numerator}/{self.denominator} {self.house}"


class SlipBook(models.Model):
    """A book of fill or credit slips issued for use: the numbers ``prefix`` followed by
    ``first`` to ``last`` written with ``width`` digits (``F-0100001`` to ``F-0100050``).
    Written with its event ``ledger.slip_book_issued`` in the stream ``audit.ledger``, in
    one transaction (:mod:`ledger.slip_books`); the slip sequence report reads it."""

    class Kind(models.TextChoices):
        FILL = "fill", _("Fill")
        CREDIT = "credit", _("Credit")

    kind = models.CharField(max_length=8, choices=Kind.choices, verbose_name=_("kind"))
    prefix = models.CharField(max_length=64, blank=True)
    first = models.PositiveBigIntegerField()
    last = models.PositiveBigIntegerField()
    width = models.PositiveSmallIntegerField(help_text=_("digits of each number, zeros in front"))
    first_number = models.CharField(max_length=64, verbose_name=_("first number"))
    last_number = models.CharField(max_length=64, verbose_name=_("last number"))
    issued_by = models.CharField(max_length=150, verbose_name=_("issued by"))
    issued_at = models.DateTimeField(verbose_name=_("issued at"))
    note = models.TextField(blank=True, verbose_name=_("note"))
    event_version = models.PositiveBigIntegerField(help_text=_("its event in audit.ledger"))

    class Meta:
        verbose_name = _("slip book")
        verbose_name_plural = _("slip books")
        ordering = ["kind", "prefix", "first"]

    def __str__(self) -> str:
        return f"{self.kind} slips {self.first_number} to {self.last_number}"

    @property
    def size(self) -> int:
        return self.last - self.first + 1

    def number(self, n: int) -> str:
        return f"{self.prefix}{n:0{self.width}d}"
