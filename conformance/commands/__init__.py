"""The ``bgconf`` commands: one module a command, each its options, its output and its exit code.

May import the reports, the harness, the cases, the engines and the model; ``common`` is the
options, output checks and exit codes the commands share; no command module imports another.
"""
