#!/bin/sh
# Starts the fault engine the way many engines are started: through a shell that stays
# the parent (no exec), so killing only the shell would leave the engine running.
# FAULT_PYTHON names the interpreter (the tests pass their own).
"${FAULT_PYTHON:-python3}" "$(dirname "$0")/fault_engine.py" "$@"
