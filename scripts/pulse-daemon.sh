#!/bin/sh
# Start or stop a private PulseAudio daemon for parley's audio tests.
#
#   scripts/pulse-daemon.sh start DIR   starts a daemon whose socket is DIR/native, with a null sink
#                                       named parley_null; writes its pid to DIR/pid and prints
#                                       the server string (unix:DIR/native) for PULSE_SERVER or
#                                       PARLEY_TEST_PULSE_SERVER.
#   scripts/pulse-daemon.sh stop DIR    stops the daemon started in DIR, by its pid.
#
# Works as root in a container: no D-Bus, no autospawn, nothing installed, nothing outside DIR.
set -eu

usage() { echo "usage: $0 start|stop DIR" >&2; exit 2; }
[ $# -eq 2 ] || usage
cmd=$1
mkdir -p "$2"
D=$(cd "$2" && pwd)

case "$cmd" in
start)
    if [ -f "$D/pid" ] && kill -0 "$(cat "$D/pid")" 2>/dev/null; then
        echo "unix:$D/native"
        exit 0
    fi
    command -v pulseaudio >/dev/null || { echo "pulseaudio is not installed (apt-get install pulseaudio pulseaudio-utils)" >&2; exit 1; }
    mkdir -p "$D/home" "$D/run" "$D/state"
    chmod 700 "$D/run"
    rm -f "$D/native" "$D/pid"
    # -n: no default.pa, so nothing but the two modules below (no suspend-on-idle, no D-Bus, no rescue).
    # The daemon writes its pid to its private runtime dir ($D/run/pid, PULSE_RUNTIME_PATH).
    HOME="$D/home" XDG_RUNTIME_DIR="$D/run" XDG_STATE_HOME="$D/state" XDG_CONFIG_HOME="$D/home/.config" \
    PULSE_RUNTIME_PATH="$D/run" PULSE_STATE_PATH="$D/state" \
        pulseaudio -D -n --exit-idle-time=-1 --use-pid-file=yes --disallow-exit=no \
            --log-target=file:"$D/pulse.log" \
            --load="module-null-sink sink_name=parley_null" \
            --load="module-native-protocol-unix auth-anonymous=1 socket=$D/native" \
        || { echo "pulseaudio failed to start; see $D/pulse.log" >&2; exit 1; }
    # Wait (up to 10 s) until it answers.
    i=0
    while ! PULSE_SERVER="unix:$D/native" pactl info >/dev/null 2>&1; do
        i=$((i + 1))
        if [ $i -gt 100 ]; then
            echo "pulseaudio did not answer on unix:$D/native within 10 s; see $D/pulse.log" >&2
            exit 1
        fi
        sleep 0.1
    done
    pid=$(cat "$D/run/pid" 2>/dev/null || true)
    [ -n "${pid:-}" ] || { echo "could not find the daemon's pid" >&2; exit 1; }
    echo "$pid" > "$D/pid"
    echo "unix:$D/native"
    ;;
stop)
    [ -f "$D/pid" ] || { echo "no daemon recorded in $D/pid" >&2; exit 0; }
    pid=$(cat "$D/pid")
    if kill "$pid" 2>/dev/null; then
        i=0
        while kill -0 "$pid" 2>/dev/null; do
            i=$((i + 1))
            if [ $i -gt 50 ]; then kill -9 "$pid" 2>/dev/null || true; break; fi
            sleep 0.1
        done
    fi
    rm -f "$D/pid"
    ;;
*) usage ;;
esac
