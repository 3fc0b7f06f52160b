#!/usr/bin/env bash
# parley against the audio loop of Google's cookbook client (google-genai + PyAudio through PortAudio's
# ALSA → PulseAudio path), side by side on one local server, interleaved A B A B, with recorders on the
# sink monitors and a click at the start of the speech. Prints a table with ratios. Not part of the test run.
#
#   scripts/bench-peers.sh                      # 5 rounds of each client (about 12 minutes)
#   BENCH_ROUNDS=4 BENCH_IDLE_SECONDS=30 scripts/bench-peers.sh
#   PARLEY_BIN=dist/parley-latest/bin/parley scripts/bench-peers.sh   # the packaged binary instead of a build
#   BENCH_SERVER=pipewire scripts/bench-peers.sh   # on PipeWire's pulse server instead of PulseAudio
#   BENCH_AGAINST="/tmp/parley-old" scripts/bench-peers.sh            # parley against another build of itself,
#   BENCH_AGAINST="$PWD/.build/release/parley --echo off" scripts/bench-peers.sh   # or against other options
#       (in the cookbook client's place, the same interleaved rounds: a change's effect within one run)
#   BENCH_PERF=/tmp/prof scripts/bench-peers.sh   # `perf record -g` of each client's conversation, a file a round
#       (perf report -i /tmp/prof/parley-round1.data --sort comm,dso); its CPU figures then include perf's cost;
#       BENCH_PERF_EVENTS="-e sched:sched_switch -e sched:sched_wakeup" records where threads sleep and who wakes them
#
# Installs what it needs: PyAudio and the ALSA pulse plugin from Debian, google-genai and numpy in a venv
# under .build/bench-venv (with the system's site packages, for PyAudio).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh --test
need=()
for p in python3-pyaudio libasound2-plugins python3-venv; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || need+=("$p")
done
if (( ${#need[@]} )); then
    if [[ $(id -u) -eq 0 ]]; then
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
    else
        echo "bench-peers: run: sudo apt-get install ${need[*]}" >&2
        exit 1
    fi
fi
venv=.build/bench-venv
if ! "$venv/bin/python" -c 'import google.genai, pyaudio, numpy, websockets' 2>/dev/null; then
    /usr/bin/python3 -m venv --system-site-packages "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check google-genai numpy websockets
fi
if [[ -n ${PARLEY_BIN:-} ]]; then
    bin=$(readlink -f "$PARLEY_BIN")  # e.g. the packaged binary, dist/parley-latest/bin/parley
else
    swift build -c release --product parley 2>&1 | { grep -E "error|warning" || true; }
    bin=$(readlink -f "$PWD/.build/release/parley")
fi

work=$(mktemp -d /tmp/parley-peers.XXXXXX)
cleanup() {
    [[ -n "${sim_pid:-}" ]] && kill "$sim_pid" 2>/dev/null || true
    tmux -L "bench-$$" kill-server 2>/dev/null || true
    "$daemon" stop "$work/pulse" >/dev/null 2>&1 || true
    rm -rf "$work"
}
case ${BENCH_SERVER:-pulseaudio} in
    pulseaudio) daemon=scripts/pulse-daemon.sh ;;
    pipewire) daemon=scripts/pipewire-daemon.sh ;;
    *) echo "bench-peers: BENCH_SERVER is pulseaudio or pipewire, not ${BENCH_SERVER}" >&2; exit 2 ;;
esac
trap cleanup EXIT INT TERM
export PULSE_SERVER
PULSE_SERVER=$("$daemon" start "$work/pulse")
echo "bench-peers: sound server ${BENCH_SERVER:-pulseaudio}" >&2
pactl load-module module-null-sink sink_name=bench_mic rate=48000 >/dev/null
pactl load-module module-null-sink sink_name=bench_spk rate=48000 >/dev/null

# The question, after a click that both the mic recorder and the proxy see at the same instant.
espeak-ng -w "$work/q22.wav" "Hello, what time is it in Tokyo right now?"
sox "$work/q22.wav" -r 16000 -c 1 -b 16 "$work/q.wav" vol 0.7
sox -n -r 16000 -c 1 -b 16 "$work/silence.wav" trim 0 0.3
sox -n -r 16000 -c 1 -b 16 "$work/click.wav" synth 0.004 square 1000 vol 0.9
sox "$work/silence.wav" "$work/click.wav" "$work/q.wav" "$work/speech.wav"

port=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$bin" simulate --port "$port" >"$work/sim.log" 2>&1 &
sim_pid=$!
for _ in $(seq 100); do (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.1; done

"$venv/bin/python" scripts/bench/peers.py --parley "$bin" --python "$venv/bin/python" --sim-port "$port" \
    --speech "$work/speech.wav" --model "${BENCH_MODEL:-gemini-3.8-live}" --rounds "${BENCH_ROUNDS:-5}" --idle-seconds "${BENCH_IDLE_SECONDS:-15}" \
    ${BENCH_AGAINST:+--against "$BENCH_AGAINST"} ${BENCH_PERF:+--perf "$BENCH_PERF"}
