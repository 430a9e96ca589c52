#!/usr/bin/env python3
"""Strength benchmark of `antichess uci` (issue 38 item 3), with python-chess.

Two parts:

  proved    From the root of every proof in --proofs (a directory of *.proof files; their
            root and prover are read with `antichess proof stats --format json`), the
            engine plays the prover against (1) a random mover, --random-games games with
            seeds 1.., (2) itself: a second `antichess uci` without proofs (it searches)
            and a third with the proofs (it plays the longest resistance in the proof)
            (--no-self: not these), and (3) each --baseline engine (issue 63: Debian's
            fairy-stockfish, at --movetime ms a move for both sides). Every game must be
            won by the prover.

  match     Games from a set of varied openings (each played twice, colours swapped)
            against a baseline engine at equal time (--movetime ms per move, or
            --clock s and --inc s). The baseline is any UCI engine that speaks antichess
            (e.g. Fairy-Stockfish, built from the pyffish sdist: see docs/benchmarks.md),
            or "random" (a random mover).

  selfplay  Games of a baseline engine against itself, for the learned evaluation's data
            set (`antichess learn dataset --games FILE`, issue 60): each from a random
            opening of --random-plies plies (seeded: game i uses seed --seed + i), then
            --nodes nodes a move for both sides (Threads 1 and a node limit make
            Fairy-Stockfish's games repeatable), written to one PGN file (-o).

  latency   A fresh `antichess uci` process for each position after 1. e3 (its 20 replies,
            or --moves), --starts starts each: `uci`, `isready` (answered at once; the
            proofs' indexes open in the background), then the time from sending
            `position startpos moves ...` and `go depth 1` to `bestmove` (issue 63: within
            100 ms once the indexes exist, `antichess proof index proofs/`). Prints each
            position's times and the largest; exits 1 if any is over --limit ms.

  mates     antichess uci against itself (one process a side) from the openings at
            --movetime ms a move (issue 63): every `score mate N` with N > 0 it announces
            is recorded, and the side that announced it must win the game. Prints each
            game and the announcements that were not kept (lost, drawn or unfinished);
            exits 1 if any was lost.

Prints the results; --pgn-dir keeps every game as PGN. Example:

  scripts/uci-match.py --engine target/release/antichess proved --pgn-dir /tmp/games
  scripts/uci-match.py --engine target/release/antichess match \\
      --baseline /tmp/fairy-stockfish --movetime 200 --pgn-dir /tmp/games
"""

import argparse
import datetime
import json
import os
import random
import subprocess
import sys
import time

import chess
import chess.engine
import chess.pgn
import chess.variant

OPENINGS = [
    "e2e3 b7b5",
    "e2e3 e7e6",
    "e2e4 b7b5",
    "g2g3 e7e6",
    "b2b3 e7e6",
    "c2c4 g7g5",
    "d2d3 e7e6",
    "g1h3 g7g5",
    "a2a3 b7b6",
    "c2c3 b7b6",
    "e2e3 c7c5",
    "b2b4 e7e6",
    # Twelve more (2026-12-06), for the 20 openings of issue 60's match; the three 1. e3
    # replies are among the six no proof covers.
    "e2e3 g7g5",
    "e2e3 b7b6",
    "e2e3 g8h6",
    "g2g4 e7e6",
    "c2c4 e7e6",
    "b2b3 c7c5",
    "g1h3 e7e6",
    "a2a3 e7e6",
    "b2b4 b7b5",
    "g2g3 b7b6",
    "c2c3 e7e6",
    "d2d3 c7c5",
]


ENGINE_OPTIONS = []


def engine_cmd(binary, proofs):
    return [binary, "uci", "--proofs", proofs, *ENGINE_OPTIONS]


def play_game(board, white, black, limit_for, max_plies, rng=None):
    """Plays from `board`; white/black are engines or "random". Returns (board, info)."""
    comments = {}
    while not board.is_game_over(claim_draw=True) and board.ply() < max_plies:
        player = white if board.turn == chess.WHITE else black
        if player == "random":
            move = rng.choice(sorted(board.legal_moves, key=lambda m: m.uci()))
        else:
            limit = limit_for(board)
            result = player.play(board, limit, info=chess.engine.INFO_BASIC | chess.engine.INFO_SCORE)
            move = result.move
            if move not in board.legal_moves:
                raise SystemExit(f"illegal move {move} in {board.fen()}")
            text = []
            if "score" in result.info:
                text.append(str(result.info["score"].white()))
            if "string" in result.info:
                text.append(result.info["string"])
            comments[board.ply()] = " ".join(text)
        board.push(move)
    return board, comments


def to_pgn(board, comments, headers):
    game = chess.pgn.Game.from_board(board)
    for k, v in headers.items():
        game.headers[k] = v
    start_ply = board.root().ply()
    for i, node in enumerate(game.mainline()):
        c = comments.get(start_ply + i)
        if c:
            node.comment = c
    if board.is_game_over(claim_draw=True):
        game.headers["Result"] = board.result(claim_draw=True)
    else:
        game.headers["Result"] = "*"
    return str(game)


def outcome_of(board):
    if not board.is_game_over(claim_draw=True):
        return None
    return board.outcome(claim_draw=True).winner


def proof_roots(binary, proofs_dir):
    roots = []
    for name in sorted(os.listdir(proofs_dir)):
        if not name.endswith(".proof"):
            continue
        path = os.path.join(proofs_dir, name)
        out = subprocess.run([binary, "proof", "stats", path, "--format", "json"],
                             capture_output=True, text=True)
        if out.returncode != 0:
            print(f"{name}: cannot read: {out.stderr.strip()}")
            continue
        stats = json.loads(out.stdout)
        if stats.get("rules") != "international":
            print(f"{name}: {stats.get('rules')} rules, skipped")
            continue
        roots.append((name, stats["root_fen"], stats["prover"]))
    return roots


def save(pgn_dir, name, text):
    if pgn_dir:
        os.makedirs(pgn_dir, exist_ok=True)
        with open(os.path.join(pgn_dir, name), "w") as f:
            f.write(text + "\n")


def proved(args):
    roots = proof_roots(args.engine, args.proofs)
    limit = chess.engine.Limit(time=args.movetime / 1000)
    total = wins = 0
    for name, fen, prover in roots:
        prover_color = chess.WHITE if prover == "white" else chess.BLACK
        opponents = [(f"random mover (seed {s})", "random", s) for s in range(1, args.random_games + 1)]
        if not args.no_self:
            opponents.append(("antichess uci, without the proofs (searching)", "search", 0))
            opponents.append(("antichess uci, with the proofs (longest resistance)", "proofs", 0))
        for i, baseline in enumerate(args.baseline):
            opponents.append((f"{os.path.basename(baseline)} at {args.movetime} ms", "baseline", i + 1))
        for label, kind, seed in opponents:
            main = chess.engine.SimpleEngine.popen_uci(engine_cmd(args.engine, args.proofs))
            other = "random"
            if kind == "search":
                other = chess.engine.SimpleEngine.popen_uci(engine_cmd(args.engine, ""))
            elif kind == "proofs":
                other = chess.engine.SimpleEngine.popen_uci(engine_cmd(args.engine, args.proofs))
            elif kind == "baseline":
                other = chess.engine.SimpleEngine.popen_uci(args.baseline[seed - 1])
            board = chess.variant.AntichessBoard(fen)
            white, black = (main, other) if prover_color == chess.WHITE else (other, main)
            rng = random.Random(seed)
            board, comments = play_game(board, white, black, lambda b: limit, args.max_plies, rng)
            for e in (main, other):
                if e != "random":
                    e.quit()
            won = outcome_of(board) == prover_color
            total += 1
            wins += won
            print(f"{name} ({prover}) vs {label}: {'won' if won else 'NOT WON ' + board.result(claim_draw=True)} in {board.ply()} plies")
            headers = {
                "Event": f"antichess uci from {name}",
                "Date": datetime.date.today().strftime("%Y.%m.%d"),
                "White": "antichess uci" if prover_color == chess.WHITE else label,
                "Black": "antichess uci" if prover_color == chess.BLACK else label,
                "Variant": "Antichess",
            }
            stem = name.removesuffix(".proof")
            save(args.pgn_dir, f"{stem}-vs-{kind}{seed or ''}.pgn", to_pgn(board, comments, headers))
    print(f"proved lines: {wins}/{total} games won by the prover")
    return wins == total


def match(args):
    if args.movetime:
        fixed = chess.engine.Limit(time=args.movetime / 1000)
    else:
        fixed = None
    rng = random.Random(args.seed)
    score = {"win": 0, "draw": 0, "loss": 0, "unfinished": 0}
    games = 0
    for i, opening in enumerate(OPENINGS[: args.openings]):
        for ours in (chess.WHITE, chess.BLACK):
            main = chess.engine.SimpleEngine.popen_uci(engine_cmd(args.engine, args.proofs))
            main.configure(dict(o.split("=", 1) for o in args.engine_option))
            if args.baseline == "random":
                base = "random"
            else:
                base = chess.engine.SimpleEngine.popen_uci(args.baseline)
                base.configure({k: v for k, v in [("Threads", 1)] if k in base.options})
            board = chess.variant.AntichessBoard()
            for m in opening.split():
                board.push_uci(m)
            clocks = {chess.WHITE: args.clock, chess.BLACK: args.clock}

            def limit_for(b):
                if fixed is not None:
                    return fixed
                return chess.engine.Limit(white_clock=clocks[chess.WHITE], black_clock=clocks[chess.BLACK],
                                          white_inc=args.inc, black_inc=args.inc)

            white, black = (main, base) if ours == chess.WHITE else (base, main)
            comments = {}
            while not board.is_game_over(claim_draw=True) and board.ply() < args.max_plies:
                player = white if board.turn == chess.WHITE else black
                if player == "random":
                    move = rng.choice(sorted(board.legal_moves, key=lambda m: m.uci()))
                else:
                    started = time.monotonic()
                    result = player.play(board, limit_for(board), info=chess.engine.INFO_SCORE)
                    spent = time.monotonic() - started
                    if fixed is None:
                        clocks[board.turn] -= spent
                        if clocks[board.turn] <= 0:
                            break
                        clocks[board.turn] += args.inc
                    move = result.move
                    if player is main and "string" in result.info:
                        comments[board.ply()] = result.info["string"]
                board.push(move)
            for e in (main, base):
                if e != "random":
                    e.quit()
            games += 1
            flagged = fixed is None and min(clocks.values()) <= 0
            if flagged:
                loser = chess.WHITE if clocks[chess.WHITE] <= 0 else chess.BLACK
                key = "loss" if loser == ours else "win"
                result_text = "0-1" if loser == chess.WHITE else "1-0"
            elif board.is_game_over(claim_draw=True):
                winner = board.outcome(claim_draw=True).winner
                key = "draw" if winner is None else ("win" if winner == ours else "loss")
                result_text = board.result(claim_draw=True)
            else:
                key = "unfinished"
                result_text = "*"
            score[key] += 1
            side = "White" if ours == chess.WHITE else "Black"
            print(f"opening {opening} as {side}: {key} ({result_text}, {board.ply()} plies{', on time' if flagged else ''})")
            headers = {
                "Event": "antichess uci against a baseline",
                "Date": datetime.date.today().strftime("%Y.%m.%d"),
                "White": "antichess uci" if ours == chess.WHITE else os.path.basename(args.baseline),
                "Black": "antichess uci" if ours == chess.BLACK else os.path.basename(args.baseline),
                "Variant": "Antichess",
            }
            text = to_pgn(board, comments, headers)
            if result_text != "*":
                text = text.replace('[Result "*"]', f'[Result "{result_text}"]')
            save(args.pgn_dir, f"match-{i + 1:02d}-{side.lower()}.pgn", text)
            sys.stdout.flush()
    points = score["win"] + score["draw"] / 2
    print(f"match: {games} games, +{score['win']} ={score['draw']} -{score['loss']} "
          f"({score['unfinished']} unfinished): {points}/{games} for antichess uci")
    return True


def selfplay(args):
    engine = chess.engine.SimpleEngine.popen_uci(args.baseline)
    engine.configure({k: v for k, v in [("Threads", 1), ("Hash", 16)] if k in engine.options})
    limit = chess.engine.Limit(nodes=args.nodes)
    low, high = (int(x) for x in args.random_plies.split(".."))
    decided = 0
    tmp = args.output + ".part"
    with open(tmp, "w") as out:
        for i in range(args.games):
            rng = random.Random(args.seed + i)
            board = chess.variant.AntichessBoard()
            for _ in range(rng.randint(low, high)):
                if board.is_game_over():
                    break
                board.push(rng.choice(sorted(board.legal_moves, key=lambda m: m.uci())))
            opening = board.ply()
            engine.protocol.send_line("ucinewgame")
            while not board.is_game_over(claim_draw=True) and board.ply() < args.max_plies:
                board.push(engine.play(board, limit).move)
            result = board.result(claim_draw=True) if board.is_game_over(claim_draw=True) else "*"
            decided += result in ("1-0", "0-1")
            game = chess.pgn.Game.from_board(board)
            game.headers["Event"] = f"{os.path.basename(args.baseline)} self-play, {args.nodes} nodes a move"
            game.headers["Round"] = str(i + 1)
            game.headers["Variant"] = "Antichess"
            game.headers["Annotator"] = f"random opening of {opening} plies, seed {args.seed + i}"
            game.headers["Result"] = result
            for tag in ("FEN", "SetUp"):
                game.headers.pop(tag, None)
            print(game, file=out, end="\n\n")
            if (i + 1) % 10 == 0:
                print(f"{i + 1} games, {decided} decided", flush=True)
    engine.quit()
    os.replace(tmp, args.output)
    print(f"selfplay: {args.games} games ({decided} decided) written to {args.output}")
    return True


def mates(args):
    """Self-play: a position announced as mate is never lost."""
    limit = chess.engine.Limit(time=args.movetime / 1000)
    announced_games = lost = not_won = 0
    for i, opening in enumerate(OPENINGS[: args.openings]):
        engines = {c: chess.engine.SimpleEngine.popen_uci(engine_cmd(args.engine, args.proofs))
                   for c in (chess.WHITE, chess.BLACK)}
        board = chess.variant.AntichessBoard()
        for m in opening.split():
            board.push_uci(m)
        first = {}  # side -> (ply, mate N, where it came from) of its first announcement
        comments = {}
        while not board.is_game_over(claim_draw=True) and board.ply() < args.max_plies:
            result = engines[board.turn].play(board, limit, info=chess.engine.INFO_SCORE)
            score = result.info.get("score")
            text = [str(score.white())] if score is not None else []
            if "string" in result.info:
                text.append(result.info["string"])
            comments[board.ply()] = " ".join(text)
            if score is not None and score.relative.is_mate() and score.relative.mate() > 0:
                first.setdefault(board.turn, (board.ply(), score.relative.mate(), result.info.get("string", "")))
            board.push(result.move)
        for e in engines.values():
            e.quit()
        winner = outcome_of(board)
        result_text = board.result(claim_draw=True) if board.is_game_over(claim_draw=True) else "*"
        notes = []
        for side, (ply, n, where) in sorted(first.items()):
            name = "White" if side == chess.WHITE else "Black"
            if winner == side:
                notes.append(f"{name} announced mate {n} at ply {ply}, kept")
                continue
            kind = "LOST" if winner == (not side) else ("drawn" if result_text != "*" else "unfinished")
            notes.append(f"{name} announced mate {n} at ply {ply} ({where}): {kind}")
            lost += kind == "LOST"
            not_won += 1
        announced_games += bool(first)
        print(f"opening {opening}: {result_text} in {board.ply()} plies; " + ("; ".join(notes) or "no mate announced"))
        headers = {
            "Event": f"antichess uci self-play, {args.movetime} ms a move",
            "Date": datetime.date.today().strftime("%Y.%m.%d"),
            "White": "antichess uci",
            "Black": "antichess uci",
            "Variant": "Antichess",
        }
        save(args.pgn_dir, f"mates-{i + 1:02d}.pgn", to_pgn(board, comments, headers))
        sys.stdout.flush()
    print(f"mates: {args.openings} games, a mate announced in {announced_games}; "
          f"{not_won} announcements not followed by a win, {lost} of them lost")
    return lost == 0


REPLIES = ["a7a6", "a7a5", "b7b6", "b7b5", "c7c6", "c7c5", "d7d6", "d7d5", "e7e6", "e7e5",
           "f7f6", "f7f5", "g7g6", "g7g5", "h7h6", "h7h5", "b8a6", "b8c6", "g8f6", "g8h6"]


def first_answer(binary, proofs, moves):
    """A fresh engine: after its handshake, ms from `position` to `bestmove`, and the move."""
    proc = subprocess.Popen(engine_cmd(binary, proofs), stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True, bufsize=1)

    def until(prefix):
        while True:
            line = proc.stdout.readline()
            if not line:
                raise RuntimeError(f"the engine ended before {prefix!r}")
            if line.startswith(prefix):
                return line.strip()

    try:
        proc.stdin.write("uci\n")
        until("uciok")
        proc.stdin.write("isready\n")
        until("readyok")
        started = time.perf_counter()
        proc.stdin.write(f"position startpos moves {moves}\ngo depth 1\n")
        best = until("bestmove")
        elapsed = (time.perf_counter() - started) * 1e3
        proc.stdin.write("quit\n")
        proc.wait(timeout=30)
        return elapsed, best.split()[1]
    finally:
        if proc.poll() is None:
            proc.kill()


def latency(args):
    lines = args.moves or [f"e2e3 {r}" for r in REPLIES]
    worst = 0.0
    print(f"{'position':<22} {'bestmove':<9} ms from `position` to `bestmove` ({args.starts} fresh starts)")
    for moves in lines:
        times, best = [], None
        for _ in range(args.starts):
            ms, best = first_answer(args.engine, args.proofs, moves)
            times.append(ms)
        worst = max(worst, *times)
        print(f"{moves:<22} {best:<9} " + "  ".join(f"{t:7.1f}" for t in times))
    print(f"largest: {worst:.1f} ms (limit {args.limit} ms)")
    return worst <= args.limit


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--engine", default="target/release/antichess", help="the antichess binary")
    p.add_argument("--proofs", default="proofs", help="proofs directory (default: proofs)")
    p.add_argument("--pgn-dir", help="write every game here as PGN")
    p.add_argument("--max-plies", type=int, default=400, help="cut a game after this many plies")
    p.add_argument("--engine-option", action="append", default=[], metavar="NAME=VALUE",
                   help="a UCI option of antichess uci in match games (repeat), e.g. 'Move Overhead=10'")
    p.add_argument("--engine-arg", action="append", default=[], metavar="ARG",
                   help="an argument for `antichess uci` (repeat: --engine-arg=--evaluation --engine-arg=model)")
    sub = p.add_subparsers(dest="part", required=True)
    a = sub.add_parser("proved", help="from every proof's root, against a random mover and itself")
    a.add_argument("--random-games", type=int, default=5)
    a.add_argument("--movetime", type=int, default=100, help="ms per move")
    a.add_argument("--baseline", action="append", default=[], metavar="ENGINE",
                   help="also play against this UCI engine (e.g. fairy-stockfish); repeatable")
    a.add_argument("--no-self", action="store_true",
                   help="skip the games against antichess uci itself")
    b = sub.add_parser("match", help="varied openings against a baseline engine")
    b.add_argument("--baseline", required=True, help='a UCI engine binary, or "random"')
    b.add_argument("--openings", type=int, default=len(OPENINGS))
    b.add_argument("--movetime", type=int, default=0, help="ms per move (else the clock)")
    b.add_argument("--clock", type=float, default=10.0, help="seconds per game")
    b.add_argument("--inc", type=float, default=0.1, help="seconds added per move")
    b.add_argument("--seed", type=int, default=38)
    c = sub.add_parser("selfplay", help="a baseline engine against itself, games for the data set")
    c.add_argument("--baseline", required=True, help="a UCI engine binary that plays antichess")
    c.add_argument("--games", type=int, default=100)
    c.add_argument("--nodes", type=int, default=20000, help="nodes a move")
    c.add_argument("--random-plies", default="2..8", help="random opening plies, LOW..HIGH")
    c.add_argument("--seed", type=int, default=1)
    c.add_argument("-o", "--output", required=True, help="the PGN file to write")
    d = sub.add_parser("mates", help="self-play from the openings: a position announced as mate is never lost")
    d.add_argument("--openings", type=int, default=20)
    d.add_argument("--movetime", type=int, default=50, help="ms per move")
    e = sub.add_parser("latency", help="a fresh engine's `go depth 1` after 1. e3 X: ms to bestmove")
    e.add_argument("--moves", action="append", default=[], metavar="UCI_MOVES",
                   help='a position as moves from the start, e.g. "e2e3 c7c5" (repeat; default the 20 replies to 1. e3)')
    e.add_argument("--starts", type=int, default=3, help="fresh engine starts per position")
    e.add_argument("--limit", type=float, default=100.0, help="ms; exit 1 if any answer took longer")
    args = p.parse_args()
    ENGINE_OPTIONS.extend(args.engine_arg)
    ok = {"proved": proved, "match": match, "selfplay": selfplay, "mates": mates, "latency": latency}[args.part](args)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
