"""The presets' basic-strategy charts, as :func:`tables.engine.math.strategy.analyse`
gives them. Written by ``python -m tables.engine.math.figures``: do not edit; the tests
analyse every preset again and compare."""

# preset: (hard 4..21, soft 12..21, pairs 2,2..T,T then A,A), each row its codes
# against the up cards 2..10 then the ace (strategy.CODES)
PRESET_CHARTS: dict[str, tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]] = {
    "it-live": (
        (
            "H H H H H H H H H H",  # 4
            "H H H H H H H H H H",  # 5
            "H H H H H H H H H H",  # 6
            "H H H H H H H H H H",  # 7
            "H H H H H H H H H H",  # 8
            "H D D D D H H H H H",  # 9
            "D D D D D D D D H H",  # 10
            "D D D D D D D D H H",  # 11
            "H H S S S H H H H H",  # 12
            "S S S S S H H H H H",  # 13
            "S S S S S H H H H H",  # 14
            "S S S S S H H H H H",  # 15
            "S S S S S H H H H H",  # 16
            "S S S S S S S S S S",  # 17
            "S S S S S S S S S S",  # 18
            "S S S S S S S S S S",  # 19
            "S S S S S S S S S S",  # 20
            "S S S S S S S S S S",  # 21
        ),
        (
            "H H H H D H H H H H",  # soft 12
            "H H H D D H H H H H",  # soft 13
            "H H H D D H H H H H",  # soft 14
            "H H D D D H H H H H",  # soft 15
            "H H D D D H H H H H",  # soft 16
            "S S S S S S S S S S",  # soft 17
            "S S S S S S S S S S",  # soft 18
            "S S S S S S S S S S",  # soft 19
            "S S S S S S S S S S",  # soft 20
            "S S S S S S S S S S",  # soft 21
        ),
        (
            "H H P P P P H H H H",  # 2,2
            "H H P P P P H H H H",  # 3,3
            "H H H H H H H H H H",  # 4,4
            "D D D D D D D D H H",  # 5,5
            "H P P P P H H H H H",  # 6,6
            "P P P P P P H H H H",  # 7,7
            "P P P P P P P P H H",  # 8,8
            "S S S S S S S S S S",  # 9,9
            "S S S S S S S S S S",  # T,T
            "P P P P P P P P P H",  # A,A
        ),
    ),
    "it-classic": (
        (
            "H H H H H H H H H H",  # 4
            "H H H H H H H H H H",  # 5
            "H H H H H H H H H H",  # 6
            "H H H H H H H H H H",  # 7
            "H H H H H H H H H H",  # 8
            "H D D D D H H H H H",  # 9
            "D D D D D D D D H H",  # 10
            "D D D D D D D D D H",  # 11
            "H H S S S H H H H H",  # 12
            "S S S S S H H H H H",  # 13
            "S S S S S H H H H H",  # 14
            "S S S S S H H H H H",  # 15
            "S S S S S H H H H H",  # 16
            "S S S S S S S S S S",  # 17
            "S S S S S S S S S S",  # 18
            "S S S S S S S S S S",  # 19
            "S S S S S S S S S S",  # 20
            "S S S S S S S S S S",  # 21
        ),
        (
            "H H H H D H H H H H",  # soft 12
            "H H H D D H H H H H",  # soft 13
            "H H H D D H H H H H",  # soft 14
            "H H D D D H H H H H",  # soft 15
            "H H D D D H H H H H",  # soft 16
            "H D D D D H H H H H",  # soft 17
            "S Ds Ds Ds Ds S S H H H",  # soft 18
            "S S S S S S S S S S",  # soft 19
            "S S S S S S S S S S",  # soft 20
            "S S S S S S S S S S",  # soft 21
        ),
        (
            "H H P P P P H H H H",  # 2,2
            "H H P P P P H H H H",  # 3,3
            "H H H H H H H H H H",  # 4,4
            "D D D D D D D D H H",  # 5,5
            "H P P P P H H H H H",  # 6,6
            "P P P P P P H H H H",  # 7,7
            "P P P P P P P P P P",  # 8,8
            "P P P P P S P P S S",  # 9,9
            "S S S S S S S S S S",  # T,T
            "P P P P P P P P P P",  # A,A
        ),
    ),
    "it-sabot": (
        (
            "H H H H H H H H H H",  # 4
            "H H H H H H H H H H",  # 5
            "H H H H H H H H H H",  # 6
            "H H H H H H H H H H",  # 7
            "H H H H H H H H H H",  # 8
            "H D D D D H H H H H",  # 9
            "D D D D D D D D H H",  # 10
            "D D D D D D D D H H",  # 11
            "H H S S S H H H H H",  # 12
            "S S S S S H H H H H",  # 13
            "S S S S S H H H H H",  # 14
            "S S S S S H H H H H",  # 15
            "S S S S S H H H H H",  # 16
            "S S S S S S S S S S",  # 17
            "S S S S S S S S S S",  # 18
            "S S S S S S S S S S",  # 19
            "S S S S S S S S S S",  # 20
            "S S S S S S S S S S",  # 21
        ),
        (
            "H H H H H H H H H H",  # soft 12
            "H H H H H H H H H H",  # soft 13
            "H H H H H H H H H H",  # soft 14
            "H H H H H H H H H H",  # soft 15
            "H H H H H H H H H H",  # soft 16
            "H H H H H H H H H H",  # soft 17
            "S S S S S S S H H H",  # soft 18
            "S S S S S S S S S S",  # soft 19
            "S S S S S S S S S S",  # soft 20
            "S S S S S S S S S S",  # soft 21
        ),
        (
            "H H P P P P H H H H",  # 2,2
            "H H P P P P H H H H",  # 3,3
            "H H H H H H H H H H",  # 4,4
            "D D D D D D D D H H",  # 5,5
            "H P P P P H H H H H",  # 6,6
            "P P P P P P H H H H",  # 7,7
            "P P P P P P P P H H",  # 8,8
            "P P P P P S P P S S",  # 9,9
            "S S S S S S S S S S",  # T,T
            "P P P P P P P P P H",  # A,A
        ),
    ),
    "eu-online": (
        (
            "H H H H H H H H H H",  # 4
            "H H H H H H H H H H",  # 5
            "H H H H H H H H H H",  # 6
            "H H H H H H H H H H",  # 7
            "H H H H H H H H H H",  # 8
            "H D D D D H H H H H",  # 9
            "D D D D D D D D H H",  # 10
            "D D D D D D D D H H",  # 11
            "H H S S S H H H H H",  # 12
            "S S S S S H H H H H",  # 13
            "S S S S S H H H Rh H",  # 14
            "S S S S S H H H Rh H",  # 15
            "S S S S S H H Rh Rh H",  # 16
            "S S S S S S S S S S",  # 17
            "S S S S S S S S S S",  # 18
            "S S S S S S S S S S",  # 19
            "S S S S S S S S S S",  # 20
            "S S S S S S S S S S",  # 21
        ),
        (
            "H H H H H H H H H H",  # soft 12
            "H H H H H H H H H H",  # soft 13
            "H H H H H H H H H H",  # soft 14
            "H H H H H H H H H H",  # soft 15
            "H H H H H H H H H H",  # soft 16
            "H H H H H H H H H H",  # soft 17
            "S S S S S S S H H H",  # soft 18
            "S S S S S S S S S S",  # soft 19
            "S S S S S S S S S S",  # soft 20
            "S S S S S S S S S S",  # soft 21
        ),
        (
            "P P P P P P H H H H",  # 2,2
            "P P P P P P H H H H",  # 3,3
            "H H H H H H H H H H",  # 4,4
            "D D D D D D D D H H",  # 5,5
            "P P P P P H H H H H",  # 6,6
            "P P P P P P H H Rh H",  # 7,7
            "P P P P P P P P Rh H",  # 8,8
            "P P P P P S P P S S",  # 9,9
            "S S S S S S S S S S",  # T,T
            "P P P P P P P P P H",  # A,A
        ),
    ),
    "hoyle": (
        (
            "H H H H H H H H H H",  # 4
            "H H H H H H H H H H",  # 5
            "H H H H H H H H H H",  # 6
            "H H H H H H H H H H",  # 7
            "H H H H H H H H H H",  # 8
            "H D D D D H H H H H",  # 9
            "D D D D D D D D H H",  # 10
            "D D D D D D D D D H",  # 11
            "H H S S S H H H H H",  # 12
            "S S S S S H H H H H",  # 13
            "S S S S S H H H H H",  # 14
            "S S S S S H H H H H",  # 15
            "S S S S S H H H H H",  # 16
            "S S S S S S S S S S",  # 17
            "S S S S S S S S S S",  # 18
            "S S S S S S S S S S",  # 19
            "S S S S S S S S S S",  # 20
            "S S S S S S S S S S",  # 21
        ),
        (
            "H H H H H H H H H H",  # soft 12
            "H H H H H H H H H H",  # soft 13
            "H H H H H H H H H H",  # soft 14
            "H H H H H H H H H H",  # soft 15
            "H H H H H H H H H H",  # soft 16
            "H H H H H H H H H H",  # soft 17
            "S S S S S S S H H H",  # soft 18
            "S S S S S S S S S S",  # soft 19
            "S S S S S S S S S S",  # soft 20
            "S S S S S S S S S S",  # soft 21
        ),
        (
            "H H P P P P H H H H",  # 2,2
            "H H P P P P H H H H",  # 3,3
            "H H H H H H H H H H",  # 4,4
            "D D D D D D D D H H",  # 5,5
            "H P P P P H H H H H",  # 6,6
            "P P P P P P H H H H",  # 7,7
            "P P P P P P P P P P",  # 8,8
            "P P P P P S P P S S",  # 9,9
            "S S S S S S S S S S",  # T,T
            "P P P P P P P P P P",  # A,A
        ),
    ),
    "vegas-s17-das-ls": (
        (
            "H H H H H H H H H H",  # 4
            "H H H H H H H H H H",  # 5
            "H H H H H H H H H H",  # 6
            "H H H H H H H H H H",  # 7
            "H H H H H H H H H H",  # 8
            "H D D D D H H H H H",  # 9
            "D D D D D D D D H H",  # 10
            "D D D D D D D D D H",  # 11
            "H H S S S H H H H H",  # 12
            "S S S S S H H H H H",  # 13
            "S S S S S H H H H H",  # 14
            "S S S S S H H H Rh H",  # 15
            "S S S S S H H Rh Rh Rh",  # 16
            "S S S S S S S S S S",  # 17
            "S S S S S S S S S S",  # 18
            "S S S S S S S S S S",  # 19
            "S S S S S S S S S S",  # 20
            "S S S S S S S S S S",  # 21
        ),
        (
            "H H H H D H H H H H",  # soft 12
            "H H H D D H H H H H",  # soft 13
            "H H H D D H H H H H",  # soft 14
            "H H D D D H H H H H",  # soft 15
            "H H D D D H H H H H",  # soft 16
            "H D D D D H H H H H",  # soft 17
            "S Ds Ds Ds Ds S S H H H",  # soft 18
            "S S S S S S S S S S",  # soft 19
            "S S S S S S S S S S",  # soft 20
            "S S S S S S S S S S",  # soft 21
        ),
        (
            "P P P P P P H H H H",  # 2,2
            "P P P P P P H H H H",  # 3,3
            "H H H P P H H H H H",  # 4,4
            "D D D D D D D D H H",  # 5,5
            "P P P P P H H H H H",  # 6,6
            "P P P P P P H H H H",  # 7,7
            "P P P P P P P P P P",  # 8,8
            "P P P P P S P P S S",  # 9,9
            "S S S S S S S S S S",  # T,T
            "P P P P P P P P P P",  # A,A
        ),
    ),
    "vegas-6to5-single-deck": (
        (
            "H H H H H H H H H H",  # 4
            "H H H H H H H H H H",  # 5
            "H H H H H H H H H H",  # 6
            "H H H H H H H H H H",  # 7
            "H H H D D H H H H H",  # 8
            "D D D D D H H H H H",  # 9
            "D D D D D D D D H H",  # 10
            "D D D D D D D D D D",  # 11
            "H H S S S H H H H H",  # 12
            "S S S S S H H H H H",  # 13
            "S S S S S H H H H H",  # 14
            "S S S S S H H H H H",  # 15
            "S S S S S H H H H H",  # 16
            "S S S S S S S S S S",  # 17
            "S S S S S S S S S S",  # 18
            "S S S S S S S S S S",  # 19
            "S S S S S S S S S S",  # 20
            "S S S S S S S S S S",  # 21
        ),
        (
            "H H H D D H H H H H",  # soft 12
            "H H D D D H H H H H",  # soft 13
            "H H D D D H H H H H",  # soft 14
            "H H D D D H H H H H",  # soft 15
            "H H D D D H H H H H",  # soft 16
            "D D D D D H H H H H",  # soft 17
            "S Ds Ds Ds Ds S S H H H",  # soft 18
            "S S S S Ds S S S S S",  # soft 19
            "S S S S S S S S S S",  # soft 20
            "S S S S S S S S S S",  # soft 21
        ),
        (
            "H H P P P P H H H H",  # 2,2
            "H H P P P P H H H H",  # 3,3
            "H H H D D H H H H H",  # 4,4
            "D D D D D D D D H H",  # 5,5
            "P P P P P H H H H H",  # 6,6
            "P P P P P P H H S H",  # 7,7
            "P P P P P P P P P P",  # 8,8
            "P P P P P S P P S S",  # 9,9
            "S S S S S S S S S S",  # T,T
            "P P P P P P P P P P",  # A,A
        ),
    ),
}
