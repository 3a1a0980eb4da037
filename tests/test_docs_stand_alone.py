"""The repository stands alone: no doc and no code cites a file it does not have (the
team's shared design, style and rules briefs live outside it: they are cited by what
they say, not by path), every link between the docs leads to a file that exists and to a
heading it has, every section a doc or a comment cites by name is there, and every
benchmark a doc names is a script under bench/."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUTSIDE = re.compile(r"DESIGN\.md|STYLE\.md|RULES\.md|REGULATIONS\.md|\.\./shared|/work/shared")
MENTIONED = re.compile(r"(?<![\w/.-])([\w-]+\.md)\b")
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")
# a link with its heading: [text](file.md#anchor), or (#anchor) within the page
ANCHORED = re.compile(r"\]\(([^)#\s]*)#([^)\s]+)\)")
# a section cited by name: docs/performance.md, "The collector" (in a comment the quoted
# name may run on to the next line)
CITED = re.compile(r"(?<![\w.-])(?:docs/)?([\w-]+\.md)[,:]?\s+\"([^\"]{2,160})\"")
BENCH = re.compile(r"\bbench/[\w./-]*\w")


def _texts() -> list[Path]:
    paths = [*ROOT.glob("*.md"), *(ROOT / "docs").glob("*.md"), *(ROOT / "deploy").glob("*")]
    for app in ("audit", "auditor", "tables", "ledger", "regulator", "casino", "tests", "bench"):
        paths += [
            p for p in (ROOT / app).rglob("*") if p.suffix in (".py", ".html", ".md", ".js", ".css")
        ]
    return [p for p in paths if p.is_file() and p != Path(__file__)]


def test_nothing_cites_a_file_outside_the_repository():
    found = [
        f"{p.relative_to(ROOT)}: {m.group(0)}"
        for p in _texts()
        for m in OUTSIDE.finditer(p.read_text())
    ]
    assert not found, "\n".join(found)


def test_every_doc_a_doc_names_is_there():
    docs = (
        {p.name for p in (ROOT / "docs").glob("*.md")}
        | {p.name for p in ROOT.glob("*.md")}
        | {"README.md"}
    )
    missing = []
    for path in [*ROOT.glob("*.md"), *(ROOT / "docs").glob("*.md")]:
        text = path.read_text()
        missing += [f"{path.name}: {name}" for name in MENTIONED.findall(text) if name not in docs]
        for target in LINK.findall(text):
            if (
                not target.startswith(("http://", "https://"))
                and not (path.parent / target).exists()
            ):
                missing.append(f"{path.name}: link to {target}")
    assert not missing, "\n".join(missing)


def test_the_check_sees_a_citation(tmp_path: Path):
    assert OUTSIDE.search("as DESIGN.md says") and OUTSIDE.search("``../shared/seeds/``")
    assert MENTIONED.findall("see security.md and docs/api.md") == ["security.md"]


def _headings(doc: Path) -> list[str]:
    return [
        line.lstrip("#").strip() for line in doc.read_text().splitlines() if line.startswith("#")
    ]


def _anchor(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation but - and _ dropped, spaces
    made -."""
    return re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")


def _doc(name: str) -> Path | None:
    found = [p for p in (ROOT / "docs" / name, ROOT / name) if p.is_file()]
    return found[0] if found else None


def test_every_heading_a_link_names_is_there():
    missing = []
    for path in [*ROOT.glob("*.md"), *(ROOT / "docs").glob("*.md")]:
        for target, anchor in ANCHORED.findall(path.read_text()):
            if target.startswith(("http://", "https://")):
                continue
            doc = path.parent / target if target else path
            if doc.is_file() and anchor not in {_anchor(h) for h in _headings(doc)}:
                missing.append(f"{path.name}: link to {target}#{anchor}")
    assert not missing, "\n".join(missing)


def test_every_section_cited_by_name_is_there():
    """A heading, or a paragraph's bold lead, of the doc named."""
    missing = []
    for path in _texts():
        for name, title in CITED.findall(path.read_text()):
            doc = _doc(name)
            title = re.sub(r"\s*\n\s*#?\s*", " ", title).strip()
            if doc is None:
                continue  # a doc that is not there: the test above names it
            text = doc.read_text()
            sections = _headings(doc) + [
                lead.rstrip(".") for lead in re.findall(r"\*\*([^*\n]+)\*\*", text)
            ]
            if not any(section == title or section.startswith(title) for section in sections):
                missing.append(f'{path.relative_to(ROOT)}: {name}, "{title}"')
    assert not missing, "\n".join(missing)


def test_every_benchmark_a_doc_names_is_there():
    missing = [
        f"{path.name}: {name}"
        for path in [*ROOT.glob("*.md"), *(ROOT / "docs").glob("*.md")]
        for name in BENCH.findall(path.read_text())
        if not (ROOT / name).exists()
    ]
    assert not missing, "\n".join(missing)


def test_the_checks_see_what_they_check():
    assert (
        _anchor("Offline verification (`blackjack-audit verify`)")
        == "offline-verification-blackjack-audit-verify"
    )
    assert ANCHORED.findall("see [it](performance.md#the-figures) and [here](#design)") == [
        ("performance.md", "the-figures"),
        ("", "design"),
    ]
    assert CITED.findall('(docs/performance.md, "The\n# writer\'s turns")') == [
        ("performance.md", "The\n# writer's turns")
    ]
    assert BENCH.findall("python bench/day.py --tables 100; bench/same_bytes.sh BEFORE.") == [
        "bench/day.py",
        "bench/same_bytes.sh",
    ]
