"""The reconciliation's theoretical win (format 2; from format 4 on the initial stakes):
the initial stakes x the rule set's exact house edge per initial stake, insurance by its
own edge, with its SD, as the engine's analysis gives them; recomputed by ``blackjack-audit
verify`` from the events and the manifest's stated edge, or with ``--edges`` from the
engine's analysis again. A casino that signs a report or an edge that the events do not
bear out is caught."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

from audit.integrity import digests
from audit.record import signing
from auditor import layout
from ledger.books.stats import standard_deviation
from tables.engine.math.house_edge import house_edge
from tables.engine.math.insurance import insurance_figures
from tables.engine.presets import PRESETS
from tests.package.conftest import DAY, audit, export
from tests.package.tampering import manifest, write_manifest


def _resign(package: Path, data: dict | None = None) -> None:
    """The manifest's file hashes made again and signed with the casino's own key: what
    the casino itself could do, so only a recomputation can catch it."""
    data = data or manifest(package)
    for name in data["files"]:
        with (package / name).open("rb") as stream:
            digest, size = layout.sha256_of(stream)
        data["files"][name] = {"sha256": digest, "bytes": size}
    write_manifest(package, data)
    body = (package / layout.MANIFEST).read_bytes()
    (package / layout.SIGNATURE).write_bytes(
        layout.json_bytes(signing.sign_document(body, digests.signing_key()))
    )


def _rows(package: Path) -> list[dict]:
    return json.loads((package / "reports/reconciliation.json").read_text())["rows"]


def _stakes(package: Path, table: str = "BJ-03") -> tuple[int, int]:
    """(initial stakes, insurance stakes) of the package's table, from its events: main
    and behind bets, and insurance bets, of rounds not voided."""
    opened = layout.Package(package)
    try:
        events = [json.loads(line) for line in opened.lines(layout.events_file(table)) if line]
    finally:
        opened.close()
    voided = {e["payload"]["round"] for e in events if e["type"] == "round.voided"}
    bets = [
        e["payload"]
        for e in events
        if e["type"] == "bet.placed" and e["payload"]["round"] not in voided
    ]
    return (
        sum(b["amount"] for b in bets if b["kind"] in ("main", "behind")),
        sum(b["amount"] for b in bets if b["kind"] == "insurance"),
    )


def _insurance_edge(ruleset: str) -> Fraction:
    figures = insurance_figures(PRESETS[ruleset])
    return figures[0] if figures is not None else Fraction(0)


def test_the_theoretical_win_is_initial_stakes_times_the_exact_edge(exported) -> None:
    package = exported("one", "--table", "BJ-03")
    (entry,) = manifest(package)["rule_sets"].values()
    figures = house_edge(PRESETS[entry["ruleset"]])
    edge, variance = Fraction(str(figures.house_edge)), Fraction(str(figures.variance))
    assert (Fraction(entry["house_edge"]), Fraction(entry["variance"])) == (edge, variance)
    (row,) = _rows(package)
    initial, insurance = _stakes(package)
    assert 0 < initial < row["handle"]
    assert row["theoretical_win"] == round(
        initial * edge + insurance * _insurance_edge(entry["ruleset"])
    )
    # the SD: at least sqrt(variance x initial) (initial stakes of one minor unit each), at
    # most the initial stakes (a round's results are within a few stakes of 0)
    assert standard_deviation(variance * initial) < row["theoretical_sd"] < initial
    assert "theoretical_win" in (package / "reports/reconciliation.csv").read_text().splitlines()[0]
    code, said = audit("verify", str(package), "--edges")
    assert code == 0, said


def test_a_theoretical_win_signed_by_the_casino_but_not_borne_out_is_found(exported) -> None:
    package = exported("lied", "--table", "BJ-03")
    data = json.loads((package / "reports/reconciliation.json").read_text())
    data["rows"][0]["theoretical_win"] += 100
    (package / "reports/reconciliation.json").write_bytes(layout.json_bytes(data))
    csv = package / "reports/reconciliation.csv"
    header, line = csv.read_text().splitlines()
    cells = line.split(",")
    at = header.split(",").index("theoretical_win")
    cells[at] = str(int(cells[at]) + 100)
    csv.write_text(f"{header}\n{','.join(cells)}\n")
    _resign(package)
    code, said = audit("verify", str(package))
    assert code == 1, said
    assert (
        "reports/reconciliation.csv:2 stream BJ-03" in said
        and "reports/reconciliation.json" in said
    ), said


def test_an_edge_stated_but_not_the_engines_is_found(exported) -> None:
    package = exported("edge", "--table", "BJ-03")
    data = manifest(package)
    (key,) = data["rule_sets"]
    data["rule_sets"][key]["house_edge"] = str(Fraction(data["rule_sets"][key]["house_edge"]) * 2)
    _resign(package, data)
    # the report no longer follows from the stated edge
    code, said = audit("verify", str(package))
    assert code == 1 and "reports/reconciliation.csv:2" in said, said
    # the report and the edge changed alike: only the engine's own analysis finds it
    rows = _rows(package)
    initial, insurance = _stakes(package)
    lied = round(
        initial * Fraction(data["rule_sets"][key]["house_edge"])
        + insurance * _insurance_edge(data["rule_sets"][key]["ruleset"])
    )
    rows[0]["theoretical_win"] = lied
    body = json.loads((package / "reports/reconciliation.json").read_text())
    body["rows"] = rows
    (package / "reports/reconciliation.json").write_bytes(layout.json_bytes(body))
    csv = package / "reports/reconciliation.csv"
    header, line = csv.read_text().splitlines()
    cells = line.split(",")
    cells[header.split(",").index("theoretical_win")] = str(lied)
    csv.write_text(f"{header}\n{','.join(cells)}\n")
    _resign(package)
    code, said = audit("verify", str(package))
    assert code == 0, said
    code, said = audit("verify", str(package), "--edges")
    assert code == 1 and "reports/reconciliation.csv:2" in said, said


def test_a_day_exported_twice_is_byte_identical_with_its_theoretical_win(exported) -> None:
    first, second = exported("a", "--table", "BJ-03"), exported("b", "--table", "BJ-03")
    assert (first / "reports/reconciliation.csv").read_bytes() == (
        second / "reports/reconciliation.csv"
    ).read_bytes()
    assert (first / layout.MANIFEST).read_bytes() == (second / layout.MANIFEST).read_bytes()
    assert DAY in _rows(first)[0]["gaming_day"]


def test_verify_edges_analyses_the_rule_set_again_and_never_reads_the_stored_figures(
    record, tmp_path, monkeypatch
) -> None:
    """Were the engine's stored figures of a preset wrong, the package would state them
    and follow them; ``--edges`` (the regulator's independent check) analyses again."""
    from auditor.check import verify_package
    from tables.engine.math import preset_figures

    for name, (edge, variance) in list(preset_figures.PRESET_FIGURES.items()):
        monkeypatch.setitem(preset_figures.PRESET_FIGURES, name, (edge * 2, variance))
    package = tmp_path / "wrong"
    code, said = export("--day", DAY, "--table", "BJ-03", "--out", str(package))
    assert code == 0, said
    (entry,) = manifest(package)["rule_sets"].values()
    assert Fraction(entry["house_edge"]) == Fraction(
        str(preset_figures.PRESET_FIGURES[entry["ruleset"]][0])
    )
    assert verify_package(package, processes=1).exit_code == 0
    outcome = verify_package(package, edges=True, processes=1)
    assert outcome.exit_code == 1
    assert any(d.file == "reports/reconciliation.csv" for d in outcome.disagreements), (
        outcome.disagreements
    )
