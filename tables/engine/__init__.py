"""The blackjack rules engine: pure Python, no Django.

Cards, shoes, hands and rule sets; a dealer that produces the legal events of a round;
a replay that folds a table's events, checks every one against the rule set and
recomputes every settlement. See docs/engine.md.
"""

from . import builds as _builds

# a compiled build runs only while its sources are as built (docs/engine.md)
_builds.guard()
