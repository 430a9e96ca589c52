//! Perft of the royal-king rule sets (Pritchard's variants 3 and 4) from a FEN (default:
//! the start position), for timing: `cargo run --release -p antichess-core --example
//! royal_perft -- [FEN] [DEPTH]`.
use antichess_core::{perft, Position, Rules, START_FEN};
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let fen = args.get(1).map(String::as_str).unwrap_or(START_FEN);
    let depth: u32 = args.get(2).map(|d| d.parse().unwrap()).unwrap_or(5);
    let pos = Position::from_fen(fen, Rules::PRITCHARD3).unwrap();
    for d in 1..=depth {
        let t = std::time::Instant::now();
        let n = perft(&pos, d);
        println!("perft {d} {n} {:?}", t.elapsed());
    }
}
