#!/usr/bin/env python3
"""Reads the callgrind dumps of the conversation benchmark (one file per thread, --separate-threads=yes) and
prints instructions per second of conversation for parley's threads (the simulator's thread is counted apart),
the stages' inclusive costs and the top functions by self cost, grouped by module.

    instructions.py DIR SECONDS [--top N] [--json FILE]

DIR holds the dump taken at `ConversationBenchmark.ends()` (files named *.2-NN: part 2, thread NN; part 1 is
the dump at `.starts()`, everything before the conversation).
"""
import argparse
import glob
import json
import os
import re
import subprocess
import sys
from collections import defaultdict

# Stages, by the function whose inclusive cost is the stage's (demangled, simplified names; a regex each).
# Stages nest (base64 inside decoding, the resampler inside the canceller): the table says so.
STAGES = [
    ("reply frames decoded (LiveCodec.decodeServer)", r"^(specialized |merged )?LiveCodec\.decodeServer\("),
    ("  of which base64 decoding", r"^static Base64\.decode\("),
    ("mic frames encoded and sent (LiveSession.sendAudio)", r"^(specialized |merged )?LiveSession\.sendAudio\("),
    ("  of which base64 encoding", r"^static Base64\.encode\("),
    ("echo canceller, near end (WebRTCCanceller.process)", r"^(specialized |merged )?WebRTCCanceller\.process\("),
    ("echo canceller, far end (WebRTCCanceller.played)", r"^(specialized |merged )?WebRTCCanceller\.played\("),
    ("  of which the resampler", r"^(specialized |merged )?StreamingResampler\.process\("),
    ("screen: draw what changed (ScreenPacer.draw)", r"^(specialized |merged )?ScreenPacer\.draw\("),
    ("reducer (Reducer.reduce)", r"^static Reducer\.reduce\("),
]

# Modules for the self-cost table: first match wins (demangled name, then the object file).
MODULES = [
    ("base64", r"[Bb]ase64"),
    ("resampler", r"Resampler"),
    ("echo canceller", r"webrtc|WebRTC|EchoDelayEstimator|FarEndTimeline|CaptureClock|apm_|WebRtc"),
    ("decode (JSON, Codable)", r"JSON|Decod|Coding|ServerMessage|ServerContent|ProtoJSON|Blob\.init"),
    ("views and screen (TUI)", r"^(TUI\.)|FrameRenderer|GridScreen|DirtyRegions|View\b|View\.|ScreenPacer|StyledLine|WordWrap|DisplayWidth|TranscriptLayout"),
    ("WebSocket, NIO", r"NIO|WebSocket|WSClient|ByteBuffer|WSCore"),
    ("Swift runtime, allocation, libc", r"^swift_|^_swift|malloc|free|memcpy|memmove|memset|^__|pthread|futex|_int_|cfree|libc\.so|libswiftCore|libswift_|ld-linux"),
]


def parse(path):
    """Self and inclusive Ir per function of one callgrind file: {name: [self, inclusive]}, object per name."""
    names = {"fn": {}, "ob": {}}
    cost = defaultdict(lambda: [0, 0])
    calls = defaultdict(int)
    callee = None
    objects = {}
    fn = None
    ob = None
    after_calls = False
    totals = None

    def name(kind, text):
        m = re.match(r"\((\d+)\)(?: (.*))?$", text)
        if not m:
            return text
        if m.group(2) is not None:
            names[kind][m.group(1)] = m.group(2)
        return names[kind].get(m.group(1), text)

    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line:
                continue
            c = line[0]
            if c.isdigit() or c in "+-*":
                parts = line.split()
                value = int(parts[1]) if len(parts) > 1 else 0
                if after_calls:
                    cost[fn][1] += value
                    after_calls = False
                elif fn is not None:
                    cost[fn][0] += value
                    cost[fn][1] += value
                continue
            if line.startswith("fn="):
                fn = name("fn", line[3:])
                if ob is not None:
                    objects.setdefault(fn, ob)
            elif line.startswith("ob="):
                ob = name("ob", line[3:])
            elif line.startswith("cob="):
                name("ob", line[4:])
            elif line.startswith("cfn=") or line.startswith("cfni="):
                callee = name("fn", line.split("=", 1)[1])
            elif line.startswith("calls="):
                after_calls = True
                calls[callee] += int(line[6:].split()[0])
            elif line.startswith("totals:") or line.startswith("summary:"):
                totals = int(line.split()[1])
    return cost, objects, totals, calls


def demangle(symbols):
    """Swift and C++ names, simplified, through `swift demangle`."""
    symbols = list(symbols)
    try:
        out = subprocess.run(["swift", "demangle", "--simplified"], input="\n".join(symbols), text=True,
                             capture_output=True, check=True).stdout.split("\n")
    except (OSError, subprocess.CalledProcessError):
        out = symbols
    return {s: (out[i] if i < len(out) and out[i] else s) for i, s in enumerate(symbols)}


def module_of(name, obj):
    for label, pattern in MODULES:
        if re.search(pattern, name) or (label.startswith("Swift runtime") and re.search(pattern, os.path.basename(obj or ""))):
            return label
    if obj and "webrtc" in obj:
        return "echo canceller"
    return "everything else"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("seconds", type=float)
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("--json")
    ap.add_argument("--dump", default="*.2-*", help="which dump's files: *.2-* is the one taken at the end mark "
                    "(*.1-* at the start mark; callgrind_control -d makes *.N-TT)")
    a = ap.parse_args()

    files = sorted(glob.glob(os.path.join(a.dir, a.dump)))
    if not files:
        sys.exit(f"instructions: no dump of the conversation in {a.dir} (did the benchmark reach its end mark?)")
    # callgrind dumps at a mark only the thread that reached it (the test's, which runs the mic path); the other
    # threads (the loop, the network thread) are counted from their files at exit: their whole run, with the
    # few seconds before the start mark (connecting, the first frames) and after the end mark in.
    marked = {f.rsplit("-", 1)[1] for f in files}
    whole = sorted(f for f in glob.glob(os.path.join(a.dir, "callgrind.out-*")) if f.rsplit("-", 1)[1] not in marked)
    if a.dump == "*.2-*":
        files += whole
        print(f"({len(marked)} thread(s) counted between the marks, {len(whole)} over their whole run)")
    client = defaultdict(lambda: [0, 0])
    objects = {}
    client_total = 0
    calls = defaultdict(int)
    simulator_total = 0
    threads = 0
    for path in files:
        cost, objs, totals, called = parse(path)
        total = totals if totals is not None else sum(v[0] for v in cost.values())
        # Swift's mangling abbreviates repeated words, so look for the module and the type's last word.
        # The thread that reads the simulator's connections (another thread may touch the handler's type).
        if any("13LiveSimulator" in f and "ConnectionHandler" in f and "channelRead" in f for f in cost):
            simulator_total += total
            continue
        for f, n in called.items():
            calls[f] += n
        threads += 1
        client_total += total
        for f, (s, i) in cost.items():
            client[f][0] += s
            client[f][1] += i
        objects.update(objs)

    readable = demangle(set(client.keys()) | set(calls.keys()))
    # The conversation's length from the mic chunks fed (20 ms each): right for a whole run, and for a snapshot
    # taken with `callgrind_control -d` partway through.
    chunks = sum(n for f, n in calls.items() if re.search(r"^FakeAudioSource\.feed\(", readable[f]))
    if chunks:
        a.seconds = chunks * 0.02
    per_second = client_total / a.seconds
    print(f"parley: {client_total:,} instructions in {a.seconds:g} s of conversation = {per_second / 1e6:,.1f} M/s "
          f"({threads} threads; the simulator's own thread, {simulator_total / a.seconds / 1e6:,.1f} M/s, is not counted)")

    print("\nstages (inclusive: each with what it calls; per call too)")
    stages = {}
    for label, pattern in STAGES:
        inc = sum(v[1] for f, v in client.items() if re.search(pattern, readable[f]))
        n = sum(c for f, c in calls.items() if re.search(pattern, readable[f]))
        stages[label.strip()] = {"instructions": inc, "calls": n}
        per_call = f"{inc / n:12,.0f} per call ({n:,} calls)" if n else ""
        print(f"  {label:<58} {inc / a.seconds / 1e6:9.2f} M/s {100 * inc / max(1, client_total):5.1f} %  {per_call}")

    by_module = defaultdict(int)
    for f, (s, _) in client.items():
        by_module[module_of(readable[f], objects.get(f))] += s
    print("\nself cost by module")
    for label, s in sorted(by_module.items(), key=lambda kv: -kv[1]):
        print(f"  {label:<58} {s / a.seconds / 1e6:9.2f} M/s {100 * s / max(1, client_total):5.1f} %")

    print(f"\ntop {a.top} functions by self cost")
    top = sorted(client.items(), key=lambda kv: -kv[1][0])[: a.top]
    for f, (s, _) in top:
        n = readable[f]
        if len(n) > 110:
            n = n[:107] + "..."
        print(f"  {s / a.seconds / 1e6:7.2f} M/s {100 * s / max(1, client_total):5.1f} %  [{module_of(readable[f], objects.get(f))}] {n}")

    if a.json:
        with open(a.json, "w") as out:
            json.dump({"instructions": client_total, "seconds": a.seconds, "perSecond": per_second,
                       "simulatorPerSecond": simulator_total / a.seconds, "stages": stages,
                       "modules": dict(by_module)}, out, indent=2)


if __name__ == "__main__":
    main()
