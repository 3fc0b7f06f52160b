"""Where a running process's resident memory is: RSS by mapping (the binary, each library, the heap, anonymous
memory), and with --symbols, how much of named symbols' ranges is resident (ICU's data, say, in a binary with
Foundation linked in). Reads /proc/PID/smaps and /proc/PID/pagemap (the latter needs root).

    python3 scripts/bench/resident.py PID
    python3 scripts/bench/resident.py PID --symbols dist/parley-VERSION.debug --match icudt
    python3 scripts/bench/resident.py PID --sections      # the executable's resident pages by ELF section

Prints numbers; judges nothing.
"""

import argparse
import os
import re
import struct
import subprocess
import sys

PAGE = os.sysconf("SC_PAGE_SIZE")


def mappings(pid):
    """(start, end, offset, path, {field: kB}) per mapping of /proc/PID/smaps."""
    out = []
    head = re.compile(r"^([0-9a-f]+)-([0-9a-f]+) \S+ ([0-9a-f]+) \S+ \d+\s*(.*)$")
    with open(f"/proc/{pid}/smaps") as f:
        for line in f:
            m = head.match(line)
            if m:
                out.append([int(m[1], 16), int(m[2], 16), int(m[3], 16), m[4] or "[anonymous]", {}])
            elif out and ":" in line:
                k, _, v = line.partition(":")
                parts = v.split()
                if len(parts) == 2 and parts[1] == "kB":
                    out[-1][4][k] = int(parts[0])
    return out


def by_path(maps):
    totals = {}
    for _, _, _, path, fields in maps:
        t = totals.setdefault(path, {"Rss": 0, "Private_Dirty": 0, "Shared_Clean": 0, "Private_Clean": 0})
        for k in t:
            t[k] += fields.get(k, 0)
    return totals


def resident_pages(pid, start, size):
    present = 0
    with open(f"/proc/{pid}/pagemap", "rb") as f:
        first, last = start // PAGE, (start + size - 1) // PAGE
        f.seek(first * 8)
        data = f.read((last - first + 1) * 8)
    for (entry,) in struct.iter_unpack("<Q", data):
        present += (entry >> 63) & 1
    return present, last - first + 1


def main():
    p = argparse.ArgumentParser()
    p.add_argument("pid", type=int)
    p.add_argument("--symbols", help="the unstripped binary or its .debug file, for symbol addresses")
    p.add_argument("--match", default="icudt", help="a regular expression for the symbols to look at")
    p.add_argument("--sections", action="store_true", help="the executable's resident pages by ELF section")
    p.add_argument("--top", type=int, default=12)
    a = p.parse_args()

    maps = mappings(a.pid)
    totals = by_path(maps)
    rss = sum(t["Rss"] for t in totals.values())
    print(f"resident: {rss / 1024:.1f} MB in {len(maps)} mappings of {len(totals)} files or kinds")
    print(f"{'Rss MB':>8} {'dirty MB':>9} {'shared clean':>13}  mapping")
    for path, t in sorted(totals.items(), key=lambda kv: -kv[1]["Rss"])[: a.top]:
        print(f"{t['Rss'] / 1024:8.2f} {t['Private_Dirty'] / 1024:9.2f} {t['Shared_Clean'] / 1024:13.2f}  {path}")
    libs = [path for path in totals if ".so" in path]
    print(f"shared libraries mapped: {len(libs)}, resident {sum(totals[x]['Rss'] for x in libs) / 1024:.1f} MB")

    exe = os.readlink(f"/proc/{a.pid}/exe")
    with open(exe, "rb") as f:
        f.seek(16)
        (e_type,) = struct.unpack("<H", f.read(2))
    base = 0
    if e_type == 3:  # a position-independent executable: addresses are relative to its lowest mapping
        base = min(start - offset for start, _, offset, path, _ in maps if path == exe)

    if a.sections:
        # [Nr] Name Type Address Off Size ES Flg ...: the sections loaded into memory (flag A).
        out = subprocess.run(["readelf", "-SW", exe], capture_output=True, text=True, check=True).stdout
        rows = []
        for line in out.splitlines():
            m = re.match(r"\s*\[\s*\d+\]\s+(\S+)\s+\S+\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)\s+\S+\s+(\S*)", line)
            if m and "A" in m[4] and int(m[3], 16) >= PAGE:
                have, pages = resident_pages(a.pid, base + int(m[2], 16), int(m[3], 16))
                rows.append((have * PAGE, int(m[3], 16), m[1]))
        print(f"{'resident MB':>12} {'of MB':>8}  section of {exe}")
        for have, size, name in sorted(rows, reverse=True):
            print(f"{have / 1048576:12.2f} {size / 1048576:8.2f}  {name}")

    if a.symbols:
        nm = subprocess.run(["nm", "-S", "--defined-only", a.symbols], capture_output=True, text=True, check=True).stdout
        rx = re.compile(a.match)
        found = 0
        for line in nm.splitlines():
            parts = line.split()
            if len(parts) != 4 or not rx.search(parts[3]):
                continue
            addr, size = int(parts[0], 16), int(parts[1], 16)
            if size < PAGE:
                continue
            have, pages = resident_pages(a.pid, base + addr, size)
            found += 1
            print(f"symbol {parts[3]}: {size / 1024 / 1024:.1f} MB, resident {have * PAGE / 1024 / 1024:.2f} MB ({have} of {pages} pages)")
        if not found:
            print(f"no symbol of a page or more matches {a.match!r} in {a.symbols}")


if __name__ == "__main__":
    sys.exit(main())
