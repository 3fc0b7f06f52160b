#!/usr/bin/env bash
# Soak benchmark (not part of the normal test run): parley in tmux against `parley simulate` (a separate
# process) for SECONDS (default 3600), with audio on a private PulseAudio null sink and a typed turn every
# SOAK_TURN_EVERY seconds (default 5). Faults, each on its own clock:
#   - a goAway 30 s after every setup (the simulator's --go-away-after on every connection);
#   - a dropped connection every SOAK_DROP_EVERY s (default 60; `ss -K` on the simulator's port, the client
#     sees 1006);
#   - a PulseAudio restart every SOAK_PULSE_RESTART_EVERY s (default 300);
#   - the server going silent for SOAK_SILENT_FOR s (default 20) every SOAK_SILENT_EVERY s (default 420): the
#     simulator is stopped (SIGSTOP), so connections stay open and nothing arrives, then continued.
# At the end it prints turns asked / answered / lost, unreadable transcript lines, user records per question
# (a question re-sent after a drop and saved twice is counted on its own), RSS sampled every 30 s with its
# growth per hour (least squares after the first 5 minutes), and CPU.
#
#   swift build && scripts/soak.sh            # an hour
#   scripts/soak.sh 300                       # five minutes
#
# Needs: tmux, pulseaudio, ss (iproute2), python3. Uses .build/debug/parley unless PARLEY_BIN is set. Runs on
# its own tmux socket and its own PulseAudio daemon, and leaves its files in /tmp/parley-soak.*.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-${SOAK_SECONDS:-3600}}
[[ $seconds =~ ^[0-9]+$ ]] || { echo "usage: $0 [SECONDS]" >&2; exit 2; }
turn_every=${SOAK_TURN_EVERY:-5}
drop_every=${SOAK_DROP_EVERY:-60}
restart_every=${SOAK_PULSE_RESTART_EVERY:-300}
silent_every=${SOAK_SILENT_EVERY:-420}
silent_for=${SOAK_SILENT_FOR:-20}
bin=${PARLEY_BIN:-$PWD/.build/debug/parley}
[[ -x $bin ]] || { echo "soak: $bin not found: run swift build first" >&2; exit 1; }
work=$(mktemp -d /tmp/parley-soak.XXXXXX)
sock="parley-soak-$$"
pulse_dir="$work/pulse"
sim_pid=""

cleanup() {
    [[ -n $sim_pid ]] && { kill -CONT "$sim_pid" 2>/dev/null || true; kill "$sim_pid" 2>/dev/null || true; }
    tmux -L "$sock" kill-server 2>/dev/null || true
    scripts/pulse-daemon.sh stop "$pulse_dir" >/dev/null 2>&1 || true
}
trap cleanup EXIT

# Waits up to $1 seconds (polling every 0.1 s) for the command after it to succeed.
wait_for() {
    local limit=$1; shift
    local end=$(( $(date +%s) + limit ))
    until "$@"; do (( $(date +%s) < end )) || return 1; sleep 0.1; done
}

pulse=$(scripts/pulse-daemon.sh start "$pulse_dir")
mkdir -p "$work/home" "$work/state" "$work/data" "$work/config"

"$bin" simulate --port 0 --go-away-after 30 --go-away-time-left 5 --every-connection --reply-delay 0.2 \
    2>"$work/simulator.log" &
sim_pid=$!
sim_listening() { grep -qs "listening on ws://" "$work/simulator.log"; }
wait_for 20 sim_listening || { echo "soak: the simulator did not start" >&2; cat "$work/simulator.log" >&2; exit 1; }
port=$(sed -n 's|.*listening on ws://[^:]*:\([0-9]*\).*|\1|p' "$work/simulator.log" | head -1)

tmux -L "$sock" -f /dev/null new-session -d -s soak -x 120 -y 40 \
    -e HOME="$work/home" -e XDG_STATE_HOME="$work/state" -e XDG_DATA_HOME="$work/data" -e XDG_CONFIG_HOME="$work/config" \
    -e PULSE_SERVER="$pulse" -e TERM=tmux-256color -e LANG=C.UTF-8 sh
tmux -L "$sock" set-option -g status off
tmux -L "$sock" send-keys -t soak "sh -c 'echo \$\$ > $work/pid; exec \"\$0\" --endpoint ws://127.0.0.1:$port --mic parley_null.monitor --speaker parley_null' '$bin'" Enter

has_pid() { [[ -s $work/pid ]]; }
connected() { grep -q "first frame drawn" "$work/state/parley/parley.log" 2>/dev/null; }
wait_for 30 has_pid || { echo "soak: parley did not start" >&2; tmux -L "$sock" capture-pane -p -t soak >&2; exit 1; }
pid=$(cat "$work/pid")
wait_for 30 connected || true
sleep 2  # settle before the first RSS sample (not an assertion)

rss() { awk '/VmRSS/ {print $2}' "/proc/$pid/status" 2>/dev/null || echo 0; }
cpu() { awk '{print $14 + $15}' "/proc/$pid/stat" 2>/dev/null || echo 0; }
tck=$(getconf CLK_TCK)
rss_start=$(rss); cpu_start=$(cpu)
echo "soak: parley pid $pid, simulator pid $sim_pid on port $port, $seconds s, a typed turn every $turn_every s;" \
     "drops every $drop_every s, PulseAudio restarts every $restart_every s, server silent $silent_for s every $silent_every s;" \
     "RSS ${rss_start} kB; files in $work"

asked=0 drops=0 restarts=0 silences=0 died=0
start=$(date +%s)
next_drop=$((start + drop_every)) next_restart=$((start + restart_every)) next_silent=$((start + silent_every))
next_rss=$start silent_until=0
: > "$work/rss.tsv"
while (( $(date +%s) - start < seconds )); do
    kill -0 "$pid" 2>/dev/null || { echo "soak: parley died after $(( $(date +%s) - start )) s" >&2; died=1; break; }
    asked=$((asked + 1))
    tmux -L "$sock" send-keys -t soak Tab
    tmux -L "$sock" send-keys -t soak -l "soak turn $asked"
    tmux -L "$sock" send-keys -t soak Enter Escape
    echo "$(( $(date +%s) - start )) asked $asked" >> "$work/events.log"
    now=$(date +%s)
    if (( silent_until > 0 && now >= silent_until )); then
        kill -CONT "$sim_pid"; silent_until=0
        echo "$((now - start)) server speaks again" >> "$work/events.log"
    fi
    if (( now >= next_drop )) && (( silent_until == 0 )); then
        ss -K state established dst 127.0.0.1 dport = "$port" >/dev/null 2>&1 && drops=$((drops + 1))
        echo "$((now - start)) drop" >> "$work/events.log"
        next_drop=$((now + drop_every))
    fi
    if (( now >= next_restart )); then
        scripts/pulse-daemon.sh stop "$pulse_dir" >/dev/null 2>&1 || true
        scripts/pulse-daemon.sh start "$pulse_dir" >/dev/null
        restarts=$((restarts + 1))
        echo "$((now - start)) pulseaudio restarted" >> "$work/events.log"
        next_restart=$((now + restart_every))
    fi
    if (( now >= next_silent )) && (( silent_until == 0 )); then
        kill -STOP "$sim_pid"; silent_until=$((now + silent_for)); silences=$((silences + 1))
        # One fault at a time: the next drop comes a while after the server speaks again.
        (( next_drop < silent_until + 15 )) && next_drop=$((silent_until + 15))
        echo "$((now - start)) server silent" >> "$work/events.log"
        next_silent=$((now + silent_every))
    fi
    if (( now >= next_rss )); then
        echo "$((now - start))	$(rss)" >> "$work/rss.tsv"
        next_rss=$((now + 30))
    fi
    sleep "$turn_every"
done
(( silent_until > 0 )) && kill -CONT "$sim_pid"
elapsed=$(( $(date +%s) - start ))

# Waits (up to 60 s) until the last question has a reply in the transcript, then quits parley.
answered_last() { grep -qs "\"kind\":\"model\".*soak turn $asked\\b" "$work"/data/parley/session-*.jsonl; }
(( died )) || wait_for 60 answered_last || echo "soak: the last turn ($asked) had no reply 60 s after the run" >&2
rss_end=$(rss); cpu_end=$(cpu)
echo "$elapsed	$rss_end" >> "$work/rss.tsv"
tmux -L "$sock" send-keys -t soak q
gone() { ! kill -0 "$pid" 2>/dev/null; }
wait_for 10 gone || echo "soak: parley did not quit within 10 s of q" >&2

python3 - "$work/data/parley" "$asked" "$work/rss.tsv" "$work/events.log" <<'EOF'
import collections, glob, json, re, sys
files = sorted(glob.glob(sys.argv[1] + "/session-*.jsonl"))
asked = int(sys.argv[2])
records, bad = [], 0
for f in files:
    for line in open(f, encoding="utf-8", errors="replace"):
        try: records.append(json.loads(line))
        except ValueError: bad += 1
def turn(r):
    m = re.search(r"soak turn (\d+)\b", r.get("text") or "")
    return int(m.group(1)) if m else None
user_counts = collections.Counter(turn(r) for r in records if r.get("kind") == "user" and turn(r) is not None)
answered = {turn(r) for r in records if r.get("kind") == "model" and turn(r) is not None}
# A reply that names its turn answers it (its words are on screen, even when a fault cut its audio). A reply
# cut before it named one (a model record marked interrupted) belongs to the oldest question asked before it
# with no answer yet: typed turns wait for the last one's answer, so the next question does not cut a reply, a
# fault does; such a turn counts as lost unless it is asked again and answered.
cut_off, asked_so_far, answered_so_far = set(), [], set()
for r in records:
    if r.get("kind") == "user" and turn(r) is not None: asked_so_far.append(turn(r))
    elif r.get("kind") == "model" and turn(r) is not None: answered_so_far.add(turn(r))
    elif r.get("kind") == "model" and r.get("interrupted"):
        waiting = [q for q in asked_so_far if q not in answered_so_far and q not in cut_off]
        if waiting: cut_off.add(waiting[0])
lost = sorted(set(range(1, asked + 1)) - answered)
def some(ts): return f" (turns {ts[:20]}{'…' if len(ts) > 20 else ''})" if ts else ""
print(f"soak: turns asked {asked}, answered {len(answered)}, replies cut off before a word {len(cut_off)}{some(sorted(cut_off))} "
      f"(of them asked again and answered {len(cut_off & answered)}), "
      f"lost {len(lost)}{some(lost)}")
# Which lost turns were asked while the server was silent (or within 2 s of a silence's edges).
events = [l.split(" ", 1) for l in open(sys.argv[4]).read().splitlines()]
asked_at = {int(e[1].split()[1]): int(e[0]) for e in events if e[1].startswith("asked")}
starts = [int(e[0]) for e in events if e[1] == "server silent"]
ends = [int(e[0]) for e in events if e[1] == "server speaks again"]
windows = list(zip(starts, ends + [10**9] * (len(starts) - len(ends))))
in_silence = [t for t in lost if any(a - 2 <= asked_at.get(t, -99) <= b + 2 for a, b in windows)]
print(f"soak: of the lost, asked while the server was silent: {len(in_silence)}; otherwise: {len(lost) - len(in_silence)}"
      + some(sorted(set(lost) - set(in_silence))))
print(f"soak: transcript: {len(records)} records in {len(files)} file(s), {bad} unreadable lines")
per = collections.Counter(user_counts.values())
missing = asked - len(user_counts)
twice = sorted(t for t, n in user_counts.items() if n > 1)
print(f"soak: user records {sum(user_counts.values())} for {asked} questions; records per question: "
      + ", ".join(f"{n}× {q}" for n, q in sorted(per.items())) + (f", 0× {missing}" if missing else ""))
print(f"soak: questions saved more than once (a re-sent turn written again): {len(twice)}{some(twice)}")
kinds = collections.Counter(r.get("kind") for r in records)
print("soak: record kinds:", dict(sorted(kinds.items())))
rows = [tuple(map(int, l.split())) for l in open(sys.argv[3]) if l.strip()]
late = [(t, kb) for t, kb in rows if t >= 300] or rows
if len(late) >= 2:
    n = len(late); mt = sum(t for t, _ in late) / n; mk = sum(k for _, k in late) / n
    var = sum((t - mt) ** 2 for t, _ in late)
    slope = sum((t - mt) * (k - mk) for t, k in late) / var if var else 0.0
    print(f"soak: RSS {rows[0][1]} kB at {rows[0][0]} s, {late[0][1]} kB at {late[0][0]} s, {rows[-1][1]} kB at {rows[-1][0]} s "
          f"(max {max(k for _, k in rows)} kB); growth after the first 5 min {slope * 3600 / 1024:+.2f} MB per hour "
          f"(least squares over {n} samples)")
EOF
echo "soak: ${elapsed} s; connections dropped $drops, PulseAudio restarts $restarts, server silences $silences" \
     "($silent_for s each); goAway 30 s after every setup"
echo "soak: RSS start ${rss_start} kB, end ${rss_end} kB; CPU $(awk -v t=$((cpu_end - cpu_start)) -v h="$tck" 'BEGIN {printf "%.1f", t / h}') s over ${elapsed} s"
echo "soak: files in $work (events.log, rss.tsv, simulator.log, state/parley/parley.log, data/parley/)"
(( died == 0 ))
