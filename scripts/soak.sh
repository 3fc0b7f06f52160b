#!/usr/bin/env bash
# Soak benchmark (not part of the normal test run): `parley --demo` in tmux for SOAK_SECONDS (default 3600)
# with audio on a private PulseAudio null sink, a typed turn every SOAK_TURN_EVERY seconds (default 5), a
# goAway every 30 s (the simulator's --go-away-after on every connection), a dropped connection every 2 min
# (`ss -K` on the simulator's port) and a PulseAudio restart every 10 min. Prints turns asked/answered/lost,
# transcript records written vs expected, RSS at start and end, and CPU.
#
#   swift build && scripts/soak.sh                 # an hour
#   SOAK_SECONDS=300 scripts/soak.sh               # five minutes
#   SOAK_DROP_EVERY / SOAK_PULSE_RESTART_EVERY (seconds) change the fault intervals.
#
# Needs: tmux, pulseaudio, ss (iproute2), python3. Uses .build/debug/parley unless PARLEY_BIN is set.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${SOAK_SECONDS:-3600}
turn_every=${SOAK_TURN_EVERY:-5}
drop_every=${SOAK_DROP_EVERY:-120}
restart_every=${SOAK_PULSE_RESTART_EVERY:-600}
bin=${PARLEY_BIN:-$PWD/.build/debug/parley}
[[ -x $bin ]] || { echo "soak: $bin not found: run swift build first" >&2; exit 1; }
work=$(mktemp -d /tmp/parley-soak.XXXXXX)
sock="parley-soak-$$"
pulse_dir="$work/pulse"

cleanup() {
    tmux -L "$sock" kill-server 2>/dev/null || true
    scripts/pulse-daemon.sh stop "$pulse_dir" >/dev/null 2>&1 || true
}
trap cleanup EXIT

pulse=$(scripts/pulse-daemon.sh start "$pulse_dir")
mkdir -p "$work/home" "$work/state" "$work/data" "$work/config"
tmux -L "$sock" -f /dev/null new-session -d -s soak -x 120 -y 40 \
    -e HOME="$work/home" -e XDG_STATE_HOME="$work/state" -e XDG_DATA_HOME="$work/data" -e XDG_CONFIG_HOME="$work/config" \
    -e PULSE_SERVER="$pulse" -e TERM=tmux-256color -e LANG=C.UTF-8 \
    -e PARLEY_DEMO_SIM_OPTIONS="--go-away-after 30 --go-away-time-left 5 --every-connection --reply-delay 0.2" sh
tmux -L "$sock" set-option -g status off
tmux -L "$sock" send-keys -t soak "sh -c 'echo \$\$ > $work/pid; exec \"\$0\" --demo --mic parley_null.monitor --speaker parley_null' '$bin'" Enter

for _ in $(seq 100); do [[ -s $work/pid ]] && grep -q "simulator listening" "$work/state/parley/parley.log" 2>/dev/null && break; sleep 0.1; done
pid=$(cat "$work/pid")
port=$(sed -n 's/.*simulator listening.*port=\([0-9]*\).*/\1/p' "$work/state/parley/parley.log" | head -1)
[[ -n $port ]] || { echo "soak: parley did not start" >&2; tmux -L "$sock" capture-pane -p -t soak >&2; exit 1; }

rss() { awk '/VmRSS/ {print $2}' "/proc/$pid/status"; }
cpu() { awk '{print $14 + $15}' "/proc/$pid/stat"; }
tck=$(getconf CLK_TCK)
sleep 2
rss_start=$(rss); cpu_start=$(cpu)
echo "soak: parley pid $pid, simulator port $port, $seconds s, a typed turn every $turn_every s; RSS ${rss_start} kB"

asked=0 drops=0 restarts=0
start=$(date +%s)
next_drop=$((start + drop_every)) next_restart=$((start + restart_every))
while (( $(date +%s) - start < seconds )); do
    kill -0 "$pid" 2>/dev/null || { echo "soak: parley died" >&2; break; }
    asked=$((asked + 1))
    tmux -L "$sock" send-keys -t soak Tab
    tmux -L "$sock" send-keys -t soak -l "soak turn $asked"
    tmux -L "$sock" send-keys -t soak Enter Escape
    now=$(date +%s)
    if (( now >= next_drop )); then
        ss -K state established dst 127.0.0.1 dport = "$port" >/dev/null 2>&1 && drops=$((drops + 1))
        next_drop=$((now + drop_every))
    fi
    if (( now >= next_restart )); then
        scripts/pulse-daemon.sh stop "$pulse_dir" >/dev/null 2>&1 || true
        scripts/pulse-daemon.sh start "$pulse_dir" >/dev/null
        restarts=$((restarts + 1))
        next_restart=$((now + restart_every))
    fi
    sleep "$turn_every"
done
sleep 5  # the last reply
rss_end=$(rss); cpu_end=$(cpu)
elapsed=$(( $(date +%s) - start ))
tmux -L "$sock" send-keys -t soak q
for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done

python3 - "$work/data/parley" "$asked" <<'EOF'
import glob, json, re, sys
files = sorted(glob.glob(sys.argv[1] + "/session-*.jsonl"))
asked = int(sys.argv[2])
records, bad = [], 0
for f in files:
    for line in open(f, encoding="utf-8"):
        try: records.append(json.loads(line))
        except ValueError: bad += 1
users = {int(m.group(1)) for r in records if r.get("kind") == "user" for m in [re.search(r"soak turn (\d+)", r.get("text", ""))] if m}
user_records = sum(1 for r in records if r.get("kind") == "user")
answered = {int(m.group(1)) for r in records if r.get("kind") == "model" for m in [re.search(r"soak turn (\d+)", r.get("text", ""))] if m}
print(f"soak: turns asked {asked}, answered {len(answered)}, lost {asked - len(answered)}")
print(f"soak: transcript: {len(records)} records in {len(files)} file(s), {bad} unreadable lines; "
      f"user records {user_records} (expected {asked}, distinct turns {len(users)}), model replies to typed turns {len(answered)} (expected {asked})")
print("soak: record kinds:", dict(sorted({k: sum(1 for r in records if r.get('kind') == k) for k in {r.get('kind') for r in records}}.items())))
EOF
echo "soak: ${elapsed} s; connections dropped $drops, PulseAudio restarts $restarts; goAway every 30 s"
echo "soak: RSS start ${rss_start} kB, end ${rss_end} kB; CPU $(( (cpu_end - cpu_start) / tck )) s over ${elapsed} s"
echo "soak: files in $work"
