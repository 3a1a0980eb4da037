"""Device accounts: the users that table devices (shoe readers, dealer terminals)
authenticate as. A device may append to, and read, its own table's stream only; the
API's permission classes (audit.api) enforce that."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.contrib.auth.base_user import AbstractBaseUser
from django.db import transaction
from rest_framework.authtoken.models import Token

from .errors import StoreError
from .record.events import PayloadError
from .models import DeviceAccount
from .store import check_stream


class DeviceError(StoreError):
    code = "device_error"


@dataclass(frozen=True, slots=True)
class Device:
    account: DeviceAccount
    token: str
    created: bool


def default_username(stream: str) -> str:
    return f"device-{stream}"


def device_of(user: AbstractBaseUser | object) -> DeviceAccount | None:
    """The user's device account, or None for a person (or an anonymous user)."""
    # the reverse one-to-one raises RelatedObjectDoesNotExist, an AttributeError
    return getattr(user, "device_account", None)


def device_ensure(*, stream: str, username: str | None = None) -> Device:
    """The device account ``username`` of table ``stream`` and its API token, created if
    missing. Running it again returns the same account and token. Refuses (DeviceError)
    a user that exists but is a person, or a device of another table."""
    try:
        check_stream(stream)
    except PayloadError as error:
        raise DeviceError(error.message) from None
    username = username or default_username(stream)
    user_model = get_user_model()
    with transaction.atomic():
        user = user_model.objects.filter(username=username).first()
        created = user is None
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
        token, _ = Token.objects.get_or_create(user=user)
    return Device(account=account, token=token.key, created=created)
