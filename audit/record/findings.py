"""The findings vocabulary: every kind of thing the system can find wrong, declared once.

Each kind has a **severity**, an **owner** (the check that finds it), a sentence a
pit boss, an accountant or a compliance officer understands and a short title. The rules engine, the
ledger's reconciliation and the chain verifier report findings only of their own kinds;
the findings table, the admin, the API, the docs and the simulator's fault registry all
read this one table, and a test fails when a kind lacks any of it.

Severity:

- **critical** - the record itself is damaged (a hash that no longer matches, a broken
  link, a hole in a stream): nothing read from that point on can be trusted;
- **high** - money is wrong, or the record misses or repeats what the money rests on
  (a payout, a settlement, a card the shoe cannot hold, a chip count);
- **medium** - the dealer or the table broke procedure but the money follows the rules
  (decisions, stakes, deal order, the dealer's play, the shoe's burns and cut);
- **low** - an event out of place that changes nothing.

Owners: ``engine`` (replay of the rounds, :mod:`tables.engine.replay`), ``ledger`` (the
reconciliation of chips and cash, :mod:`ledger`), ``integrity`` (the chain verifier,
:mod:`audit.record.verify`, and the verification of what protects the store around it,
``audit.integrity.verification``), ``feed`` (the read models' runner, :mod:`audit.feed.subscribers`: a
table a read model could not follow).
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Literal

Severity = Literal["critical", "high", "medium", "low"]
Owner = Literal["engine", "ledger", "integrity", "feed"]
SEVERITIES: tuple[Severity, ...] = ("critical", "high", "medium", "low")
OWNERS: tuple[Owner, ...] = ("engine", "ledger", "integrity", "feed")


def gettext_noop(text: str) -> str:
    """Marks a sentence or title for the translators' catalogue (``makemessages`` reads the
    call) and returns it as it is: this module is pure, so the screens translate it where
    they show it (``audit.presenting.vocabulary``)."""
    return text


@dataclass(frozen=True, slots=True)
class FindingKind:
    """A kind: its ``sentence`` says what it means, its ``title`` names it in a few words
    (a list's column, an alert's head); both English, translated at display."""

    name: str
    severity: Severity
    owner: Owner
    sentence: str
    title: str


_KINDS = (
    # --- the rules engine's replay ---------------------------------------------------------
    FindingKind(
        "wrong_payout",
        "high",
        "engine",
        gettext_noop("a bet's recorded settlement differs from the one the rules give"),
        gettext_noop("Wrong payout"),
    ),
    FindingKind(
        "wrong_cashout_offer",
        "high",
        "engine",
        gettext_noop(
            "a cash-out offer differs from the one the system computes from the hand's expected value (seed 000)"
        ),
        gettext_noop("Wrong cash-out offer"),
    ),
    FindingKind(
        "missing_settlement",
        "high",
        "engine",
        gettext_noop("a bet of a settled round has no settlement recorded"),
        gettext_noop("Settlement missing"),
    ),
    FindingKind(
        "unknown_bet",
        "high",
        "engine",
        gettext_noop("a settlement or correction names a bet the round never took"),
        gettext_noop("Unknown bet"),
    ),
    FindingKind(
        "card_out_of_sequence",
        "high",
        "engine",
        gettext_noop("a card is not the next card of the shoe's recorded order"),
        gettext_noop("Card out of sequence"),
    ),
    FindingKind(
        "impossible_card",
        "high",
        "engine",
        gettext_noop("a card the shoe cannot hold any more (or a shoe already empty)"),
        gettext_noop("Impossible card"),
    ),
    FindingKind(
        "missing_event",
        "high",
        "engine",
        gettext_noop(
            "an event the record must contain is not there (version gap, unsettled round)"
        ),
        gettext_noop("Event missing"),
    ),
    FindingKind(
        "duplicate_event",
        "high",
        "engine",
        gettext_noop(
            "the same event (id or stream version), bet or settlement entry recorded twice"
        ),
        gettext_noop("Event recorded twice"),
    ),
    FindingKind(
        "invalid_correction",
        "high",
        "engine",
        gettext_noop("a correction that names no known event or bet"),
        gettext_noop("Invalid correction"),
    ),
    FindingKind(
        "missing_stake",
        "high",
        "engine",
        gettext_noop(
            "a double, split or insurance decision with no stake placed for it: the hand or the bet played for free"
        ),
        gettext_noop("Stake missing"),
    ),
    FindingKind(
        "stream_mismatch",
        "high",
        "engine",
        gettext_noop(
            "a stream's table.opened names another table than the stream: that table's record "
            "would merge with another's"
        ),
        gettext_noop("Table record mismatch"),
    ),
    FindingKind(
        "unauthorised_change",
        "high",
        "engine",
        gettext_noop(
            "a round's correction or void recorded without a person's authority (a table device, no recorded "
            "principal, or a server seal that does not hold): not applied, the settlements stand as recorded"
        ),
        gettext_noop("Change without authority"),
    ),
    FindingKind(
        "illegal_decision",
        "medium",
        "engine",
        gettext_noop("a decision the rule set does not allow for that hand at that moment"),
        gettext_noop("Decision not allowed"),
    ),
    FindingKind(
        "illegal_bet",
        "medium",
        "engine",
        gettext_noop("a stake the rule set or the moment does not allow (limits, kind, amount)"),
        gettext_noop("Bet not allowed"),
    ),
    FindingKind(
        "dealer_procedure",
        "medium",
        "engine",
        gettext_noop("the dealer drew or stood where the rules dictate otherwise"),
        gettext_noop("Dealer procedure broken"),
    ),
    FindingKind(
        "deal_order",
        "medium",
        "engine",
        gettext_noop("a card went to another place than the deal order of the rule set says"),
        gettext_noop("Deal order broken"),
    ),
    FindingKind(
        "wrong_face",
        "medium",
        "engine",
        gettext_noop(
            "a card dealt face up where the rules deal it face down (a hole card, a double's card), or the other way"
        ),
        gettext_noop("Card dealt with the wrong face"),
    ),
    FindingKind(
        "shoe_procedure",
        "medium",
        "engine",
        gettext_noop(
            "the shoe's decks, burns, cut card, commitment or reshuffle not as the rule set says"
        ),
        gettext_noop("Shoe procedure broken"),
    ),
    FindingKind(
        "misdeal",
        "medium",
        "engine",
        gettext_noop("a card to a box without a bet, or a hand dealt a wrong number of cards"),
        gettext_noop("Misdeal"),
    ),
    FindingKind(
        "unknown_rule_set",
        "medium",
        "engine",
        gettext_noop(
            "no table.opened, or a rule set or override the engine does not know (replay uses a stand-in)"
        ),
        gettext_noop("Unknown rule set"),
    ),
    FindingKind(
        "unexpected_event",
        "low",
        "engine",
        gettext_noop("an event that belongs to no open round or comes after its end"),
        gettext_noop("Unexpected event"),
    ),
    # --- the ledger's reconciliation of chips and cash ---------------------------------
    FindingKind(
        "chip_variance",
        "high",
        "ledger",
        gettext_noop(
            "a table's chip count differs from what its opening count, fills, credits and play say it holds"
        ),
        gettext_noop("Chip variance"),
    ),
    FindingKind(
        "duplicate_slip",
        "high",
        "ledger",
        gettext_noop(
            "the same fill, credit or marker slip recorded more than once (it counts once)"
        ),
        gettext_noop("Slip recorded twice"),
    ),
    FindingKind(
        "slip_without_request",
        "high",
        "ledger",
        gettext_noop(
            "chips of a fill or credit moved with no request from a floor supervisor on record"
        ),
        gettext_noop("Slip without a request"),
    ),
    FindingKind(
        "slip_mismatch",
        "high",
        "ledger",
        gettext_noop(
            "a fill or credit slip's chips differ between its steps (requested, issued, received)"
        ),
        gettext_noop("Slip steps differ"),
    ),
    FindingKind(
        "slip_unfinished",
        "high",
        "ledger",
        gettext_noop(
            "a fill or credit was requested or under way but never completed nor voided by the end of its gaming day"
        ),
        gettext_noop("Slip unfinished"),
    ),
    FindingKind(
        "void_without_reason",
        "medium",
        "ledger",
        gettext_noop("a fill or credit slip was voided without a reason"),
        gettext_noop("Void without a reason"),
    ),
    FindingKind(
        "void_after_receipt",
        "medium",
        "ledger",
        gettext_noop(
            "a fill or credit slip was voided after its chips had already moved (they stay counted)"
        ),
        gettext_noop("Void after the chips moved"),
    ),
    FindingKind(
        "unauthorised_void",
        "high",
        "ledger",
        gettext_noop(
            "a fill or credit slip's void recorded without a person's authority (a table device, no recorded "
            "principal, or a server seal that does not hold): not applied, the slip stands"
        ),
        gettext_noop("Void without authority"),
    ),
    FindingKind(
        "opener_mismatch",
        "high",
        "ledger",
        gettext_noop(
            "a table's opening count differs from the closing count of the shift before it"
        ),
        gettext_noop("Opening count differs"),
    ),
    FindingKind(
        "opener_missing",
        "high",
        "ledger",
        gettext_noop(
            "a table whose game has a drop box has no opening count on record for its gaming day (or shift)"
        ),
        gettext_noop("Opening count missing"),
    ),
    FindingKind(
        "closer_missing",
        "high",
        "ledger",
        gettext_noop(
            "a table whose game has a drop box has no closing count on record for its gaming day (or shift)"
        ),
        gettext_noop("Closing count missing"),
    ),
    FindingKind(
        "drop_not_counted",
        "high",
        "ledger",
        gettext_noop(
            "a drop box was removed from a table but its count is not on record, or a table with a "
            "drop box has no drop of its gaming day on record"
        ),
        gettext_noop("Drop not counted"),
    ),
    FindingKind(
        "drop_not_posted",
        "high",
        "ledger",
        gettext_noop("a drop box was counted but its count was never posted to the books"),
        gettext_noop("Drop not posted"),
    ),
    FindingKind(
        "drop_mismatch",
        "high",
        "ledger",
        gettext_noop("the drop posted to the books differs from the count team's count"),
        gettext_noop("Drop posted differs from the count"),
    ),
    FindingKind(
        "replay_variance",
        "high",
        "ledger",
        gettext_noop(
            "the win the settlements record differs from the win replay recomputes by more than "
            "replay's findings explain"
        ),
        gettext_noop("Replay variance"),
    ),
    FindingKind(
        "win_outside_interval",
        "medium",
        "ledger",
        gettext_noop(
            # xgettext:no-python-format
            "the house result of a table's rounds lies outside the 95% interval around their "
            "theoretical win (investigate in writing)"
        ),
        gettext_noop("Win outside the expected interval"),
    ),
    FindingKind(
        "currency_mismatch",
        "high",
        "ledger",
        gettext_noop(
            "an amount was recorded at a table in another currency than the table's and no exchange "
            "rate of its gaming day converts it: it is not booked"
        ),
        gettext_noop("Currency mismatch"),
    ),
    FindingKind(
        "no_gaming_day",
        "high",
        "ledger",
        gettext_noop(
            "events after a table.opened struck by a correction for a gaming day that is no calendar date, up to "
            "the next proper opening: counted in no gaming day, never in the day before"
        ),
        gettext_noop("No gaming day"),
    ),
    FindingKind(
        "signed_day_changed",
        "high",
        "ledger",
        gettext_noop(
            "a later event (a correction, a late count) changed the figures of a table's gaming day "
            "that accounting had signed off"
        ),
        gettext_noop("Signed-off day changed"),
    ),
    # --- the chain verifier: the record itself ----------------------------------------------
    FindingKind(
        "altered",
        "critical",
        "integrity",
        gettext_noop("a stored event's content no longer matches its hash"),
        gettext_noop("Event altered"),
    ),
    FindingKind(
        "broken_link",
        "critical",
        "integrity",
        gettext_noop("an event's prev_hash is not the hash of the event before it in its stream"),
        gettext_noop("Broken chain link"),
    ),
    FindingKind(
        "gap",
        "critical",
        "integrity",
        gettext_noop("versions of a stream are missing between two stored events"),
        gettext_noop("Gap in a stream"),
    ),
    FindingKind(
        "bad_start",
        "critical",
        "integrity",
        gettext_noop("a stream does not start at version 1"),
        gettext_noop("Stream starts wrong"),
    ),
    FindingKind(
        "reordered",
        "critical",
        "integrity",
        gettext_noop("an event's global position is not after the one before it in its stream"),
        gettext_noop("Events reordered"),
    ),
    FindingKind(
        "invalid",
        "critical",
        "integrity",
        gettext_noop("a stored event breaks its type's schema"),
        gettext_noop("Event breaks its schema"),
    ),
    FindingKind(
        "unsealed",
        "critical",
        "integrity",
        gettext_noop(
            "a stored event the application did not write: its server seal is missing or wrong (a row "
            "added or changed past the store)"
        ),
        gettext_noop("Event without its seal"),
    ),
    FindingKind(
        "truncated",
        "critical",
        "integrity",
        gettext_noop(
            "a stream ends before the head recorded elsewhere (a signed head, an earlier export): its tail was cut off"
        ),
        gettext_noop("Stream cut short"),
    ),
    FindingKind(
        "head_mismatch",
        "critical",
        "integrity",
        gettext_noop(
            "the event at a head recorded elsewhere has another hash: the chain was rewritten and re-hashed"
        ),
        gettext_noop("Signed head differs"),
    ),
    FindingKind(
        "protection_broken",
        "critical",
        "integrity",
        gettext_noop(
            "what protects the record no longer holds: an append-only trigger missing, disabled or changed, "
            "the record not matching a signed tree head, or the access log not matching its seals"
        ),
        gettext_noop("Record's protection broken"),
    ),
    FindingKind(
        "read_model_differs",
        "critical",
        "integrity",
        gettext_noop(
            "a row people act on (a finding's status, a day's sign-off, an alert's acknowledgement) differs from "
            "the events that make it: changed behind the services' back; rebuild_projections writes it back"
        ),
        gettext_noop("Screen row differs from its events"),
    ),
    FindingKind(
        "ingest_unfinished",
        "critical",
        "integrity",
        gettext_noop(
            "an ingest stopped while writing and was not run again: a stream of its file may be cut short"
        ),
        gettext_noop("Ingest unfinished"),
    ),
    FindingKind(
        "authority_unsealed",
        "critical",
        "integrity",
        gettext_noop(
            "a person's authority (user, flags, password, groups, permissions, API tokens, device account) differs "
            "from what the application sealed: changed past it; the person is refused until re-sealed"
        ),
        gettext_noop("Authority changed past the application"),
    ),
    # --- the read models' runner: a stream no read model can follow -------------------------
    FindingKind(
        "stream_set_aside",
        "critical",
        "feed",
        gettext_noop(
            "a read model failed to apply a table's events run after run: the table is set aside (that read model "
            "of it stays where it stopped) while every other table goes on, until a correction takes it back"
        ),
        gettext_noop("Table set aside by a read model"),
    ),
)

KINDS: MappingProxyType[str, FindingKind] = MappingProxyType({k.name: k for k in _KINDS})


def kinds_of(owner: Owner) -> frozenset[str]:
    """The names of the kinds ``owner`` reports."""
    return frozenset(name for name, kind in KINDS.items() if kind.owner == owner)


@dataclass(frozen=True, slots=True)
class Finding:
    """One finding, as a check reports it. ``kind`` is one of :data:`KINDS`; ``round``,
    ``box``, ``hand`` and ``bet`` say where (None where it does not apply);
    ``expected`` and ``recorded`` are short texts (a card, an amount, an action);
    ``message`` is one sentence a person understands; ``event`` is the id of the event
    that showed it, when one did."""

    kind: str
    message: str
    round: int | None = None
    box: int | None = None
    hand: int | None = None
    bet: str | None = None
    expected: str | None = None
    recorded: str | None = None
    event: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown finding kind {self.kind!r}")

    @property
    def severity(self) -> Severity:
        return KINDS[self.kind].severity

    def as_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "round": self.round,
            "box": self.box,
            "hand": self.hand,
            "bet": self.bet,
            "expected": self.expected,
            "recorded": self.recorded,
            "event": self.event,
            "message": self.message,
        }
