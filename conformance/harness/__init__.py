"""Putting cases to an engine: running, comparing, scenarios, profiles, expectations, generators.

May import the cases, the engines and the model; never the reports or the commands.
"""
