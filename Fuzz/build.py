#!/usr/bin/env python3
"""Builds .build-fuzz/parley-fuzz: parley's own modules compiled again with -sanitize=fuzzer (coverage for
libFuzzer), Fuzz/Targets/*.swift compiled into the App module, linked against the dependencies' objects from the
normal debug build. The compile and link commands are SwiftPM's own, read from .build/debug.yaml, so the flags
match the package; only parley's modules are instrumented (the dependencies, Foundation's JSON and toml++ are
not), so coverage measures parley's parsers.

Run from the package root after `swift build` (scripts/fuzz.sh does both). Nothing here touches .build.
"""
import json
import os
import re
import subprocess
import sys
import time

# Parley's modules, in dependency order; each is compiled whole (-wmo) into one object.
MODULES = ["ParleyLock", "ParleyTime", "ParleySpawn", "Live", "LiveSimulator", "PulseAudio", "TUI", "App"]
ROOT = os.getcwd()
DEBUG = os.path.realpath(os.path.join(ROOT, ".build", "debug"))  # .build/TRIPLE/debug
TRIPLE = os.path.basename(os.path.dirname(DEBUG))
OUT = os.path.join(ROOT, ".build-fuzz")


def commands():
    """Command name -> args, from llbuild's manifest (one JSON array per `args:` line)."""
    out, name = {}, None
    with open(os.path.join(ROOT, ".build", "debug.yaml")) as f:
        for line in f:
            m = re.match(r'^  "(C\.[^"]+)":$', line)
            if m:
                name = m.group(1)
            elif name and line.startswith("    args: "):
                out[name] = json.loads(line[len("    args: "):])
    return out


def compile_args(args, module, sources):
    """SwiftPM's compile command for `module`, made into one instrumented whole-module object."""
    drop_alone = {"-emit-dependencies", "-incremental", "-enable-batch-mode", "-serialize-diagnostics", "-c",
                  "-emit-module", "-parseable-output", "-color-diagnostics"}
    drop_with_value = {"-emit-module-path", "-output-file-map", "-index-store-path", "-j"}
    out, skip, placed = [], False, False
    for i, a in enumerate(args):
        if skip:
            skip = False
            continue
        if a in drop_alone or a.startswith("@") or re.match(r"^-j\d+$", a):
            continue
        if a in drop_with_value:
            skip = True
            continue
        if a == "-I" and not placed:
            out += ["-I", os.path.join(OUT, "Modules")]  # the instrumented modules win over the debug build's
            placed = True
        out.append(a)
    return out + ["-sanitize=fuzzer", "-wmo", "-c", "-emit-module", "-emit-module-path",
                  os.path.join(OUT, "Modules", module + ".swiftmodule"), "-o", os.path.join(OUT, module + ".o")] + sources


def sources_of(module):
    with open(os.path.join(DEBUG, module + ".build", "sources")) as f:
        return [l.strip().strip("'\"") for l in f if l.strip()]


def run(args, what):
    start = time.time()
    r = subprocess.run(args)
    if r.returncode != 0:
        sys.exit(f"fuzz build: {what} failed (exit {r.returncode})")
    print(f"fuzz build: {what} in {time.time() - start:.0f} s", flush=True)


def main():
    cmds = commands()
    os.makedirs(os.path.join(OUT, "Modules"), exist_ok=True)
    targets = sorted(os.path.join(ROOT, "Fuzz", "Targets", n) for n in os.listdir(os.path.join(ROOT, "Fuzz", "Targets"))
                     if n.endswith(".swift"))
    newest_input = 0.0
    for module in MODULES:
        key = f"C.{module}-{TRIPLE}-debug.module"
        if key not in cmds:
            sys.exit(f"fuzz build: no compile command for {module} in .build/debug.yaml (run swift build first)")
        sources = sources_of(module) + (targets if module == "App" else [])
        obj = os.path.join(OUT, module + ".o")
        newest_input = max([newest_input] + [os.path.getmtime(s) for s in sources])
        if os.path.exists(obj) and os.path.getmtime(obj) > newest_input:
            continue
        run(compile_args(cmds[key], module, sources), f"{module} ({len(sources)} files)")
        newest_input = max(newest_input, os.path.getmtime(obj))

    link = cmds.get(f"C.parley-{TRIPLE}-debug.exe")
    if not link:
        sys.exit("fuzz build: no link command for parley in .build/debug.yaml")
    ours = tuple(os.path.join(DEBUG, m + ".build") + os.sep for m in MODULES)
    objects = []
    for a in link:
        if a.startswith("@"):
            with open(a[1:]) as f:
                for l in f:
                    o = l.strip().strip("'\"")
                    if o and not os.path.realpath(o).startswith(ours):
                        objects.append(o)
    args, skip = [], False
    for i, a in enumerate(link):
        if skip:
            skip = False
            continue
        if a.startswith("@"):
            continue
        if a == "-o":
            skip = True
            continue
        # libFuzzer brings main; parley's App_main stays unused.
        if a == "-Xlinker" and i + 1 < len(link) and (link[i + 1] == "--defsym" or link[i + 1].startswith("main=")):
            skip = True
            continue
        args.append(a)
    # Linked beside and renamed over: a fuzz run still going keeps the binary it started with.
    exe = os.path.join(OUT, "parley-fuzz")
    run(args + ["-sanitize=fuzzer", "-o", exe + ".new"] + objects + [os.path.join(OUT, m + ".o") for m in MODULES], "link")
    os.replace(exe + ".new", exe)


if __name__ == "__main__":
    main()
