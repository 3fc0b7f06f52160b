#!/usr/bin/env bash
# Installs parley like a terminal program: the binary, its bundled themes, bash, zsh and fish completions, a man
# page and its copyright file. It installs the release scripts/package.sh makes (the Swift runtime linked in),
# the same build the .deb and the tarball carry:
#
#   scripts/install.sh [--prefix DIR] [--no-shell-setup]   from a clone: runs scripts/package.sh, then installs
#   parley-VERSION/install.sh [...]                        from the unpacked tarball: installs what is beside it
#   install.sh [--prefix DIR] --uninstall                  remove exactly what the install put there
#
# DIR defaults to ~/.local (/usr/local as root). Files go to DIR/bin, DIR/share/parley/themes, DIR/share/man/man1,
# DIR/share/bash-completion/completions, DIR/share/zsh/site-functions, DIR/share/fish/vendor_completions.d and
# DIR/share/doc/parley. Everything written (files, new directories, lines added to shell start-up files) is
# listed in DIR/share/parley/install-manifest, which --uninstall reads.
#
# Shell set-up: when DIR/bin is not on a login shell's PATH or bash-completion is not installed, a line that
# sources DIR/share/parley/shell-init.bash (PATH and the bash completion) is added to ~/.bashrc and to the
# login file bash reads (~/.bash_profile, ~/.bash_login or ~/.profile), or, as root, /etc/profile.d/parley.sh
# is written. --no-shell-setup leaves start-up files alone.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }

prefix=""
uninstall=0
shell_setup=1
while (( $# )); do
    case "$1" in
    --prefix) prefix=${2:?--prefix needs a directory}; shift 2 ;;
    --prefix=*) prefix=${1#--prefix=}; shift ;;
    --uninstall) uninstall=1; shift ;;
    --no-shell-setup) shell_setup=0; shift ;;
    -h | --help) usage; exit 0 ;;
    *) echo "install.sh: unknown option $1" >&2; usage >&2; exit 64 ;;
    esac
done
if [[ -z $prefix ]]; then
    if (( EUID == 0 )); then prefix=/usr/local; else prefix=$HOME/.local; fi
fi
mkdir -p "$prefix"
prefix=$(cd "$prefix" && pwd)
manifest=$prefix/share/parley/install-manifest

# ---- uninstall -------------------------------------------------------------------------------------------
if (( uninstall )); then
    [[ -f $manifest ]] || { echo "install.sh: nothing to uninstall: no $manifest" >&2; exit 1; }
    dirs=()
    newfiles=()
    while IFS=$'\t' read -r kind path text; do
        case "$kind" in
        file) rm -f "$path" && echo "removed $path" ;;
        line)
            if [[ -f $path ]] && grep -qxF -- "$text" "$path"; then
                tmp=$(mktemp)
                grep -vxF -- "$text" "$path" > "$tmp" || true
                cat "$tmp" > "$path"  # keeps the file's owner and mode
                rm -f "$tmp"
                echo "removed the parley line from $path"
            fi
            ;;
        dir) dirs+=("$path") ;;
        newfile) newfiles+=("$path") ;;
        esac
    done < "$manifest"
    rm -f "$manifest"
    # A start-up file the install created goes only if nothing but its line was ever in it.
    for f in "${newfiles[@]}"; do [[ -f $f && ! -s $f ]] && rm -f "$f" && echo "removed $f"; done
    # Directories the install created, deepest first, only if nothing else has moved in.
    for (( i = ${#dirs[@]} - 1; i >= 0; i-- )); do rmdir "${dirs[$i]}" 2>/dev/null || true; done
    echo "parley is uninstalled from $prefix"
    exit 0
fi

# ---- the files to install ---------------------------------------------------------------------------------
if [[ -x $here/bin/parley && -d $here/share/parley/themes ]]; then
    tree=$here  # an unpacked tarball
elif [[ -f $here/../Package.swift ]]; then
    "$here/package.sh"
    tree=$(readlink -f "$here/../dist/parley-latest")
else
    echo "install.sh: run it from a parley clone (scripts/install.sh) or from an unpacked release tarball" >&2
    exit 1
fi
[[ -x $tree/bin/parley ]] || { echo "install.sh: no parley binary in $tree/bin" >&2; exit 1; }
# The binary carries the Swift runtime; the C libraries come from the system.
missing=$(ldd "$tree/bin/parley" 2>/dev/null | awk '/not found/ { print $1 }' | tr '\n' ' ')
if [[ -n $missing ]]; then
    echo "install.sh: parley needs these libraries, which this system lacks: $missing" >&2
    echo "  Install them with your package manager (Debian and Ubuntu: sudo apt-get install libncursesw6 libpulse0" >&2
    echo "  libwebrtc-audio-processing1; Fedora: ncurses-libs pulseaudio-libs webrtc-audio-processing), then run this again." >&2
    exit 1
fi

# ---- install ---------------------------------------------------------------------------------------------
# A new install replaces an old one's manifest entries, so --uninstall always matches what is on disk.
if [[ -f $manifest ]]; then "$0" --prefix "$prefix" --uninstall >/dev/null; fi
entries=()
# Records the directories above `path` that do not exist yet (outermost first), then makes them.
make_parents() {
    local dir missing=()
    dir=$(dirname "$1")
    while [[ ! -d $dir ]]; do missing=("$dir" "${missing[@]}"); dir=$(dirname "$dir"); done
    for dir in "${missing[@]}"; do entries+=("dir	$dir"); done
    mkdir -p "$(dirname "$1")"
}
work=$(mktemp -d /tmp/parley-install.XXXXXX)
trap 'rm -rf "$work"' EXIT
put() {  # put MODE SOURCE DEST
    make_parents "$3"
    install -m "$1" "$2" "$3"
    entries+=("file	$3")
}
while IFS= read -r f; do
    mode=644
    [[ $f == bin/* ]] && mode=755
    put "$mode" "$tree/$f" "$prefix/$f"
done < <(cd "$tree" && find bin share -type f | sort)

# ---- shell set-up ----------------------------------------------------------------------------------------
on_login_path() {
    local p
    p=$(env -i HOME="$HOME" bash -lc 'echo "$PATH"' 2>/dev/null || true)
    [[ ":$p:" == *":$prefix/bin:"* ]]
}
has_bash_completion() { [[ -f /usr/share/bash-completion/bash_completion ]]; }
notes=()
if (( shell_setup )) && { ! on_login_path || ! has_bash_completion; }; then
    init=$prefix/share/parley/shell-init.bash
    cat > "$work/shell-init.bash" <<EOF
# parley: its command on PATH and its bash completion (written by scripts/install.sh; --uninstall removes it).
case ":\$PATH:" in *":$prefix/bin:"*) ;; *) PATH="$prefix/bin:\$PATH"; export PATH ;; esac
if [ -n "\${BASH_VERSION:-}" ] && ! complete -p parley >/dev/null 2>&1; then
    . "$prefix/share/bash-completion/completions/parley"
fi
EOF
    put 644 "$work/shell-init.bash" "$init"
    source_line="[ -f \"$init\" ] && . \"$init\"  # parley"
    add_line() {  # add_line FILE: appends the source line once, creating the file if needed
        if [[ ! -e $1 ]]; then : > "$1"; entries+=("newfile	$1"); fi
        grep -qxF -- "$source_line" "$1" || printf '%s\n' "$source_line" >> "$1"
        entries+=("line	$1	$source_line")
        notes+=("added a line to $1")
    }
    if (( EUID == 0 )) && [[ $prefix == /usr/local || $prefix == /usr ]]; then
        # Every user's login shells read /etc/profile.d.
        put 644 "$work/shell-init.bash" /etc/profile.d/parley.sh
        notes+=("wrote /etc/profile.d/parley.sh")
    else
        login=$HOME/.profile
        for f in "$HOME/.bash_profile" "$HOME/.bash_login"; do [[ -f $f ]] && { login=$f; break; }; done
        add_line "$login"
        add_line "$HOME/.bashrc"
    fi
fi
printf '%s\n' "${entries[@]}" > "$manifest"

echo
echo "parley $("$prefix/bin/parley" --version) is installed in $prefix:"
echo "  $prefix/bin/parley, its themes in $prefix/share/parley/themes, man parley,"
echo "  completions for bash, zsh and fish."
for n in "${notes[@]}"; do echo "  Shell set-up: $n."; done
if [[ $prefix != /usr/local && $prefix != /usr ]]; then
    echo "  zsh: add  fpath=($prefix/share/zsh/site-functions \$fpath)  before compinit in ~/.zshrc."
fi
echo "Open a new shell, then try:  parley doctor   (or parley --demo). Remove it with: $0 --uninstall --prefix $prefix"
