#!/usr/bin/env bash
# Instructions per second of conversation (issue 26): one minute of open-mic conversation in process
# (ConversationBenchmarkTests: the real loop, reducer and screen on a grid, AudioIO and LiveSession, WebRTC's
# canceller and its resampler on fake sound devices, the simulator on loopback, a clock moved by hand) run
# under callgrind. The count does not depend on what else the machine does, so a change shows as a number.
# Prints parley's instructions per second (its threads; the simulator's thread apart), the stages' inclusive
# costs (decode, base64, mic encoding, canceller, resampler, screen, reducer), self cost by module and the top
# functions. Not part of the test run; about 10 minutes under callgrind once built.
#
#   scripts/bench-instructions.sh              # the debug build (.build), then the count
#   scripts/bench-instructions.sh --release    # a release build in .build-release (its own scratch path; the
#                                              # first one builds every dependency again: long on two cores)
#   scripts/bench-instructions.sh --no-build [--release]   # count the binary built last
#   BENCH_KEEP=1 scripts/bench-instructions.sh # keep the callgrind files (callgrind_annotate FILE)
#   BENCH_JSON=out.json scripts/bench-instructions.sh      # the figures as JSON too
#   BENCH_BIN=/tmp/old.xctest scripts/bench-instructions.sh --no-build   # a test binary kept from another build
#
# Compare counts of the same configuration only: in the debug build parley's own Swift is unoptimised (the
# C/C++ libraries, Foundation and the Swift runtime are optimised in both), so its share is larger there.
set -euo pipefail
cd "$(dirname "$0")/.."
build=1 release=0
for a in "$@"; do
    case $a in
        --no-build) build=0 ;;
        --release) release=1 ;;
        *) echo "bench-instructions: unknown option $a (--no-build, --release)" >&2; exit 2 ;;
    esac
done
command -v valgrind >/dev/null || { echo "bench-instructions: valgrind is missing: scripts/install-deps.sh --test" >&2; exit 1; }
if (( release )); then
    flags=(-c release --scratch-path .build-release -Xswiftc -enable-testing)
    bin=.build-release/release/parleyPackageTests.xctest
else
    flags=()
    bin=.build/debug/parleyPackageTests.xctest
fi
if (( build )); then
    if ! out=$(swift build --build-tests "${flags[@]}" 2>&1); then
        grep -Ev '^\[[0-9]+/' <<<"$out" | tail -30 >&2
        echo "bench-instructions: swift build failed" >&2
        exit 1
    fi
fi
bin=${BENCH_BIN:-$bin}
[[ -x $bin ]] || { echo "bench-instructions: $bin is missing: run without --no-build" >&2; exit 1; }

work=$(mktemp -d /tmp/parley-instructions.XXXXXX)
[[ -n ${BENCH_KEEP:-} ]] || trap 'rm -rf "$work"' EXIT
# Valgrind 3.19 cannot read the DWARF 5 the C targets' debug info is in: count a copy without debug info
# (functions are named from the symbol table; callgrind's costs are per function anyway).
objcopy --strip-debug "$bin" "$work/parley-tests"
# A dump at ConversationBenchmark.starts() and one at .ends(), on every thread: the second (*.2-*) is the
# conversation. One pattern for both: callgrind 3.19 keeps only one of several --zero-before/--dump-before
# options (with two, the end mark never fired), and -O would merge two marks with the same body.
PARLEY_BENCH=1 valgrind --tool=callgrind --separate-threads=yes --dump-before='*ConversationBenchmarkO*yyFZ' \
    --callgrind-out-file="$work/callgrind.out" \
    "$work/parley-tests" AppIntegrationTests.ConversationBenchmarkTests/testOneMinuteOfOpenMicConversation >"$work/run.log" 2>&1 || {
    if ! compgen -G "$work/callgrind.out.2-*" >/dev/null; then
        tail -40 "$work/run.log" >&2
        echo "bench-instructions: the benchmark failed before its end mark (log above)" >&2
        exit 1
    fi
    # Past the end mark the conversation was counted; say what the test found, then count.
    grep -E "error:" "$work/run.log" | sed 's/^/bench-instructions: after the count: /' >&2 || true
}
grep -E "conversation benchmark:" "$work/run.log" || true
python3 scripts/bench/instructions.py "$work" 60 ${BENCH_JSON:+--json "$BENCH_JSON"}
[[ -z ${BENCH_KEEP:-} ]] || echo "callgrind files kept in $work"
