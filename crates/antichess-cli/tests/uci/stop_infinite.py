"""`stop` during `go infinite`: the engine keeps thinking (no `bestmove`) until `stop`, then
answers a legal move at once; in a search position and in a proof position (where it knows
its move at once but must still wait). Also through python-chess's analysis."""

import chess
import chess.engine
import chess.variant

from uci_common import Raw, check, engine, usage

binary, proofs = usage()

for moves, where in (("e2e3 b7b6", "search"), ("e2e3 g7g6", "proof")):
    raw = Raw(binary, "--proofs", proofs)
    raw.send("uci")
    raw.until("uciok")
    raw.send(f"position startpos moves {moves}")
    raw.send("go infinite")
    early = raw.pending(0.5)
    check(not any(l.startswith("bestmove") for l in early), f"{where}: bestmove before stop: {early}")
    raw.send("stop")
    lines = raw.until("bestmove", timeout=20)
    best = lines[-1].split()[1]
    board = chess.variant.AntichessBoard()
    for m in moves.split():
        board.push_uci(m)
    check(chess.Move.from_uci(best) in board.legal_moves, f"{where}: illegal {best}")
    raw.send("isready")
    raw.until("readyok")
    raw.quit()
    print(f"{where}: bestmove {best} after stop")

board = chess.variant.AntichessBoard()
board.push_uci("e2e3")
with engine(binary, "") as e:
    with e.analysis(board) as analysis:
        for info in analysis:
            if info.get("depth", 0) >= 2:
                break
        analysis.stop()
        best = analysis.wait()
    check(best.move in board.legal_moves, f"analysis: illegal {best.move}")
print("all checks passed")
