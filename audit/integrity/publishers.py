"""Where signed tree heads are published: places the database's owner cannot write.

A head in the database (``audit.digests``) is only as safe as the database: its owner can
delete it. So every head is also handed to each publisher of ``DIGEST_PUBLISHERS``
(comma-separated; several may be set), and ``verify`` reads the latest one back from each:

- a **folder** (``/mnt/heads`` or ``file:///mnt/heads``): another mount, not the database
  host's disk - ``latest.json``, replaced by each head, and ``heads/<UTC day>/head-<size>.json``
  for each head the record stores too (one every ``DIGEST_EVERY_SECONDS``);
- an **HTTP endpoint** (``https://...``): each head POSTed as JSON (``Authorization:
  Bearer`` with ``DIGEST_HTTP_TOKEN`` when set), a 2xx answer taken as kept; a GET of the
  same URL answers the latest head the endpoint holds;
- an **S3-compatible bucket with object lock** (``s3://bucket/prefix``, boto3;
  ``DIGEST_S3_ENDPOINT_URL`` for another service than AWS, the credentials from boto3's
  usual chain): each head a new version of ``<prefix>latest.json``, and each head the
  record stores an object ``<prefix>heads/<size>.json``, all written in COMPLIANCE mode
  retained ``DIGEST_S3_RETAIN_DAYS``, so that no one - the bucket's owner included - can
  delete or overwrite them before then. The bucket must have object lock enabled (it is
  enabled at creation).

What a publisher holds is the head as :meth:`audit.record.signing.SignedTreeHead.as_dict`
writes it, with the public key that signed it and the consistency proof from the head
before it. A publisher that fails raises :class:`PublishError`, saying where and why; the
signer logs it and goes on (the next head is handed over again), ``manage.py digest``
exits 1, and ``verify`` names a publisher it cannot read.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import urlsplit

from django.conf import settings

TIMEOUT_SECONDS = 5.0


class PublishError(Exception):
    """A publisher could not keep or give back a head; the message says where and why."""


class Publisher(Protocol):
    where: str  # what a person reads: "folder /mnt/heads", "https://...", "s3://bucket/prefix"

    def publish(self, size: int, signed_at: datetime, document: bytes, *, archive: bool) -> None:
        """Keep ``document`` (a head's JSON) as the latest head and, with ``archive``, as
        the head of ``size`` events kept apart."""

    def latest(self) -> bytes | None:
        """The latest head's JSON it holds (None: none yet)."""


def document(head: dict[str, Any], public_pem: str) -> bytes:
    """A head as publishers keep it: its members, the public key, readable JSON."""
    return (
        json.dumps({**head, "public_key": public_pem}, indent=2, sort_keys=True) + "\n"
    ).encode()


@dataclass(frozen=True, slots=True)
class FolderPublisher:
    folder: Path

    @property
    def where(self) -> str:
        return f"folder {self.folder}"

    def publish(self, size: int, signed_at: datetime, document: bytes, *, archive: bool) -> None:
        day = self.folder / "heads" / f"{signed_at.astimezone(UTC):%Y-%m-%d}"
        try:
            if archive:
                day.mkdir(parents=True, exist_ok=True)
                (day / f"head-{size:012d}.json").write_bytes(document)
            # latest.json replaced in one step: a reader never sees half a head
            partial = self.folder / f".latest.json.{size}"
            partial.write_bytes(document)
            partial.replace(self.folder / "latest.json")
        except OSError as error:
            raise PublishError(f"{self.where}: {error.strerror or error}") from None

    def latest(self) -> bytes | None:
        path = self.folder / "latest.json"
        try:
            return path.read_bytes()
        except FileNotFoundError:
            if not self.folder.is_dir():
                raise PublishError(f"{self.where}: the folder is not there") from None
            return None
        except OSError as error:
            raise PublishError(f"{self.where}: {error.strerror or error}") from None


@dataclass(frozen=True, slots=True)
class HttpPublisher:
    url: str
    token: str = ""

    @property
    def where(self) -> str:
        return self.url

    def _request(self, method: str, body: bytes | None = None) -> urllib.request.Request:
        headers = {"Accept": "application/json"}
        if body is not None:
            headers["Content-Type"] = "application/json"
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        return urllib.request.Request(self.url, data=body, method=method, headers=headers)

    def publish(self, size: int, signed_at: datetime, document: bytes, *, archive: bool) -> None:
        try:
            with urllib.request.urlopen(
                self._request("POST", document), timeout=TIMEOUT_SECONDS
            ) as answer:
                answer.read()
        except urllib.error.HTTPError as error:
            raise PublishError(
                f"{self.url}: answered {error.code} {error.reason} to the head of {size:,} events"
            ) from None
        except (urllib.error.URLError, OSError) as error:
            raise PublishError(f"{self.url}: {getattr(error, 'reason', error)}") from None

    def latest(self) -> bytes | None:
        try:
            with urllib.request.urlopen(self._request("GET"), timeout=TIMEOUT_SECONDS) as answer:
                return bytes(answer.read()) or None
        except urllib.error.HTTPError as error:
            if error.code == 404:
                return None
            raise PublishError(f"{self.url}: answered {error.code} {error.reason}") from None
        except (urllib.error.URLError, OSError) as error:
            raise PublishError(f"{self.url}: {getattr(error, 'reason', error)}") from None


@dataclass(frozen=True, slots=True)
class S3Publisher:
    bucket: str
    prefix: str
    endpoint_url: str | None
    retain_days: int

    @property
    def where(self) -> str:
        return f"s3://{self.bucket}/{self.prefix}"

    def _client(self) -> Any:
        try:
            import boto3
            from botocore.config import Config
        except ImportError:
            raise PublishError(
                f"{self.where}: boto3 is not installed (pip install 'blackjack-backoffice[s3]')"
            ) from None
        config = Config(
            connect_timeout=TIMEOUT_SECONDS,
            read_timeout=TIMEOUT_SECONDS,
            retries={"max_attempts": 2},
        )
        return boto3.client("s3", endpoint_url=self.endpoint_url, config=config)

    def publish(self, size: int, signed_at: datetime, document: bytes, *, archive: bool) -> None:
        from botocore.exceptions import BotoCoreError, ClientError

        until = datetime.now(UTC) + timedelta(days=self.retain_days)
        locked = {
            "ObjectLockMode": "COMPLIANCE",
            "ObjectLockRetainUntilDate": until,
            "ContentType": "application/json",
            "ChecksumAlgorithm": "SHA256",
        }
        try:
            client = self._client()
            if archive:
                client.put_object(
                    Bucket=self.bucket,
                    Key=f"{self.prefix}heads/{size:012d}.json",
                    Body=document,
                    **locked,
                )
            client.put_object(
                Bucket=self.bucket, Key=f"{self.prefix}latest.json", Body=document, **locked
            )
        except (BotoCoreError, ClientError) as error:
            raise PublishError(f"{self.where}: {error}") from None

    def latest(self) -> bytes | None:
        from botocore.exceptions import BotoCoreError, ClientError

        try:
            answer = self._client().get_object(Bucket=self.bucket, Key=f"{self.prefix}latest.json")
            return bytes(answer["Body"].read())
        except ClientError as error:
            if error.response.get("Error", {}).get("Code") in ("NoSuchKey", "404"):
                return None
            raise PublishError(f"{self.where}: {error}") from None
        except BotoCoreError as error:
            raise PublishError(f"{self.where}: {error}") from None


def publisher_of(text: str) -> Publisher:
    """One publisher from its setting's text; ValueError saying what is wrong."""
    parts = urlsplit(text)
    if parts.scheme in ("http", "https"):
        if not parts.netloc:
            raise ValueError(f"{text!r}: an HTTP publisher needs a host")
        return HttpPublisher(text, settings.DIGEST_HTTP_TOKEN)
    if parts.scheme == "s3":
        if not parts.netloc:
            raise ValueError(f"{text!r}: an S3 publisher is s3://BUCKET/PREFIX")
        prefix = parts.path.lstrip("/")
        return S3Publisher(
            parts.netloc,
            prefix + ("/" if prefix and not prefix.endswith("/") else ""),
            settings.DIGEST_S3_ENDPOINT_URL or None,
            settings.DIGEST_S3_RETAIN_DAYS,
        )
    if parts.scheme == "file":
        return FolderPublisher(Path(parts.path))
    if parts.scheme:
        raise ValueError(f"{text!r}: expected a folder, file://, http(s):// or s3:// publisher")
    return FolderPublisher(Path(text))


def publishers() -> list[Publisher]:
    """The publishers ``DIGEST_PUBLISHERS`` names, in its order."""
    return [publisher_of(text) for text in settings.DIGEST_PUBLISHERS]
