"""Legal moves in every position of random games: random openings, then the engine plays
both sides with small budgets (nodes or time), under the international rules
(AntichessBoard) and the FICS rules (SuicideBoard), with and without the proofs; and the
royal rule sets on a plain chess.Board (python-chess sends `UCI_Variant chess`, the engine
plays pritchard3, or pritchard4 when Rules says so), whose moves must be orthodox moves."""

import random

import chess
import chess.engine
import chess.variant

from uci_common import check, engine, random_move, usage

binary, proofs = usage()
games = [
    (chess.variant.AntichessBoard, proofs, chess.engine.Limit(nodes=3000), 11),
    (chess.variant.AntichessBoard, "", chess.engine.Limit(time=0.03), 12),
    (chess.variant.SuicideBoard, "", chess.engine.Limit(nodes=3000), 13),
    (chess.variant.AntichessBoard, proofs, chess.engine.Limit(depth=3), 14),
]
positions = 0
for board_type, proof_option, limit, seed in games:
    rng = random.Random(seed)
    board = board_type()
    with engine(binary, proof_option) as e:
        for _ in range(rng.randrange(2, 9)):
            if board.is_game_over():
                break
            board.push(random_move(board, rng))
        # The engine plays both sides, and a random move now and then keeps it varied.
        while not board.is_game_over() and board.ply() < 70:
            result = e.play(board, limit)
            check(result.move in board.legal_moves,
                  f"illegal {result.move} in {board.fen()} ({board_type.uci_variant})")
            positions += 1
            board.push(result.move if rng.random() < 0.8 else random_move(board, rng))
    print(f"{board_type.uci_variant} seed {seed}: {board.ply()} plies, {board.result()}")
# The royal rule sets: the engine plays both sides from the start (a random move of
# python-chess's could be a castling or a move the compulsory capture forbids).
for rules, limit in [("pritchard3", chess.engine.Limit(nodes=2000)),
                     ("pritchard4", chess.engine.Limit(depth=2))]:
    board = chess.Board()
    with engine(binary, "") as e:
        e.configure({"Rules": rules})
        while not board.is_game_over() and board.ply() < 40:
            result = e.play(board, limit)
            if not result.move:
                # No move: the game is over by the royal rules where python-chess's goes
                # on, which happens only when a side has nothing but its king.
                bare = [c for c in chess.COLORS if board.occupied_co[c] == board.kings & board.occupied_co[c]]
                check(bare, f"no move in {board.fen()} ({rules}), and no bare king")
                break
            check(result.move in board.legal_moves,
                  f"illegal {result.move} in {board.fen()} ({rules})")
            positions += 1
            board.push(result.move)
    print(f"chess.Board under {rules}: {board.ply()} plies")
check(positions > 100, f"only {positions} positions")
print("all checks passed")
