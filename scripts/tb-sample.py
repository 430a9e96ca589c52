#!/usr/bin/env python3
"""A measured sample of the 5-unit tables, and its extrapolation to the whole set.

Building every 5-unit table takes days on two cores (docs/benchmarks.md), so this script
picks a sample of them deterministically, builds it one table at a time (one process per
table, so that each table's time and peak memory are its own), records per-table figures,
and extrapolates them to the whole set.

    scripts/tb-sample.py plan  BIN DIR            > plan.json     # the plan (tb build --dry-run)
    scripts/tb-sample.py pick  plan.json          > sample.txt    # the sample, in build order
                                                                  # (material and positions)
    scripts/tb-sample.py run   BIN DIR sample.txt results.jsonl   # build it (resumes)
    scripts/tb-sample.py report plan.json results.jsonl           # figures and extrapolation

DIR must already hold every table of at most 4 units (`antichess tb build --units 4`, or
hard links to such a directory). `run` builds with `--threads 1` (set THREADS to change
it), never more than one table at a time, skips a table whose predicted peak memory
(17 bytes per position, today's generator) exceeds MAX_MEMORY bytes (default 6e9), and
appends one JSON line per table to the results file: material, class, positions, seconds
(the generator's own, from the binary's JSON output), wall seconds, positions/s, file
bytes, peak resident memory (the process's maximum RSS, from wait4), threads, binary and
date. A table already in the results file or present in DIR is not built again, so an
interrupted run resumes.

The sample (`pick`) is fixed by the plan alone:
- pawn tables: the PAWN (default 4) one-pawn materials whose 5-unit dependencies (the
  tables their promotions lead to, which must be built first) cost the fewest positions,
  ties by name, with those dependencies;
- promotion-heavy: the HEAVY (default 1) materials with two or more pawns whose 5-unit
  dependencies cost the fewest positions, with those dependencies;
- pawnless: PAWNLESS (default 10) materials at evenly spaced ranks of the pawnless tables
  sorted by positions (so small and large ones), ties by name;
all of them within the memory limit, in that order (each group in dependency order, the
pawnless ones smallest first), so that a run cut short still has every class.

The extrapolation (`report`) multiplies each class's positions in the whole 5-unit set by
the sample's seconds per position and file bytes per position in that class (pawnless,
one pawn, two or more pawns), and names the tables over the memory limit separately.
"""

import json
import os
import socket
import subprocess
import sys
import time

ORDER = "KQRBNP"
BYTES_PER_POSITION = 17


def env_int(name, default):
    return int(float(os.environ.get(name, default)))


def parse(name):
    """(white counts, black counts) in the order K Q R B N P."""
    w, b = [0] * 6, [0] * 6
    for ch in name:
        (w if ch.isupper() else b)[ORDER.index(ch.upper())] += 1
    return (tuple(w), tuple(b))


def canonical(m):
    w, b = m
    return (w, b) if (sum(w), w) >= (sum(b), b) else (b, w)


def name(m):
    w, b = m
    return "".join(ORDER[i] * w[i] for i in range(6)) + "".join(
        ORDER[i].lower() * b[i] for i in range(6)
    )


def successors(m):
    """What captures and promotions lead to (as antichess-tb's Material::successors)."""
    out = set()
    for mover in (0, 1):
        victim = 1 - mover
        for r in range(6):
            if m[victim][r] == 0:
                continue
            after = [list(m[0]), list(m[1])]
            after[victim][r] -= 1
            out.add((tuple(after[0]), tuple(after[1])))
            if m[mover][5] > 0:
                for p in range(5):
                    c = [list(after[0]), list(after[1])]
                    c[mover][5] -= 1
                    c[mover][p] += 1
                    out.add((tuple(c[0]), tuple(c[1])))
        if m[mover][5] > 0:
            for p in range(5):
                c = [list(m[0]), list(m[1])]
                c[mover][5] -= 1
                c[mover][p] += 1
                out.add((tuple(c[0]), tuple(c[1])))
    return {canonical(x) for x in out if sum(x[0]) > 0 and sum(x[1]) > 0}


def closure(material, units):
    """`material` and every table of `units` units it depends on."""
    seen, stack = set(), [canonical(parse(material))]
    while stack:
        m = stack.pop()
        if m in seen or sum(m[0]) + sum(m[1]) < units:
            continue
        seen.add(m)
        stack.extend(successors(m))
    return {name(m) for m in seen}


def klass(pawns):
    return "pawnless" if pawns == 0 else ("pawn" if pawns == 1 else "promotion-heavy")


def load_plan(path):
    plan = json.load(open(path))["plan"]
    return {e["material"]: e for e in plan}, [e["material"] for e in plan]


def cmd_plan(binary, directory):
    out = subprocess.run(
        [binary, "tb", "build", "--units", "5", "--dry-run", "--format", "json",
         "--tables", directory],
        check=True, capture_output=True, text=True,
    ).stdout
    sys.stdout.write(out)


def cmd_pick(plan_path):
    entries, order = load_plan(plan_path)
    rank = {m: i for i, m in enumerate(order)}
    limit = env_int("MAX_MEMORY", 6e9)
    fits = lambda m: entries[m]["positions"] * BYTES_PER_POSITION <= limit
    five = [m for m in order if entries[m]["units"] == 5 and fits(m)]
    picked = []

    def add(group, key=rank.get):
        for m in sorted(group, key=key):
            if m not in picked:
                picked.append(m)

    def cheapest(candidates, n):
        costed = []
        for m in candidates:
            c = closure(m, 5)
            if all(fits(x) for x in c):
                costed.append((sum(entries[x]["positions"] for x in c if x not in picked), m, c))
        costed.sort()
        for _, m, c in costed[:n]:
            add(c)

    cheapest([m for m in five if entries[m]["pawns"] == 1], env_int("PAWN", 4))
    cheapest([m for m in five if entries[m]["pawns"] >= 2], env_int("HEAVY", 1))
    pawnless = sorted(
        (m for m in five if entries[m]["pawns"] == 0),
        key=lambda m: (entries[m]["positions"], m),
    )
    n = env_int("PAWNLESS", 10)
    # Smallest first (they depend only on 4-unit tables): a run cut short keeps the most.
    spread = [pawnless[(2 * i + 1) * len(pawnless) // (2 * n)] for i in range(n)]
    add(spread, key=lambda m: (entries[m]["positions"], m))
    for m in picked:
        print(m, entries[m]["positions"])


def done_materials(results):
    done = set()
    if os.path.exists(results):
        for line in open(results):
            if line.strip():
                done.add(json.loads(line)["material"])
    return done


def cmd_run(binary, directory, sample, results):
    threads = os.environ.get("THREADS", "1")
    limit = env_int("MAX_MEMORY", 6e9)
    done = done_materials(results)
    for line in [l.split() for l in open(sample) if l.strip()]:
        m, positions = line[0], int(line[1])
        if m in done:
            continue
        if positions * BYTES_PER_POSITION > limit:
            print(f"{m}: skipped, predicted memory over {limit} bytes", file=sys.stderr)
            continue
        start = time.time()
        proc = subprocess.Popen(
            [binary, "tb", "build", m, "--tables", directory, "--threads", threads,
             "--format", "json"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.time() - start
        out = proc.stdout.read()
        err = proc.stderr.read()
        if status != 0:
            print(f"{m}: the build failed ({status}):\n{err}", file=sys.stderr)
            sys.exit(1)
        report = json.loads(out)
        built = [r for r in report["tables"] if r["status"] == "built"]
        if not built:
            print(f"{m}: already present in {directory}, not measured", file=sys.stderr)
            continue
        if len(built) != 1 or built[0]["material"] != m:
            # The sample is in dependency order: only the table itself is built.
            print(f"{m}: expected to build only {m}, built {[r['material'] for r in built]}",
                  file=sys.stderr)
            sys.exit(1)
        row = built[0]
        path = os.path.join(directory, syzygy_name(m) + ".actb")
        pawns = sum(parse(m)[0][5:] + parse(m)[1][5:])
        record = {
            "material": m,
            "class": klass(pawns),
            "pawns": pawns,
            "positions": row["positions"],
            "seconds": row["seconds"],
            "wall_seconds": wall,
            "positions_per_second": row["positions"] / row["seconds"],
            "file_bytes": os.path.getsize(path),
            "peak_rss_bytes": usage.ru_maxrss * 1024,
            "threads": int(threads),
            "binary": binary,
            "host": socket.gethostname(),
            "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        }
        with open(results, "a") as f:
            f.write(json.dumps(record) + "\n")
        print(
            f"{m}: {record['positions']} positions in {row['seconds']:.1f} s "
            f"({record['positions_per_second'] / 1e6:.2f} M/s), {record['file_bytes'] / 1e6:.1f} MB, "
            f"peak {record['peak_rss_bytes'] / 1e9:.2f} GB",
            file=sys.stderr, flush=True,
        )


def syzygy_name(m):
    w, b = m_split(m)
    return w + "v" + b.upper()


def m_split(m):
    i = next(i for i, c in enumerate(m) if c.islower())
    return m[:i], m[i:]


def cmd_report(plan_path, results):
    entries, _ = load_plan(plan_path)
    limit = env_int("MAX_MEMORY", 6e9)
    rows = [json.loads(l) for l in open(results) if l.strip()]
    five = [e for e in entries.values() if e["units"] == 5]
    classes = ["pawnless", "pawn", "promotion-heavy"]
    print(f"sample: {len(rows)} tables of the {len(five)} 5-unit materials "
          f"({sum(r['positions'] for r in rows)} of {sum(e['positions'] for e in five)} positions)")
    print(f"{'class':<16} {'sample':>6} {'positions':>14} {'seconds':>9} {'M pos/s':>8} "
          f"{'file B/pos':>10} {'peak B/pos*':>11} | {'set':>5} {'positions':>15} {'hours':>7} {'disk GB':>8}")
    total_h = total_disk = 0.0
    for c in classes:
        sample = [r for r in rows if r["class"] == c]
        members = [e for e in five if klass(e["pawns"]) == c]
        set_pos = sum(e["positions"] for e in members)
        if not sample:
            print(f"{c:<16} {0:>6} (no sample)")
            continue
        pos = sum(r["positions"] for r in sample)
        sec = sum(r["seconds"] for r in sample)
        disk = sum(r["file_bytes"] for r in sample)
        # Peak memory per position of the class's largest sample table (small tables are
        # dominated by the process and the tables they read).
        largest = max(sample, key=lambda r: r["positions"])
        peak = largest["peak_rss_bytes"] / largest["positions"]
        hours = set_pos * sec / pos / 3600
        gb = set_pos * disk / pos / 1e9
        total_h += hours
        total_disk += gb
        print(f"{c:<16} {len(sample):>6} {pos:>14} {sec:>9.0f} {pos / sec / 1e6:>8.2f} "
              f"{disk / pos:>10.3f} {peak:>11.2f} | {len(members):>5} {set_pos:>15} {hours:>7.1f} {gb:>8.1f}")
    print("(* peak resident memory per position of the class's largest table in the sample)")
    over = [e for e in five if e["positions"] * BYTES_PER_POSITION > limit]
    print(f"whole 5-unit set: {len(five)} tables, ~{total_h:.0f} hours at the sample's rates "
          f"and thread count, ~{total_disk:.0f} GB on disk; {len(over)} tables predicted over "
          f"{limit / 1e9:.0f} GB of memory at {BYTES_PER_POSITION} bytes per position "
          f"(largest {max(e['positions'] for e in five)} positions)")
    for r in rows:
        print(f"  {r['material']:<8} {r['class']:<16} {r['positions']:>11} {r['seconds']:>8.1f} s "
              f"{r['positions_per_second'] / 1e6:>6.2f} M/s {r['file_bytes'] / 1e6:>8.1f} MB "
              f"peak {r['peak_rss_bytes'] / 1e9:>5.2f} GB")


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    cmd, args = sys.argv[1], sys.argv[2:]
    commands = {"plan": (cmd_plan, 2), "pick": (cmd_pick, 1), "run": (cmd_run, 4),
                "report": (cmd_report, 2)}
    if cmd not in commands or len(args) != commands[cmd][1]:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    commands[cmd][0](*args)


if __name__ == "__main__":
    main()
