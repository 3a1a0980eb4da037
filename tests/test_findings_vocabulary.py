"""The findings vocabulary is declared once and every reader follows it."""

from __future__ import annotations

import pathlib
import re

from audit.findings.workflow import severity_of
from audit.models import Finding as FindingRow
from audit.record.findings import KINDS, OWNERS, SEVERITIES, Finding
from tables.engine.illegal import KINDS as ENGINE_KINDS
from tables.simulator.faults import KINDS as FAULT_KINDS

DOCS = pathlib.Path(__file__).resolve().parents[1] / "docs" / "findings.md"


def test_every_kind_has_a_severity_an_owner_and_a_sentence() -> None:
    """No kind is declared without what a reader needs to act on it."""
    for name, kind in KINDS.items():
        assert re.fullmatch(r"[a-z][a-z_]*", name)
        assert kind.severity in SEVERITIES, name
        assert kind.owner in OWNERS, name
        assert len(kind.sentence) > 20, name
        assert severity_of(name) == kind.severity


def test_every_severity_is_a_choice_of_the_findings_table() -> None:
    """The findings table can store every severity the vocabulary uses."""
    assert set(SEVERITIES) == set(FindingRow.Severity.values)


def test_every_kind_is_documented_with_its_severity() -> None:
    """docs/findings.md has a row for each kind, with the declared severity - and no row
    for a kind that is not declared."""
    rows = dict(re.findall(r"^\| `([a-z_]+)` \| ([a-z]+) \|", DOCS.read_text(), re.MULTILINE))
    assert rows == {name: kind.severity for name, kind in KINDS.items()}


def test_the_engine_reports_only_its_own_kinds() -> None:
    """The engine's kinds are the vocabulary's engine-owned ones, and nothing else."""
    assert ENGINE_KINDS == {name for name, kind in KINDS.items() if kind.owner == "engine"}


def test_an_undeclared_kind_is_refused() -> None:
    """A finding of a kind nobody declared cannot be made."""
    try:
        Finding("made_up", "no such thing")
    except ValueError as error:
        assert "made_up" in str(error)
    else:
        raise AssertionError("an undeclared kind was accepted")


def test_every_fault_the_simulator_plants_maps_to_a_declared_kind() -> None:
    """Each fault kind names the finding an audit must report for it, and that finding
    is in the vocabulary with a severity."""
    for fault in FAULT_KINDS.values():
        assert fault.finding in KINDS, fault.name
        assert KINDS[fault.finding].severity in SEVERITIES
