"""The ``bgconf`` commands: one module a command, each its options, its output and its exit code.

May import the reports, the harness, the cases, the engines and the model; ``execute`` is the run
that run and certify share, ``common`` the options, checks and exit codes all share; no command
module imports another.
"""
