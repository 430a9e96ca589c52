"""The time control is respected: a game at 1 s + 0.1 s per move for each side, the engine
playing both, its clocks kept here as a GUI keeps them (wall time from sending `go` to
receiving `bestmove`, then the increment); no clock may fall to zero. The game is cut
after 50 plies (the clocks matter most early, before increments pile up)."""

import time

import chess
import chess.engine
import chess.variant

from uci_common import check, engine, usage

binary, proofs = usage()
board = chess.variant.AntichessBoard()
clock = {chess.WHITE: 1.0, chess.BLACK: 1.0}
least = 1.0
with engine(binary, proofs) as e:
    e.ping()
    while not board.is_game_over() and board.ply() < 50:
        limit = chess.engine.Limit(
            white_clock=clock[chess.WHITE], black_clock=clock[chess.BLACK],
            white_inc=0.1, black_inc=0.1)
        started = time.monotonic()
        result = e.play(board, limit)
        spent = time.monotonic() - started
        clock[board.turn] -= spent
        least = min(least, clock[board.turn])
        check(clock[board.turn] > 0, f"lost on time at ply {board.ply()}: {clock}")
        clock[board.turn] += 0.1
        check(result.move in board.legal_moves, f"illegal {result.move}")
        board.push(result.move)
print(f"{board.ply()} plies, least time left {least:.3f} s, clocks {clock}")
print("all checks passed")
