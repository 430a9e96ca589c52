//! The position set of `antichess bench movegen` (`antichess_core::MOVEGEN_SET`),
//! in a binary that needs only this crate, so that a release build takes seconds: `cargo
//! run --release -p antichess-core --example movegen_bench [REPEAT]`. Prints the best of
//! REPEAT (default 5) runs per position and the totals in Mnodes/s.
use antichess_core::{perft, perft_full, Position, Rules, MOVEGEN_SET as SET};
use std::time::Instant;

fn main() {
    let repeat: u32 = std::env::args().nth(1).map_or(5, |r| r.parse().unwrap());
    let mut totals = [(0u64, 0f64); 2];
    for &(name, fen, depth, expected, full) in SET {
        let pos = Position::from_fen(fen, Rules::INTERNATIONAL).unwrap();
        let mut best = f64::INFINITY;
        for _ in 0..repeat.max(1) {
            let start = Instant::now();
            let nodes = if full {
                perft_full(&pos, depth)
            } else {
                perft(&pos, depth)
            };
            best = best.min(start.elapsed().as_secs_f64());
            assert_eq!(nodes, expected, "{name} depth {depth}");
        }
        println!(
            "{name:<12} {depth} {expected:>10} {best:>8.3} s {:>7.1} Mnodes/s{}",
            expected as f64 / best / 1e6,
            if full { " (every leaf played)" } else { "" }
        );
        let t = &mut totals[usize::from(full)];
        t.0 += expected;
        t.1 += best;
    }
    println!(
        "total, last ply counted:  {:.1} Mnodes/s",
        totals[0].0 as f64 / totals[0].1 / 1e6
    );
    println!(
        "total, every leaf played: {:.1} Mnodes/s",
        totals[1].0 as f64 / totals[1].1 / 1e6
    );
}
