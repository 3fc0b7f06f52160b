#!/usr/bin/env bash
# Makes a Python venv with the official google-genai SDK, for the test that runs it against `parley simulate`.
# Prints the venv's python on stdout. Exits 3 with the reason on stderr when pip cannot install the SDK
# (offline, no python3-venv): the test then skips and says why.
set -euo pipefail
dir=${1:-"$(dirname "$0")/../.build/sdk-venv"}
if [[ -x "$dir/bin/python" ]] && "$dir/bin/python" -c 'import google.genai' 2>/dev/null; then
    echo "$dir/bin/python"
    exit 0
fi
mkdir -p "$(dirname "$dir")"
if ! python3 -m venv "$dir" >/dev/null 2>"$dir.err"; then
    echo "sdk-venv: python3 -m venv failed: $(tail -n 1 "$dir.err")" >&2
    exit 3
fi
if ! "$dir/bin/pip" install --quiet --disable-pip-version-check "google-genai>=1.0" >"$dir.log" 2>&1; then
    echo "sdk-venv: pip could not install google-genai: $(tail -n 1 "$dir.log")" >&2
    exit 3
fi
rm -f "$dir.err" "$dir.log"
echo "$dir/bin/python"
