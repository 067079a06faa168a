"""The GNU Backgammon adapter (engine ``gnubg``): the installed program driven headless.
Imports conformance.engines (adapters, interface, process) and conformance.model; driver/ runs inside gnubg and imports nothing of bgconf."""
