#!/usr/bin/env bash
# Installs what parley needs to build (and, with --test, to run its tests) on Debian or Ubuntu.
# As root it installs with apt-get; otherwise it prints the `sudo apt-get install` line to run.
set -euo pipefail

want_test=0
[[ "${1:-}" == "--test" ]] && want_test=1

# ffmpeg: images, the camera and the screen (parley runs without it, with no vision).
build_pkgs=(libncursesw5-dev libpulse-dev libssl-dev libwebrtc-audio-processing-dev pkg-config ffmpeg)
test_pkgs=(pulseaudio pulseaudio-utils pipewire pipewire-pulse wireplumber tmux sox espeak-ng xvfb valgrind binutils)

have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }

missing=()
for p in "${build_pkgs[@]}"; do have_pkg "$p" || missing+=("$p"); done
if (( want_test )); then
    for p in "${test_pkgs[@]}"; do have_pkg "$p" || missing+=("$p"); done
fi

if (( ${#missing[@]} )); then
    if ! command -v apt-get >/dev/null; then
        echo "parley: install these packages with your package manager: ${missing[*]}" >&2
        exit 1
    fi
    if [[ $(id -u) -eq 0 ]]; then
        echo "parley: installing ${missing[*]}" >&2
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq >/dev/null
        apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    else
        echo "parley: missing packages; run:" >&2
        echo "  sudo apt-get install ${missing[*]}" >&2
        exit 1
    fi
fi

if ! command -v swift >/dev/null; then
    for d in /opt/swift/usr/bin /usr/share/swift/usr/bin; do
        [[ -x "$d/swift" ]] && { echo "parley: swift is in $d; add it to PATH" >&2; exit 1; }
    done
    echo "parley: Swift 6 is missing: install it from https://www.swift.org/install/linux/ (or with swiftly) and add it to PATH" >&2
    exit 1
fi
