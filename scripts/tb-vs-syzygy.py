#!/usr/bin/env python3
"""Side-by-side benchmark of our table generator against syzygy1/tb's giveaway generator.

For each material given, both generators first get every table it depends on (built by
each generator for itself, not timed), then the material itself is built by each, one
after the other, with the same number of threads, under /usr/bin/time: wall time, CPU time and
peak resident memory, compressing and writing the file included. syzygy1/tb writes WDL only
(`-w`), which is all a search needs; ours writes its own format (WDL and depth).

syzygy1/tb is built from a checkout of its public source (https://github.com/syzygy1/tb)
that you give with --syzygy-src: this script never downloads it, and none of its code is
part of this repository. It needs gcc and make (and libzstd-dev if present: without it the
temporary files use LZ4, as its Makefile allows).

    python3 scripts/tb-vs-syzygy.py --syzygy-src ~/src/tb KBNkr KBBkr KRNkp KPPkp

Materials are written as our `tb build` takes them (White uppercase, Black lowercase, or
KBNvKR). The table of results (markdown) goes to stdout; with --json, one JSON object.
Run it on a quiet machine: the figures are only comparable within one sitting.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

PIECES = "KQRBNP"
PROMOTIONS = "QRBNK"  # giveaway: a pawn may promote to a king


def parse_material(text):
    """'KBNkr' or 'KBNvKR' -> (white, black) as strings in KQRBNP order."""
    if "v" in text:
        w, _, b = text.partition("v")
        b = b.upper()
    else:
        w = "".join(c for c in text if c.isupper())
        b = "".join(c for c in text if c.islower()).upper()
    for side in (w, b):
        if not side or any(c not in PIECES for c in side):
            raise SystemExit(f"error: bad material {text!r} (pieces KQRBNP, e.g. KBNkr or KBNvKR)")
    return (order(w), order(b))


def order(side):
    return "".join(sorted(side, key=PIECES.index))


def ours_name(m):
    return m[0] + m[1].lower()


def syzygy_name(m):
    return m[0] + "v" + m[1]


def canonical(m):
    """Giveaway is colour-symmetric: one table covers a material and its colour image. The
    orientation syzygy1/tb names it by: the side with more units first; with as many, the
    side whose units come first in KQRBNP order."""
    w, b = m
    key = lambda side: [PIECES.index(c) for c in side]
    if len(w) != len(b):
        return m if len(w) > len(b) else (b, w)
    return m if key(w) <= key(b) else (b, w)


def children(m):
    """Materials one move can lead to: a capture (either side loses a unit) or a promotion."""
    out = set()
    w, b = m
    for side, other, swap in ((w, b, False), (b, w, True)):
        # the other side's unit captured; a side left with nothing has won: no table
        for i in range(len(other)):
            rest = other[:i] + other[i + 1:]
            if rest:
                out.add((side, rest) if not swap else (rest, side))
        # a promotion of one of this side's pawns
        if "P" in side:
            i = side.index("P")
            for p in PROMOTIONS:
                promoted = order(side[:i] + p + side[i + 1:])
                out.add((promoted, other) if not swap else (other, promoted))
    return {canonical(c) for c in out}


def closure(targets):
    """Every material the targets depend on (the targets excluded), in an order to build them."""
    seen = set()
    stack = [canonical(t) for t in targets]
    while stack:
        m = stack.pop()
        for c in children(m):
            if c not in seen:
                seen.add(c)
                stack.append(c)
    seen -= {canonical(t) for t in targets}
    # fewer units first; within a count, fewer pawns first (a promotion keeps the count)
    return sorted(seen, key=lambda m: (len(m[0]) + len(m[1]), (m[0] + m[1]).count("P"), m))


def build_syzygy(src, work, threads):
    """Copy the source, build gtbgen and gtbgenp; return the directory of the binaries."""
    build = work / "syzygy-build"
    if (build / "gtbgen").exists() and (build / "gtbgenp").exists():
        return build
    if build.exists():
        shutil.rmtree(build)
    shutil.copytree(Path(src) / "src", build)
    cpu = Path("/proc/cpuinfo").read_text() if Path("/proc/cpuinfo").exists() else ""
    flags = ["-DBMI2" if " bmi2" in cpu else "-DMAGIC", "-DTBPIECES=7",
             f"-DCOMPRESSION_THREADS={threads}"]
    ldflags = []
    if " popcnt" in cpu:
        flags.append("-DUSE_POPCNT")
    if Path("/usr/include/zstd.h").exists():
        flags += ["-DUSE_ZSTD", "-DZSTD_LEVEL=6"]
        ldflags.append("-lzstd")
    env = dict(os.environ, FLAGS=" ".join(flags), LDFLAGS=" ".join(ldflags), CC="gcc -pthread",
               CFLAGS="-O3 -march=native -pipe -D_GNU_SOURCE -Wall -std=c11 -flto=auto")
    for target in ("gtbgen", "gtbgenp"):
        r = subprocess.run(["make", "-f", "Makefile.giveaway", target], cwd=build, env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if r.returncode != 0:
            sys.stderr.write(r.stdout[-4000:])
            raise SystemExit(f"error: building syzygy1/tb's {target} failed (see above)")
    return build


def timed(cmd, cwd, env=None):
    """Run under /usr/bin/time; return (wall seconds, peak MB, CPU seconds)."""
    fmt = "TIMED %e %M %U %S"
    r = subprocess.run(["/usr/bin/time", "-f", fmt] + cmd, cwd=cwd, env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        sys.stderr.write(r.stdout[-2000:] + r.stderr[-4000:])
        raise SystemExit(f"error: {' '.join(cmd)} failed")
    m = re.findall(r"TIMED ([0-9.]+) ([0-9]+) ([0-9.]+) ([0-9.]+)", r.stderr)
    if not m:
        raise SystemExit(f"error: no timing from {' '.join(cmd)} (is GNU time installed?)")
    return float(m[-1][0]), int(m[-1][1]) / 1024.0, float(m[-1][2]) + float(m[-1][3])


def syzygy_has(dirpath, m):
    return any((dirpath / (syzygy_name(x) + ".gtbw")).exists() for x in (m, (m[1], m[0])))


def syzygy_build(bindir, tables, m, threads):
    tool = bindir / ("gtbgenp" if "P" in m[0] + m[1] else "gtbgen")
    env = dict(os.environ, GTBPATH=str(tables))
    return timed([str(tool), "-t", str(threads), "-w", syzygy_name(m)], cwd=tables, env=env)


def ours_build(antichess, tables, materials, threads):
    return timed([str(antichess), "tb", "build", "--tables", str(tables), "--threads",
                  str(threads)] + [ours_name(m) for m in materials], cwd=tables)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("materials", nargs="+", help="materials to compare, e.g. KBNkr KBBkr KRNkp KPPkp")
    ap.add_argument("--syzygy-src", required=True, help="a checkout of github.com/syzygy1/tb")
    ap.add_argument("--antichess", default="target/release/antichess",
                    help="our binary (default target/release/antichess: cargo build --release first)")
    ap.add_argument("--work", help="working directory (tables of both; default a temporary one)")
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--json", action="store_true", help="one JSON object instead of a table")
    args = ap.parse_args()

    antichess = Path(args.antichess).resolve()
    if not antichess.exists():
        raise SystemExit(f"error: {antichess} not found (cargo build --release, or --antichess PATH)")
    if not (Path(args.syzygy_src) / "src" / "Makefile.giveaway").exists():
        raise SystemExit(f"error: {args.syzygy_src} is not a checkout of syzygy1/tb (no src/Makefile.giveaway)")
    targets = [canonical(parse_material(t)) for t in args.materials]
    work = Path(args.work) if args.work else Path(tempfile.mkdtemp(prefix="tb-vs-syzygy-"))
    work.mkdir(parents=True, exist_ok=True)
    ours_dir, theirs_dir = work / "ours", work / "syzygy"
    ours_dir.mkdir(exist_ok=True)
    theirs_dir.mkdir(exist_ok=True)

    bindir = build_syzygy(args.syzygy_src, work, args.threads)
    deps = closure(targets)
    print(f"dependencies: {len(deps)} materials, built by each generator (not timed)", file=sys.stderr)
    for m in deps:
        if not syzygy_has(theirs_dir, m):
            syzygy_build(bindir, theirs_dir, m, args.threads)
    if deps:
        ours_build(antichess, ours_dir, deps, args.threads)

    rows = []
    for m in targets:
        for x in (m, (m[1], m[0])):
            for f in list(ours_dir.glob(syzygy_name(x) + ".*")) + list(theirs_dir.glob(syzygy_name(x) + ".gtb*")):
                f.unlink()
        print(f"{ours_name(m)}: ours ...", file=sys.stderr)
        o = ours_build(antichess, ours_dir, [m], args.threads)
        print(f"{ours_name(m)}: syzygy1/tb ...", file=sys.stderr)
        t = syzygy_build(bindir, theirs_dir, m, args.threads)
        rows.append({"material": ours_name(m), "ours_seconds": o[0], "ours_cpu_seconds": round(o[2], 2),
                     "ours_peak_mb": round(o[1]), "syzygy_seconds": t[0],
                     "syzygy_cpu_seconds": round(t[2], 2), "syzygy_peak_mb": round(t[1]),
                     "speedup": round(t[0] / o[0], 2) if o[0] > 0 else None})

    cpu = ""
    for line in Path("/proc/cpuinfo").read_text().splitlines() if Path("/proc/cpuinfo").exists() else []:
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
    if args.json:
        print(json.dumps({"cpu": cpu, "threads": args.threads, "rows": rows}, indent=2))
        return
    print(f"CPU: {cpu}, {args.threads} threads; syzygy1/tb: gtbgen -w (WDL only)\n")
    print("| material | ours: wall, CPU, peak | syzygy1/tb: wall, CPU, peak | wall time, theirs / ours |")
    print("|---|---|---|---|")
    for r in rows:
        print(f"| {r['material']} | {r['ours_seconds']:.1f} s, {r['ours_cpu_seconds']:.1f} s, {r['ours_peak_mb']} MB "
              f"| {r['syzygy_seconds']:.1f} s, {r['syzygy_cpu_seconds']:.1f} s, {r['syzygy_peak_mb']} MB | {r['speedup']} |")


if __name__ == "__main__":
    main()
