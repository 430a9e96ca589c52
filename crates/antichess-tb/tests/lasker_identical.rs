//! Lasker generation is deterministic and its output fixed: every file must be
//! byte-identical to the reference, named by its length and its xxh3-64 checksum (the
//! header field that covers every other byte). The references were made by the generator
//! of before the memory cut of docs/research/lasker-engine.md ("Memory"), which kept 32-bit
//! words, a second word of phase-B information and a list of positions per level.
//!
//! - The real tables: every 3-man table and the 4-man KNNk (symmetric boards) and KBkn,
//!   built by `lasker_build` on one thread and on two.
//! - Tables generated over *synthetic* child tables (values hashed from the index, as in
//!   tests/lasker_ep.rs): KPkp (en passant nodes, with winning, drawing and losing en
//!   passant captures), KBkp and KQkr. Synthetic children give captures and promotions of
//!   every value at depths up to 41, which real small tables rarely do: pending wins deep
//!   in the levels, losses whose depth is set by an external move, phase-B external
//!   stalemate wins and losses.

use antichess_tb::index::TableIndex;
use antichess_tb::lasker::{
    lasker_build, lasker_dependencies, lasker_generate, LaskerTable, LaskerTableData,
    LaskerTablebase,
};
use antichess_tb::Material;
use antichess_testkit::temp_dir;

/// (material, file length, checksum) of the reference files of the real tables.
const REAL: &[(&str, u64, u64)] = &[
    ("KBk", 6074, 0x759a31a5387bcc7f),
    ("KNk", 4785, 0x2f8aa193c18fac5f),
    ("KQk", 19127, 0x9b821141e1f07edf),
    ("KRk", 20328, 0xbabf0291320f63e6),
    ("KPk", 45143, 0xe982084c9c0e8ff4),
    ("KBkn", 46226, 0x7522d2a9a4f9373e),
    ("KNNk", 723180, 0x7c8d835a3b656f99),
];

/// (material, file length, checksum) of the reference files over synthetic children.
const SYNTHETIC: &[(&str, u64, u64)] = &[
    ("KBkp", 4799853, 0x90309379f88e185e),
    ("KPkp", 5868847, 0x704a5dc70356ca72),
    ("KQkr", 2282448, 0x72cfdec60ae1d78d),
];

fn splitmix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// A table of `material` whose every index has a value hashed from (material, side,
/// index): any of the five, depths up to 40 (the same as tests/lasker_ep.rs).
fn synthetic(material: &Material) -> LaskerTableData {
    let size = TableIndex::new(material).size();
    let salt = splitmix(material.key());
    let codes = [0u64, 1].map(|side| {
        (0..size)
            .map(|i| {
                let h = splitmix(salt ^ side << 62 ^ i);
                let value = (h % 5) as u16;
                let depth = if value == 2 {
                    0
                } else {
                    1 + (h >> 8) as u16 % 40
                };
                value << 12 | depth
            })
            .collect()
    });
    LaskerTableData {
        material: *material,
        codes,
    }
}

fn stored_sum(bytes: &[u8]) -> (u64, u64) {
    (
        bytes.len() as u64,
        u64::from_le_bytes(bytes[40..48].try_into().unwrap()),
    )
}

fn real_targets() -> Vec<Material> {
    ["KQk", "KRk", "KBk", "KNk", "KPk", "KNNk", "KBkn"]
        .iter()
        .map(|s| s.parse().unwrap())
        .collect()
}

fn check_real(threads: usize) {
    let dir = temp_dir(&format!("lasker-identical-{threads}"));
    let targets = real_targets();
    let report = lasker_build(&targets, &dir, threads, &|_| {}).unwrap();
    let plan = lasker_dependencies(&targets).unwrap();
    assert_eq!(report.built.len(), plan.len());
    let mut found = Vec::new();
    for m in &plan {
        let name = format!("{}.lctb", m.syzygy_name());
        let bytes = std::fs::read(dir.join(name)).unwrap();
        found.push((m.name(), stored_sum(&bytes)));
    }
    for (name, got) in &found {
        println!("(\"{name}\", {}, {:#018x}),", got.0, got.1);
    }
    assert_eq!(
        found.len(),
        REAL.len(),
        "every table of the plan has a reference"
    );
    for (name, got) in &found {
        let reference = REAL
            .iter()
            .find(|r| r.0 == name)
            .unwrap_or_else(|| panic!("{name} has no reference"));
        assert_eq!(
            *got,
            (reference.1, reference.2),
            "{name} ({threads} threads) differs from the reference"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn real_tables_on_one_thread_match_the_reference() {
    check_real(1);
}

#[test]
fn real_tables_on_two_threads_match_the_reference() {
    check_real(2);
}

/// Generates `target` over synthetic `children` and checks its file image.
fn check_synthetic(target: &str, children: &[&str], threads: usize) {
    let mut tb = LaskerTablebase::empty();
    for name in children {
        let m: Material = name.parse().unwrap();
        let m = m.canonical().0;
        tb.add_table(&m, LaskerTable::from_data(synthetic(&m)));
    }
    let m: Material = target.parse().unwrap();
    let (data, _) = lasker_generate(&m, &tb, threads).unwrap();
    let got = stored_sum(&data.to_bytes().unwrap());
    println!("(\"{target}\", {}, {:#018x}),", got.0, got.1);
    let reference = SYNTHETIC
        .iter()
        .find(|r| r.0 == target)
        .unwrap_or_else(|| panic!("{target} has no reference"));
    assert_eq!(
        got,
        (reference.1, reference.2),
        "{target} over synthetic children ({threads} threads) differs from the reference"
    );
}

#[test]
fn kpkp_over_synthetic_children_matches_the_reference() {
    check_synthetic("KPkp", &["KPk", "KQkp", "KRkp", "KBkp", "KNkp"], 2);
}

#[test]
fn kbkp_over_synthetic_children_matches_the_reference() {
    check_synthetic(
        "KBkp",
        &[
            "KBk", "KPk", "KQk", "KRk", "KNk", "KBkq", "KBkr", "KBkb", "KBkn",
        ],
        1,
    );
}

#[test]
fn kqkr_over_synthetic_children_matches_the_reference() {
    check_synthetic("KQkr", &["KQk", "KRk"], 2);
}
