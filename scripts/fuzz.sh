#!/usr/bin/env bash
# Coverage-guided fuzzing of parley's parsers with libFuzzer (swiftc -sanitize=fuzzer); not part of the normal
# build or test run. Builds .build-fuzz/parley-fuzz (Fuzz/build.py: parley's modules instrumented, the fuzz
# targets in Fuzz/Targets compiled into the App module), then runs each target for SECONDS, one at a time, and
# prints per target: executions, exec/s, coverage (libFuzzer's cov = edges, ft = features), corpus (inputs/bytes)
# and findings.
#
#   scripts/fuzz.sh                          # every target, 60 s each
#   scripts/fuzz.sh --seconds 600 frames     # one target, ten minutes
#   scripts/fuzz.sh --seconds 20             # the short run proposed for CI (about 4 min with the build)
#   scripts/fuzz.sh --list                   # the targets
#
# Options: --seconds N (per target), --no-build (use the binary built last), --keep-going (after a crash go on:
# libFuzzer's fork mode with -ignore_crashes, to collect several findings), --list.
# Seeds: Fuzz/corpus/TARGET (in git, from the tests: python3 Fuzz/make-seeds.py). What a run learns goes to
# .build-fuzz/corpus/TARGET and findings (crash-*, timeout-*, oom-*) to .build-fuzz/findings/TARGET, both
# git-ignored; a finding is replayed with `PARLEY_FUZZ_TARGET=TARGET .build-fuzz/parley-fuzz FILE`.
# Exit status 1 when any target found something.
set -euo pipefail
cd "$(dirname "$0")/.."

targets_all=(frames close config theme transcript state keys wav mcp image)
seconds=60 build=1 keep_going=0 targets=()
while (( $# )); do
    case $1 in
        --seconds) seconds=${2:?--seconds needs a number}; shift 2 ;;
        --no-build) build=0; shift ;;
        --keep-going) keep_going=1; shift ;;
        --list) printf '%s\n' "${targets_all[@]}"; exit 0 ;;
        -h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        -*) echo "fuzz: unknown option $1 (see --help)" >&2; exit 2 ;;
        *) [[ " ${targets_all[*]} " == *" $1 "* ]] || { echo "fuzz: no target $1 (targets: ${targets_all[*]})" >&2; exit 2; }
           targets+=("$1"); shift ;;
    esac
done
[[ $seconds =~ ^[0-9]+$ ]] || { echo "fuzz: --seconds must be a whole number" >&2; exit 2; }
(( ${#targets[@]} )) || targets=("${targets_all[@]}")

if (( build )); then
    # The dependencies' objects and SwiftPM's commands (.build/debug.yaml) come from the normal debug build.
    if ! out=$(swift build --product parley 2>&1); then
        grep -Ev '^\[[0-9]+/' <<<"$out" | tail -30 >&2
        echo "fuzz: swift build failed" >&2
        exit 1
    fi
    python3 Fuzz/build.py
fi
bin=.build-fuzz/parley-fuzz
[[ -x $bin ]] || { echo "fuzz: $bin is missing: run without --no-build" >&2; exit 1; }

dict_for() {
    case $1 in
        frames|transcript|state|mcp) echo Fuzz/dict/json.dict ;;
        config|theme) echo Fuzz/dict/toml.dict ;;
        keys) echo Fuzz/dict/keys.dict ;;
    esac
}

found=0
summary=()
for t in "${targets[@]}"; do
    corpus=.build-fuzz/corpus/$t findings=.build-fuzz/findings/$t log=.build-fuzz/logs/$t.log
    mkdir -p "$corpus" "$findings" .build-fuzz/logs
    before=$(ls "$findings" | wc -l)
    args=(-max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$findings/")
    dict=$(dict_for "$t")
    [[ -n $dict ]] && args+=(-dict="$dict")
    (( keep_going )) && args+=(-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1)
    echo "fuzz: $t for $seconds s (log $log)"
    set +e
    # SWIFT_BACKTRACE off: libFuzzer's own handler saves the input that crashed.
    PARLEY_FUZZ_TARGET=$t SWIFT_BACKTRACE=enable=no "$bin" "${args[@]}" "$corpus" "Fuzz/corpus/$t" > "$log" 2>&1
    status=$?
    set -e
    # The last status line: "#N DONE cov: C ft: F corp: K/Sb … exec/s: E", or in fork mode "#N: cov: C ft: F corp: K exec/s: E …".
    line=$(grep -E '^#[0-9]+:?[[:space:]]+([A-Z]+[[:space:]]+)?cov: ' "$log" | tail -1 || true)
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    [[ -n $execs ]] || execs=$(sed -E 's/^#([0-9]+).*/\1/' <<<"$line")
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    [[ -n $rate ]] || rate=$(sed -nE 's/.*exec\/s: ([0-9]+).*/\1/p' <<<"$line")
    cov=$(sed -nE 's/.*cov: ([0-9]+).*/\1/p' <<<"$line")
    ft=$(sed -nE 's/.*ft: ([0-9]+).*/\1/p' <<<"$line")
    corp=$(sed -nE 's/.*corp: ([0-9]+\/[0-9]+[a-zA-Z]*).*/\1/p' <<<"$line")
    files=${corp:-$(ls "$corpus" | wc -l) files}
    new=$(( $(ls "$findings" | wc -l) - before ))
    if (( new > 0 )) || { (( status != 0 )) && (( ! keep_going )); }; then
        found=1
        what=$(grep -m1 -E '^==[0-9]+== ERROR|^SUMMARY|Fatal error|deadly signal|timeout after|out-of-memory' "$log" || echo "exit $status")
        summary+=("$(printf '%-10s %10s execs %7s/s  cov %5s  ft %6s  corpus %10s  FINDINGS %s (%s) in %s' \
            "$t" "${execs:-?}" "${rate:-?}" "${cov:-?}" "${ft:-?}" "$files" "$new" "$what" "$findings")")
    else
        summary+=("$(printf '%-10s %10s execs %7s/s  cov %5s  ft %6s  corpus %10s  findings 0' \
            "$t" "${execs:-?}" "${rate:-?}" "${cov:-?}" "${ft:-?}" "$files")")
    fi
    echo "${summary[-1]}"
done
echo "fuzz: $seconds s per target"
printf '  %s\n' "${summary[@]}"
exit $found
