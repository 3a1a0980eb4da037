"""Player and dealer analytics over the record: pure Python (no Django), like the engine.

- :mod:`.counting` - each main bet beside the Hi-Lo true count of the shoe when it was
  placed, from the cards the record shows dealt;
- :mod:`.significance` - Spearman's rank correlation and its permutation test;
- :mod:`.counters` - counter detection per player: bet spread, the correlation of bet
  and true count, its significance, a flag;
- :mod:`.accuracy` - strategy accuracy per player: each decision against the chart the
  mathematics computes for the table's rules, and the expected value the errors gave up;
- :mod:`.dealers` - dealer performance: rounds and errors (findings) per hour dealt, by
  shift.

Each takes the events of a table's gaming day (plain dicts in the store's envelope, as
replay takes them) or rows built from them, and gives plain rows; the Django shell
(``tables.analytics_reports``) reads the record and draws the screens.
"""
