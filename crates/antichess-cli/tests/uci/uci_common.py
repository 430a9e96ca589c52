"""Helpers shared by the UCI tests: start the engine, a seeded random mover, a raw
line-based session for what python-chess hides (timing of `bestmove`, bad input)."""

import queue
import random
import subprocess
import sys
import threading
import time

import chess
import chess.engine
import chess.variant


def usage():
    if len(sys.argv) < 3:
        sys.exit(f"usage: {sys.argv[0]} ANTICHESS_BINARY PROOFS_DIR")
    return sys.argv[1], sys.argv[2]


def engine(binary, proofs, *extra):
    """python-chess's client on `antichess uci` with the given Proofs option."""
    return chess.engine.SimpleEngine.popen_uci(
        [binary, "uci", "--proofs", proofs, *extra], timeout=60
    )


def random_move(board, rng):
    return rng.choice(sorted(board.legal_moves, key=lambda m: m.uci()))


def check(condition, message):
    if not condition:
        raise AssertionError(message)


class Raw:
    """The engine on plain pipes: lines in, lines out (read by a thread)."""

    def __init__(self, binary, *args):
        self.proc = subprocess.Popen(
            [binary, "uci", *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self.lines = queue.Queue()
        self.seen = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for raw in self.proc.stdout:
            self.lines.put(raw.decode("utf-8", "replace").rstrip("\n"))
        self.lines.put(None)

    def send(self, data):
        if isinstance(data, str):
            data = (data + "\n").encode()
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def until(self, prefix, timeout=30):
        """Lines up to and including the first that starts with `prefix`."""
        out = []
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            check(left > 0, f"no '{prefix}' within {timeout} s; got {out}")
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                continue
            check(line is not None, f"the engine closed its output before '{prefix}'; got {out}")
            out.append(line)
            self.seen.append(line)
            if line.startswith(prefix):
                return out

    def pending(self, wait):
        """Lines that arrive within `wait` seconds."""
        out = []
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                break
            if line is None:
                break
            out.append(line)
        return out

    def quit(self):
        self.send("quit")
        code = self.proc.wait(timeout=30)
        check(code == 0, f"exit code {code}; stderr: {self.proc.stderr.read().decode()}")
