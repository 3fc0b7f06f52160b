#!/usr/bin/env bash
# Makes parley's release once, for everyone who installs it: one release build with the Swift runtime linked in
# (`--static-swift-stdlib`: no Swift toolchain needed where it runs), stripped, its debug symbols kept beside it,
# and the version from `git describe --tags --always --dirty` in `parley --version`. Writes to dist/ (git
# ignores it):
#
#   dist/parley_VERSION_amd64.deb            the binary, man page, bash/zsh/fish completions, themes, copyright;
#                                            Depends from dpkg-shlibdeps, Recommends ffmpeg
#   dist/parley-VERSION-linux-amd64.tar.gz   the same files under parley-VERSION/, with install.sh:
#                                            tar xzf parley-VERSION-linux-amd64.tar.gz && parley-VERSION/install.sh
#   dist/parley-VERSION.debug                the debug symbols (the binary names them with .gnu_debuglink)
#   dist/parley-VERSION/                     the tarball's tree; dist/parley-latest points at it
#
#   scripts/package.sh            build and package
#   scripts/package.sh --version  print the version a package made now would carry, and exit
#
# Outside a git checkout (or where git cannot run), PARLEY_GIT_DESCRIBE gives what `git describe` would print and
# SOURCE_DATE_EPOCH the man page's date.
#
# The build has its own scratch path (.build-release), so it does not disturb a debug .build. The version goes
# in through Sources/App/Generated/PackagedVersion.swift (git ignores it) and -DPARLEY_PACKAGED; a plain
# `swift build` leaves both out and says `0.1.0-dev`.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v swift >/dev/null && [[ -x /opt/swift/usr/bin/swift ]]; then export PATH="/opt/swift/usr/bin:$PATH"; fi

die() { echo "package.sh: $*" >&2; exit 1; }

# ---- version ---------------------------------------------------------------------------------------------
# A tag v1.2.0 gives 1.2.0; three commits after it, 1.2.0+3.gabc1234; before any tag, BASE+git.abc1234, BASE
# being ParleyVersion.base. `-dirty` becomes `.dirty`: a Debian version's last hyphen would start a revision.
package_version() {
    local described base
    described=${PARLEY_GIT_DESCRIBE:-$(git describe --tags --always --dirty 2>/dev/null)} ||
        die "not a git checkout: the version comes from git describe (or PARLEY_GIT_DESCRIBE)"
    if [[ $described =~ ^v?([0-9]+\.[0-9][^-]*)(-(.*))?$ ]]; then  # a tag; a bare commit has no dot
        local rest=${BASH_REMATCH[3]}
        echo "${BASH_REMATCH[1]}${rest:++${rest//-/.}}"
    else
        base=$(sed -nE 's/^ *static let base = "([^"]+)".*/\1/p' Sources/App/Version.swift)
        [[ -n $base ]] || die "cannot read ParleyVersion.base from Sources/App/Version.swift"
        echo "$base+git.${described//-/.}"
    fi
}
version=$(package_version)
if [[ ${1:-} == --version ]]; then echo "$version"; exit 0; fi
[[ $# -eq 0 ]] || die "unknown option $1 (scripts/package.sh [--version])"

# ---- what the build and packaging need -------------------------------------------------------------------
scripts/install-deps.sh
need=()
# No libcurl4-openssl-dev: nothing parley links imports FoundationNetworking (MCP has its own stdio client), so the
# static Foundation link does not ask for libcurl.so.
for p in dpkg-dev binutils; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || need+=("$p")
done
if (( ${#need[@]} )); then
    (( EUID == 0 )) || die "missing packages; run: sudo apt-get install ${need[*]}"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
arch=$(dpkg --print-architecture)

# ---- build -----------------------------------------------------------------------------------------------
generated=Sources/App/Generated/PackagedVersion.swift
line="let packagedVersion = \"$version\""
if [[ ! -f $generated ]] || ! grep -qxF "$line" "$generated"; then  # rewritten only when it changes: no rebuild
    mkdir -p "$(dirname "$generated")"
    printf '// Written by scripts/package.sh (git ignores it): the version `parley --version` prints.\n%s\n' "$line" > "$generated"
fi
# lld with packed relative relocations (DT_RELR, glibc 2.36: Debian 12, Ubuntu 24.04): the position-independent
# binary's 2.7 MB of relocation records, all read at every start, become 44 KB (1 MB less resident).
build=(swift build -c release --scratch-path .build-release --static-swift-stdlib -Xswiftc -DPARLEY_PACKAGED
    -Xswiftc -use-ld=lld -Xlinker -z -Xlinker pack-relative-relocs)
echo "package.sh: building parley $version (release, Swift runtime linked in); the first build takes a while" >&2
# Progress lines go, and the one warning the linker prints about the toolchain's own static Foundation
# (createTemporaryFile's mktemp), which parley's code cannot change.
quiet() { grep -Ev '^\[[0-9]+/[0-9]+\] |^Building for|^Write |^Compiling |libFoundationEssentials\.a\(Data\+Writing\.swift\.o\).*mktemp' || true; }
"${build[@]}" --product parley 2>&1 | quiet
# generate-manual (swift-argument-parser's) writes the man page from the same definitions as --help.
"${build[@]}" --product generate-manual 2>&1 | quiet
bin=$("${build[@]}" --show-bin-path)
[[ -x $bin/parley && -x $bin/generate-manual ]] || die "the build did not produce $bin/parley and $bin/generate-manual"

rm -rf dist/work && mkdir -p dist/work
work=dist/work
cp "$bin/parley" "$work/parley"
objcopy --only-keep-debug "$work/parley" "$work/parley-$version.debug"
strip --strip-all "$work/parley"
objcopy --add-gnu-debuglink="$work/parley-$version.debug" "$work/parley"
got=$("$work/parley" --version)
[[ $got == "$version" ]] || die "the binary says its version is '$got', not $version"
if readelf -d "$work/parley" | grep -qE 'NEEDED.*lib(swift|Foundation|_Foundation|dispatch|BlocksRuntime)'; then
    die "the binary still loads part of the Swift runtime from the toolchain: $(readelf -d "$work/parley" | grep NEEDED)"
fi
if readelf -d "$work/parley" | grep -qE 'NEEDED.*libcurl'; then
    die "the binary loads libcurl: a module imports FoundationNetworking again (find it: grep -r FoundationNetworking Sources .build-release/checkouts/*/Sources)"
fi

# ---- the files, laid out for a prefix (the tarball) --------------------------------------------------------
tree=dist/parley-$version
find dist -maxdepth 1 -type d -name 'parley-[0-9]*' -exec rm -rf {} +  # an older version's tree

install -D -m 755 "$work/parley" "$tree/bin/parley"
for theme in themes/*.toml; do install -D -m 644 "$theme" "$tree/share/parley/themes/$(basename "$theme")"; done
mkdir -p "$tree/share/bash-completion/completions" "$tree/share/zsh/site-functions" "$tree/share/fish/vendor_completions.d" "$tree/share/man/man1"
"$work/parley" --generate-completion-script bash > "$tree/share/bash-completion/completions/parley"
"$work/parley" --generate-completion-script zsh > "$tree/share/zsh/site-functions/_parley"
"$work/parley" --generate-completion-script fish > "$tree/share/fish/vendor_completions.d/parley.fish"
# The page's date: SOURCE_DATE_EPOCH (reproducible builds) or the commit's, so the same commit gives the same page.
if [[ -n ${SOURCE_DATE_EPOCH:-} ]]; then day=$(date -u -d "@$SOURCE_DATE_EPOCH" +%F); else day=$(git log -1 --format=%cs 2>/dev/null || date -u +%F); fi
"$bin/generate-manual" "$work/parley" --output-directory "$work" --date "$day" >/dev/null
[[ -s $work/parley.1 ]] || die "generate-manual did not write parley.1"
gzip -9n < "$work/parley.1" > "$tree/share/man/man1/parley.1.gz"

# The copyright file: parley, then what is linked into the binary (the Swift runtime and every resolved package)
# with each one's license text as shipped.
dep5_text() { sed -e 's/[[:space:]]*$//' -e 's/^$/./' -e 's/^/ /'; }  # a license text as a DEP-5 continuation
{
    echo "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/"
    echo "Upstream-Name: parley"
    echo "Comment: /usr/bin/parley is one binary with the Swift runtime, Foundation and the Swift packages below"
    echo " linked in. The C libraries it loads (ncursesw, libpulse, webrtc-audio-processing, the C and C++ runtimes)"
    echo " come from their own Debian packages."
    echo
    echo "Files: *"
    echo "Copyright: the parley authors"
    echo "License: see the parley repository"
    echo
    echo "Files: usr/bin/parley"
    echo "Comment: the Swift runtime, standard library and Foundation, linked in"
    echo " ($(swift --version 2>/dev/null | head -n 1))"
    echo "Copyright: Apple Inc. and the Swift project authors"
    echo "License: Apache-2.0 with Runtime Library Exception"
    dep5_text < /opt/swift/usr/share/swift/LICENSE.txt
    echo
    echo "Files: usr/bin/parley"
    echo "Comment: ICU (in Foundation's internationalization, linked in with its data)"
    echo "Copyright: Unicode, Inc. and others"
    echo "License: Unicode-3.0"
    echo " See https://www.unicode.org/license.txt"
    # The Swift packages parley resolves; each is linked in where parley's build uses it.
    for dir in .build-release/checkouts/*/; do
        dir=${dir%/}
        for lic in "$dir"/LICENSE* "$dir"/NOTICE*; do
            [[ -f $lic ]] || continue
            echo
            echo "Files: usr/bin/parley"
            echo "Comment: the Swift package ${dir##*/} (${lic##*/}), linked in where parley uses it"
            echo "Copyright: its authors, as the text below says"
            case $lic in
            */NOTICE*) echo "License: notice" ;;
            *) if grep -q "Apache License" "$lic"; then echo "License: Apache-2.0"; elif grep -q "Permission is hereby granted" "$lic"; then echo "License: MIT"; else echo "License: other"; fi ;;
            esac
            dep5_text < "$lic"
        done
    done
} > "$work/copyright"
install -D -m 644 "$work/copyright" "$tree/share/doc/parley/copyright"
install -m 755 scripts/install.sh "$tree/install.sh"
ln -sfn "parley-$version" dist/parley-latest

# ---- the .deb ----------------------------------------------------------------------------------------------
deb=$work/deb
mkdir -p "$deb/DEBIAN" "$deb/usr"
cp -a "$tree/bin" "$tree/share" "$deb/usr/"
mkdir -p "$deb/usr/share/zsh/vendor-completions"  # where Debian's zsh looks
mv "$deb/usr/share/zsh/site-functions/_parley" "$deb/usr/share/zsh/vendor-completions/_parley"
rmdir "$deb/usr/share/zsh/site-functions"
# Depends: what the binary links, as dpkg-shlibdeps finds it in the installed Debian packages.
mkdir -p "$work/shlibs/debian"
printf 'Source: parley\n\nPackage: parley\nArchitecture: any\n' > "$work/shlibs/debian/control"
root=$PWD
if ! shlibs=$(cd "$work/shlibs" && dpkg-shlibdeps -O "$root/$deb/usr/bin/parley" 2>"$root/$work/shlibdeps.err"); then
    cat "$work/shlibdeps.err" >&2
    die "dpkg-shlibdeps cannot name the Debian packages of every library the binary loads"
fi
depends=${shlibs#shlibs:Depends=}
[[ -n $depends && $depends != "$shlibs" ]] || die "dpkg-shlibdeps printed no Depends: $shlibs"
# Packed relative relocations need the loader of glibc 2.36, which dpkg-shlibdeps does not count.
if readelf -V "$deb/usr/bin/parley" | grep -q GLIBC_ABI_DT_RELR; then
    libc=$(sed -nE 's/.*libc6 \(>= ([0-9.]+)\).*/\1/p' <<< "$depends")
    if [[ -z $libc ]] || dpkg --compare-versions "$libc" lt 2.36; then
        depends=$(sed -E 's/libc6( \(>= [0-9.]+\))?/libc6 (>= 2.36)/' <<< "$depends")
    fi
fi
(cd "$deb" && find usr -type f -exec md5sum {} + | sort -k 2) > "$deb/DEBIAN/md5sums"
cat > "$deb/DEBIAN/control" <<EOF
Package: parley
Version: $version
Architecture: $arch
Maintainer: ${PARLEY_MAINTAINER:-parley developers <parley@invalid>}
Installed-Size: $(du -sk --exclude=DEBIAN "$deb" | cut -f1)
Depends: $depends
Recommends: ffmpeg
Suggests: pulseaudio | pipewire-pulse
Section: sound
Priority: optional
Description: full-screen terminal voice assistant for the Gemini Live API
 Hold (or tap) Space and speak; Gemini answers out loud while both sides' words
 scroll by as live transcripts. Also one-turn questions from scripts (parley ask),
 a built-in simulator (parley --demo, parley simulate) and a set-up check
 (parley doctor). ffmpeg adds pictures, the camera and the screen.
EOF
mkdir -p dist
rm -f dist/parley_*_"$arch".deb dist/parley-*-linux-*.tar.gz dist/parley-*.debug
dpkg-deb --root-owner-group -Zxz --build "$deb" "dist/parley_${version}_$arch.deb" >/dev/null
tar -C dist --owner=0 --group=0 --numeric-owner -czf "dist/parley-$version-linux-$arch.tar.gz" "parley-$version"
mv "$work/parley-$version.debug" dist/
rm -rf "$work"

echo "package.sh: parley $version"
ls -l "dist/parley_${version}_$arch.deb" "dist/parley-$version-linux-$arch.tar.gz" "dist/parley-$version.debug" "$tree/bin/parley" | awk '{ printf "  %9d  %s\n", $5, $9 }'
echo "  Depends: $depends"
