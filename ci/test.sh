#!/usr/bin/env bash
# The README's test command: CPU tests always; GPU tests (marker gpu) run when a GPU and its backend exist.
#   bash ci/test.sh [pytest args]
set -euo pipefail
cd "$(dirname "$0")/.."
# Run from tests/ so that the installed rocflash (with its compiled modules), not the source tree, is imported.
cd tests && exec ${PYTHON:-python3} -m pytest -q -p no:cacheprovider "$@" .
