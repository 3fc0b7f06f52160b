#!/usr/bin/env bash
# Tries the release where a user would: in a clean Debian bookworm root made with debootstrap (no Swift anywhere
# in it), installs the .deb with apt, runs `parley --version`, `man -w parley`, the bash completion,
# `parley doctor --demo --no-audio` and `parley ask` against `parley simulate` (both inside the root, on
# loopback), removes the package and checks that nothing of it is left; then the same for the tarball and its
# install.sh. Prints each step and the time it took; exits non-zero at the first failure.
#
#   scripts/try-packages.sh              # tries what is in dist/ (runs scripts/package.sh first when dist/ is empty)
#   TRY_RECOMMENDS=1 scripts/try-packages.sh   # let apt install the Recommends too (ffmpeg and its ~150 libraries)
#
# Needs root (debootstrap, chroot, mounts; the mounts live in a private namespace and vanish with it). The
# bookworm root is made once from the Debian mirror this machine's apt uses and kept in .build-try/ (git ignores
# it), with downloaded packages in .build-try/archives, so a second run takes about a minute; each try works on
# a fresh copy of that root.
set -euo pipefail
cd "$(dirname "$0")/.."
die() { echo "try-packages: FAIL: $*" >&2; exit 1; }
(( EUID == 0 )) || die "run it as root (debootstrap, chroot and mounts need it)"
if [[ -z ${TRY_PACKAGES_NS:-} ]]; then exec unshare -m --propagation private env TRY_PACKAGES_NS=1 "$0" "$@"; fi

cache=$PWD/.build-try
base=$cache/bookworm
archives=$cache/archives
started=$SECONDS
step_start=$SECONDS
step() { printf 'try-packages: [%3d s] %s\n' $(( SECONDS - started )) "$*"; step_start=$SECONDS; }

# ---- the packages ------------------------------------------------------------------------------------------
arch=$(dpkg --print-architecture)
shopt -s nullglob
debs=(dist/parley_*_"$arch".deb)
tars=(dist/parley-*-linux-"$arch".tar.gz)
if (( ${#debs[@]} != 1 || ${#tars[@]} != 1 )); then
    step "no single .deb and tarball in dist/: running scripts/package.sh"
    scripts/package.sh
    debs=(dist/parley_*_"$arch".deb)
    tars=(dist/parley-*-linux-"$arch".tar.gz)
fi
shopt -u nullglob
deb=$(readlink -f "${debs[0]}")
tarball=$(readlink -f "${tars[0]}")
version=$(dpkg-deb -f "$deb" Version)
step "trying parley $version: $(basename "$deb") ($(du -k "$deb" | cut -f1) KB), $(basename "$tarball") ($(du -k "$tarball" | cut -f1) KB)"

# ---- the clean root, made once ---------------------------------------------------------------------------------
# The mirror this machine's apt uses (deb822 .sources or one-line .list), not its security archive.
mirror=${TRY_MIRROR:-$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list 2>/dev/null |
    awk '/^URIs:/ { for (i = 2; i <= NF; i++) print $i } /^deb / { for (i = 2; i <= NF; i++) if ($i ~ /:\/\//) { print $i; break } }' |
    grep -v security | grep '/debian/*$' | head -n 1 || true)}
[[ -n $mirror ]] || mirror=http://deb.debian.org/debian
if [[ ! -f $base/.try-base-ready ]]; then
    command -v debootstrap >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null
    step "making a Debian bookworm root with debootstrap from $mirror (once; kept in $base)"
    rm -rf "$base.new"
    debootstrap --variant=minbase --include=man-db,bash-completion,ca-certificates bookworm "$base.new" "$mirror" >"$cache/debootstrap.log" 2>&1 ||
        { tail -n 20 "$cache/debootstrap.log" >&2; die "debootstrap failed (whole log: $cache/debootstrap.log)"; }
    cp /etc/resolv.conf "$base.new/etc/resolv.conf"
    chroot "$base.new" apt-get -q update >>"$cache/debootstrap.log" 2>&1 || die "apt-get update in the new root failed (log: $cache/debootstrap.log)"
    chroot "$base.new" apt-get clean
    rm -rf "$base" && mv "$base.new" "$base"
    touch "$base/.try-base-ready"
fi
mkdir -p "$archives/partial"

root=""
enter() {  # enter NAME: a fresh copy of the clean root, with /proc, /dev and the shared package cache
    root=$cache/try-$1
    rm -rf "$root"
    cp -a "$base" "$root"
    mount -t proc proc "$root/proc"
    mount --rbind /dev "$root/dev"
    mount --bind "$archives" "$root/var/cache/apt/archives"
    cp /etc/resolv.conf "$root/etc/resolv.conf"
}
leave() {
    umount -R "$root/dev" "$root/proc" "$root/var/cache/apt/archives" 2>/dev/null || true
    rm -rf "$root"
}
trap 'if [[ -n $root ]]; then leave; fi' EXIT
inroot() {  # inroot COMMAND: runs a bash command in the root, as a login-less user session would
    chroot "$root" env -i HOME=/root TERM=xterm-256color LANG=C.UTF-8 PATH=/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin \
        DEBIAN_FRONTEND=noninteractive bash -c "$1"
}
apt_flags="-y -q -o Dpkg::Use-Pty=0"
[[ -n ${TRY_RECOMMENDS:-} ]] || apt_flags+=" --no-install-recommends"
# Every path in the root, but the package manager's own records and caches, logs and the kernel's file systems.
snapshot() {
    inroot 'find / -xdev \( -path /proc -o -path /dev -o -path /sys -o -path /run -o -path /tmp -o -path /var/cache \
        -o -path /var/lib/apt -o -path /var/lib/dpkg -o -path /var/log -o -path /.try-base-ready \) -prune -o -print' | sort
}
check_nothing_left() {  # check_nothing_left BEFORE_FILE
    snapshot > "$root/tmp/after"
    if ! diff "$1" "$root/tmp/after" > "$root/tmp/diff"; then
        cat "$root/tmp/diff" >&2
        die "the root differs from before the install (lines above: < gone, > left behind)"
    fi
    local left
    left=$(inroot 'find / -xdev \( -path /proc -o -path /dev -o -path /tmp \) -prune -o -iname "*parley*" -print')
    [[ -z $left ]] || die "left behind: $left"
    step "  nothing of parley is left: $(wc -l < "$1") paths as before, none named parley"
}

# What a user runs first. PREFIX is where the files went (/usr for the .deb, /usr/local for the tarball).
try_parley() {
    local prefix=$1 out
    inroot '! command -v swift >/dev/null && [ -z "$(find / -xdev -name "libswiftCore*" -print -quit)" ]' ||
        die "the root has a Swift toolchain: it would hide a missing library"
    out=$(inroot 'parley --version') || die "parley --version failed"
    [[ $out == "$version" ]] || die "parley --version says '$out', not $version"
    step "  parley --version: $out"
    step "  libraries it loads: $(inroot 'ldd "$(command -v parley)"' | awk '{ print $1 }' | sed 's/\.so.*//' | tr '\n' ' ')"
    inroot 'ldd "$(command -v parley)"' | grep -q 'not found' && die "a library is missing: $(inroot 'ldd "$(command -v parley)"' | grep 'not found')"
    out=$(inroot 'man -w parley') || die "man -w parley found no page"
    # Debian's /usr/local/man is a link to /usr/local/share/man: the same file under either name.
    [[ $(inroot "readlink -f '$out'") == $(inroot "readlink -f $prefix/share/man/man1/parley.1.gz") ]] || die "man -w parley: $out"
    inroot 'zcat "$(man -w parley)" | grep -q "doctor"' || die "the man page names no doctor subcommand"
    step "  man -w parley: $out"
    # bash-completion loads parley's completion on first use, as in an interactive shell.
    out=$(inroot '. /usr/share/bash-completion/bash_completion
        __load_completion parley || exit 1
        spec=$(complete -p parley) || exit 1
        fn=${spec#*-F }; fn=${fn%% *}
        COMP_WORDS=(parley do); COMP_CWORD=1; COMP_LINE="parley do"; COMP_POINT=${#COMP_LINE}
        "$fn" parley do parley
        echo "$spec -> ${COMPREPLY[*]}"') || die "the bash completion did not load"
    [[ $out == *"-> doctor"* ]] || die "completing 'parley do' gave: $out"
    step "  bash completion: $out"
    out=$(inroot 'cd /tmp && parley doctor --demo --no-audio 2>&1') || { echo "$out" >&2; die "parley doctor --demo --no-audio failed"; }
    step "  parley doctor --demo --no-audio: exit 0"
    sed 's/^/      /' <<< "$out"
    out=$(inroot 'cd /tmp && (parley simulate --port 0 2>sim.err & echo $! > sim.pid)
        for _ in $(seq 100); do grep -q listening sim.err && break; sleep 0.1; done
        port=$(sed -nE "s/.*ws:\/\/127\.0\.0\.1:([0-9]+).*/\1/p" sim.err | head -n 1)
        [ -n "$port" ] || { cat sim.err; exit 1; }
        GEMINI_API_KEY=try-key timeout 60 parley ask --endpoint "ws://127.0.0.1:$port" "what time is it"; status=$?
        kill "$(cat sim.pid)"; rm -f sim.err sim.pid
        exit $status' 2>&1) || { echo "$out" >&2; die "parley ask against parley simulate failed"; }
    [[ -n $out ]] || die "parley ask printed nothing"
    step "  parley ask against parley simulate (loopback, inside the root): exit 0"
    sed 's/^/      /' <<< "$out"
}

# ---- the .deb ------------------------------------------------------------------------------------------------
enter deb
snapshot > "$root/tmp/before"
cp "$deb" "$root/tmp/"
step "the .deb: apt install ./$(basename "$deb")${TRY_RECOMMENDS:+ (with Recommends)}"
inroot "cd /tmp && apt-get $apt_flags install ./$(basename "$deb")" > "$cache/apt-deb.log" 2>&1 ||
    { tail -n 30 "$cache/apt-deb.log" >&2; die "apt could not install the .deb"; }
step "  apt set up $(grep -c '^Setting up ' "$cache/apt-deb.log") packages: $(sed -nE 's/^Setting up ([^ ]+) .*/\1/p' "$cache/apt-deb.log" | tr '\n' ' ')"
step "  Depends: $(dpkg-deb -f "$deb" Depends)"
try_parley /usr
rm -f "$root/tmp/$(basename "$deb")"
step "  apt purge parley, apt autoremove --purge"
inroot "apt-get $apt_flags purge parley && apt-get $apt_flags autoremove --purge" > "$cache/apt-deb-remove.log" 2>&1 ||
    { tail -n 30 "$cache/apt-deb-remove.log" >&2; die "apt could not remove parley"; }
inroot '! dpkg -s parley >/dev/null 2>&1' || die "dpkg still knows parley"
check_nothing_left "$root/tmp/before"
leave
root=""

# ---- the tarball -----------------------------------------------------------------------------------------------
enter tarball
snapshot > "$root/tmp/before"
tar_name=$(basename "$tarball")
dir=$(tar -tzf "$tarball" | sed -n "1s|/.*||p")  # sed reads it all: no SIGPIPE for tar
cp "$tarball" "$root/tmp/"
step "the tarball: tar xzf $tar_name && $dir/install.sh"
# Without the C libraries, install.sh says which are missing and installs nothing.
if out=$(inroot "cd /tmp && tar xzf $tar_name && $dir/install.sh" 2>&1); then die "install.sh installed without the libraries parley needs"; fi
[[ $out == *"needs these libraries"* ]] || { echo "$out" >&2; die "install.sh failed without naming the missing libraries"; }
step "  without the libraries: $(head -n 1 <<< "$out")"
# The Depends the clean root lacks (the C and C++ runtimes are in every Debian root).
libs=$(dpkg-deb -f "$deb" Depends | tr ',' '\n' | sed -E 's/\(.*\)//; s/\|.*//; s/ //g')
libs=$(inroot "for p in $(echo $libs); do dpkg -s \$p >/dev/null 2>&1 || echo \$p; done" | tr '\n' ' ')
step "  the libraries, as a user of another distribution installs them: apt-get install $libs"
inroot "apt-get $apt_flags install $libs" > "$cache/apt-tar.log" 2>&1 || { tail -n 30 "$cache/apt-tar.log" >&2; die "apt could not install $libs"; }
out=$(inroot "cd /tmp && $dir/install.sh" 2>&1) || { echo "$out" >&2; die "install.sh failed"; }
sed 's/^/      /' <<< "$out"
try_parley /usr/local
out=$(inroot "cd /tmp && $dir/install.sh --uninstall" 2>&1) || { echo "$out" >&2; die "install.sh --uninstall failed"; }
step "  $dir/install.sh --uninstall: $(tail -n 1 <<< "$out")"
inroot "rm -rf /tmp/$dir /tmp/$tar_name && apt-get $apt_flags purge $libs && apt-get $apt_flags autoremove --purge" > "$cache/apt-tar-remove.log" 2>&1 ||
    { tail -n 30 "$cache/apt-tar-remove.log" >&2; die "apt could not remove $libs"; }
check_nothing_left "$root/tmp/before"
leave
root=""
step "both packages installed, worked and uninstalled cleanly in a Debian bookworm root without Swift"
