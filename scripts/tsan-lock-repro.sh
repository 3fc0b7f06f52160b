#!/usr/bin/env bash
# Why parley locks with ParleyLock's `Locked` and not a bare `Synchronization.Mutex`: ThreadSanitizer does not see
# `Mutex` hand a contended lock over on Linux (the futex slow path lives in the uninstrumented
# libswiftSynchronization), so it reports the protected value as raced. Builds scripts/tsan-lock/main.swift with
# -sanitize=thread and runs it RUNS times (default 3) per mode, printing the reports and the total each time:
#   mutex   Synchronization.Mutex: reports although the total is right (a false positive)
#   locked  Locked: no reports
#   racy    Locked with a real unguarded read: reported (the sanitizer still sees real races)
# Needs only swiftc; about 20 s.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
work=$(mktemp -d /tmp/parley-tsan-lock.XXXXXX)
trap 'rm -rf "$work"' EXIT
swiftc -sanitize=thread -g -O scripts/tsan-lock/main.swift Sources/ParleyLock/Locked.swift -o "$work/repro"
for mode in mutex locked racy; do
    for i in $(seq 1 "$runs"); do
        TSAN_OPTIONS="halt_on_error=0 ${TSAN_OPTIONS:-}" "$work/repro" "$mode" > "$work/out" 2>&1 || true
        echo "tsan-lock: $mode run $i: $(grep -c '^WARNING: ThreadSanitizer' "$work/out") reports, $(grep -m1 '^total' "$work/out")"
    done
done
