#!/usr/bin/env bash
# Measures parley as a user runs it and prints numbers (no pass/fail): CPU share and resident memory of
# `parley --demo` over N seconds idle and N seconds of continuous open-mic talk (speech looped into a null-sink
# microphone, replies played to a null-sink speaker, the TUI drawing meters at 30 fps), launch → first frame,
# and goAway → resumed on a new connection. Uses a private PulseAudio daemon and tmux; stops both when done.
#   scripts/bench.sh            # 60 s per phase
#   PARLEY_BENCH_SECONDS=20 scripts/bench.sh
#   PARLEY_BIN=dist/parley-latest/bin/parley scripts/bench.sh   # a given binary (the packaged one) instead of a build
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${PARLEY_BENCH_SECONDS:-60}
scripts/install-deps.sh --test
if [[ -n ${PARLEY_BIN:-} ]]; then
    bin=$(readlink -f "$PARLEY_BIN")  # e.g. the packaged binary, dist/parley-latest/bin/parley
else
    swift build -c release --product parley 2>&1 | { grep -E "error|warning" || true; }
    bin=$(readlink -f "$PWD/.build/release/parley")
fi
work=$(mktemp -d /tmp/parley-bench.XXXXXX)
sock=parley-bench-$$
cleanup() {
    tmux -L "$sock" kill-server 2>/dev/null || true
    [[ -n "${sim_pid:-}" ]] && kill "$sim_pid" 2>/dev/null || true
    scripts/pulse-daemon.sh stop "$work/pulse" >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT INT TERM

export PULSE_SERVER
PULSE_SERVER=$(scripts/pulse-daemon.sh start "$work/pulse")
pactl load-module module-null-sink sink_name=parley_mic >/dev/null
espeak-ng -w "$work/speech.wav" "I would like to plan a trip to the mountains next month. What should I pack, and how cold will it be at night?"
export HOME=$work/home XDG_CONFIG_HOME=$work/config XDG_DATA_HOME=$work/data XDG_STATE_HOME=$work/state
mkdir -p "$HOME"
tick=$(getconf CLK_TCK)

cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
rss_kb() { awk '/VmRSS/ { print $2 }' "/proc/$1/status"; }
wait_for() {  # file pattern seconds
    for _ in $(seq 1 $(( $3 * 10 ))); do grep -q "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done
    echo "bench: timed out waiting for '$2' in $1" >&2; return 1
}
measure() {  # label pid
    local t0 t1 r0
    t0=$(cpu_ticks "$2"); r0=$(date +%s.%N)
    sleep "$secs"
    t1=$(cpu_ticks "$2")
    awk -v l="$1" -v d=$(( t1 - t0 )) -v hz="$tick" -v s0="$r0" -v s1="$(date +%s.%N)" -v rss="$(rss_kb "$2")" \
        'BEGIN { printf "bench: %s: CPU %.2f%% of one core over %.0f s, resident memory %.1f MB\n", l, 100 * d / hz / (s1 - s0), s1 - s0, rss / 1024 }'
}

# Launch → first frame, five times.
for i in 1 2 3 4 5; do
    log=$work/launch$i.log
    tmux -L "$sock" new-session -d -s "l$i" -x 100 -y 30 "$bin --demo --no-audio --log-file $log"
    wait_for "$log" "first frame drawn" 20
    tmux -L "$sock" send-keys -t "l$i" q
    sed -nE 's/.*first frame drawn ([0-9]+) ms after launch.*/bench: launch → first frame: \1 ms/p' "$log"
    sleep 0.5
done

# Idle, then continuous talk, in one run.
log=$work/demo.log
tmux -L "$sock" new-session -d -s demo -x 100 -y 30 \
    "$bin --demo --mic parley_mic.monitor --speaker parley_null --log-file $log"
wait_for "$log" "first frame drawn" 20
pid=""
for p in $(pgrep -f -- "--demo --mic parley_mic.monitor"); do
    [[ "$(readlink "/proc/$p/exe")" == "$bin" ]] && pid=$p
done
[[ -n "$pid" ]] || { echo "bench: cannot find the parley process" >&2; exit 1; }
sleep 2
measure "connected and idle" "$pid"
tmux -L "$sock" send-keys -t demo m
sleep 1
( end=$(( $(date +%s) + secs + 2 )); while (( $(date +%s) < end )); do paplay --device=parley_mic "$work/speech.wav"; sleep 0.3; done ) &
talker=$!
sleep 1
measure "continuous open-mic talk, TUI at 30 fps" "$pid"
kill "$talker" 2>/dev/null || true
wait "$talker" 2>/dev/null || true
turns=$(cat "$XDG_DATA_HOME"/parley/session-*.jsonl | grep -c '"kind":"model"' || true)
echo "bench: the talk phase produced $turns model replies"
tmux -L "$sock" send-keys -t demo q
sleep 1

# goAway → resumed, against the simulator as a separate process.
"$bin" simulate --port 0 --go-away-after 3 --go-away-time-left 2 --every-connection 2>"$work/sim.err" &
sim_pid=$!
wait_for "$work/sim.err" "listening" 20
port=$(sed -nE 's/.*ws:\/\/127\.0\.0\.1:([0-9]+).*/\1/p' "$work/sim.err" | head -n 1)
log=$work/goaway.log
tmux -L "$sock" new-session -d -s goaway -x 100 -y 30 "$bin --no-audio --endpoint ws://127.0.0.1:$port --log-file $log"
wait_for "$log" "first frame drawn" 20
sleep 1
tmux -L "$sock" send-keys -t goaway Tab
tmux -L "$sock" send-keys -t goaway -l "hello there"
tmux -L "$sock" send-keys -t goaway Enter
wait_for "$log" "hand-over to a new connection took" 30
sleep 4
sed -nE 's/.*hand-over to a new connection took ([0-9]+) ms.*/bench: goAway → resumed on a new connection: \1 ms/p' "$log"
tmux -L "$sock" send-keys -t goaway Escape
sleep 0.3
tmux -L "$sock" send-keys -t goaway q
