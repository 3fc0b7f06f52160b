#!/usr/bin/env bash
# Installs what the tests need, starts a private PulseAudio daemon with a null sink, runs every test, and
# stops the daemon by its pid however the run ends.
#
#   scripts/test.sh            every test (what CI runs)
#   scripts/test.sh --quick    unit tests only: no sound server, no terminal, no subprocesses (under a minute
#                              after the build); extra arguments go to `swift test` in both modes
set -euo pipefail
cd "$(dirname "$0")/.."

quick=0
if [[ "${1:-}" == "--quick" ]]; then
    quick=1
    shift
fi
# The suites that drive real daemons, terminals, processes and loopback sockets; --quick leaves them out.
slow_suites='EndToEndTests|TmuxSmokeTests|PulseDaemonTests|KeyboardDetectionTests|SessionIntegrationTests|SimulatorTurnTests|SimulatorFaultTests|SimulatorToolTests|SimulatorCheckTests|SimulatorPartsTests'

if (( quick )); then
    scripts/install-deps.sh
else
    scripts/install-deps.sh --test
fi

work=$(mktemp -d /tmp/parley-test.XXXXXX)
cleanup() {
    scripts/pulse-daemon.sh stop "$work/pulse" >/dev/null 2>&1 || true
    # The end-to-end tests kill their own tmux servers; this catches any a crashed test left behind.
    for sock in /tmp/tmux-"$(id -u)"/parley-test-*; do
        if [[ -S "$sock" ]]; then tmux -L "$(basename "$sock")" kill-server 2>/dev/null || rm -f "$sock"; fi
    done
    rm -rf "$work"
}
trap cleanup EXIT INT TERM

if (( ! quick )); then
    export PARLEY_TEST_PULSE_SERVER
    PARLEY_TEST_PULSE_SERVER=$(scripts/pulse-daemon.sh start "$work/pulse")
    echo "test: PulseAudio at $PARLEY_TEST_PULSE_SERVER"
fi

# Progress lines are dropped to keep CI's log readable; errors, warnings and the summary stay.
swift build --build-tests 2>&1 | { grep -Ev '^\[[0-9]+/[0-9]+\] ' || true; }
export PARLEY_BIN_DIR
PARLEY_BIN_DIR=$(swift build --show-bin-path)
# The official Python SDK, for the test that runs it against `parley simulate`; that test says why it skips
# when pip cannot install it.
if sdk_python=$(scripts/sdk-venv.sh .build/sdk-venv); then
    export PARLEY_SDK_PYTHON="$sdk_python"
fi
# Every test is XCTest; the summary line below is what CI reads.
set +e
filter=()
(( quick )) && filter=(--skip "$slow_suites")
swift test --skip-build --disable-swift-testing ${filter[@]+"${filter[@]}"} "$@" 2>&1 | tee "$work/test.log"
status=${PIPESTATUS[0]}
set -e
summary=$(grep -E "^\s*Executed [0-9]+ tests?" "$work/test.log" | tail -n 1)
executed=$(sed -E 's/.*Executed ([0-9]+) tests?.*/\1/' <<<"$summary")
failed=$(sed -E 's/.* ([0-9]+) failures?.*/\1/' <<<"$summary")
skipped=$(grep -oE "[0-9]+ tests? skipped" <<<"$summary" | grep -oE "^[0-9]+" || echo 0)
if [[ -n "$summary" ]]; then
    echo "$(( executed - failed - skipped )) passed, $failed failed, $skipped skipped"
fi
exit "$status"
