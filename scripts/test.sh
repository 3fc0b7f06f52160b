#!/usr/bin/env bash
# Installs what the tests need, starts a private PulseAudio daemon with a null sink, runs every test, then
# runs the audio tests again against a private PipeWire (pipewire-pulse), and stops the daemons by their pids
# however the run ends.
#
#   scripts/test.sh            every test, on PulseAudio and then the audio tests on PipeWire (what CI runs)
#   scripts/test.sh --quick    the unit test targets only: no sound server, no terminal, no subprocess, no socket
#                              (under a minute after the build); extra arguments go to `swift test` in both modes
#   scripts/test.sh --sanitize thread|address [--quick]
#                              the same run built with ThreadSanitizer or AddressSanitizer (the C and C++ shims
#                              too), in its own scratch path (.build-tsan, .build-asan); every process the tests
#                              start (parley in tmux, `parley simulate`) writes its reports to a log the summary
#                              counts, and any report fails the run
set -euo pipefail
cd "$(dirname "$0")/.."

quick=0
sanitize=""
while (( $# )); do
    case "$1" in
        --quick) quick=1; shift ;;
        --sanitize)
            sanitize=${2:-}
            [[ "$sanitize" == thread || "$sanitize" == address ]] || {
                echo "test: --sanitize takes thread or address" >&2
                exit 2
            }
            shift 2 ;;
        *) break ;;
    esac
done
build=()
if [[ -n "$sanitize" ]]; then
    scratch=".build-${sanitize:0:1}san"
    build=(--sanitize="$sanitize" --scratch-path "$scratch")
fi
# The unit test targets (Package.swift): values, views and in-process fakes, nothing that spawns a process,
# opens a socket or needs a sound server. --quick runs these; the *IntegrationTests targets run only in full.
unit_targets=(LiveTests LiveSimulatorTests PulseAudioTests TUITests ConversationTests AppTests)

if (( quick )); then
    scripts/install-deps.sh
else
    scripts/install-deps.sh --test
fi

work=$(mktemp -d /tmp/parley-test.XXXXXX)
# The tests name their tmux servers after this run, so the cleanup below kills only this run's servers and not
# those of another run on the same machine.
export PARLEY_TEST_TMUX_PREFIX="parley-test-run${work##*.}"
cleanup() {
    scripts/pulse-daemon.sh stop "$work/pulse" >/dev/null 2>&1 || true
    scripts/pipewire-daemon.sh stop "$work/pipewire" >/dev/null 2>&1 || true
    # The end-to-end tests kill their own tmux servers; this catches any a crashed test left behind.
    for sock in "${TMUX_TMPDIR:-/tmp}"/tmux-"$(id -u)"/"$PARLEY_TEST_TMUX_PREFIX"-*; do
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
swift build --build-tests ${build[@]+"${build[@]}"} 2>&1 | { grep -Ev '^\[[0-9]+/[0-9]+\] ' || true; }
export PARLEY_BIN_DIR
PARLEY_BIN_DIR=$(swift build --show-bin-path ${build[@]+"${build[@]}"})
if [[ -n "$sanitize" ]]; then
    # Reports go to files (one per process) rather than to stderr, where a program under tmux would paint
    # them over its screen; the summary counts them, and they stay in $scratch/reports after the run. Leak
    # checking is off: the Swift runtime's metadata caches and the test runner's own allocations live to exit
    # by design and would bury real findings.
    reports_dir="$PWD/$scratch/reports"
    rm -rf "$reports_dir" && mkdir -p "$reports_dir"
    # exitcode=0: a race found in a child (parley under tmux, `parley ask`) is counted from its report, not
    # turned into a failed exit status that a test would read as a different failure.
    export TSAN_OPTIONS="log_path=$reports_dir/report halt_on_error=0 exitcode=0 second_deadlock_stack=1 ${TSAN_OPTIONS:-}"
    # The crash signals stay parley's own: TmuxSmokeTests raises them on purpose to see the terminal restored,
    # and ASan's handlers (or the Swift runtime's backtracer, whose stack reads ASan flags) would stand in the way.
    export ASAN_OPTIONS="log_path=$reports_dir/report detect_leaks=0 handle_segv=0 handle_sigbus=0 handle_sigfpe=0 handle_sigill=0 handle_abort=0 ${ASAN_OPTIONS:-}"
    export SWIFT_BACKTRACE=enable=no
fi
# The official Python SDK, for the test that runs it against `parley simulate`; that test says why it skips
# when pip cannot install it.
if sdk_python=$(scripts/sdk-venv.sh .build/sdk-venv); then
    export PARLEY_SDK_PYTHON="$sdk_python"
fi
# Every test is XCTest; the summary line below is what CI reads.
set +e
filter=()
if (( quick )); then
    filter=(--filter "^($(IFS='|'; echo "${unit_targets[*]}"))\\.")
fi
swift test --skip-build ${build[@]+"${build[@]}"} --disable-swift-testing ${filter[@]+"${filter[@]}"} "$@" 2>&1 | tee "$work/test.log"
status=${PIPESTATUS[0]}
set -e

# --- PipeWire: the PulseAudio tests again, against pipewire-pulse (what most desktops run). Only in a full
# run (no --quick, no arguments): a filtered run is someone iterating on other tests.
if (( ! quick && $# == 0 )); then
    if pw_server=$(scripts/pipewire-daemon.sh start "$work/pipewire"); then
        echo "test: PipeWire at $pw_server"
        set +e
        PARLEY_TEST_PULSE_SERVER=$pw_server \
            swift test --skip-build ${build[@]+"${build[@]}"} --disable-swift-testing --filter '^PulseAudioIntegrationTests\.(PulseDaemonTests|EchoCancellerLiveTests|PulseBenchmarkTests)/|DoctorCommandTests.testSoundServer' 2>&1 | tee "$work/test-pipewire.log"
        pw_status=${PIPESTATUS[0]}
        set -e
        (( pw_status == 0 )) || status=$pw_status
        scripts/pipewire-daemon.sh stop "$work/pipewire" || true
    else
        echo "test: PipeWire could not start; its audio tests did not run" >&2
        status=1
    fi
fi
# --- end PipeWire

# The summary adds up every run's last "Executed" line (XCTest prints one per suite and a total last).
passed=0 failed_all=0 skipped_all=0 have_summary=0
for log in "$work"/test.log "$work"/test-pipewire.log; do
    [[ -f "$log" ]] || continue
    summary=$(grep -E "^\s*Executed [0-9]+ tests?" "$log" | tail -n 1)
    [[ -n "$summary" ]] || continue
    have_summary=1
    executed=$(sed -E 's/.*Executed ([0-9]+) tests?.*/\1/' <<<"$summary")
    failed=$(sed -E 's/.* ([0-9]+) failures?.*/\1/' <<<"$summary")
    skipped=$(grep -oE "[0-9]+ tests? skipped" <<<"$summary" | grep -oE "^[0-9]+" || echo 0)
    passed=$(( passed + executed - failed - skipped ))
    failed_all=$(( failed_all + failed ))
    skipped_all=$(( skipped_all + skipped ))
done
if (( have_summary )); then
    echo "$passed passed, $failed_all failed, $skipped_all skipped"
fi
if [[ -n "$sanitize" ]]; then
    reports=$(cat "$reports_dir"/report.* 2>/dev/null | grep -cE '^(WARNING: ThreadSanitizer|==[0-9]+==ERROR: AddressSanitizer)' || true)
    if (( reports > 0 )); then
        # Each distinct finding once, by its summary line, then every report whole.
        echo "test: $sanitize sanitizer: $reports reports from $(ls "$reports_dir" | wc -l) processes (in $reports_dir):"
        cat "$reports_dir"/report.* | grep -E '^SUMMARY: ' | sort | uniq -c | sort -rn
        cat "$reports_dir"/report.*
        status=1
    else
        echo "test: $sanitize sanitizer: no reports"
    fi
fi
exit "$status"
