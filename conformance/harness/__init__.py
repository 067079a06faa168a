"""Putting cases and generated questions to an engine: running, comparing, scenarios, profiles,
expectations, fuzzing, playouts, perft, and reading and judging recorded matches.

May import the cases, the engines, the reference engine and the model; never the reports or the
commands.
"""
