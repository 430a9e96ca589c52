//! `antichess bench`: fixed benchmarks that print their speed and assert their node counts
//! (so that a faster number is never a wrong one).

use std::process::ExitCode;
use std::time::Instant;

use antichess_core::{perft, perft_full, Position, Rules};
use anyhow::bail;
use clap::{Args, Subcommand};

#[derive(Debug, Subcommand)]
pub enum BenchCommand {
    /// Move generation: single-thread perft on fixed positions, with bulk counting of the
    /// last ply and with every leaf played; node counts are asserted.
    Movegen(MovegenArgs),
}

#[derive(Debug, Args)]
pub struct MovegenArgs {
    /// Repeat each measurement this many times and report the fastest.
    #[arg(long, default_value_t = 3)]
    pub repeat: u32,
}

/// (name, FEN, depth, nodes, every leaf played?). Counts agree with shakmaty (see
/// crates/antichess-core/tests/data/antichess.perft).
const MOVEGEN_SET: &[(&str, &str, u32, u64, bool)] = &[
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

pub fn run(command: &BenchCommand) -> anyhow::Result<ExitCode> {
    match command {
        BenchCommand::Movegen(args) => movegen(args),
    }
}

fn movegen(args: &MovegenArgs) -> anyhow::Result<ExitCode> {
    println!(
        "{:<12} {:>5} {:>12} {:>10} {:>10}  mode",
        "position", "depth", "nodes", "seconds", "Mnodes/s"
    );
    let mut totals = [(0u64, 0f64); 2];
    for &(name, fen, depth, expected, full) in MOVEGEN_SET {
        let pos = Position::from_fen(fen, Rules::INTERNATIONAL)?;
        let mut best = f64::INFINITY;
        for _ in 0..args.repeat.max(1) {
            let start = Instant::now();
            let nodes = if full {
                perft_full(&pos, depth)
            } else {
                perft(&pos, depth)
            };
            best = best.min(start.elapsed().as_secs_f64());
            if nodes != expected {
                bail!("node count mismatch for {name} depth {depth}: {nodes}, expected {expected}");
            }
        }
        let mode = if full {
            "every leaf played"
        } else {
            "last ply counted"
        };
        println!(
            "{name:<12} {depth:>5} {expected:>12} {best:>10.3} {:>10.1}  {mode}",
            expected as f64 / best / 1e6
        );
        let t = &mut totals[usize::from(full)];
        t.0 += expected;
        t.1 += best;
    }
    println!();
    println!(
        "total, last ply counted:  {:.1} Mnodes/s",
        totals[0].0 as f64 / totals[0].1 / 1e6
    );
    println!(
        "total, every leaf played: {:.1} Mnodes/s",
        totals[1].0 as f64 / totals[1].1 / 1e6
    );
    println!("(single thread; node counts asserted)");
    Ok(ExitCode::SUCCESS)
}
