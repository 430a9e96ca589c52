#!/usr/bin/env python3
"""Recomputes the figures of proofs/manifest.json from the proof files, and the table of
proofs/README.md from the manifest (docs/formats/proofs-manifest.md).

    python3 proofs/manifest.py [--antichess BIN] [--tables DIR]

Each entry's `file`, `line`, `moves` and `made` are kept as written by hand; `prover`,
`nodes`, `bytes`, `tablebase_leaves`, `tablebase_units` and `tables` are taken from
`antichess proof verify FILE --format json` (which must verify). The README's table sits
between the lines `<!-- manifest -->` and `<!-- /manifest -->`. The test
crates/antichess-cli/tests/proofs_manifest.rs checks the result.
"""

import argparse
import json
import pathlib
import subprocess

HERE = pathlib.Path(__file__).resolve().parent


def verify(binary, path, tables):
    args = [binary, "proof", "verify", str(path), "--format", "json"]
    if tables:
        args += ["--tables", tables]
    out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
    stats = json.loads(out)
    if stats.get("verified") is not True:
        raise SystemExit(f"{path} does not verify: {stats}")
    return stats


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--antichess", default="antichess")
    parser.add_argument("--tables", default=None)
    args = parser.parse_args()
    manifest_path = HERE / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    for entry in manifest["proofs"]:
        path = HERE / entry["file"]
        stats = verify(args.antichess, path, args.tables)
        entry["prover"] = stats["prover"]
        entry["nodes"] = stats["counts"]["total"]
        entry["bytes"] = path.stat().st_size
        entry["tablebase_leaves"] = stats["counts"]["tablebase"]
        entry["tablebase_units"] = stats["tablebase_units"]
        entry["tables"] = [
            {"material": t["material"], "checksum": t["recorded"]}
            for t in (stats.get("tables") or [])
        ]
    manifest_path.write_text(json.dumps(manifest, indent=2) + "\n")

    rows = [
        "| file | line | prover | nodes | bytes | tables relied on | search to the proof |",
        "|---|---|---|---:|---:|---|---|",
    ]
    for e in manifest["proofs"]:
        n = len(e["tables"])
        tables = (
            f"{n} table{'s' if n > 1 else ''} of ≤ {e['tablebase_units']} units "
            f"({e['tablebase_leaves']:,} leaves)"
            if n
            else ("not recorded" if e["tablebase_leaves"] else "none")
        )
        made = e["made"]
        if made.get("book_searches") is not None:
            how = f"{made['seconds']:,.1f} s, a book of {made['book_searches']:,} searches"
        elif made.get("seconds") is not None:
            how = f"{made['seconds']:,.1f} s, {made['search_nodes']:,} positions"
        else:
            how = "see below"
        rows.append(
            f"| `{e['file']}` | {e['line']} | {e['prover']} | {e['nodes']:,} | "
            f"{e['bytes']:,} | {tables} | {how} |"
        )
    readme_path = HERE / "README.md"
    readme = readme_path.read_text()
    start, end = "<!-- manifest -->", "<!-- /manifest -->"
    head, rest = readme.split(start, 1)
    _, tail = rest.split(end, 1)
    readme_path.write_text(head + start + "\n" + "\n".join(rows) + "\n" + end + tail)


if __name__ == "__main__":
    main()
