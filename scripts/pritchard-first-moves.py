#!/usr/bin/env python3
"""The first-move table of Pritchard's variants 3 and 4 (issue 41): for each of White's 20
first moves and each rule set (pritchard3, pritchard4), `antichess solve` with Black as the
prover (does the first move lose by force?) within a node budget, every proof written and
then checked again by `antichess proof verify`. Writes a Markdown table.

    scripts/pritchard-first-moves.py --nodes 100M --out docs/research/pritchard-first-moves.md

Options: --antichess PATH (default: target/release/antichess, else `antichess` on PATH),
--nodes N (budget per search, as `solve --nodes` takes it; default 1M), --hash SIZE
(default 256M), --rules (default both), --proofs DIR (where proofs are kept; default a
temporary directory), --out FILE (default: standard output).

A proof that fails `proof verify` stops the script with an error: the table only lists
verified proofs.

Resumable: each finished cell is recorded in `results.json` in the proofs directory (with
the budget it had); run the same command again and the cells recorded with the same
budget are taken from there instead of searched again.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile


def run(cmd):
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"error: {' '.join(cmd)} exited {out.returncode}:\n{out.stderr}")
    return out.stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--antichess")
    ap.add_argument("--nodes", default="1M")
    ap.add_argument("--hash", default="256M")
    ap.add_argument("--rules", nargs="+", default=["pritchard3", "pritchard4"])
    ap.add_argument("--proofs")
    ap.add_argument("--out")
    ap.add_argument("--recorded-only", action="store_true",
                    help="search nothing: write the table from results.json, cells not yet run marked so")
    args = ap.parse_args()
    exe = args.antichess
    if exe is None:
        exe = "target/release/antichess" if os.path.exists("target/release/antichess") else "antichess"
    proofs = args.proofs or tempfile.mkdtemp(prefix="pritchard-first-moves-")
    os.makedirs(proofs, exist_ok=True)

    first = json.loads(run([exe, "moves", "--rules", args.rules[0], "--format", "json"]))
    moves = [m["san"] for m in first["moves"]]
    if len(moves) != 20:
        sys.exit(f"error: expected 20 first moves, got {len(moves)}")

    results_path = os.path.join(proofs, "results.json")
    done = {}
    if os.path.exists(results_path):
        with open(results_path) as f:
            done = json.load(f)
    rows = {}
    for rules in args.rules:
        for san in moves:
            key = f"{rules} {san}"
            if key in done and done[key].get("budget") == args.nodes:
                rows[(rules, san)] = done[key]
                print(f"{rules} 1. {san}: {done[key]['result']} (recorded)", file=sys.stderr)
                continue
            if args.recorded_only:
                rows[(rules, san)] = {"result": "not run", "nodes": 0, "proof_nodes": None}
                continue
            proof = os.path.join(proofs, f"{rules}-{san}.proof")
            cmd = [exe, "solve", "--rules", rules, "--moves", san, "--prover", "black",
                   "--tb-units", "0", "--nodes", args.nodes, "--hash", args.hash,
                   "--proof", proof, "--format", "json"]
            v = json.loads(run(cmd))
            cell = {"result": v["result"], "nodes": v["nodes"], "proof_nodes": None,
                    "seconds": v.get("seconds")}
            if v["result"] == "proved":
                check = json.loads(run([exe, "proof", "verify", proof, "--format", "json"]))
                if not check.get("valid", check.get("verified", False)):
                    sys.exit(f"error: the proof of {rules} 1. {san} did not verify: {check}")
                cell["proof_nodes"] = v.get("proof_nodes")
            cell["budget"] = args.nodes
            rows[(rules, san)] = cell
            done[key] = cell
            with open(results_path + ".tmp", "w") as f:
                json.dump(done, f, indent=1, sort_keys=True)
            os.replace(results_path + ".tmp", results_path)
            print(f"{rules} 1. {san}: {v['result']} ({v['nodes']} nodes)", file=sys.stderr)
    searched = sum(c.get("seconds") or 0 for c in rows.values())

    verdict = {"proved": "**loses**", "disproved": "no forced loss", "unknown": "open"}
    lines = [
        f"Black to move after White's first move; `antichess solve --prover black "
        f"--tb-units 0 --nodes {args.nodes}` per cell, each proof checked again by "
        f"`antichess proof verify` ({searched:.0f} s of search in all). \"loses\": Black wins by force "
        f"(proof nodes in brackets); \"no forced loss\": Black cannot force a win (draw "
        f"counts as a failure for the prover); \"open\": budget exhausted"
        + ("; \"not run\": not searched yet (the run is resumable)." if any(
            c["result"] == "not run" for c in rows.values()) else "."),
        "",
        "| 1. | " + " | ".join(args.rules) + " |",
        "|---|" + "---|" * len(args.rules),
    ]
    for san in moves:
        cells = []
        for rules in args.rules:
            c = rows[(rules, san)]
            text = verdict.get(c["result"], c["result"])
            if c["proof_nodes"] is not None:
                text += f" ({c['proof_nodes']:,})"
            cells.append(f"{text}, {c['nodes']:,} nodes" if c["nodes"] else text)
        lines.append(f"| {san} | " + " | ".join(cells) + " |")
    table = "\n".join(lines) + "\n"
    if args.out:
        with open(args.out, "w") as f:
            f.write(table)
    else:
        sys.stdout.write(table)
    if not args.proofs:
        shutil.rmtree(proofs)


if __name__ == "__main__":
    main()
