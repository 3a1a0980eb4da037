"""Player and dealer analytics over the record, in two parts.

The pure analytics (no Django, like the engine; ``tests/test_pure.py`` imports them with
Django blocked and mypy checks them strictly):

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
replay takes them) or rows built from them, and gives plain rows.

The Django shell around them, which no pure module imports:

- :mod:`.reports` - reads the record and hands each table's day to the pure analytics;
  the rows as reports (the screens, the API and the CSV show the same);
- :mod:`.charts` - the reports' charts, inline SVG on the shared canvas;
- :mod:`.views` - the admin's screens and their CSV;
- :mod:`.api` - the same over REST.

This file imports neither part, so ``import tables.analytics`` needs no Django.
"""
