//! The position set of `antichess bench movegen` (same FENs, depths and asserted counts),
//! in a binary that needs only this crate, so that a release build takes seconds: `cargo
//! run --release -p antichess-core --example movegen_bench [REPEAT]`. Prints the best of
//! REPEAT (default 5) runs per position and the totals in Mnodes/s.
use antichess_core::{perft, perft_full, Position, Rules};
use std::time::Instant;

const SET: &[(&str, &str, u32, u64, bool)] = &[
    (
        "start",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1",
        6,
        46_264_162,
        false,
    ),
    (
        "middlegame",
        "rnq3n1/1p3p2/2kp1p2/p1p5/2P4K/P4P1N/3PP1P1/RN3B2 w - - 2 16",
        7,
        47_075_243,
        false,
    ),
    (
        "endgame",
        "1n1k4/3p4/p7/5p2/1p6/7K/2PP4/1N5B w - - 0 21",
        7,
        11_598_034,
        false,
    ),
    (
        "promotions",
        "8/PPP5/8/8/8/8/5ppp/8 w - - 0 1",
        6,
        13_295_080,
        false,
    ),
    (
        "start",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1",
        5,
        2_732_672,
        true,
    ),
    (
        "middlegame",
        "rnq3n1/1p3p2/2kp1p2/p1p5/2P4K/P4P1N/3PP1P1/RN3B2 w - - 2 16",
        6,
        3_333_913,
        true,
    ),
    (
        "endgame",
        "1n1k4/3p4/p7/5p2/1p6/7K/2PP4/1N5B w - - 0 21",
        6,
        951_676,
        true,
    ),
    (
        "promotions",
        "8/PPP5/8/8/8/8/5ppp/8 w - - 0 1",
        5,
        941_871,
        true,
    ),
];

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
