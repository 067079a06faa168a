"""Engines as bgconf sees them: the interface, child processes, the JSON-lines protocol, the
adapters of real engines and the registry that turns a name into an engine.

May import the model and the reference engine only; nothing here knows of cases, runs or reports.
"""
