//! Times perft from the start position with this crate and with shakmaty 0.30.1 (both count
//! the last ply without playing it), in one process on one thread, best of 5.
//! Usage: cargo run --release -p antichess-core --example compare_shakmaty [-- DEPTH]
use std::time::Instant;

use shakmaty::variant::Antichess;

fn best_of<F: FnMut() -> u64>(mut f: F) -> (u64, f64) {
    let mut best = f64::INFINITY;
    let mut nodes = 0;
    for _ in 0..5 {
        let start = Instant::now();
        nodes = f();
        best = best.min(start.elapsed().as_secs_f64());
    }
    (nodes, best)
}

fn main() {
    let depth: u32 = std::env::args()
        .nth(1)
        .map_or(6, |d| d.parse().expect("depth"));
    let ours = antichess_core::Position::start(antichess_core::Rules::INTERNATIONAL);
    let theirs = Antichess::default();
    let (n1, t1) = best_of(|| antichess_core::perft(&ours, depth));
    let (n2, t2) = best_of(|| shakmaty::perft(&theirs, depth));
    assert_eq!(n1, n2, "node counts differ");
    println!("perft({depth}) from the start = {n1}");
    println!(
        "antichess-core: {t1:.3} s ({:.0} Mnodes/s)",
        n1 as f64 / t1 / 1e6
    );
    println!(
        "shakmaty 0.30.1: {t2:.3} s ({:.0} Mnodes/s)",
        n2 as f64 / t2 / 1e6
    );
    println!("ratio: {:.2}", t1 / t2);
}
