"""The mathematics of blackjack under a rule set: pure Python, no Django.

* :mod:`.composition` - a shoe as counts per card value (ace first, ten last);
* :mod:`.dealer` - the dealer's exact outcome probabilities for an up card and a shoe;
* :mod:`.rulesview` - what a :class:`~tables.engine.rules.RuleSet` lets a hand do;
* :mod:`.ev` - expected values of stand, hit, double, split and surrender;
* :mod:`.strategy` - the basic-strategy chart generated from the rules, and
  :class:`~.strategy.ComputedStrategy`, the engine's ``Strategy``;
* :mod:`.house_edge` - the house edge of a rule set played by its chart;
* :mod:`.cashout` - seed 000's cash-out offer and its replay check.

Methods, approximations and references: ``docs/mathematics.md``.
"""
