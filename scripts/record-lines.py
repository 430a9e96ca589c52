#!/usr/bin/env python3
"""Turn the 2016 solution's published lines into a hints file for `antichess prove --hints`.

Mark Watkins published, with his proof that 1. e3 wins, the lines of his solution tree down
to the nodes whose subtrees hold fewer than 1,000 positions ("N=1000 paths",
http://magma.maths.usyd.edu.au/~watkins/LOSING_CHESS/lines.html; a copy is kept in the
public repository github.com/NotAnOctopus/suicide-chess). Each file holds lines of UCI moves
after 1. e3; a line whose last word is a file name goes on in that file, along the lines
there that begin with the line's last move (the big subtrees are split that way).

This script expands those references and writes, for the replies to 1. e3 asked for, one
line per text line from the start position (e2e3 first), the format of `--hints`
(docs/formats/hints.md):

    scripts/record-lines.py DIR MAIN_FILE --reply g8h6 > nh6.hints
    antichess prove --moves "e3 Nh6" -o nh6.proof --hints nh6.hints

The lines are the record's moves, not a proof: `prove` only lets them steer its walk, and
its own searches decide every node. Nothing from the record is shipped in this repository.
"""

import argparse
import os
import sys


def read_lines(path):
    with open(path, encoding="utf-8") as f:
        return [line.split() for line in f if line.strip()]


def find(directory, name):
    """A referenced file: `name` under the top directory, or the one file of that base name
    in a subdirectory (the published files refer to modern/july.txt as july.txt too)."""
    if os.path.exists(os.path.join(directory, name)):
        return name
    found = [
        os.path.relpath(os.path.join(root, name), directory)
        for root, _, files in os.walk(directory)
        if name in files
    ]
    if len(found) != 1:
        sys.exit(f"record-lines: {name}: referenced, found {len(found)} such files under {directory}")
    return found[0]


def expand(directory, name, first=None, depth=0, cache=None):
    """The lines of file `name` (those beginning with `first`, if given), references
    expanded. A reference's lines go on from the referring line's last move."""
    if depth > 20:
        sys.exit(f"record-lines: references nested too deep at {name}")
    cache = {} if cache is None else cache
    if name not in cache:
        path = os.path.join(directory, name)
        if not os.path.exists(path):
            sys.exit(f"record-lines: {path}: no such file (referenced lines)")
        cache[name] = read_lines(path)
    # A file's references are to files beside it.
    here = os.path.dirname(name)
    out = []
    for words in cache[name]:
        if first is not None and words[0] != first:
            continue
        if words[-1].endswith(".txt"):
            prefix = words[:-1]
            if not prefix:
                sys.exit(f"record-lines: {name}: a reference with no moves before it")
            target = os.path.join(here, words[-1])
            if not os.path.exists(os.path.join(directory, target)):
                target = find(directory, words[-1])
            for rest in expand(directory, target, prefix[-1], depth + 1, cache):
                out.append(prefix[:-1] + rest)
        else:
            out.append(words)
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("directory", help="where the lines files are")
    parser.add_argument("main", help="the file of lines after 1. e3 (it may refer to others)")
    parser.add_argument(
        "--reply",
        action="append",
        help="keep the lines of this reply to 1. e3 (UCI, e.g. g8h6; repeatable; default all)",
    )
    args = parser.parse_args()
    lines = expand(args.directory, args.main)
    kept = 0
    for words in lines:
        if args.reply and words[0] not in args.reply:
            continue
        print("e2e3 " + " ".join(words))
        kept += 1
    print(f"record-lines: {kept} line(s) written of {len(lines)}", file=sys.stderr)


if __name__ == "__main__":
    main()
