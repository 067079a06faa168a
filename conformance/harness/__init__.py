"""Putting cases and generated questions to an engine: running, comparing, scenarios, profiles,
expectations, fuzzing, playouts, perft, reading and judging recorded matches, and sharing a
campaign between worker processes (``jobs``) or machines (``shard``).

May import the cases, the engines, the reference engine and the model; never the reports or the
commands.
"""
