#!/usr/bin/env bash
# Installs what is missing, builds parley, and runs it against the built-in simulator.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
# Progress lines are dropped; the build's own status decides (grep's would say only whether anything was left
# to print), so a failed build never falls through to a binary an earlier build left behind.
set +e
swift build -c release --product parley 2>&1 | grep -Ev '^\[[0-9]+/[0-9]+\]' >&2
built=${PIPESTATUS[0]}
set -e
if (( built != 0 )); then
    echo "parley: the build failed (above); nothing was run — fix it and try again" >&2
    exit 1
fi
exec .build/release/parley --demo "$@"
