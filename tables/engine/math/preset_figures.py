"""The presets' house edge and variance per unit staked, as
:func:`tables.engine.math.house_edge.house_edge` gives them (floats; the books make
their decimal text exact, :mod:`.figures`). Written by
``python -m tables.engine.math.figures``: do not edit; the tests analyse every preset
again and compare."""

# preset: (house edge, variance)
PRESET_FIGURES: dict[str, tuple[float, float]] = {
    "it-live": (0.011215318535055415, 1.2098736072395384),
    "it-classic": (-0.06321440343749751, 1.5888903948463247),
    "it-sabot": (0.007793569895527375, 1.1905269591928611),
    "eu-online": (0.004157645520973415, 1.1688375552659007),
    "hoyle": (0.006711601088476795, 1.2319329247156745),
    "vegas-s17-das-ls": (0.0033321555950716307, 1.29985962331045),
    "vegas-6to5-single-deck": (0.015993995278628638, 1.273548196299984),
}
