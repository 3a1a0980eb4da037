"""The package on request: the regulator over REST, compliance from the admin; a Celery
task (eager here) builds it with the command's code; bad input refused as the command
refuses it; the download only to who may; every export in the access log."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from rest_framework.test import APIClient

from audit.models import AccessRecord
from regulator.models import PackageRequest
from tests.groups import group_named
from tests.package.conftest import DAY, audit, export


def _person(role: str) -> APIClient:
    user = get_user_model().objects.create_user(f"p-{role}", is_staff=True)
    user.groups.add(group_named(role))
    client = APIClient()
    client.force_login(user)
    return client


@pytest.fixture
def packages(record, settings, tmp_path, django_capture_on_commit_callbacks):
    settings.PACKAGE_DIR = str(tmp_path / "packages")
    return tmp_path / "packages"


def _ask(client: APIClient, capture, body: dict) -> tuple[int, dict]:
    with capture(execute=True):
        response = client.post("/api/packages", body, format="json")
    return response.status_code, response.json()


def test_the_regulator_asks_waits_and_downloads_the_package_the_command_makes(
    packages, tmp_path, django_capture_on_commit_callbacks
) -> None:
    regulator = _person("regulator")
    code, body = _ask(
        regulator, django_capture_on_commit_callbacks, {"day": DAY, "tables": ["BJ-01"]}
    )
    assert code == 202, body
    assert body["status"] == "queued" and body["tables"] == ["BJ-01"] and body["download"] is None
    status = regulator.get(f"/api/packages/{body['id']}").json()
    assert status["status"] == "ready", status
    assert status["requested_by"] == "user:p-regulator" and status["via"] == "api"
    assert status["keep_until"].startswith(str(int(status["requested_at"][:4]) + 10))
    download = regulator.get(status["download"])
    assert download.status_code == 200 and download["Content-Type"] == "application/zip"
    data = b"".join(download.streaming_content)
    # the same bytes as manage.py export_package of the same day and table
    code, said = export("--day", DAY, "--table", "BJ-01", "--out", str(tmp_path / "by-command.zip"))
    assert code == 0, said
    assert data == (tmp_path / "by-command.zip").read_bytes()
    assert zipfile.ZipFile(io.BytesIO(data)).read("manifest.json")
    (tmp_path / "downloaded.zip").write_bytes(data)
    code, said = audit("verify", str(tmp_path / "downloaded.zip"))
    assert code == 0, said
    # who asked, what was exported, what was downloaded: in the access log
    exports = AccessRecord.objects.filter(method="EXPORT").order_by("id")
    assert (exports[0].principal, exports[0].status) == ("user:p-regulator", 200)
    assert "export_package 2026-11-29 BJ-01" in exports[0].what
    assert AccessRecord.objects.filter(
        principal="user:p-regulator", path=status["download"], status=200
    ).exists()


@pytest.mark.parametrize(
    ("body", "status", "field", "says"),
    [
        ({"day": "29/11/2026"}, 400, "day", "Date has wrong format"),
        ({}, 400, "day", "required"),
        ({"day": DAY, "to": "2026-11-01"}, 400, "to", "--to 2026-11-01 is before --day 2026-11-29"),
        ({"day": DAY, "tables": "BJ-01"}, 400, "tables", "list"),
        ({"day": DAY, "colour": "red"}, 400, "colour", "Unknown field"),
        (
            {"day": DAY, "tables": ["NO-SUCH"]},
            404,
            None,
            "--table NO-SUCH: the store has no table with that code",
        ),
        ({"day": "2026-12-25"}, 404, None, "no table was open in gaming day 2026-12-25"),
    ],
)
def test_bad_input_is_json_naming_the_field_and_queues_nothing(
    packages, django_capture_on_commit_callbacks, body, status, field, says
) -> None:
    code, answer = _ask(_person("regulator"), django_capture_on_commit_callbacks, body)
    assert code == status, answer
    if field is not None:
        assert field in answer["errors"] and says in " ".join(answer["errors"][field]), answer
    else:
        assert says in answer["detail"], answer
    assert not PackageRequest.objects.exists()
    assert not packages.exists() or not any(packages.iterdir())


def test_who_may_ask_and_download(packages, django_capture_on_commit_callbacks) -> None:
    code, body = _ask(_person("regulator"), django_capture_on_commit_callbacks, {"day": DAY})
    assert code == 202
    url = f"/api/packages/{body['id']}/download"
    for role in ("pit_boss", "accounting"):
        client = _person(role)
        assert client.post("/api/packages", {"day": DAY}, format="json").status_code == 403
        assert client.get(url).status_code == 403
    assert APIClient().get(url).status_code == 401
    assert _person("compliance").get(url).status_code == 200
    assert APIClient().get("/api/packages/99999999999999999999999").status_code == 401


def test_a_package_not_built_yet_is_409_and_a_failed_one_says_why(
    packages, settings, django_capture_on_commit_callbacks
) -> None:
    regulator = _person("regulator")
    with django_capture_on_commit_callbacks(execute=False):
        response = regulator.post("/api/packages", {"day": DAY}, format="json")
    pk = response.json()["id"]
    answer = regulator.get(f"/api/packages/{pk}/download")
    assert answer.status_code == 409 and answer.json()["code"] == "not_ready"
    # a folder that cannot be made: the request fails, saying where
    blocker = Path(settings.PACKAGE_DIR)
    blocker.parent.mkdir(parents=True, exist_ok=True)
    blocker.write_text("a file where the folder should be")
    from regulator.tasks import build_package_task

    assert build_package_task.apply(args=[pk]).get()["status"] == "failed"
    row = PackageRequest.objects.get(pk=pk)
    assert row.status == "failed" and str(blocker) in row.message
    answer = regulator.get(f"/api/packages/{pk}/download")
    assert answer.status_code == 409 and "failed" in answer.json()["detail"]
    assert regulator.get("/api/packages/99999999999999999999999").status_code == 404


def test_compliance_asks_from_the_admin_and_sees_the_list(
    packages, django_capture_on_commit_callbacks
) -> None:
    user = get_user_model().objects.create_user("c-officer", is_staff=True)
    user.groups.add(group_named("compliance"))
    page = Client()
    page.force_login(user)
    refused = page.post(
        "/admin/casino/packagerequest/add/",
        {"day_from": DAY, "day_to": DAY, "tables_text": "NO-SUCH"},
    )
    assert (
        refused.status_code == 200 and b"the store has no table with that code" in refused.content
    )
    with django_capture_on_commit_callbacks(execute=True):
        done = page.post(
            "/admin/casino/packagerequest/add/",
            {"day_from": DAY, "day_to": DAY, "tables_text": "BJ-01, BJ-02"},
        )
    assert done.status_code == 302, done.content[:2000]
    row = PackageRequest.objects.get()
    assert (row.status, row.via, row.tables, row.requested_by) == (
        "ready",
        "admin",
        ["BJ-01", "BJ-02"],
        "user:c-officer",
    )
    listing = page.get("/admin/casino/packagerequest/")
    assert (
        listing.status_code == 200
        and b"ready" in listing.content
        and row.file.encode() in listing.content
    )
    assert f"/admin/casino/packagerequest/{row.pk}/download/".encode() in listing.content
    zipped = page.get(f"/admin/casino/packagerequest/{row.pk}/download/")
    assert zipped.status_code == 200 and b"".join(zipped.streaming_content)[:2] == b"PK"
    # the action asks again for the selected requests' days and tables
    with django_capture_on_commit_callbacks(execute=True):
        page.post(
            "/admin/casino/packagerequest/", {"action": "ask_again", "_selected_action": [row.pk]}
        )
    again = PackageRequest.objects.exclude(pk=row.pk).get()
    assert (again.day_from, again.day_to, again.tables, again.status) == (
        row.day_from,
        row.day_to,
        row.tables,
        "ready",
    )
    # the same record, the same bytes (the day is over: its access log no longer grows)
    assert again.sha256 == row.sha256


def test_the_command_writes_the_access_log(record, tmp_path) -> None:
    code, _ = export("--day", DAY, "--out", str(tmp_path / "p.zip"))
    assert code == 0
    code, _ = export("--day", DAY, "--table", "NO-SUCH", "--out", str(tmp_path / "q.zip"))
    assert code == 2
    rows = list(AccessRecord.objects.filter(method="EXPORT").order_by("id"))
    assert [(r.principal.startswith("command:"), r.status) for r in rows] == [
        (True, 200),
        (True, 400),
    ]
    assert rows[0].path == str((tmp_path / "p.zip").resolve()) and "events)" in rows[0].what
    assert "NO-SUCH" in rows[1].what


@pytest.mark.broker
@pytest.mark.django_db(transaction=True)
def test_a_real_worker_builds_the_bytes_eager_mode_builds(
    record, settings, tmp_path, django_capture_on_commit_callbacks
) -> None:
    """The request queued here, built by a worker process through the broker: the same
    zip as the task run eagerly in this process."""
    from regulator.tasks import build_package_task
    from tests.celery_worker import celery_worker

    remote_dir, eager_dir = tmp_path / "remote", tmp_path / "eager"
    settings.PACKAGE_DIR = str(eager_dir)
    regulator = _person("regulator")
    with django_capture_on_commit_callbacks(execute=False):
        pk = regulator.post(
            "/api/packages", {"day": DAY, "tables": ["BJ-02"]}, format="json"
        ).json()["id"]
    with celery_worker(
        tmp_path, PACKAGE_DIR=str(remote_dir), DIGEST_SIGNING_KEY=settings.DIGEST_SIGNING_KEY
    ) as send:
        remote = send(build_package_task.name, pk).get(timeout=120)
    assert remote["status"] == "ready", remote
    row = PackageRequest.objects.get(pk=pk)
    built = (remote_dir / row.file).read_bytes()
    eager = build_package_task.apply(args=[pk]).get()
    assert eager["sha256"] == remote["sha256"] == row.sha256
    assert (eager_dir / row.file).read_bytes() == built
