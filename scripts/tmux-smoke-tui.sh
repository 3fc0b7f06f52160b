#!/bin/sh
# Draws TUIDemo in a private tmux server at 80x24, shows the voice menu, a resize to 120x40 and the shell after
# `q`, printing each capture. Usage: scripts/tmux-smoke-tui.sh [path/to/TUIDemo] [--theme NAME]
set -eu
BIN=${1:-.build/debug/TUIDemo}
[ $# -gt 0 ] && shift
[ -x "$BIN" ] || swift build --product TUIDemo
SOCK="parley-smoke-$$"
T="tmux -u -L $SOCK -f /dev/null"
trap '$T kill-server 2>/dev/null || true; rm -f "${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$SOCK"' EXIT INT TERM
$T new-session -d -s smoke -x 80 -y 24 "env PS1='$ ' TERM=screen-256color sh"
$T send-keys -t smoke -l "S=\$(stty -g); '$BIN' --still $*; echo EXITED:\$?; [ \"\$(stty -g)\" = \"\$S\" ] && echo STTY:same || echo STTY:changed"
$T send-keys -t smoke Enter
wait_for() { # pattern, then up to 10 s
    i=0
    until $T capture-pane -p -t smoke | grep -q -- "$1"; do
        i=$((i + 1)); [ $i -gt 200 ] && { echo "timed out waiting for: $1" >&2; $T capture-pane -p -t smoke; exit 1; }
        sleep 0.05
    done
}
show() { echo "----- $1"; $T capture-pane -p -t smoke; }
wait_for "tool calls"; show "80x24"
$T send-keys -t smoke v; wait_for "Voice (30)"; show "voice menu"
$T send-keys -t smoke Escape
$T resize-window -t smoke -x 120 -y 40; sleep 0.3; show "120x40"
$T resize-window -t smoke -x 80 -y 24
$T send-keys -t smoke q; wait_for "STTY:"; show "after q"
