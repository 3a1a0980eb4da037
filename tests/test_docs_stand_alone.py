"""The repository stands alone: no doc and no code cites a file it does not have (the
team's shared design, style and rules briefs live outside it: they are cited by what
they say, not by path), and every link between the docs leads to a file that exists."""
from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUTSIDE = re.compile(r"DESIGN\.md|STYLE\.md|RULES\.md|REGULATIONS\.md|\.\./shared|/work/shared")
MENTIONED = re.compile(r"(?<![\w/.-])([\w-]+\.md)\b")
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def _texts() -> list[Path]:
    paths = [*ROOT.glob("*.md"), *(ROOT / "docs").glob("*.md"), *(ROOT / "deploy").glob("*")]
    for app in ("audit", "auditor", "tables", "ledger", "casino", "tests", "bench"):
        paths += [p for p in (ROOT / app).rglob("*") if p.suffix in (".py", ".html", ".md", ".js", ".css")]
    return [p for p in paths if p.is_file() and p != Path(__file__)]


def test_nothing_cites_a_file_outside_the_repository():
    found = [f"{p.relative_to(ROOT)}: {m.group(0)}" for p in _texts() for m in OUTSIDE.finditer(p.read_text())]
    assert not found, "\n".join(found)


def test_every_doc_a_doc_names_is_there():
    docs = {p.name for p in (ROOT / "docs").glob("*.md")} | {p.name for p in ROOT.glob("*.md")} | {"README.md"}
    missing = []
    for path in [*ROOT.glob("*.md"), *(ROOT / "docs").glob("*.md")]:
        text = path.read_text()
        missing += [f"{path.name}: {name}" for name in MENTIONED.findall(text) if name not in docs]
        for target in LINK.findall(text):
            if not target.startswith(("http://", "https://")) and not (path.parent / target).exists():
                missing.append(f"{path.name}: link to {target}")
    assert not missing, "\n".join(missing)


def test_the_check_sees_a_citation(tmp_path: Path):
    assert OUTSIDE.search("as DESIGN.md says") and OUTSIDE.search("``../shared/seeds/``")
    assert MENTIONED.findall("see security.md and docs/api.md") == ["security.md"]
