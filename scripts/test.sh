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
lane_pids=()
cleanup() {
    # A lane still running (the run was interrupted): its test bundle first, then the lane's shell.
    for pid in ${lane_pids[@]+"${lane_pids[@]}"}; do
        pkill -TERM -P "$pid" 2>/dev/null || true
        kill "$pid" 2>/dev/null || true
    done
    scripts/pulse-daemon.sh stop "$work/pulse" >/dev/null 2>&1 || true
    scripts/pipewire-daemon.sh stop "$work/pipewire" >/dev/null 2>&1 || true
    # The end-to-end tests kill their own tmux servers; this catches any a crashed test left behind.
    for sock in "${TMUX_TMPDIR:-/tmp}"/tmux-"$(id -u)"/"$PARLEY_TEST_TMUX_PREFIX"-*; do
        if [[ -S "$sock" ]]; then tmux -L "$(basename "$sock")" kill-server 2>/dev/null || rm -f "$sock"; fi
    done
    rm -rf "$work"
}
# Interrupted, the run stops (the EXIT trap cleans up) rather than going on to the next lane or pass.
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

if (( ! quick )); then
    export PARLEY_TEST_PULSE_SERVER
    PARLEY_TEST_PULSE_SERVER=$(scripts/pulse-daemon.sh start "$work/pulse")
    echo "test: PulseAudio at $PARLEY_TEST_PULSE_SERVER"
fi

sdk_pid=0
if (( ! quick )); then
    scripts/sdk-venv.sh .build/sdk-venv >"$work/sdk-python" 2>"$work/sdk-venv.err" & sdk_pid=$!
    lane_pids+=("$sdk_pid")
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
# when pip cannot install it. Made while the build runs (on a fresh clone pip takes about a minute).
if (( sdk_pid )); then
    if wait "$sdk_pid"; then
        export PARLEY_SDK_PYTHON
        PARLEY_SDK_PYTHON=$(cat "$work/sdk-python")
    fi
    cat "$work/sdk-venv.err" >&2
fi
# Every test is XCTest; the summary line below is what CI reads.
#
# A full run (no --quick, no arguments) runs in three lanes at once. Most integration tests wait on timers,
# sockets and child processes rather than on the CPU, so side by side they take about as long as the longest
# lane. The sound lane holds every test that plays or records on the private PulseAudio, one at a time with
# nothing else on that server; after the lanes, alone, come the real-time audio tests ($quiet_tests) and then the
# audio tests again on PipeWire (pipewire-pulse, what most desktops run). The app lane drives `parley` in tmux and as a child process; the third lane has the unit
# targets and the other integration targets. Each lane is a regex over the test list and the third is what
# the other two leave, so every test runs in exactly one lane. The lanes run the test bundle itself: two
# `swift test` processes at once contend for the build database even with --skip-build.
# A filtered run (arguments) or --quick is one `swift test`, as before.
# The audio tests (again on PipeWire), then the sound lane: every audio target's test (the canceller's CPU-heavy
# runs too: beside the end-to-end echo test they starve its real-time canceller) and the end-to-end tests that
# play or record on the sound server. A new test that uses PARLEY_TEST_PULSE_SERVER is named here.
pipewire_tests='^(PulseAudioIntegrationTests\.(PulseDaemonTests|EchoCancellerLiveTests|PulseBenchmarkTests)/|AppIntegrationTests\.DoctorCommandTests/testSoundServer)'
sound_tests="^PulseAudioIntegrationTests\\.|$pipewire_tests|^AppIntegrationTests\\.(EchoEndToEndTests/|EndToEndTests/testDemoConversationWithPushToTalk|VisionEndToEndTests/testPushToTalkSendsCameraFrames)"
app_tests='^(AppIntegrationTests|TUIIntegrationTests)\.'
# The tests whose pass depends on the audio thread keeping up in real time (a reply heard whole, no gap after a
# restart, the canceller ahead of the echo) run after the lanes, on a machine with nothing else running: in a
# lane they shared the two cores with the other lanes' start-up, and the canceller fell behind its echo.
quiet_tests='^(PulseAudioIntegrationTests\.(PulseDaemonTests|EchoCancellerLiveTests)/|AppIntegrationTests\.EchoEndToEndTests/)'

# The XCTest selectors (comma-separated) for the listed tests that match $1 and not $2: a whole suite by its
# name when every one of its tests is in, single tests otherwise.
selectors() {
    want=$1 not=${2:-'^$'} awk -F/ '
        BEGIN { want = ENVIRON["want"]; not = ENVIRON["not"] }
        { total[$1]++ }
        $0 ~ want && $0 !~ not { n[$1]++; tests[$1] = tests[$1] "," $0; if (!($1 in seen)) { seen[$1] = 1; order[++k] = $1 } }
        END {
            for (i = 1; i <= k; i++) { s = order[i]; out = out "," (n[s] == total[s] ? s : substr(tests[s], 2)) }
            print substr(out, 2)
        }' "$work/tests"
}
# Runs the test bundle on the selected tests; output to the log $1. The sound lane's tests measure real-time
# audio (underruns, clicks, a reply heard whole), so the other lanes run niced: they take what CPU the sound
# lane leaves, and the audio tests get the machine as if they ran alone.
run_lane() {
    local log=$1 selected=$2
    shift 2
    if [[ -z "$selected" ]]; then echo "test: no tests in this lane" >>"$log"; return 0; fi
    "$@" "$bundle" "$selected" >>"$log" 2>&1
}
set +e
if (( quick )); then
    swift test --skip-build ${build[@]+"${build[@]}"} --disable-swift-testing \
        --filter "^($(IFS='|'; echo "${unit_targets[*]}"))\\." "$@" 2>&1 | tee "$work/test.log"
    status=${PIPESTATUS[0]}
elif (( $# )); then
    swift test --skip-build ${build[@]+"${build[@]}"} --disable-swift-testing "$@" 2>&1 | tee "$work/test.log"
    status=${PIPESTATUS[0]}
else
    bundle=$(ls -d "$PARLEY_BIN_DIR"/*PackageTests.xctest | head -n 1)
    "$bundle" --list-tests | grep -E '^[A-Za-z0-9_]+\.[A-Za-z0-9_]+/' >"$work/tests"
    echo "test: $(wc -l <"$work/tests") tests in three lanes"
    started=$SECONDS
    run_lane "$work/test-sound.log" "$(selectors "$sound_tests" "$quiet_tests")" & sound_pid=$!
    run_lane "$work/test-app.log" "$(selectors "$app_tests" "$sound_tests")" nice -n 10 & app_pid=$!
    lane_pids=("$sound_pid" "$app_pid")
    # This lane streams to the terminal; the others' logs follow it whole, so CI's log stays readable.
    rest=$(selectors . "$sound_tests|$app_tests")
    nice -n 10 "$bundle" "${rest:?no tests in the unit and loopback lane}" 2>&1 | tee "$work/test.log"
    status=${PIPESTATUS[0]}
    echo "test: the unit and loopback lane took $(( SECONDS - started )) s"
    for lane in app sound; do
        pid_var=${lane}_pid
        wait "${!pid_var}"
        s=$?
        (( s == 0 )) || status=$s
        echo "test: the $lane lane took $(( SECONDS - started )) s by its end"
        cat "$work/test-$lane.log"
    done
    lane_pids=()
    # Alone on the machine: the real-time audio tests on PulseAudio, then the audio tests on PipeWire.
    run_lane "$work/test-quiet.log" "$(selectors "$quiet_tests")"
    s=$?
    (( s == 0 )) || status=$s
    echo "test: the real-time audio tests took $(( SECONDS - started )) s by their end"
    cat "$work/test-quiet.log"
    if pw_server=$(scripts/pipewire-daemon.sh start "$work/pipewire"); then
        echo "test: PipeWire at $pw_server"
        PARLEY_TEST_PULSE_SERVER=$pw_server run_lane "$work/test-pipewire.log" "$(selectors "$pipewire_tests")"
        s=$?
        # A test that failed here runs once more on the same daemon, and the pass counts the second try. In
        # fresh-clone runs of one tree (2026-11-28) the first three real-time tests of this pass failed in 2
        # runs of 3 (the live canceller at 7.6 and 9.8 dB; clicks of 5–19 ms as a flushed reply's next one
        # started, the silence before it 5 or 10 ms where a good run has 10 every time; a 5–10 ms gap in a
        # burst's tone) and every test after them passed; the third run passed them all, as did two whole
        # passes on a daemon started by hand. A defect of parley's would most likely fail both tries; both
        # tries' lines stay in the log, and the summary names what passed only at the second.
        if (( s != 0 )); then
            retry=$(grep -oE "^Test Case '[A-Za-z0-9_]+\.[A-Za-z0-9_]+' failed" "$work/test-pipewire.log" \
                | sed -E "s/^Test Case '([A-Za-z0-9_]+)\.([A-Za-z0-9_]+)' failed/.\1\/\2/" | sort -u \
                | while read -r t; do grep -F -- "$t" "$work/tests" | grep -E -- "${t//./\\.}\$" || true; done \
                | paste -sd, -)
            if [[ -n "$retry" ]]; then
                # What the daemons said meanwhile (their logs go with $work at the end of the run).
                for l in "$work"/pipewire/{pipewire,wireplumber,pipewire-pulse}.log; do
                    [[ -f "$l" ]] && { echo "test: the end of $(basename "$l") after the first try:"; tail -n 15 "$l"; }
                done >>"$work/test-pipewire.log"
                echo "test: PipeWire: once more, on the same daemon: $retry"
                PARLEY_TEST_PULSE_SERVER=$pw_server run_lane "$work/test-pipewire-retry.log" "$retry"
                s=$?
            fi
        fi
        (( s == 0 )) || status=$s
        scripts/pipewire-daemon.sh stop "$work/pipewire" >/dev/null 2>&1 || true
        echo "test: the PipeWire pass took $(( SECONDS - started )) s by its end"
    else
        echo "test: PipeWire could not start; its audio tests did not run" >>"$work/test-pipewire.log"
        status=1
    fi
    cat "$work/test-pipewire.log"
    if [[ -f "$work/test-pipewire-retry.log" ]]; then
        echo "test: the PipeWire pass's second try:"
        cat "$work/test-pipewire-retry.log"
    fi
fi
set -e

# The summary adds up every run's last "Executed" line (XCTest prints one per suite and a total last).
passed=0 failed_all=0 skipped_all=0 have_summary=0
for log in "$work"/test.log "$work"/test-app.log "$work"/test-sound.log "$work"/test-quiet.log "$work"/test-pipewire.log; do
    [[ -f "$log" ]] || continue
    summary=$(grep -E "^\s*Executed [0-9]+ tests?" "$log" | tail -n 1)
    [[ -n "$summary" ]] || continue
    have_summary=1
    executed=$(sed -E 's/.*Executed ([0-9]+) tests?.*/\1/' <<<"$summary")
    failed=$(sed -E 's/.* ([0-9]+) failures?.*/\1/' <<<"$summary")
    if [[ "$log" == */test-pipewire.log && -f "$work/test-pipewire-retry.log" ]]; then
        # The failures that count are the second try's (a test that failed the first try and not the second
        # passed).
        again=$(grep -E "^\s*Executed [0-9]+ tests?" "$work/test-pipewire-retry.log" | tail -n 1 || true)
        if [[ -n "$again" ]]; then failed=$(sed -E 's/.* ([0-9]+) failures?.*/\1/' <<<"$again"); fi
        retried_ok=$(grep -hE "^Test Case '.*' passed \(" "$work/test-pipewire-retry.log" | sed -E "s/^Test Case '([^']+)'.*/\1/" | paste -sd' ' - || true)
        [[ -z "$retried_ok" ]] || echo "test: passed on PipeWire only at the second try: $retried_ok"
    fi
    skipped=$(grep -oE "[0-9]+ tests? skipped" <<<"$summary" | grep -oE "^[0-9]+" || echo 0)
    passed=$(( passed + executed - failed - skipped ))
    failed_all=$(( failed_all + failed ))
    skipped_all=$(( skipped_all + skipped ))
done
# CI keeps only the end of the output: every failing test's lines again, just above the summary.
if (( failed_all > 0 )); then
    echo "test: the failures, again:"
    for log in "$work"/test.log "$work"/test-app.log "$work"/test-sound.log "$work"/test-quiet.log \
        "$work"/test-pipewire.log "$work"/test-pipewire-retry.log; do
        [[ -f "$log" ]] || continue
        grep -hE ": error: |^Test Case '.*' failed \(" "$log" | sed "s|^|  $(basename "$log" .log): |" || true
    done
fi
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
