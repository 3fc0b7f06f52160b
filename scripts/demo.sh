#!/usr/bin/env bash
# Installs what is missing, builds parley, and runs it against the built-in simulator.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
swift build -c release --product parley 2>&1 | grep -Ev '^\[[0-9]+/[0-9]+\]' >&2 || true
[[ -x .build/release/parley ]] || { echo "parley: the build failed; run swift build -c release to see why" >&2; exit 1; }
exec .build/release/parley --demo "$@"
