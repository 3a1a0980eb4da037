"""The reports a package's events give, recomputed: the exporter writes them, the auditor
recomputes them from the package's events alone and compares them byte for byte.

One :class:`StreamAudit` per table folds the table's events of the period, in version
order, through the engine's replay (:class:`tables.engine.replay.Replay`: each round's
settlements as recorded and as the rules give them, the engine's findings) and the
ledger's fold (:class:`ledger.books.fold.Fold`: the day's chips, drop and win), then
reconciles each gaming day (:func:`ledger.books.reconcile`: chip-count, recorded and
replayed win) and, from format version 2, gives its theoretical win
(:class:`ledger.books.stats.Theoretical`): from format version 5 the initial stakes times
the exact house edge per initial stake of the rule set the table opened with, plus the
insurance stakes times insurance's own edge, with its SD (the game's variance per unit of
initial stake and the covariance of two boxes of one round, over the boxes' initial
stakes, :func:`ledger.books.stats.win_variance`, and insurance's variance); versions 2
to 4 took every stake (the handle) times the edge, so their two columns are not
compared (:data:`REWORDED_IN`). The edge and variance are the engine's analysis and the
covariance its seeded estimate (:func:`tables.engine.math.figures.engine_math`); the
manifest states them per rule set, and the auditor recomputes the win from the events with
the stated figures (``verify --edges`` analyses each rule set again: seconds each).
Insurance's edge and variance follow from the rule set's decks and payout alone
(:func:`tables.engine.math.figures.insurance_math`, exact).

From format version 7 the audit is given what the back-office's books use besides the
events: the exchange rates of the package's days (``rates``, the manifest's
``fx_rates``), by which an amount recorded in another currency than the table's is booked
as the back-office books it, and which rule sets have a chip tray and a drop box
(``drop_box``, the manifest's rule sets say): a day of such a game lacking an opener, a
closer or its drop is a finding of the checks report (``opener_missing``,
``closer_missing``, ``drop_not_counted``...), and each reconciliation row says the day's
state (:func:`ledger.books.reconcile.day_state`: ``incomplete``, ``no_drop_box``,
``counted``, ``reconciled``; every day of a package is taken as final) and what it lacks.

House results are in minor units, positive when the house won.
"""

from __future__ import annotations

import dataclasses
import gc
import hashlib
import shutil
import tempfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import IO, Any, Protocol

from audit.record.authority import refused_of
from audit.record.chain import canonical_json
from audit.record.corrections import holds_day
from audit.record.events import AUTHORITY
from audit.record.ids import IdSet
from audit.record.money import percent
from audit.record.shelf import SMALL_FILTER, Shelf, ShelvedMap
from ledger.books import reconcile, replay_difference
from ledger.books.fold import FOLDED, Fold
from ledger.books.reconcile import day_state
from ledger.books.stats import theoretical
from tables.engine.math import cashout
from tables.engine.math.figures import Figures, insurance_math
from tables.engine.presets import PRESETS
from tables.engine.replay import Replay
from tables.engine.rules import RuleSet

from .layout import FORMAT_VERSION, csv_bytes, json_bytes, json_text

COLUMNS: dict[str, tuple[str, ...]] = {
    "rounds": (
        "table",
        "gaming_day",
        "round",
        "shoe",
        "status",
        "first_version",
        "last_version",
        "bets",
        "stakes",
        "recorded",
        "recomputed",
        "agrees",
    ),
    "reconciliation": (
        "table",
        "gaming_day",
        "currency",
        "rounds",
        "handle",
        "opener",
        "closer",
        "fills",
        "credits",
        "drop",
        "chip_win",
        "recorded_win",
        "replayed_win",
        "hold",
        "chip_variance",
        "replay_variance",
        "theoretical_win",
        "theoretical_sd",
        "state",
        "missing",
    ),
    "checks": (
        "table",
        "owner",
        "kind",
        "gaming_day",
        "round",
        "box",
        "hand",
        "bet",
        "expected",
        "recorded",
        "event",
        "message",
    ),
    "findings": (
        "id",
        "table",
        "gaming_day",
        "kind",
        "severity",
        "round",
        "box",
        "hand",
        "bet",
        "shift",
        "slip",
        "expected",
        "recorded",
        "message",
        "event",
        "event_version",
        "status",
        "superseded",
        "trail",
    ),
    "access": ("id", "at", "principal", "method", "path", "query", "what", "status", "address"),
}

# the columns a format version's report has not (a version 1 package verifies as it was made)
ADDED_IN: dict[str, int] = {"theoretical_win": 2, "theoretical_sd": 2, "state": 7, "missing": 7}
# the columns whose text a format version writes in other words than the versions before:
# from version 3 the engine's messages give amounts in the table's currency ("EUR 25.00"),
# before in minor units ("2500"). An older package's report is compared without them - its
# other columns still say what was found and where - and its bytes stay covered by the
# manifest's hashes. Compared without them: their cells left empty on both sides, so the
# lines stay where they are in the package's files
REWORDED_IN: dict[tuple[str, str], int] = {
    ("checks", "message"): 3,
    # from version 5 on the initial stakes, before on the handle
    ("reconciliation", "theoretical_win"): 5,
    ("reconciliation", "theoretical_sd"): 5,
}

Row = dict[str, Any]
# a rule set's figures (:mod:`tables.engine.math.figures`), None where not known
GameMath = Callable[[str, Mapping[str, Any]], Figures | None]
# whether a rule set (name, overrides) has a chip tray and a drop box by design
DropBox = Callable[[str, Mapping[str, Any]], bool]
# the exchange rates: (gaming day, currency, table's currency) -> units of the table's per unit
Rates = Mapping[tuple[str, str, str], Fraction]


def columns_of(name: str, version: int = FORMAT_VERSION) -> tuple[str, ...]:
    return tuple(c for c in COLUMNS[name] if ADDED_IN.get(c, 1) <= version)


def reworded(name: str, version: int) -> frozenset[str]:
    """The columns of format ``version``'s report that this auditor writes in other
    words (:data:`REWORDED_IN`)."""
    return frozenset(
        c for c in columns_of(name, version) if REWORDED_IN.get((name, c), 1) > version
    )


def _blank(rows: Sequence[Row], columns: frozenset[str]) -> Sequence[Row]:
    return rows if not columns else [{**row, **dict.fromkeys(columns)} for row in rows]


def stated_drop_box(rule_sets: Mapping[str, Any]) -> DropBox:
    """Whether a rule set has a drop box, as a manifest of format 7 states it per rule set
    (``drop_box``; a rule set it does not state: True, its counts and drop are due)."""

    def boxed(name: str, overrides: Mapping[str, Any]) -> bool:
        stated = rule_sets.get(rule_set_key(rule_set_entry(name, overrides))) or {}
        return stated.get("drop_box") is not False

    return boxed


def rates_of(stated: Iterable[Mapping[str, Any]]) -> dict[tuple[str, str, str], Fraction]:
    """A manifest's ``fx_rates`` (each ``gaming_day``, ``currency``, ``house``, ``rate``
    as ``"n/d"``) as the fold takes them; ValueError naming one that is not a rate."""
    out: dict[tuple[str, str, str], Fraction] = {}
    for entry in stated:
        try:
            rate = Fraction(entry["rate"])
        except (KeyError, TypeError, ValueError, ZeroDivisionError):
            raise ValueError(f'fx_rates: {entry!r} has no rate as a fraction ("n/d")') from None
        if rate <= 0:
            raise ValueError(f"fx_rates: {entry!r}: a rate is positive")
        out[(str(entry["gaming_day"]), str(entry["currency"]), str(entry["house"]))] = rate
    return out


def fx_rates_entries(rates: Rates) -> list[dict[str, str]]:
    """Rates as a manifest's ``fx_rates`` states them, in order (:func:`rates_of` reads them)."""
    return [
        {
            "gaming_day": day,
            "currency": currency,
            "house": house,
            "rate": f"{rate.numerator}/{rate.denominator}",
        }
        for (day, currency, house), rate in sorted(rates.items())
    ]


def stated_math(rule_sets: Mapping[str, Any]) -> GameMath:
    """The figures a manifest states per rule set (``house_edge``, ``variance``,
    ``covariance``; a manifest without the covariance takes the boxes as independent)."""

    def math(name: str, overrides: Mapping[str, Any]) -> Figures | None:
        stated = rule_sets.get(rule_set_key(rule_set_entry(name, overrides))) or {}
        try:
            covariance = stated.get("covariance")
            return (
                Fraction(stated["house_edge"]),
                Fraction(stated["variance"]),
                None if covariance is None else Fraction(covariance),
            )
        except (KeyError, TypeError, ValueError, ZeroDivisionError):
            return None

    return math


_BATCH = 1024
# the events StreamAudit notes something of before they are folded (one look-up for the
# rest, most of a table's events)
_NOTED = frozenset(
    {
        "table.opened",
        "round.started",
        "round.settled",
        "round.voided",
        "correction.recorded",
        "shoe.shuffled",
        *AUTHORITY,
    }
)
# round rows handed to finish()'s sink at a time (a row is about 1 KB as a dict)
_ROWS = 128


def rule_set_entry(name: str, overrides: Mapping[str, Any]) -> dict[str, Any]:
    """A rule set as a table opened with it: the preset, the overrides, every parameter
    they give and the SHA-256 of the canonical JSON of the parameters that differ from
    the engine's defaults (None for a rule set the engine does not know). A parameter a
    later engine adds, at a default that keeps the old behaviour, leaves the hash of
    every rule set that does not use it as it was: old packages still verify."""
    base = PRESETS.get(name)
    try:
        rules = base.with_overrides(overrides) if base is not None else None
    except ValueError:
        rules = None
    if rules is None:
        return {"ruleset": name, "overrides": dict(overrides), "parameters": None, "hash": None}
    parameters = rules.as_overrides()
    hashed = {key: value for key, value in parameters.items() if key not in _defaults_kept(rules)}
    return {
        "ruleset": name,
        "overrides": dict(overrides),
        "parameters": parameters,
        "hash": hashlib.sha256(canonical_json(hashed)).hexdigest(),
    }


def _defaults_kept(rules: RuleSet) -> set[str]:
    """The parameters of ``rules`` that hold their field's default."""
    return {
        f.name
        for f in dataclasses.fields(rules)
        if f.default is not dataclasses.MISSING and getattr(rules, f.name) == f.default
    }


def rule_set_key(entry: Mapping[str, Any]) -> str:
    return f"{entry['ruleset']}@{(entry['hash'] or 'unknown')[:16]}"


def struck_ids(event: Mapping[str, Any]) -> str | None:
    """The id a ``correction.recorded`` strikes (``corrects`` and no settlements)."""
    if event["type"] != "correction.recorded":
        return None
    payload = event["payload"]
    corrects = payload.get("corrects")
    return str(corrects) if corrects is not None and not payload.get("settlements") else None


@dataclass(slots=True)
class _Round:
    day: str | None
    first: int
    last: int | None = None


@dataclass
class StreamReports:
    rounds: list[Row] = field(default_factory=list)
    reconciliation: list[Row] = field(default_factory=list)
    checks: list[Row] = field(default_factory=list)


class EventIds(Protocol):
    """What the audit asks of its set of event ids (:class:`IdSet`; a test's reference,
    a set of the texts): typed by what it does, so that either serves."""

    def add_new(self, event_id: str) -> bool: ...

    def __contains__(self, event_id: object) -> bool: ...


class StreamAudit:
    """Fold one table's events of the period (dicts in the export form, version order).
    ``struck``: the events a correction strikes (replay skips them from the start, so the
    ids must be known before: the manifest lists them, :attr:`struck_seen` proves them).
    ``events``: how many the manifest says the table has (the id filter's size for more
    than 175,000; a wrong count costs time, never a wrong answer). ``authority``: who
    recorded each money-changing event (the manifest's, id -> its ``principal`` and
    whether its seal held): the folds apply none that no one with the authority recorded
    (:mod:`audit.record.authority`), and :attr:`authority_seen` proves the list whole.
    ``rates`` (format 7): the exchange rates of the days, by which the fold books an amount
    in another currency (none: such an amount is a ``currency_mismatch``, as before).
    ``drop_box`` (format 7): which rule sets have a drop box - then each day's counts and
    drop are checked and each reconciliation row gives the day's state (None: neither,
    as formats 1 to 6 were made)."""

    def __init__(
        self,
        table: str,
        *,
        first_version: int,
        struck: Iterable[str] = (),
        math: GameMath | None = None,
        events: int | None = None,
        authority: Mapping[str, Mapping[str, Any]] | None = None,
        rates: Rates | None = None,
        drop_box: DropBox | None = None,
    ) -> None:
        self.table = table
        self.math = math
        self.drop_box = drop_box
        self.rules: dict[str, tuple[str, dict[str, Any]]] = {}  # each day's first rule set
        self.struck = set(struck)
        self.refused = refused_of(authority or {})
        # the money-changing events read (what the manifest's authority must list)
        self.authority_seen: set[str] = set()
        # what the folds keep to the end but seldom read goes to a temporary file, its
        # handles in memory (closed by finish(), or close()): each round pickled once the
        # next starts, thawed one at a time at the end; the settled bets' nets and where, a
        # batch at a time, thawed when a late event names one; the event ids, 16,384 at a
        # time. So memory does not grow with the table's rounds, bets and events
        self.shelf = Shelf()
        # every event id (audit.record.ids: a Bloom filter of 1 MiB in front of the ids on
        # the shelf, each alarm looked up exactly): a repeat is found here once, for the
        # replay (which reports it where it comes: an id is put in ``repeated`` once the
        # replay has read its first event) and the fold (which reads the first only)
        self.ids: EventIds = IdSet(shelf=self.shelf, expected=events)
        self.repeated: set[str] = set()
        self.replay = Replay(
            struck=self.struck,
            repeats=self.repeated,
            ids=self.ids,
            compact=True,
            shelf=self.shelf,
            refused=self.refused,
        )
        self.replay.skip_to(first_version)
        # the reports read balances and figures, never entries
        self.fold = Fold(
            struck=self.struck,
            entries=False,
            read_once=True,
            shelf=self.shelf,
            refused=self.refused,
            rates=rates,
        )
        self.day: str | None = None
        self.days: list[str] = []
        # each round number's first gaming day and versions, a batch at a time on the shelf
        # (a value read is a copy once shelved: a change is put back)
        self.rounds: ShelvedMap[int, _Round] = ShelvedMap(
            self.shelf, filter=SMALL_FILTER, grows=True
        )
        self.struck_seen: set[str] = set()
        # events waiting for the replay: folded a batch at a time (its loop's set-up is
        # per call, and nothing reads the replay before finish)
        self.pending: list[Mapping[str, Any]] = []

    def add(self, event: Mapping[str, Any]) -> None:
        kind = event["type"]
        if kind in _NOTED:
            self._note(kind, event)
        event_id = event.get("id")
        if event_id is not None and not self.ids.add_new(event_id):
            if event_id not in self.repeated:
                self.replay.run(self.pending)  # its first event, and the rest before this one
                self.pending = []
                self.repeated.add(event_id)
            self.pending.append(event)
            return
        self.pending.append(event)
        if len(self.pending) >= _BATCH:
            self.replay.run(self.pending)
            self.pending = []
        if kind in FOLDED:  # (six events in ten are cards, decisions, offers: the call saved)
            self.fold.apply(event)

    def _note(self, kind: str, event: Mapping[str, Any]) -> None:
        """What the reports need of the few events that are not bets, cards or decisions
        (:data:`_NOTED`), before the event is folded."""
        payload = event["payload"]
        if kind == "table.opened" and str(event.get("id")) in self.struck and holds_day(event):
            self.day = None  # the day before ends; what follows is in no day, as the folds hold it
        elif kind == "table.opened":
            self.day = payload["gaming_day"]
            if self.day not in self.days:
                self.days.append(self.day)
            self.rules.setdefault(
                payload["gaming_day"], (payload["ruleset"], dict(payload.get("rules") or {}))
            )
        elif kind == "round.started":
            self.rounds.setdefault(payload["round"], _Round(self.day, event["version"]))
        elif kind in ("round.settled", "round.voided"):
            known = self.rounds.get(payload["round"])
            if known is not None:
                known.last = event["version"]
                self.rounds[payload["round"]] = known
        elif kind == "correction.recorded":
            struck = struck_ids(event)
            if (
                struck is not None and str(event.get("id")) not in self.refused
            ):  # a refused one strikes nothing
                self.struck_seen.add(struck)
        if kind in AUTHORITY:
            self.authority_seen.add(str(event.get("id")))
        elif kind == "shoe.shuffled":
            # the cash-out valuation's caches are of the compositions of the shoe: a new
            # shoe's are others (at 1,200 rounds of the live game the dealer's odds were hit
            # 10 times in 3,855, but held every one). The events of the shoe before are
            # replayed first, with them
            self.replay.run(self.pending)
            self.pending = []
            cashout.clear_caches()

    def close(self) -> None:
        """Let the shelf go (its file is deleted): the folds can be asked nothing more."""
        self.shelf.close()

    def finish(self, *, rounds: Callable[[Sequence[Row]], None] | None = None) -> StreamReports:
        """The table's recomputed reports; the audit is closed after it (:meth:`close`).
        ``rounds``: the round report's rows are handed to it a batch at a time as they are
        made (a :meth:`Spool.add`), not kept in the reports (a long day's rows grow with its
        rounds)."""
        try:
            return self._reports(rounds)
        finally:
            self.close()

    def _reports(self, sink: Callable[[Sequence[Row]], None] | None) -> StreamReports:
        self.replay.run(self.pending)
        self.pending = []
        engine_findings, rounds = self.replay.final()
        out = StreamReports()
        replayed: dict[str, int] = {}
        differences: dict[str, list[Any]] = {}
        for played in rounds:
            where = self.rounds.get(played.number) or _Round(None, 0)
            recomputed = 0 if played.voided else -sum(s.net for s in played.expected.values())
            recorded = (
                None
                if played.recorded is None
                else (0 if played.voided else -sum(net for _, net in played.recorded.values()))
            )
            status = "voided" if played.voided else ("settled" if played.settled else "unsettled")
            out.rounds.append(
                {
                    "table": self.table,
                    "gaming_day": where.day,
                    "round": played.number,
                    "shoe": played.shoe,
                    "status": status,
                    "first_version": where.first,
                    "last_version": where.last,
                    "bets": len(played.bets),
                    "stakes": sum(amount for _, _, _, amount in played.bets.values()),
                    "recorded": recorded,
                    "recomputed": recomputed,
                    "agrees": recorded == recomputed,
                }
            )
            if sink is not None and len(out.rounds) >= _ROWS:
                sink(out.rounds)
                out.rounds = []
                # each round thawed from the shelf is garbage with cycles once its row is
                # made, and bulk work collects the young only every 100,000 allocations:
                # 1,500 rounds of a table held 3.7 MiB of them at the peak (2.1 of 300)
                gc.collect(0)
            if where.day is not None:
                replayed[where.day] = replayed.get(where.day, 0) + recomputed
                if not played.voided:
                    got = played.recorded or {}
                    for bet, expected in played.expected.items():
                        taken = got.get(bet)
                        if taken is None or taken[1] != expected.net:
                            differences.setdefault(where.day, []).append(
                                replay_difference(
                                    "wrong_payout" if taken is not None else "missing_settlement",
                                    expected_net=expected.net,
                                    recorded_net=0 if taken is None else taken[1],
                                    bet=bet,
                                    round=played.number,
                                )
                            )
        if sink is not None:
            sink(out.rounds)
            out.rounds = []
        games = self.fold.games
        boxed = (
            None
            if self.drop_box is None
            else {day for day, game in games.items() if self.drop_box(*game)}
        )
        books = self.fold.books(final=True, entries=False, drop_box=boxed)
        ledger_findings = list(books.findings)
        for day in books.days():
            figures = books.day(day)
            # the thresholds of the table's currency, 25 and 100 of its unit (N.J.A.C. 13:69D-1.21(e))
            done = reconcile(
                figures,
                replayed_win=replayed.get(day, 0),
                replay_differences=differences.get(day, ()),
            )
            ledger_findings.extend(done.findings)
            theory = None
            known = self.rules.get(day)
            figures_of_game = (
                self.math(*known) if self.math is not None and known is not None else None
            )
            if figures_of_game is not None and known is not None:
                edge, variance, covariance = figures_of_game
                insurance = insurance_math(*known) if figures.insurance else None
                theory = theoretical(
                    figures.initial,
                    edge,
                    variance,
                    covariance,
                    hand_squares=figures.hand_squares,
                    round_squares=figures.round_squares,
                    insurance=figures.insurance,
                    insurance_squares=figures.insurance_squares,
                    insurance_edge=insurance[0] if insurance else None,
                    insurance_variance=insurance[1] if insurance else None,
                )
            out.reconciliation.append(
                {
                    "table": self.table,
                    "gaming_day": day,
                    "currency": done.currency,
                    "rounds": figures.rounds,
                    "handle": figures.handle,
                    "opener": figures.opener,
                    "closer": figures.closer,
                    "fills": figures.fills,
                    "credits": figures.credits,
                    "drop": done.drop,
                    "chip_win": done.chip_win,
                    "recorded_win": done.recorded_win,
                    "replayed_win": done.replayed_win,
                    "hold": percent(done.hold, 2) if done.hold is not None else None,
                    "chip_variance": done.chip_variance,
                    "replay_variance": done.replay_variance,
                    "theoretical_win": None if theory is None else theory.win,
                    "theoretical_sd": None if theory is None else theory.sd,
                    **({} if boxed is None else _state(books, day, day in boxed, done)),
                }
            )
        for finding in engine_findings:
            started = self.rounds.get(finding.round) if finding.round is not None else None
            out.checks.append(
                _check_row(
                    self.table,
                    "engine",
                    finding.as_dict(),
                    None if started is None else started.day,
                )
            )
        for finding in ledger_findings:
            data = finding.as_dict()
            out.checks.append(_check_row(self.table, "ledger", data, data.get("gaming_day")))
        return out


def _state(books: Any, day: str, boxed: bool, done: Any) -> Row:
    """A day's state and what it lacks, as the back-office says them (every day of a
    package final; a variance is of the whole day here)."""
    missing = books.missing(day, drop_box=boxed)
    unexplained = any(
        f.kind in ("chip_variance", "replay_variance") for f in done.findings
    ) or bool(books.differences(day))
    return {
        "state": day_state(missing=missing, final=True, drop_box=boxed, unexplained=unexplained),
        "missing": "; ".join(missing) or None,
    }


def _check_row(table: str, owner: str, data: Mapping[str, Any], day: str | None) -> Row:
    return {
        "table": table,
        "owner": owner,
        "kind": data["kind"],
        "gaming_day": day,
        "round": data.get("round"),
        "box": data.get("box"),
        "hand": data.get("hand"),
        "bet": data.get("bet"),
        "expected": data.get("expected"),
        "recorded": data.get("recorded"),
        "event": data.get("event"),
        "message": data["message"],
    }


def render(
    name: str, rows: list[Row], version: int = FORMAT_VERSION, *, compared: bool = False
) -> dict[str, bytes]:
    """A report's files as format ``version`` has them: ``{"csv": ..., "json": ...}``;
    ``compared``: the columns reworded since left empty (:func:`reworded`)."""
    columns = columns_of(name, version)
    if compared:
        rows = list(_blank(rows, reworded(name, version)))
    return {
        "csv": csv_bytes(columns, rows),
        "json": json_bytes(
            {
                "report": name,
                "columns": list(columns),
                "rows": [{c: r.get(c) for c in columns} for r in rows],
            }
        ),
    }


class Spool:
    """A report's files written as its rows come, a table's at a time, to temporary files:
    byte for byte what :func:`render` gives for all the rows at once, without holding
    them (the recomputed reports grow with the package; what is compared is read back
    from disk, :meth:`finish`)."""

    def __init__(
        self,
        name: str,
        version: int = FORMAT_VERSION,
        *,
        files: tuple[IO[bytes], IO[bytes]] | None = None,
        compared: bool = False,
        part: bool = False,
    ) -> None:
        """``files``: the CSV and JSON files to write (the export's own); by default
        temporary ones. ``compared``: the columns reworded since ``version`` left empty
        (:func:`reworded`), to compare with an older package's. ``part``: only rows (no
        header, no document around them), for another spool to :meth:`take` - a worker
        process's rows of a table."""
        self.columns = columns_of(name, version)
        self.blank = reworded(name, version) if compared else frozenset()
        self.part = part
        self.rows = 0
        self.csv: IO[bytes]
        self.json: IO[bytes]
        if files is None:
            # kept open across tables, closed by close()
            self.csv, self.json = tempfile.TemporaryFile(), tempfile.TemporaryFile()  # noqa: SIM115
        else:
            self.csv, self.json = files
        self._header = csv_bytes(self.columns, ())
        # the document without rows, cut where they go: the same keys, order and indent
        empty = json_bytes({"report": name, "columns": list(self.columns), "rows": []})
        head, cut, self._tail = empty.rpartition(b'"rows": []')
        if not part:
            self.csv.write(self._header)
            self.json.write(head + cut[:-2])

    def add(self, rows: Sequence[Row]) -> None:
        rows = _blank(rows, self.blank)  # the rows as given, unless columns are left empty
        self.csv.write(csv_bytes(self.columns, rows)[len(self._header) :])
        for row in rows:
            # a row is two levels deep in the document: its lines indented by two more
            member = json_text({c: row.get(c) for c in self.columns})
            # a part's rows each follow a comma: the spool that takes them opens its list with
            # the first of them if it has none (:meth:`take`)
            self.json.write(
                b"%s\n  %s"
                % (
                    b"," if self.rows or self.part else b"[",
                    member.replace("\n", "\n  ").encode("utf-8"),
                )
            )
            self.rows += 1

    def take(self, csv: IO[bytes], json: IO[bytes], rows: int) -> None:
        """Append the ``rows`` rows a part (``Spool(part=True)``) wrote to ``csv`` and
        ``json``, read from where they stand: the same bytes as :meth:`add` of the rows."""
        shutil.copyfileobj(csv, self.csv)
        if rows and not self.rows:
            first = json.read(1)  # the comma before its first row opens the list here
            self.json.write(b"[" if first == b"," else first)
        shutil.copyfileobj(json, self.json)
        self.rows += rows

    def finish(self) -> dict[str, IO[bytes]]:
        """The files, read from their start: ``{"csv": ..., "json": ...}``."""
        self.json.write((b"\n ]" if self.rows else b"[]") + self._tail)
        for spooled in (self.csv, self.json):
            spooled.seek(0)
        return {"csv": self.csv, "json": self.json}

    def close(self) -> None:
        self.csv.close()
        self.json.close()
