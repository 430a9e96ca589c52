#!/usr/bin/env python3
"""Checks the orthodox-chess positions written by tests/differential_orthodox.rs against
python-chess's chess.Board (orthodox rules).

Each input line: FEN <TAB> sorted legal moves in UCI (space-separated) <TAB> ending
("checkmate", "stalemate" or "-") <TAB> perft depth <TAB> perft count.
Prints one line per disagreement, then "checked N".
"""

import sys

import chess


def perft(board, depth):
    if depth == 0:
        return 1
    if depth == 1:
        return board.legal_moves.count()
    total = 0
    for move in list(board.legal_moves):
        board.push(move)
        total += perft(board, depth - 1)
        board.pop()
    return total


def ending(board):
    if board.is_checkmate():
        return "checkmate"
    if board.is_stalemate():
        return "stalemate"
    return "-"


def main(path):
    checked = 0
    failures = 0
    with open(path) as f:
        for line in f:
            fen, moves, end, depth, count = line.rstrip("\n").split("\t")
            board = chess.Board(fen)
            theirs = " ".join(sorted(m.uci() for m in board.legal_moves))
            problems = []
            if theirs != moves:
                problems.append(f"moves ours [{moves}] python-chess [{theirs}]")
            if ending(board) != end:
                problems.append(f"ending ours {end} python-chess {ending(board)}")
            n = perft(board, int(depth))
            if n != int(count):
                problems.append(f"perft({depth}) ours {count} python-chess {n}")
            if problems:
                failures += 1
                if failures <= 20:
                    print(f"{fen}: " + "; ".join(problems))
            checked += 1
    print(f"checked {checked}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
