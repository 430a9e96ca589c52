//! The position set of `antichess bench movegen` (`antichess_core::MOVEGEN_SET`),
//! in a binary that needs only this crate, so that a release build takes seconds: `cargo
//! run --release -p antichess-core --example movegen_bench [REPEAT]`. Prints the best of
//! REPEAT (default 5) runs per position and the totals in Mnodes/s (the job of
//! `antichess_core::bench::movegen_bench`, which checks every node count).
use antichess_core::bench::movegen_bench;

fn main() {
    let repeat: u32 = std::env::args().nth(1).map_or(5, |r| r.parse().unwrap());
    let report =
        movegen_bench(repeat, &mut |row| println!("{row}")).unwrap_or_else(|e| panic!("{e}"));
    println!("{}", report.totals_text());
}
