"""Setting up the demo: logins a newcomer can use at once."""
from __future__ import annotations

import secrets
from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.db import transaction

from audit.devices import device_ensure

DEMO_USER = "demo"
DEMO_TABLE = "DEMO-01"


@dataclass(frozen=True)
class DemoLogins:
    username: str
    password: str
    device_token: str
    device_table: str


@transaction.atomic
def demo_logins_ensure() -> DemoLogins:
    """Create (or reset) the demo superuser with a fresh password, and a device account
    for the demo table; return what to print."""
    password = secrets.token_urlsafe(9)
    user, _ = get_user_model().objects.get_or_create(username=DEMO_USER)
    user.is_staff = user.is_superuser = True
    user.set_password(password)
    user.save()
    device = device_ensure(stream=DEMO_TABLE)
    return DemoLogins(DEMO_USER, password, device.token, DEMO_TABLE)
