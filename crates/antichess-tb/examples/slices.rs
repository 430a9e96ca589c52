//! The slice generator's measurements (docs/research/tb-6unit.md): generates one pawn
//! material slice by slice and prints its figures, or builds it with the whole-index
//! generator for comparison, each run under `/usr/bin/time -v` for the peak memory:
//!
//! ```sh
//! slices slices MATERIAL DIR KIND [THREADS] [--compare]   # KIND: exact, white or black
//! slices whole MATERIAL DIR KIND [THREADS]
//! slices sizes MATERIAL...                                # index sizes, nothing built
//! ```
//!
//! `slices` reads the tables the material's captures and promotions lead to from DIR
//! (exact; for KIND white or black also the bound tables for that colour) and, with
//! `--compare`, checks every position against the whole-index generator's table of the
//! material in DIR. `whole` builds that table into DIR (`tb build`, or `tb build --bound`
//! for a colour), with the tables it needs.

use antichess_core::{Color, Rules};
use antichess_tb::slices::{generate_slices, SliceEvent, SliceOptions};
use antichess_tb::{build, build_bounds, BuildOptions, Material, TableKind, Tablebase};

const RULES: Rules = Rules::INTERNATIONAL;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("sizes") {
        for name in &args[1..] {
            let m: Material = name.parse().expect("a material");
            let n = antichess_tb::positions(&m);
            println!(
                "{}: {n} positions (both sides); whole index at 2.125 bytes {:.2} GB, at 2 bits {:.2} GB",
                m.name(),
                n as f64 * 2.125 / 1e9,
                n as f64 / 4.0 / 1e9
            );
        }
        return;
    }
    if args.len() < 4 {
        eprintln!(
            "usage: slices (slices|whole) MATERIAL DIR (exact|white|black) [THREADS] [--compare]"
        );
        std::process::exit(2);
    }
    let material: Material = args[1].parse().expect("a material");
    let dir = std::path::PathBuf::from(&args[2]);
    let kind = match args[3].as_str() {
        "exact" => TableKind::Exact,
        "white" => TableKind::Bound(Color::White),
        "black" => TableKind::Bound(Color::Black),
        other => panic!("KIND is exact, white or black, not {other}"),
    };
    let threads: usize = args
        .get(4)
        .filter(|a| !a.starts_with("--"))
        .map_or(0, |a| a.parse().expect("THREADS"));
    let compare = args.iter().any(|a| a == "--compare");
    match args[0].as_str() {
        "slices" => run_slices(&material, &dir, kind, threads, compare),
        "whole" => run_whole(&material, &dir, kind, threads),
        other => panic!("the first argument is slices or whole, not {other}"),
    }
}

fn run_slices(
    material: &Material,
    dir: &std::path::Path,
    kind: TableKind,
    threads: usize,
    compare: bool,
) {
    let children = Tablebase::open(dir, RULES).expect("the tables directory");
    let verbose = std::env::var_os("SLICES_LEVELS").is_some();
    // SLICES_MAX_LEVELS=n: only the n most advanced levels (a partial run, for figures).
    let levels = std::env::var("SLICES_MAX_LEVELS")
        .ok()
        .map(|s| s.parse().expect("a number"));
    let options = SliceOptions { threads, levels };
    let (table, r) = generate_slices(material, RULES, &children, kind, options, &|e| {
        let SliceEvent::Level { advancement, slices, positions, seconds } = e;
        if verbose {
            println!("advancement {advancement:2}: {slices} slices, {positions} positions, {seconds:.2} s");
        }
    })
    .expect("slice generation");
    println!(
        "{} ({kind:?}) by slices: {:.1} s, {} positions, {} slices, largest slice {} positions \
         (room {}), {} levels, at most {} sweeps, store {} bytes; win {} draw {} loss {}; \
         peak resident {} kB",
        material.name(),
        r.seconds,
        r.positions,
        r.slices,
        r.largest_slice,
        r.slice_room,
        r.levels,
        r.max_sweeps,
        r.store_bytes,
        r.wins,
        r.draws,
        r.losses,
        antichess_tb::memory::peak_resident().unwrap_or(0) / 1024
    );
    if compare && levels.is_none() {
        let (compared, wrong, first) = table.compare(&children, 10).expect("compare");
        println!("compared {compared} positions with the whole-index table: {wrong} differ");
        for m in first {
            println!(
                "  {}: slices {:?}, table {:?}",
                m.fen, m.slices, m.reference
            );
        }
        if wrong > 0 {
            std::process::exit(1);
        }
    }
}

fn run_whole(material: &Material, dir: &std::path::Path, kind: TableKind, threads: usize) {
    let options = BuildOptions {
        rules: RULES,
        dir: dir.to_path_buf(),
        threads,
        strategy: Default::default(),
    };
    let progress = |e: antichess_tb::BuildEvent| {
        if let antichess_tb::BuildEvent::Finished(b) = e {
            println!(
                "built {} ({:?}): {:.1} s, {} positions, win {} draw {} loss {}, peak {} kB",
                b.material.name(),
                b.kind,
                b.seconds,
                b.stats.positions,
                b.stats.wins,
                b.stats.draws,
                b.stats.losses,
                b.peak_memory.unwrap_or(0) / 1024
            );
        }
    };
    let report = match kind {
        TableKind::Exact => build(&[*material], &options, &progress),
        TableKind::Bound(c) => build_bounds(&[(*material, c)], &options, &progress),
    }
    .expect("build");
    println!(
        "{} ({kind:?}) whole-index: {} tables built, {} present, {:.1} s; peak resident {} kB",
        material.name(),
        report.built.len(),
        report.present,
        report.seconds,
        antichess_tb::memory::peak_resident().unwrap_or(0) / 1024
    );
}
