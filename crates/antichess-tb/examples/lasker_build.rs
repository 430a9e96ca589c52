//! Builds Lasker chess tables and prints one line per table with its time and counts: the
//! benchmark of docs/benchmarks.md ("Lasker chess tables"), run as
//! `cargo run --release -p antichess-tb --example lasker_build -- DIR KQk KNNNk` (or
//! `--units 4` for every table of 3 and 4 men) under `/usr/bin/time -v`.

use antichess_tb::lasker::{lasker_build, lasker_material_ok, LaskerBuildEvent};
use antichess_tb::Material;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((dir, rest)) = args.split_first() else {
        eprintln!("usage: lasker_build DIR (SIGNATURE... | --units N)");
        std::process::exit(2);
    };
    let targets: Vec<Material> = if rest.first().map(String::as_str) == Some("--units") {
        let n: u32 = rest.get(1).and_then(|s| s.parse().ok()).expect("--units N");
        Material::all_up_to(n)
            .into_iter()
            .filter(lasker_material_ok)
            .collect()
    } else {
        rest.iter()
            .map(|s| s.parse().expect("a material"))
            .collect()
    };
    let report = lasker_build(&targets, std::path::Path::new(dir), 0, &|e| {
        if let LaskerBuildEvent::Finished { material, stats, seconds } = e {
            println!(
                "{material}: {seconds:.2} s, {} indices, {} legal positions, by value 0..4 {:?}, max DTM {}, max DTS {}, {} en passant nodes",
                stats.indices, stats.positions, stats.by_value, stats.max_dtm, stats.max_dts, stats.ep_nodes
            );
        }
    })
    .expect("build");
    println!(
        "{} tables built, {} present, {:.1} s",
        report.built.len(),
        report.present_tables.len(),
        report.seconds
    );
}
