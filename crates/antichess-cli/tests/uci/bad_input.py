"""Bad input: an unknown command, an illegal move in `position`, a malformed FEN, bad
option values and arguments, and random garbage (seeded) each get an `info string`
naming them; the engine stays alive (answers `isready`, then plays a legal move) and
exits with 0 on `quit`."""

import random

import chess
import chess.variant

from uci_common import Raw, check, usage

binary, proofs = usage()
raw = Raw(binary, "--proofs", proofs)
raw.send("uci")
raw.until("uciok")

cases = [
    ("flibbertigibbet 3", "unknown command 'flibbertigibbet'"),
    ("position startpos moves e2e3 e7e5 e1e5", "illegal move 'e1e5'"),
    ("position fen rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1", "malformed FEN 'rnbqkbnr/pppppppp/9/8"),
    ("position fen 8/8/8/8 w", "malformed FEN '8/8/8/8 w'"),
    ("position sideways", "expected 'startpos' or 'fen', got 'sideways'"),
    ("go movetime soon", "'movetime' needs a number, got 'soon'"),
    ("setoption name UCI_Variant value crazyhouse", "unknown variant 'crazyhouse'"),
    ("setoption name Hash value -1", "'-1' is not a whole number"),
    ("setoption name Colour value blue", "option 'Colour': no such option"),
    ("setoption name Proofs value /no/such/proofs", "/no/such/proofs"),
]
for line, expected in cases:
    raw.send(line)
    raw.send("isready")
    lines = raw.until("readyok")
    infos = [l for l in lines if l.startswith("info string")]
    check(any(expected in l for l in infos), f"{line!r}: no info string with {expected!r}: {lines}")
raw.send("setoption name Proofs value " + proofs)

# Garbage: random bytes, random words of the protocol in random order, long lines.
rng = random.Random(38)
words = ["uci", "isready", "position", "startpos", "fen", "moves", "go", "depth", "nodes",
         "movetime", "wtime", "btime", "winc", "binc", "movestogo", "searchmoves", "stop",
         "setoption", "name", "value", "Hash", "Threads", "Rules", "UCI_Variant", "e2e3",
         "e7e5", "a1a8", "e7e8k", "0000", "-5", "99999999999999999999", "8/8/8", "w", "b",
         "-", "0", "1", "\t", "ucinewgame", "debug", "on", "ponderhit"]
for i in range(300):
    kind = rng.randrange(3)
    if kind == 0:
        data = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 80)))
        data = data.replace(b"\n", b" ") + b"\n"
    elif kind == 1:
        tokens = [rng.choice(words) for _ in range(rng.randrange(1, 12))]
        if tokens[0] == "go":
            # A search with a small budget (an unbounded one would wait for the next command).
            tokens = ["go", "nodes", str(rng.randrange(1, 500))] + tokens[1:]
        data = (" ".join(tokens) + "\n").encode()
    else:
        data = ("x" * rng.randrange(1000, 20000) + "\n").encode()
    if b"quit" in data:
        continue
    raw.send(data)
    if i % 25 == 0:
        raw.send("stop")
        raw.send("isready")
        raw.until("readyok")

raw.send("stop")
raw.send("ucinewgame")
raw.send("setoption name UCI_Variant value antichess")
raw.send("position startpos moves e2e3")
raw.send("go nodes 2000")
best = raw.until("bestmove")[-1].split()[1]
board = chess.variant.AntichessBoard()
board.push_uci("e2e3")
check(chess.Move.from_uci(best) in board.legal_moves, f"illegal {best}")
check(not any("internal error" in l for l in raw.seen), [l for l in raw.seen if "internal error" in l])
raw.quit()
print("all checks passed")
