"""Real headless Chromium (Debian's package, /usr/bin/chromium) driven by Playwright,
against Django's live test server. Screenshots go to artifacts/ (kept by CI), 1400 px wide.

Without Chromium the browser tests skip, saying how to install it - on a laptop. In CI
(the environment variable ``CI`` set, as ``.ci/run`` does) a missing Chromium fails them:
CI must never pass with the browser tests skipped."""

from __future__ import annotations

import importlib
import os
import shutil
from pathlib import Path

import pytest
from django.contrib.auth.models import Group, Permission

PASSWORD = "a-long-test-password"

ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"
CHROMIUM = os.environ.get("CHROMIUM", shutil.which("chromium") or "/usr/bin/chromium")
# Chromium as root, in a machine with no network beyond this one: no sandbox, and none of
# the background connections that would only be refused.
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="session")
def browser():
    if not Path(CHROMIUM).exists():
        why = f"no Chromium at {CHROMIUM}: as root, run `bash deploy/install-system-packages.sh` (Debian's chromium)"
        if os.environ.get("CI"):
            pytest.fail(why)
        pytest.skip(why)
    # Playwright's sync API runs an event loop in this thread; the test's own ORM calls
    # happen between its steps, never during them.
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser, request):
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    page = context.new_page()
    yield page
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{request.node.name}.png"), full_page=True)
    context.close()


def log_in(page, live_server, username: str, password: str = PASSWORD):
    """The page logged in to the admin as ``username``."""
    page.goto(f"{live_server.url}/admin/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    page.click("input[type=submit]")
    page.wait_for_selector("#user-tools")
    return page


def group_of(*migrations: str) -> Group:
    """The group data migrations make (``tables.migrations.0002_pit_boss_group``, and the
    later ones that give it more permissions), as they make it: an earlier transactional
    test's flush removes the migrations' rows (the permissions come back with post_migrate)."""
    group = None
    for migration in migrations:
        module = importlib.import_module(migration)
        group, _ = Group.objects.get_or_create(name=module.GROUP)
        for app_label, codename in module.PERMISSIONS:
            group.permissions.add(
                Permission.objects.get(content_type__app_label=app_label, codename=codename)
            )
    assert group is not None
    return group


def member_of(migrations: tuple[str, ...], username: str, page, live_server, django_user_model):
    """A page logged in to the admin as a staff member of the group (not a superuser)."""
    user = django_user_model.objects.create_user(username, password=PASSWORD, is_staff=True)
    user.groups.add(group_of(*migrations))
    return log_in(page, live_server, username)


@pytest.fixture
def pit_boss(page, live_server, django_user_model):
    """A page logged in to the admin as a member of the pit_boss group (not a superuser)."""
    return member_of(
        ("tables.migrations.0002_pit_boss_group", "tables.migrations.0003_alert"),
        "pitboss",
        page,
        live_server,
        django_user_model,
    )


@pytest.fixture
def logged_in(page, live_server, django_user_model):
    """A page logged in to the admin as a superuser."""
    django_user_model.objects.create_superuser("boss", "boss@example.com", PASSWORD)
    return log_in(page, live_server, "boss")
