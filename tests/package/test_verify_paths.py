"""The auditor's fast paths check exactly what the plain ones do: an event's hash and
export form made once from its line, and the tables fanned out over processes."""

from __future__ import annotations

import functools
import gzip
import re
import shutil
import zipfile
from datetime import UTC, datetime, timedelta
from pathlib import Path
from uuid import UUID

import msgspec
from hypothesis import given
from hypothesis import strategies as st

from audit.record.jsonl import (
    LineError,
    _export_moment,
    _exported_moment,
    _fast,
    _uuid_text,
    decode_fields,
    decode_hashed,
    decode_line,
    export_form,
    exported_fields,
    member_texts,
)
from auditor import layout
from auditor.check import verify_package

FIXTURE = Path(__file__).parent / "fixtures" / "package-v1.zip"


def _lines() -> list[bytes]:
    package = layout.Package(FIXTURE)
    try:
        return [
            line
            for name in package.names()
            if name.startswith(layout.EVENTS_DIR)
            for line in package.lines(name)
        ]
    finally:
        package.close()


def test_an_events_hash_and_export_form_made_once_are_the_envelopes() -> None:
    lines = _lines()
    assert len(lines) > 100
    for number, text in enumerate(lines, start=1):
        envelope = decode_line(text, number)
        hashed, event = decode_hashed(text, number)
        assert hashed.computed_hash() == envelope.computed_hash() == envelope.hash
        assert event == envelope.as_dict()


def test_a_line_not_in_the_export_form_gets_the_export_forms_text() -> None:
    """An id in capitals and times with an offset read as the same values: the export
    form (and so the hashed document) writes them as the chain does, not as the line."""
    text = _lines()[0]
    envelope = decode_line(text)
    stamp = envelope.as_dict()["occurred_at"]
    other = text.replace(str(envelope.id).encode(), str(envelope.id).upper().encode())
    other = other.replace(stamp.encode(), stamp.replace("Z", "+00:00").encode(), 1)
    assert other != text
    event = export_form(decode_line(other), other)
    assert event == envelope.as_dict()
    assert event["id"] == str(envelope.id) and event["occurred_at"] == stamp


# the export form's id and moments as patterns: the reference the positional checks are held to
ID_FORM = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
MOMENT_FORM = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6}Z")
_Aware = msgspec.json.Decoder(datetime)


def _ids() -> st.SearchStrategy[str]:
    """Texts msgspec reads as a UUID: the export form, capitals, no dashes, mixed."""
    return st.builds(
        lambda u, how: {
            "form": str(u),
            "upper": str(u).upper(),
            "hex": u.hex,
            "mixed": str(u)[:9] + str(u)[9:].upper(),
        }[how],
        st.uuids(),
        st.sampled_from(["form", "upper", "hex", "mixed"]),
    )


def _moments() -> st.SearchStrategy[str]:
    """Texts msgspec reads as an aware RFC 3339 moment, in several writings of it."""

    def write(moment: datetime, how: str) -> str:
        plain = moment.replace(tzinfo=None).isoformat(timespec="microseconds")
        return {
            "form": plain + "Z",
            "small": plain.replace("T", "t") + "z",
            "offset": plain + "+00:00",
            "millis": moment.replace(tzinfo=None).isoformat(timespec="milliseconds") + "Z",
            "seconds": moment.replace(tzinfo=None).isoformat(timespec="seconds") + "Z",
            "east": (moment + timedelta(hours=1))
            .replace(tzinfo=None)
            .isoformat(timespec="microseconds")
            + "+01:00",
            "nanos": plain + "123Z",
            "space": plain.replace("T", " ") + "Z",
        }[how]

    return st.builds(
        write,
        st.datetimes(
            min_value=datetime(1900, 1, 2), max_value=datetime(9998, 12, 30), timezones=st.just(UTC)
        ),
        st.sampled_from(["form", "small", "offset", "millis", "seconds", "east", "nanos", "space"]),
    )


@given(_ids())
def test_an_id_is_taken_as_written_exactly_when_it_is_in_the_export_form(text: str) -> None:
    UUID(text)  # msgspec reads it (the decoder ran before the check does)
    assert msgspec.json.decode(msgspec.json.encode(text), type=UUID)
    assert _uuid_text(text) == (ID_FORM.fullmatch(text) is not None)


@given(_moments())
def test_a_moment_is_taken_as_written_exactly_when_it_is_in_the_export_form(text: str) -> None:
    try:
        _Aware.decode(msgspec.json.encode(text))
    except msgspec.ValidationError:
        return  # not a moment the decoder reads: the check never sees it
    assert _export_moment(text) == (MOMENT_FORM.fullmatch(text) is not None)


def _plain(text: bytes) -> tuple[str, dict | None, str | None]:
    """What the plain decode makes of a line: its error, or its export form and hash."""
    try:
        envelope = decode_line(text, 7)
    except LineError as error:
        return f"{type(error).__name__}: {error}", None, None
    return "", envelope.as_dict(), envelope.computed_hash()


def _hashed(text: bytes) -> tuple[str, dict | None, str | None]:
    try:
        link, event = decode_hashed(text, 7)
    except LineError as error:
        return f"{type(error).__name__}: {error}", None, None
    assert (
        link.hash == event["hash"]
        and link.stream == event["stream"]
        and link.version == event["version"]
    )
    return "", event, link.computed_hash()


# lines changed the ways a writer other than this codec, or a forger, might: each read by
# decode_hashed's one parse or its plain path must come out as the plain decode has it
_CHANGES = [
    lambda t: t,
    lambda t: t.replace(b'"version":', b'"version":0,"x":', 1),
    lambda t: t.replace(b'"version":', b'"extra":1,"version":', 1),
    lambda t: t.replace(b'"source":"', b'"source":"Bad Label ', 1),
    lambda t: t.replace(b'"actor":"', b'"actor":"-', 1),
    lambda t: t.replace(b'"stream":"', b'"stream":"no such table ', 1),
    lambda t: t.replace(b'"schema_version":1', b'"schema_version":99', 1),
    lambda t: t.replace(b'"schema_version":1', b'"schema_version":"1"', 1),
    lambda t: t.replace(b'"payload":{', b'"payload":{"unknown":1,', 1),
    lambda t: t.replace(b'"payload":{', b'"payload": {', 1),
    lambda t: re.sub(
        rb'"recorded_at":"[^"]*"', b'"recorded_at":"2026-02-30T10:00:00.000000Z"', t, count=1
    ),
    lambda t: re.sub(
        rb'"recorded_at":"[^"]*"', b'"recorded_at":"2026-W48-1T10:00:00.000000Z"', t, count=1
    ),
    lambda t: re.sub(
        rb'"occurred_at":"[^"]*"', b'"occurred_at":"1899-12-31T23:59:59.999999Z"', t, count=1
    ),
    lambda t: re.sub(rb'"occurred_at":"([^"]*)Z"', rb'"occurred_at":"\1+00:00"', t, count=1),
    lambda t: re.sub(rb'"occurred_at":"([^"]*)Z"', rb'"occurred_at":"\1"', t, count=1),
    lambda t: re.sub(
        rb'"id":"([0-9a-f-]*)"', lambda m: b'"id":"' + m.group(1).upper() + b'"', t, count=1
    ),
    lambda t: re.sub(
        rb'"id":"([0-9a-f-]*)"',
        lambda m: b'"id":"' + m.group(1).replace(b"-", b"") + b'"',
        t,
        count=1,
    ),
    lambda t: re.sub(
        rb'"id":"([0-9a-f-]*)"', lambda m: b'"id":"' + m.group(1)[:-1] + b'g"', t, count=1
    ),
    lambda t: re.sub(rb'"hash":"[^"]*",', b"", t, count=1),
    lambda t: re.sub(rb',"prev_hash":"[^"]*"', b"", t, count=1),
    lambda t: t[:-5],
]


def test_decode_hashed_refuses_and_reads_every_line_as_the_plain_decode_does() -> None:
    """The one parse of a line in the export form, or the plain path for any other:
    the same error for a line refused, the same export form and hash for one read."""
    lines = _lines()
    read = refused = 0
    for text in lines[:40] + lines[-40:]:
        assert _fast(text, 7) is not None  # a line this codec wrote takes the one parse
        for change in _CHANGES:
            changed = change(text.rstrip(b"\n"))
            plain = _plain(changed)
            assert _hashed(changed) == plain, changed
            read, refused = read + (not plain[0]), refused + bool(plain[0])
    assert read > 80 * 4 and refused > 80 * 10  # both paths, both outcomes


def _fields(text: bytes) -> tuple[object, ...] | None:
    """What ingest's plain path reads of a line: its members and their texts (None:
    refused)."""
    try:
        return decode_fields(text, 7), member_texts(text)
    except LineError:
        return None


def test_ingests_one_parse_reads_a_line_as_its_two_do_or_leaves_it_to_them() -> None:
    """exported_fields (ingest's one parse of a line in the export form): the members
    and texts decode_fields and member_texts give, or None - never a line they refuse."""
    lines = _lines()
    taken = left = 0
    for text in lines[:40] + lines[-40:]:
        assert exported_fields(text) is not None  # a line this codec wrote takes the one parse
        unchained = re.sub(
            rb',"(hash|prev_hash|recorded_at|position|version|schema_version)":("[^"]*"|[0-9]+)',
            b"",
            text.rstrip(b"\n"),
        )
        for changed in [change(text.rstrip(b"\n")) for change in _CHANGES] + [unchained]:
            exported = exported_fields(changed)
            if exported is None:
                left += 1
                continue
            taken += 1
            assert exported == _fields(changed), changed
    assert taken > 80 * 4 and left > 80 * 10


@functools.cache
def _first_line() -> bytes:
    return _lines()[0]


def _changed_ids() -> st.SearchStrategy[str]:
    """UUIDs in the export form with one character put in, taken out or replaced."""

    def change(u: UUID, at: int, char: str, how: str) -> str:
        text = str(u)
        at %= len(text)
        return {
            "put": text[:at] + char + text[at:],
            "out": text[:at] + text[at + 1 :],
            "replace": text[:at] + char + text[at + 1 :],
        }[how]

    return st.builds(
        change,
        st.uuids(),
        st.integers(0, 35),
        st.sampled_from("0a-fgA x\u0663"),
        st.sampled_from(["put", "out", "replace"]),
    )


@given(
    st.one_of(
        st.text(alphabet="0123456789abcdefABCDEF-g x", min_size=34, max_size=38),
        _ids(),
        _changed_ids(),
    )
)
def test_an_id_passes_the_one_parse_exactly_when_it_is_a_uuid_in_the_export_form(text: str) -> None:
    assert _uuid_text(text) == (ID_FORM.fullmatch(text) is not None)


@given(
    st.one_of(
        st.text(alphabet="0123456789abcdefABCDEF-g x", min_size=32, max_size=38),
        _ids(),
        _changed_ids(),
    )
)
def test_an_ingest_line_takes_the_one_parse_exactly_when_its_id_is_in_the_export_form(
    text: str,
) -> None:
    line = re.sub(rb'"id":"[^"]*"', b'"id":' + msgspec.json.encode(text), _first_line(), count=1)
    plain = _fields(line)
    exported = exported_fields(line)
    assert (exported is not None) == (plain is not None and ID_FORM.fullmatch(text) is not None)
    if exported is not None:
        assert exported == plain


def _moment_texts() -> st.SearchStrategy[str]:
    """The export form's moments, valid or not, and texts of its length and shape."""
    digits = st.text(alphabet="0123456789", min_size=1, max_size=1)
    free = st.text(alphabet="0123456789-:.TZWtz +\u0663", min_size=27, max_size=27)
    shaped = st.builds(
        lambda cs: "{}{}{}{}-{}{}-{}{}T{}{}:{}{}:{}{}.{}{}{}{}{}{}Z".format(*cs),
        st.lists(digits, min_size=20, max_size=20),
    )
    return st.one_of(free, shaped, _moments())


@given(_moment_texts())
def test_a_moment_passes_the_one_parse_exactly_when_the_plain_decode_reads_it_in_the_export_form(
    text: str,
) -> None:
    try:
        value = _Aware.decode(msgspec.json.encode(text))
    except msgspec.ValidationError:
        value = None
    in_form = MOMENT_FORM.fullmatch(text) is not None and value is not None
    expected = in_form and datetime(1900, 1, 1, tzinfo=UTC) <= value <= datetime(
        9998, 12, 31, 23, 59, 59, 999999, tzinfo=UTC
    )
    assert _exported_moment(text) == expected


def test_tables_fanned_out_give_the_same_outcome_as_one_process(tmp_path: Path) -> None:
    """The fixture, and a copy with one table's event changed, verify to the same summary
    and the same disagreements in the same order with one process and with several."""
    assert verify_package(FIXTURE, processes=1).exit_code == 0
    folder = tmp_path / "package"
    with zipfile.ZipFile(FIXTURE) as archive:
        archive.extractall(folder)
    names = sorted(p for p in (folder / layout.EVENTS_DIR).iterdir())
    assert len(names) >= 2
    lines = gzip.decompress(names[-1].read_bytes()).splitlines(keepends=True)
    lines[3] = lines[3].replace(b'"source":"', b'"source":"x', 1)
    names[-1].write_bytes(gzip.compress(b"".join(lines), mtime=0))
    for package in (FIXTURE, folder):
        alone = verify_package(package, processes=1)
        fanned = verify_package(package, processes=3)
        assert (fanned.summary, fanned.disagreements) == (alone.summary, alone.disagreements)
    assert any(d.check == "chain" and d.line == 4 for d in alone.disagreements), alone.disagreements
    shutil.rmtree(folder)


def _name_of(job) -> str:
    return job[2]


def test_the_longest_tables_are_handed_to_the_workers_first(monkeypatch) -> None:
    """Workers take the tables longest first (the manifest's counts), so none is left with
    a long one at the end; the results come back in the tables' order."""
    from concurrent.futures import ProcessPoolExecutor

    from audit.record import processes
    from auditor import check

    submitted: list[str] = []

    class Recorded(ProcessPoolExecutor):
        def submit(self, fn, job, *args, **kwargs):
            submitted.append(job[2])
            return super().submit(fn, job, *args, **kwargs)

    monkeypatch.setattr(
        processes, "ProcessPoolExecutor", Recorded
    )  # the pool check's process_pool makes
    monkeypatch.setattr(check, "_table", _name_of)
    jobs = [
        ("p", {}, name, {"events": events}, None, False, "")
        for name, events in (("BJ-01", 700), ("BJ-02", 22_000), ("BJ-03", 6_500), ("BJ-04", 21_000))
    ]
    assert list(check._each_table(jobs, 2)) == ["BJ-01", "BJ-02", "BJ-03", "BJ-04"]
    assert submitted == ["BJ-02", "BJ-04", "BJ-03", "BJ-01"]
