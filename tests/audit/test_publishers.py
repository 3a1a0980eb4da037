"""Signed heads go to publishers outside the database - folders, an HTTP endpoint, an S3
bucket with object lock, several at once - and verify reads the latest back from each,
saying where it looked; a publisher that fails is named, never silently skipped."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from audit.integrity import digests, publishers
from audit.record import signing
from audit.store.streams import events_append
from tests.commands import run_command
from tests.samples import round_events, table_opened

pytestmark = pytest.mark.django_db


@pytest.fixture
def table() -> None:
    events_append(stream="T1", expected_version=0, events=[table_opened("T1"), *round_events(1)])


class Endpoint:
    """A head-keeping HTTP endpoint: POST keeps a head (with the right bearer token), GET
    answers the latest kept; ``failing`` answers every request 503."""

    def __init__(self, token: str = "") -> None:
        self.token, self.kept, self.failing = token, [], False
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            def _refused(self) -> bool:
                if endpoint.failing:
                    self.send_error(503, "down for maintenance")
                    return True
                if (
                    endpoint.token
                    and self.headers.get("Authorization") != f"Bearer {endpoint.token}"
                ):
                    self.send_error(401, "who are you")
                    return True
                return False

            def do_POST(self) -> None:
                if self._refused():
                    return
                body = self.rfile.read(int(self.headers["Content-Length"]))
                json.loads(body)  # a head is JSON, or the test fails here
                endpoint.kept.append(body)
                self.send_response(201)
                self.end_headers()

            def do_GET(self) -> None:
                if self._refused():
                    return
                if not endpoint.kept:
                    self.send_error(404)
                    return
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.end_headers()
                self.wfile.write(endpoint.kept[-1])

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/casino/heads"


@contextmanager
def endpoint(token: str = "") -> Iterator[Endpoint]:
    served = Endpoint(token)
    thread = threading.Thread(target=served.server.serve_forever, daemon=True)
    thread.start()
    try:
        yield served
    finally:
        served.server.shutdown()
        served.server.server_close()


def test_every_publisher_gets_the_head_and_verify_reads_each(table, settings, tmp_path) -> None:
    """Two folders (another mount each) and an HTTP endpoint: each keeps the head as the
    signer made it, with its public key and proof; verify names all three and passes."""
    first, second = tmp_path / "mount-a", tmp_path / "mount-b"
    with endpoint(token="s3cret") as http:
        settings.DIGEST_PUBLISHERS = [str(first), f"file://{second}", http.url]
        settings.DIGEST_HTTP_TOKEN = "s3cret"
        sth, _ = digests.digest_sign()
        day = f"{sth.timestamp:%Y-%m-%d}"
        for folder in (first, second):
            latest = json.loads((folder / "latest.json").read_text())
            assert (folder / "heads" / day / f"head-{sth.size:012d}.json").read_text() == (
                folder / "latest.json"
            ).read_text()
            assert signing.SignedTreeHead.from_dict(latest) == sth
            assert (
                signing.verify_head(
                    signing.SignedTreeHead.from_dict(latest),
                    {sth.key_id: signing.load_public_key(latest["public_key"].encode())},
                )
                is None
            )
            assert (latest["previous_size"], latest["consistency"]) == (None, [])
        [posted] = http.kept
        assert signing.SignedTreeHead.from_dict(json.loads(posted)) == sth
        code, out, err = run_command("verify")
        assert code == 0, err
        for where in (
            f"folder {first}: the latest of {sth.size:,} events",
            f"folder {second}: the latest of {sth.size:,} events",
            f"{http.url}: the latest of {sth.size:,} events",
        ):
            assert where in out, out


def test_a_publisher_that_fails_is_named_and_the_others_still_get_the_head(
    table, settings, tmp_path
) -> None:
    """The endpoint down: ``digest`` signs and stores the head, hands it to the folder, and
    exits 1 naming the endpoint; verify says it could not read it, and still passes on the
    heads it found."""
    with endpoint() as http:
        http.failing = True
        settings.DIGEST_PUBLISHERS = [http.url, str(tmp_path / "mount")]
        code, out, err = run_command("digest")
        assert code == 1
        assert f"signed and stored, but not published to: {http.url}: answered 503" in err
        assert "signed head:" in out and (tmp_path / "mount" / "latest.json").exists()
        code, out, err = run_command("verify")
        assert code == 0, err
        assert f"signed heads: {http.url}: answered 503" in out and ": not read" in out


def test_a_wrong_token_is_refused_by_the_endpoint_and_said(table, settings) -> None:
    with endpoint(token="right") as http:
        settings.DIGEST_PUBLISHERS = [http.url]
        settings.DIGEST_HTTP_TOKEN = "wrong"
        code, _, err = run_command("digest")
        assert code == 1 and "answered 401" in err
        assert http.kept == []


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def s3(monkeypatch) -> Iterator[tuple[object, str]]:
    """A real S3-compatible server (moto's, in a thread, over HTTP) with a bucket made with
    object lock enabled; boto3 pointed at it with throwaway credentials."""
    boto3 = pytest.importorskip("boto3")
    server_module = pytest.importorskip("moto.server")
    port = _free_port()
    server = server_module.ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    url = f"http://127.0.0.1:{port}"
    for name, value in (
        ("AWS_ACCESS_KEY_ID", "testing"),
        ("AWS_SECRET_ACCESS_KEY", "testing"),
        ("AWS_DEFAULT_REGION", "us-east-1"),
    ):
        monkeypatch.setenv(name, value)
    client = boto3.client("s3", endpoint_url=url)
    client.create_bucket(Bucket="casino-heads", ObjectLockEnabledForBucket=True)
    try:
        yield client, url
    finally:
        server.stop()


def test_an_s3_bucket_keeps_each_head_locked_and_verify_reads_it(table, settings, s3) -> None:
    """Each head an object and a new version of latest.json, both in COMPLIANCE mode until
    DIGEST_S3_RETAIN_DAYS from now: deleting one is refused, by the server itself."""
    client, url = s3
    settings.DIGEST_PUBLISHERS = ["s3://casino-heads/blackjack"]
    settings.DIGEST_S3_ENDPOINT_URL = url
    settings.DIGEST_S3_RETAIN_DAYS = 30
    sth, _ = digests.digest_sign()
    key = f"blackjack/heads/{sth.size:012d}.json"
    head = client.head_object(Bucket="casino-heads", Key=key)
    assert head["ObjectLockMode"] == "COMPLIANCE"
    kept = (head["ObjectLockRetainUntilDate"] - datetime.now(UTC)).total_seconds() / 86400
    assert 29.9 < kept <= 30
    body = client.get_object(Bucket="casino-heads", Key="blackjack/latest.json")["Body"].read()
    assert signing.SignedTreeHead.from_dict(json.loads(body)) == sth
    with pytest.raises(Exception, match="AccessDenied"):
        client.delete_object(Bucket="casino-heads", Key=key, VersionId=head["VersionId"])
    code, out, err = run_command("verify")
    assert code == 0, err
    assert f"s3://casino-heads/blackjack/: the latest of {sth.size:,} events" in out


def test_a_bucket_without_object_lock_refuses_the_head(table, settings, s3) -> None:
    """A head that could be deleted is not published as if it could not: the server
    refuses a locked object in a bucket without lock, and ``digest`` names it."""
    client, url = s3
    client.create_bucket(Bucket="plain")
    settings.DIGEST_PUBLISHERS = ["s3://plain"]
    settings.DIGEST_S3_ENDPOINT_URL = url
    code, _, err = run_command("digest")
    assert code == 1 and "s3://plain/" in err and "ObjectLockConfiguration" in err


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("ftp://heads.example/x", "expected a folder, file://, http(s):// or s3://"),
        ("https:///nohost", "needs a host"),
        ("s3:///prefix", "s3://BUCKET/PREFIX"),
    ],
)
def test_a_publisher_that_is_no_publisher_is_refused(text: str, says: str) -> None:
    with pytest.raises(ValueError, match=says.replace("(", r"\(").replace(")", r"\)")):
        publishers.publisher_of(text)


def test_what_each_publisher_is(settings) -> None:
    settings.DIGEST_S3_ENDPOINT_URL = ""
    assert publishers.publisher_of("/mnt/heads") == publishers.FolderPublisher(Path("/mnt/heads"))
    assert publishers.publisher_of("file:///mnt/heads") == publishers.FolderPublisher(
        Path("/mnt/heads")
    )
    s3 = publishers.publisher_of("s3://bucket/a/b")
    assert (s3.bucket, s3.prefix, s3.endpoint_url) == ("bucket", "a/b/", None)
    assert publishers.publisher_of("s3://bucket").prefix == ""
