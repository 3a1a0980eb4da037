"""Device accounts: the users that table devices (shoe readers, dealer terminals)
authenticate as. A device may append to, and read, its own table's stream only; the
API's permission classes (audit.api) enforce that."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.base_user import AbstractBaseUser
from django.db import transaction

from .errors import StoreError
from .models import DeviceAccount
from .record.events import PayloadError
from .store import check_stream
from .tokens import IssuedToken, token_issue, tokens_revoke


class DeviceError(StoreError):
    code = "device_error"


# streams the server's own services write (findings' trail, digests, access log, alerts)
SERVER_STREAM_PREFIX = "audit."


class ActorNotAllowed(StoreError):
    """A device named an actor its table may not use (HTTP 403)."""

    http_status = 403
    code = "actor_not_allowed"

    def __init__(self, index: int, actor: str, allowed: tuple[str, ...]) -> None:
        super().__init__(
            f"events[{index}].actor: a table device may record only actors starting with "
            f"{', '.join(allowed)} (and itself as device:<its user>), not {actor!r}"
        )
        self.index = index

    def as_dict(self) -> dict[str, object]:
        return {**super().as_dict(), "errors": {f"events[{self.index}].actor": [str(self)]}}


def check_device_actors(user: object, events: list[Any]) -> None:
    """A table device speaks for its table's people (dealers) and itself, never for a
    person of the back-office: refuse any other actor (``DEVICE_ACTOR_PREFIXES``)."""
    device = device_of(user)
    if device is None:
        return
    allowed = tuple(settings.DEVICE_ACTOR_PREFIXES)
    own = f"device:{user.get_username()}"  # type: ignore[attr-defined]
    for index, event in enumerate(events):
        actor = event.actor
        if actor != own and not (isinstance(actor, str) and actor.startswith(allowed) and not actor.startswith("device:")):
            raise ActorNotAllowed(index, actor, allowed)


@dataclass(frozen=True, slots=True)
class Device:
    account: DeviceAccount
    token: str  # the new token's text, shown once (only its digest is stored)
    created: bool
    issued: IssuedToken


def default_username(stream: str) -> str:
    return f"device-{stream}"


def device_of(user: AbstractBaseUser | object) -> DeviceAccount | None:
    """The user's device account, or None for a person (or an anonymous user)."""
    # the reverse one-to-one raises RelatedObjectDoesNotExist, an AttributeError
    return getattr(user, "device_account", None)


def principal_of(user: AbstractBaseUser | object) -> str:
    """Who appends, as the server authenticated them: ``device:<user>`` for a table
    device, ``user:<user>`` for a person (the store records and seals it)."""
    name = user.get_username()  # type: ignore[union-attr]
    return f"device:{name}" if device_of(user) is not None else f"user:{name}"


def device_ensure(*, stream: str, username: str | None = None) -> Device:
    """The device account ``username`` of table ``stream``, created if missing, and a
    NEW API token for it (audit.tokens): its earlier tokens stay valid until they expire
    or are revoked (:func:`device_revoke`). Refuses (DeviceError) a user that exists but
    is a person, or a device of another table."""
    with transaction.atomic():
        account, created = _device_account(stream=stream, username=username, create=True)
        issued = token_issue(user=account.user)
    return Device(account=account, token=issued.text, created=created, issued=issued)


def device_revoke(*, stream: str, username: str | None = None, key_id: str | None = None) -> int:
    """Revoke the device's token ``key_id``, or all its tokens; how many were valid."""
    account, _ = _device_account(stream=stream, username=username, create=False)
    return tokens_revoke(user=account.user, key_id=key_id)


def _device_account(*, stream: str, username: str | None, create: bool) -> tuple[DeviceAccount, bool]:
    """The device account ``username`` of table ``stream`` (made when ``create``) and
    whether it was made now."""
    try:
        check_stream(stream)
    except PayloadError as error:
        raise DeviceError(error.message) from None
    if stream.startswith(SERVER_STREAM_PREFIX):
        raise DeviceError(f"{stream!r} is a server stream (audit.*): no device may record it")
    username = username or default_username(stream)
    user_model = get_user_model()
    with transaction.atomic():
        user = user_model.objects.filter(username=username).first()
        created = user is None
        if user is None and not create:
            raise DeviceError(f"no device {username!r} of table {stream!r}")
        if user is None:
            user = user_model(username=username, is_staff=False, is_superuser=False)
            user.set_unusable_password()
            user.save()
            account = DeviceAccount.objects.create(
                user=user, stream=stream, description="created by manage.py create_device"
            )
        else:
            account = device_of(user)
            if account is None:
                raise DeviceError(f"user {username!r} exists and is not a device account")
            if account.stream != stream:
                raise DeviceError(
                    f"user {username!r} is the device account of table {account.stream!r}, "
                    f"not of {stream!r}"
                )
    return account, created
