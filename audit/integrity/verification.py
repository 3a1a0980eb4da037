"""The whole verification of the store, as ``manage.py verify`` and the periodic task run
it: the protection (the append-only triggers of the events, the access log and the ingest
runs, the refusal of unsealed rows), the latest signed tree heads, every chain against the
newest head that holds, every row's seal, the access log's seals, the rows people act on
against their events (:mod:`audit.feed.derived`), an ingest that stopped while writing, and
every person's authority against its seal (:mod:`audit.access.authority_seal`).
:func:`integrity_verify` also records what it found as findings (``audit.findings``), so
a failed periodic verification is a finding to work and an alert on the floor, not a log
line. One function checks for both, so the task finds what the command finds."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from django.db import connection

from audit.access.authority_seal import KIND as AUTHORITY_UNSEALED
from audit.access.authority_seal import authority_problems
from audit.access.log import access_seals_problems
from audit.feed.derived import derived_disagreements
from audit.findings.workflow import IntegrityProblem, findings_record_integrity
from audit.integrity.chains import verify_chains
from audit.models import Event
from audit.record.verify import Report
from audit.store.immutability import protection_problems
from audit.store.ingest import unfinished_ingests
from audit.store.seals import guard_problems

from .digests import head_problems, signed_heads_to_check


@dataclass(frozen=True, slots=True)
class Integrity:
    report: Report
    # what protects the record, each problem a line ("protection: ...", "signed head: ...")
    guards: list[str] = field(default_factory=list)
    signed: bool = False  # a trusted signed head was there to check against
    looked: list[str] = field(
        default_factory=list
    )  # where heads were looked for, and what was found
    unread: list[str] = field(default_factory=list)  # publishers that could not be read
    # the rows people act on that differ from their events (audit.feed.derived), one line each
    read_models: list[str] = field(default_factory=list)
    # the ingests that stopped while writing (a stream of one may be cut short), one line each
    ingests: list[str] = field(default_factory=list)
    # the people whose authority does not hold its seal (audit.access.authority_seal), one line each
    authority: list[str] = field(default_factory=list)

    @property
    def problems(self) -> list[str]:
        """Every problem but the chains' own, one line each, as verify prints them."""
        return [*self.guards, *self.ingests, *self.read_models, *self.authority]

    @property
    def ok(self) -> bool:
        return self.report.ok and not self.problems


def integrity_check(
    *,
    stream: str | None = None,
    since: datetime | None = None,
    head_files: Sequence[str] = (),
    progress: Callable[[int], None] | None = None,
) -> Integrity:
    """Everything ``verify`` checks (one stream's chain alone with ``stream``; the
    heads and seals concern the whole store). Raises DigestError for an unreadable head
    file. Events and not one trusted head - none found, or none whose signature holds - is
    a problem: what a cut tail or a consistent re-hash would be checked against is gone."""
    search = signed_heads_to_check(head_files)
    guards = [
        f"protection: {p}" for p in (*protection_problems(connection), *guard_problems(connection))
    ]
    trusted = []
    for sth, source in search.heads:
        problems = head_problems(sth, source=source) if stream is None else []
        guards += [f"signed head: {p}" for p in problems]
        if not any("signature" in str(p) for p in problems):
            trusted.append(sth)
    if stream is None and not trusted and Event.objects.exists():
        guards.append(
            "signed head: no trusted signed head found, so a cut tail or a consistent re-hash cannot be "
            "seen; looked in " + "; ".join(search.looked)
        )
    latest = max(trusted, key=lambda sth: sth.size) if trusted else None
    report = verify_chains(
        stream=stream,
        since=since,
        progress=progress,
        heads=latest.streams if latest is not None and since is None else None,
    )
    read_models: list[str] = []
    ingests: list[str] = []
    authority: list[str] = []
    if stream is None:
        guards += [f"access log: {p}" for p in access_seals_problems()]
        # a stream cut short by an ingest that stopped while writing chains clean: say so
        ingests = unfinished_ingests()
        read_models = [f"read model: {found}" for found in derived_disagreements()]
        authority = authority_problems()
    return Integrity(
        report=report,
        guards=guards,
        signed=bool(trusted),
        looked=search.looked,
        unread=search.unread,
        read_models=read_models,
        ingests=ingests,
        authority=authority,
    )


def integrity_verify(*, now: datetime | None = None) -> tuple[Integrity, int]:
    """Check the whole store and record what was found as findings: each chain problem of
    its own kind, a row people act on that differs from its events ``read_model_differs``,
    an ingest that stopped while writing ``ingest_unfinished``, a person whose authority
    does not hold its seal ``authority_unsealed``, the rest
    ``protection_broken``. Returns the check and how many findings are new. Safe to run
    again: the same problems are the same findings."""
    result = integrity_check()
    problems = [
        IntegrityProblem(
            kind=p.kind,
            stream=p.stream,
            version=p.version,
            position=p.position,
            event_id=p.event_id,
            message=str(p),
        )
        for p in result.report.problems
    ] + [
        IntegrityProblem(
            kind=kind, stream="", version=None, position=None, event_id="", message=line
        )
        for kind, lines in (
            ("protection_broken", result.guards),
            ("ingest_unfinished", result.ingests),
            ("read_model_differs", result.read_models),
            (AUTHORITY_UNSEALED, result.authority),
        )
        for line in lines
    ]
    new = findings_record_integrity(problems=problems, now=now)
    return result, new
