#!/usr/bin/env bash
# History at scale (issue 25): 1,000 saved conversations, 100,000 records; prints how long `parley history`
# takes to list (with and without its index) and `history search` to answer, in-process and as a process; and a
# 10,000-turn conversation: `history show`, the `--resume` plan and seed, the first frame and a search on screen.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build --build-tests 2>&1 | { grep -Ev '^\[[0-9]+/' || true; }
PARLEY_BENCH=1 PARLEY_BIN_DIR="$PWD/.build/debug" swift test --skip-build --disable-swift-testing \
    --filter 'HistoryBenchmarkTests|ResumeBenchmarkTests' 2>&1 | grep -E '^(history|resume) bench|error|Executed'
