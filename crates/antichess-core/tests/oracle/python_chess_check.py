#!/usr/bin/env python3
"""Checks positions written by tests/differential_python_chess.rs against python-chess.

Each input line: FEN <TAB> sorted legal moves in UCI (space-separated) <TAB> result under
international rules <TAB> result under FICS rules, where a result is 1-0, 0-1, 1/2-1/2 or *.
International rules are python-chess's AntichessBoard, FICS rules its SuicideBoard.
Prints one line per disagreement, then "checked N".
"""

import sys

import chess
import chess.variant


def result(board):
    outcome = board.outcome()
    return "*" if outcome is None else outcome.result()


def main(path):
    checked = 0
    failures = 0
    with open(path) as f:
        for line in f:
            fen, moves, intl, fics = line.rstrip("\n").split("\t")
            fields = fen.split()
            # Our FEN never carries castling rights; zero the halfmove clock so that
            # python-chess's automatic 75-move rule does not apply (we compare positions).
            fields[2] = "-"
            fields[4] = "0"
            fen0 = " ".join(fields)
            anti = chess.variant.AntichessBoard(fen0)
            theirs = " ".join(sorted(m.uci() for m in anti.legal_moves))
            problems = []
            if theirs != moves:
                problems.append(f"moves ours [{moves}] python-chess [{theirs}]")
            if result(anti) != intl:
                problems.append(f"international result ours {intl} python-chess {result(anti)}")
            suicide = chess.variant.SuicideBoard(fen0)
            if result(suicide) != fics:
                problems.append(f"fics result ours {fics} python-chess {result(suicide)}")
            if problems:
                failures += 1
                if failures <= 20:
                    print(f"{fen}: " + "; ".join(problems))
            checked += 1
    print(f"checked {checked}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
