"""A full game from the proved line 1. e3 g6: the engine (White) follows its proof and
wins against a random mover; every engine move comes from the proof, with a mate score, and
names the proof's reply as its ponder move."""

import random

import chess
import chess.engine
import chess.variant

from uci_common import check, engine, random_move, usage

binary, proofs = usage()
ponders = 0
for seed in (1, 2):
    rng = random.Random(seed)
    board = chess.variant.AntichessBoard()
    board.push_uci("e2e3")
    board.push_uci("g7g6")
    with engine(binary, proofs) as e:
        while not board.is_game_over() and board.ply() < 400:
            if board.turn == chess.WHITE:
                result = e.play(board, chess.engine.Limit(time=0.05), info=chess.engine.INFO_ALL)
                check(result.move in board.legal_moves, f"illegal {result.move} in {board.fen()}")
                text = result.info.get("string", "")
                check("proof e3-g6.proof" in text, f"not from the proof at {board.fen()}: {result.info}")
                score = result.info.get("score")
                check(score is not None and score.white().is_mate() and score.white().mate() > 0,
                      f"no proved mate score at {board.fen()}: {result.info}")
                board.push(result.move)
                # The proof's expected reply is named as the ponder move (issue 63).
                if not board.is_game_over():
                    check(result.ponder is not None and result.ponder in board.legal_moves,
                          f"no legal ponder move after {result.move}: {result.ponder}")
                    ponders += 1
            else:
                board.push(random_move(board, rng))
    outcome = board.outcome()
    check(outcome is not None and outcome.winner == chess.WHITE,
          f"seed {seed}: not won: {board.result()} after {board.ply()} plies, {board.fen()}")
    print(f"seed {seed}: White won in {board.ply()} plies")
check(ponders > 10, f"only {ponders} ponder moves")
print("all checks passed")
