#!/usr/bin/env python3
"""An independent implementation of Pritchard's variants 3 and 4 of losing chess (royal
king) on python-chess's orthodox chess.Board, and the checker of the playouts written by
tests/differential_royal.rs.

The rules, from the Encyclopedia of Chess Variants as issue 41 states them:
  - a side to move with a bare king (only its king left) has won: no move;
  - in check, every orthodox evasion is legal;
  - otherwise, if a legal move captures, only captures are legal;
  - otherwise every orthodox legal move; no castling; promotion to Q, R, B, N;
  - no legal move: in check, variant 3 the mater wins, variant 4 the mated side wins;
    otherwise (stalemate) a draw.

Input lines: variant (3 or 4) <TAB> FEN <TAB> sorted legal moves in UCI (space-separated)
<TAB> outcome ("1-0", "0-1", "1/2-1/2" or "-") <TAB> SAN of every legal move in the order
of the sorted UCI moves (space-separated) <TAB> perft depth <TAB> perft count.
Prints one line per disagreement, then "checked N".

`python_chess_royal.py perft DEPTH [FEN]` prints the perft counts 1..DEPTH instead.
"""

import sys

import chess


def bare(board, color):
    return chess.popcount(board.occupied_co[color]) == 1


def legal_moves(board):
    if bare(board, board.turn):
        return []
    moves = list(board.legal_moves)
    if board.is_check():
        return moves
    captures = [m for m in moves if board.is_capture(m)]
    return captures if captures else moves


def outcome(board, variant):
    if bare(board, board.turn):
        winner = board.turn
    elif legal_moves(board):
        return "-"
    elif board.is_check():
        winner = (not board.turn) if variant == 3 else board.turn
    else:
        return "1/2-1/2"
    return "1-0" if winner == chess.WHITE else "0-1"


def perft(board, depth):
    if depth == 0:
        return 1
    moves = legal_moves(board)
    if depth == 1:
        return len(moves)
    total = 0
    for move in moves:
        board.push(move)
        total += perft(board, depth - 1)
        board.pop()
    return total


def board_of(fen):
    board = chess.Board(fen)
    board.castling_rights = chess.BB_EMPTY
    return board


def check(path):
    checked = 0
    failures = 0
    with open(path) as f:
        for line in f:
            variant, fen, moves, end, sans, depth, count = line.rstrip("\n").split("\t")
            board = board_of(fen)
            problems = []
            legal = sorted(legal_moves(board), key=lambda m: m.uci())
            theirs = " ".join(m.uci() for m in legal)
            if theirs != moves:
                problems.append(f"moves ours [{moves}] python-chess [{theirs}]")
            else:
                their_sans = " ".join(board.san(m) for m in legal)
                if their_sans != sans:
                    problems.append(f"SAN ours [{sans}] python-chess [{their_sans}]")
            theirs = outcome(board, int(variant))
            if theirs != end:
                problems.append(f"outcome ours {end} python-chess {theirs}")
            n = perft(board, int(depth))
            if n != int(count):
                problems.append(f"perft({depth}) ours {count} python-chess {n}")
            if problems:
                failures += 1
                if failures <= 20:
                    print(f"variant {variant} {fen}: " + "; ".join(problems))
            checked += 1
    print(f"checked {checked}")
    return 1 if failures else 0


def main(args):
    if args[0] == "perft":
        board = board_of(args[2] if len(args) > 2 else chess.STARTING_FEN)
        for depth in range(1, int(args[1]) + 1):
            print(f"perft {depth} {perft(board, depth)}", flush=True)
        return 0
    return check(args[0])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
