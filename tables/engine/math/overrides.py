"""``PARAM=VALUE`` text (the commands' ``--set``) into a changed :class:`RuleSet`.

Each value is parsed by the type of the RuleSet field it sets, then handed to
``RuleSet.with_overrides`` (which checks it like any table's overrides):

>>> from ..presets import PRESETS
>>> r = apply_assignments(PRESETS["hoyle"], ["decks=2", "dealer_hits_soft_17=true", "double_on=any"])
>>> r.decks, r.dealer_hits_soft_17, r.double_on
(2, True, None)
>>> apply_assignments(PRESETS["hoyle"], ["deck=2"])
Traceback (most recent call last):
...
tables.engine.math.overrides.OverrideError: deck: not a rule-set parameter
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

from ..rules import RuleSet, RuleValue

_TRUE = {"true", "yes", "on", "1"}
_FALSE = {"false", "no", "off", "0"}
_NONE = {"none", "null", "any", "unlimited", ""}


class OverrideError(ValueError):
    def __init__(self, param: str, message: str) -> None:
        super().__init__(f"{param}: {message}")
        self.param = param


def _field_types() -> dict[str, str]:
    return {f.name: str(f.type) for f in dataclasses.fields(RuleSet) if f.name != "name"}


def parse_value(param: str, text: str) -> RuleValue:
    types = _field_types()
    if param not in types:
        raise OverrideError(param, "not a rule-set parameter")
    kind = types[param]
    lowered = text.strip().lower()
    if "None" in kind and lowered in _NONE:
        return None
    if kind == "bool":
        if lowered in _TRUE:
            return True
        if lowered in _FALSE:
            return False
        raise OverrideError(param, f"{text!r} is not true or false")
    if kind.startswith("int"):
        try:
            return int(lowered)
        except ValueError:
            raise OverrideError(param, f"{text!r} is not an integer") from None
    if kind.startswith("frozenset") and lowered in _NONE:
        return None
    return text.strip()


def apply_assignments(rules: RuleSet, assignments: Iterable[str]) -> RuleSet:
    """``rules`` with every ``PARAM=VALUE`` applied, in order."""
    for assignment in assignments:
        param, sep, text = assignment.partition("=")
        param = param.strip()
        if not sep:
            raise OverrideError(param or assignment, "expected PARAM=VALUE")
        value = parse_value(param, text)
        try:
            rules = rules.with_overrides({param: value})
        except (ValueError, TypeError) as error:
            raise OverrideError(param, str(error)) from None
    return rules
