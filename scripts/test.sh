#!/usr/bin/env bash
# Installs what the tests need, starts a private PulseAudio daemon with a null sink, runs every test, and
# stops the daemon by its pid however the run ends.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh --test

work=$(mktemp -d /tmp/parley-test.XXXXXX)
cleanup() {
    scripts/pulse-daemon.sh stop "$work/pulse" >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT INT TERM

export PARLEY_TEST_PULSE_SERVER
PARLEY_TEST_PULSE_SERVER=$(scripts/pulse-daemon.sh start "$work/pulse")
echo "test: PulseAudio at $PARLEY_TEST_PULSE_SERVER"

# Progress lines are dropped to keep CI's log readable; errors, warnings and the summary stay.
swift build --build-tests 2>&1 | { grep -Ev '^\[[0-9]+/[0-9]+\] ' || true; }
export PARLEY_BIN_DIR
PARLEY_BIN_DIR=$(swift build --show-bin-path)
swift test --skip-build "$@"
