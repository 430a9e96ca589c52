#!/usr/bin/env bash
# Runs the README's quick start, command by command, in a scratch directory, and fails on
# the first command that fails or prints something other than what the README says.
#
#   scripts/quickstart.sh target/release/antichess [SCRATCH_DIR]
#
# The tables are built in SCRATCH_DIR/tables (ANTICHESS_TABLES), so nothing outside the
# scratch directory is touched. `serve` runs on a free loopback port and is asked for
# /api/status and one explorer position, then stopped; it builds the front end in the web/
# directory the binary was built from (npm ci), unless npm is missing or QUICKSTART_NO_WEB=1
# is set, when it runs with `--no-web`. Every way out of the script (success, a failed step,
# Ctrl-C, SIGTERM, SIGHUP) stops the server and whatever it started (npm): it runs in its
# own process group, which an EXIT trap signals.
# Not part of CI: it takes about a minute on two cores (crates/antichess-cli/tests/
# new_user_cli.rs runs it with a stand-in binary to check that the server is stopped).
set -euo pipefail

if [ $# -lt 1 ]; then
    echo "usage: $0 PATH/TO/antichess [SCRATCH_DIR]" >&2
    exit 2
fi
bin="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
[ -x "$bin" ] || { echo "$bin: not an executable" >&2; exit 2; }
scratch="${2:-$(mktemp -d /tmp/antichess-quickstart.XXXXXX)}"
mkdir -p "$scratch"
cd "$scratch"
export ANTICHESS_TABLES="$scratch/tables"
antichess() { "$bin" "$@"; }

step() { printf '\n== antichess %s\n' "$*"; }
expect() { # expect TEXT OUTPUT: OUTPUT must contain TEXT
    case "$2" in *"$1"*) ;; *) echo "expected \"$1\" in the output above" >&2; exit 1 ;; esac
}

step moves --moves "1. e3 b5"
out=$(antichess moves --moves "1. e3 b5"); echo "$out"
expect "Bxb5" "$out"

step perft --depth 5
out=$(antichess perft --depth 5); echo "$out"
expect "2732672" "$out"

step solve --moves "e3 Na6" --proof na6.proof
antichess solve --moves "e3 Na6" --proof na6.proof
[ -s na6.proof ]

step proof verify na6.proof
antichess proof verify na6.proof

step tb probe --fen "8/8/8/8/8/2k5/8/KR6 w - - 0 1"
out=$(antichess tb probe --fen "8/8/8/8/8/2k5/8/KR6 w - - 0 1"); echo "$out"

step book new na6.book --moves "e3 Na6"
antichess book new na6.book --moves "e3 Na6"

step book grow na6.book --workers 2 --search-nodes 20000 --select best
antichess book grow na6.book --workers 2 --search-nodes 20000 --select best

step book prove na6.book -o na6-book.proof
antichess book prove na6.book -o na6-book.proof
[ -s na6-book.proof ]

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
web=()
if [ "${QUICKSTART_NO_WEB:-}" = 1 ] || ! command -v npm >/dev/null 2>&1; then
    web=(--no-web)
fi
server=
stop_server() { # the server's process group (the server, npm if it is building), then wait
    [ -n "$server" ] || return 0
    kill -TERM -- "-$server" 2>/dev/null || kill -TERM "$server" 2>/dev/null || true
    wait "$server" 2>/dev/null || true
    server=
}
trap stop_server EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP
step serve --book na6.book --proof na6.proof --bind "127.0.0.1:$port" "${web[@]}"
# The binary itself, not the `antichess` function: a function in the background is a
# subshell, and $! would be that subshell, not the server (killing it left the server
# running). `set -m` gives the job a process group of its own.
set -m
"$bin" serve --book na6.book --proof na6.proof --bind "127.0.0.1:$port" "${web[@]}" \
    >serve.log 2>&1 &
server=$!
set +m
for _ in $(seq 1 600); do
    curl -fsS "http://127.0.0.1:$port/api/status" >status.json 2>/dev/null && break
    kill -0 "$server" 2>/dev/null || { cat serve.log >&2; exit 1; }
    sleep 0.5
done
cat status.json; echo
expect '"na6.proof"' "$(cat status.json)"
out=$(curl -fsS "http://127.0.0.1:$port/api/explore?moves=e3%20Na6"); echo "${out:0:300}..."
expect '"moves"' "$out"
stop_server
trap - EXIT INT TERM HUP

printf '\nThe quick start works (scratch directory: %s).\n' "$scratch"
