"""Device accounts: the users that table devices (shoe readers, dealer terminals)
authenticate as. A device may append to, and read, its own table's stream only, as the
actors its table may use (:func:`check_device_actors`); the API's permission classes
(audit.api.views) enforce that. A device never records what changes money after the fact
(audit.access.authority)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.base_user import AbstractBaseUser
from django.db import transaction

from audit.models import STAFFING, DeviceAccount, Event
from audit.record.events import PayloadError
from audit.store.errors import StoreError
from audit.store.streams import SERVER_STREAM_PREFIX, check_stream

from .tokens import IssuedToken, token_issue, tokens_revoke


class DeviceError(StoreError):
    code = "device_error"


class ActorNotAllowed(StoreError):
    """A device named an actor its table may not use (HTTP 403)."""

    http_status = 403
    code = "actor_not_allowed"

    def __init__(self, index: int, actor: str, stream: str, own: str) -> None:
        super().__init__(
            f"events[{index}].actor: a device of table {stream} records as itself ({own}), as its table's own "
            f"instruments (shoe:{stream}, shuffler:{stream}) or as a dealer assigned to {stream} since it opened "
            f"(dealer:<id>, after a dealer.assigned of that id) - never as a person, another device or another "
            f"table's instrument or dealer; not {actor!r}"
        )
        self.index = index

    def as_dict(self) -> dict[str, object]:
        return {**super().as_dict(), "errors": {f"events[{self.index}].actor": [str(self)]}}


def _plain_id(value: object) -> str | None:
    """A dealer's id as a ``dealer.assigned`` gives it: a plain identifier, never one that
    names a kind of its own (``user:PB-1`` would make ``dealer:user:PB-1``)."""
    return value if isinstance(value, str) and value and ":" not in value else None


def assigned_dealers(stream: str) -> set[str]:
    """The dealers assigned to table ``stream`` since its last ``table.opened`` (since its
    first event when it never opened): the ids its ``dealer.assigned`` events name. Read
    backwards through the partial index audit_event_staffing (a few rows a day), not a
    walk of the stream."""
    dealers = set()
    rows = (
        Event.objects.filter(stream=stream, type__in=STAFFING)
        .order_by("-version")
        .values_list("type", "payload")
    )
    for type_name, payload in rows.iterator(chunk_size=100):
        if type_name == "table.opened":
            break
        if isinstance(payload, dict) and (dealer := _plain_id(payload.get("dealer"))):
            dealers.add(dealer)
    return dealers


def check_device_actors(user: object, stream: str, events: list[Any]) -> None:
    """A table device speaks for its own table only: itself (``device:<its user>``), the
    table's own instruments (``shoe:<table>``, ``shuffler:<table>``) and the dealers
    assigned to the table since it opened (its ``dealer.assigned`` events, stored or
    earlier in the batch) - never a person of the back-office, another device, another
    table's instrument or dealer. Refuse any other actor (ActorNotAllowed, 403)."""
    device = device_of(user)
    if device is None:
        return
    own = f"device:{user.get_username()}"  # type: ignore[attr-defined]
    instruments = {own, f"shoe:{stream}", f"shuffler:{stream}"}
    dealers: set[str] | None = None  # read when the batch first needs them
    for index, event in enumerate(events):
        actor = event.actor
        allowed = isinstance(actor, str) and actor in instruments
        if not allowed and isinstance(actor, str) and actor.startswith("dealer:"):
            if dealers is None:
                dealers = assigned_dealers(stream)
            allowed = actor[len("dealer:") :] in dealers
        if not allowed:
            raise ActorNotAllowed(index, actor, stream, own)
        payload = event.payload if isinstance(event.payload, dict) else {}
        if event.type == "table.opened":
            dealers = set()  # a new gaming day: the dealers are assigned again
        elif event.type == "dealer.assigned" and (dealer := _plain_id(payload.get("dealer"))):
            if dealers is None:
                dealers = assigned_dealers(stream)
            dealers.add(dealer)


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
    NEW API token for it (audit.access.tokens): its earlier tokens stay valid until they expire
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


def _device_account(
    *, stream: str, username: str | None, create: bool
) -> tuple[DeviceAccount, bool]:
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
