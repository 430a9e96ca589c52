#!/usr/bin/env python3
"""Cross-checks a table against the proof-number search, on random positions.

    scripts/tb-vs-search.py ANTICHESS TABLES SMALLER WHITE N [SEED] [NODES]

Places the white units WHITE (e.g. NNNNN) and a lone black king on random squares, N
times, either side to move; reads each position's value from the table in TABLES
(`tb probe`) and solves it with the search using only the tables in SMALLER, a directory
without that table (`solve --tb-units 4 --nodes NODES`, one thread). The table says "win"
exactly when the search proves the side to move wins, or the search gives up ("unknown").
Prints one line per position and exits 1 on any disagreement. Used for the 6-unit tables
(docs/benchmarks.md, 2026-11-27).
"""
import json
import random
import subprocess
import sys


def fen_of(board, turn):
    rows = []
    for r in range(7, -1, -1):
        row, empty = "", 0
        for f in range(8):
            p = board.get(r * 8 + f)
            if p is None:
                empty += 1
                continue
            if empty:
                row += str(empty)
                empty = 0
            row += p
        rows.append(row + (str(empty) if empty else ""))
    return "/".join(rows) + f" {turn} - - 0 1"


def main():
    if len(sys.argv) < 6:
        sys.exit(__doc__)
    exe, tables, smaller, white, n = sys.argv[1:6]
    rng = random.Random(int(sys.argv[6]) if len(sys.argv) > 6 else 1)
    nodes = sys.argv[7] if len(sys.argv) > 7 else "30M"
    bad = 0
    for _ in range(int(n)):
        squares = rng.sample(range(64), len(white) + 1)
        board = dict(zip(squares, white + "k"))
        fen = fen_of(board, rng.choice("wb"))
        probe = subprocess.run(
            [exe, "tb", "probe", "--fen", fen, "--tables", tables, "--format", "json"],
            capture_output=True, text=True, check=True)
        table = json.loads(probe.stdout)
        solve = subprocess.run(
            [exe, "solve", "--fen", fen, "--tables", smaller, "--tb-units", "4",
             "--nodes", nodes, "--format", "json", "--threads", "1"],
            capture_output=True, text=True, check=True)
        result = json.loads(solve.stdout)["result"]
        agrees = result == "unknown" or (table["category"] == "win") == (result == "proved")
        bad += not agrees
        print(f"{fen} | table {table['category']} {table['dtc']} | search {result}"
              + ("" if agrees else " | DISAGREE"), flush=True)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
