"""A package's event files are read by ISA-L's gzip reader where it is installed and by
the standard library's elsewhere: the same lines, and the same refusal of a file cut
short or changed (:class:`auditor.layout.CorruptFile`, which verify reports as a
disagreement and the recall as an unreadable package)."""

from __future__ import annotations

import gzip
import zipfile
from pathlib import Path

import pytest

from auditor import layout

FIXTURE = Path(__file__).parent / "fixtures" / "package-v1.zip"


def _member(tmp_path: Path) -> tuple[Path, str, bytes]:
    folder = tmp_path / "package"
    with zipfile.ZipFile(FIXTURE) as archive:
        archive.extractall(folder)
    name = min(n for n in layout.Package(folder).names() if n.startswith(layout.EVENTS_DIR))
    return folder, name, (folder / name).read_bytes()


@pytest.fixture(params=["installed", "standard library"])
def reader(request, monkeypatch) -> str:
    if request.param == "standard library":
        monkeypatch.setattr(layout, "_reader", gzip)
    return request.param


def test_isal_reads_where_it_has_wheels() -> None:
    import platform

    if platform.machine() in ("x86_64", "AMD64", "aarch64", "arm64"):
        assert layout._reader.__name__ == "isal.igzip"


def test_the_lines_are_the_files_lines_whichever_reader(tmp_path: Path, reader: str) -> None:
    folder, name, data = _member(tmp_path)
    expected = gzip.decompress(data).split(b"\n")
    assert expected[-1] == b""
    assert list(layout.Package(folder).lines(name)) == expected[:-1]


@pytest.mark.parametrize("damage", ["cut", "byte", "crc", "length", "not gzip"])
def test_a_damaged_file_is_refused_whichever_reader(
    tmp_path: Path, reader: str, damage: str
) -> None:
    folder, name, data = _member(tmp_path)
    blob = bytearray(data)
    if damage == "cut":
        blob = blob[: len(blob) // 2]
    elif damage == "byte":
        blob[len(blob) // 3] ^= 0x55
    elif damage == "crc":
        blob[-6] ^= 1
    elif damage == "length":
        blob[-2] ^= 1
    else:
        blob = bytearray(b"not a gzip file at all")
    (folder / name).write_bytes(bytes(blob))
    with pytest.raises(layout.CorruptFile) as raised:
        list(layout.Package(folder).lines(name))
    assert name in str(raised.value) and "cannot be decompressed" in str(raised.value)
    assert raised.value.reason


def test_the_recall_of_a_round_in_a_damaged_file_is_an_unreadable_package(
    tmp_path: Path, capsys
) -> None:
    """Exit 2 and a line naming the file (a traceback before)."""
    from auditor.cli import main

    folder, name, data = _member(tmp_path)
    table = name.removeprefix(f"{layout.EVENTS_DIR}/").removesuffix(".jsonl.gz")
    (folder / name).write_bytes(data[: len(data) // 2])
    day = layout.Package(folder).manifest()["period"]["from"]
    assert main(["round", str(folder), table, day, "2"]) == 2
    said = capsys.readouterr().err
    assert "cannot read the package" in said and name in said and "cannot be decompressed" in said
