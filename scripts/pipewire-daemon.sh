#!/bin/sh
# Start or stop a private PipeWire (pipewire + wireplumber + pipewire-pulse) for parley's audio tests, so the
# PulseAudio tests also run against PipeWire's PulseAudio server, as on most Linux desktops.
#
#   scripts/pipewire-daemon.sh start DIR   starts the three daemons with DIR as their runtime, config and
#                                          state home, loads a null sink named parley_null through
#                                          pipewire-pulse, writes their pids to DIR/pids and prints the
#                                          server string (unix:DIR/run/pulse/native) for PULSE_SERVER or
#                                          PARLEY_TEST_PULSE_SERVER.
#   scripts/pipewire-daemon.sh stop DIR    stops the daemons started in DIR, by their pids.
#
# Works as root in a container without D-Bus: WirePlumber gets a config in DIR that leaves out everything
# that needs a bus (Bluetooth, device reservation, the Flatpak portal, cameras; WirePlumber 0.4's Lua config,
# as in Debian 12) and there is no sound card to monitor anyway. Nothing outside DIR is touched.
set -eu

usage() { echo "usage: $0 start|stop DIR" >&2; exit 2; }
[ $# -eq 2 ] || usage
cmd=$1
mkdir -p "$2"
D=$(cd "$2" && pwd)
server="unix:$D/run/pulse/native"

stop_all() {
    [ -f "$D/pids" ] || return 0
    # Reverse start order: pipewire-pulse and wireplumber are clients of pipewire.
    for pid in $(tac "$D/pids"); do
        kill "$pid" 2>/dev/null || continue
        i=0
        while kill -0 "$pid" 2>/dev/null; do
            i=$((i + 1))
            if [ $i -gt 50 ]; then kill -9 "$pid" 2>/dev/null || true; break; fi
            sleep 0.1
        done
    done
    rm -f "$D/pids"
}

# Polls a condition every 0.1 s for up to 10 s.
within_10s() {
    i=0
    until "$@"; do
        i=$((i + 1))
        [ $i -le 100 ] || return 1
        sleep 0.1
    done
}

case "$cmd" in
start)
    if [ -f "$D/pids" ] && PULSE_SERVER="$server" pactl info >/dev/null 2>&1; then
        echo "$server"
        exit 0
    fi
    stop_all
    for p in pipewire wireplumber pipewire-pulse pactl; do
        command -v $p >/dev/null || { echo "$p is not installed (apt-get install pipewire pipewire-pulse wireplumber pulseaudio-utils)" >&2; exit 1; }
    done
    mkdir -p "$D/home" "$D/run" "$D/state" "$D/config/wireplumber/main.lua.d"
    chmod 700 "$D/run"
    # WirePlumber's own config minus bluetooth.lua (BlueZ and logind need the system bus).
    sed '/name = bluetooth.lua/d' /usr/share/wireplumber/wireplumber.conf > "$D/config/wireplumber/wireplumber.conf"
    cat > "$D/config/wireplumber/main.lua.d/60-parley-test.lua" <<'EOF'
-- A private, headless session: nothing that needs D-Bus, no hardware monitors.
default_access.properties["enable-flatpak-portal"] = false
alsa_monitor.enabled = false
alsa_monitor.properties["alsa.reserve"] = false
v4l2_monitor.enabled = false
libcamera_monitor.enabled = false
EOF
    : > "$D/pids"
    # DBUS_SESSION_BUS_ADDRESS is cleared so nothing tries a desktop's bus; the errors pipewire logs about
    # the missing bus (RT portal, flatpak portal) are harmless.
    run() {
        name=$1
        shift
        env -u DBUS_SESSION_BUS_ADDRESS HOME="$D/home" XDG_RUNTIME_DIR="$D/run" XDG_STATE_HOME="$D/state" \
            XDG_CONFIG_HOME="$D/config" PIPEWIRE_RUNTIME_DIR="$D/run" DISPLAY= \
            "$@" >"$D/$name.log" 2>&1 &
        echo $! >> "$D/pids"
    }
    run pipewire pipewire
    socket_exists() { [ -S "$D/run/pipewire-0" ]; }
    within_10s socket_exists || { echo "pipewire did not start within 10 s; see $D/pipewire.log" >&2; stop_all; exit 1; }
    run wireplumber wireplumber
    run pipewire-pulse pipewire-pulse
    answers() { PULSE_SERVER="$server" pactl info >/dev/null 2>&1; }
    within_10s answers || { echo "pipewire-pulse did not answer on $server within 10 s; see $D/*.log" >&2; stop_all; exit 1; }
    PULSE_SERVER="$server" pactl load-module module-null-sink sink_name=parley_null >/dev/null \
        || { echo "pipewire-pulse could not load module-null-sink; see $D/pipewire-pulse.log" >&2; stop_all; exit 1; }
    # WirePlumber makes the only sink the default once it sees it; tests that use the defaults need that.
    null_is_default() { PULSE_SERVER="$server" pactl info 2>/dev/null | grep -q "^Default Sink: parley_null$"; }
    within_10s null_is_default || {
        echo "wireplumber did not make parley_null the default sink within 10 s; see $D/wireplumber.log" >&2
        stop_all
        exit 1
    }
    echo "$server"
    ;;
stop)
    [ -f "$D/pids" ] || { echo "no daemons recorded in $D/pids" >&2; exit 0; }
    stop_all
    ;;
*) usage ;;
esac
