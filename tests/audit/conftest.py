"""Fixtures the audit tests share: the API tests' logged-in pit boss, for the tests of
bad input too (pytest finds a fixture in a conftest's namespace)."""

from tests.audit.test_api import pit_boss  # noqa: F401 - a fixture, used by name
