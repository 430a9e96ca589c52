//! Cross-check against an independent implementation: the depth-to-win tables that lichess
//! serves (13 materials of at most 4 units, international rules, in ../shared/oracle/an0),
//! read through the `antichess-tb-sys` crate (tolius's antichess-tb-api).
//!
//! For the positions checked (up to symmetry, both sides to move, and every en passant
//! variant of each), our WDL must equal theirs (their cursed wins and blessed losses count
//! as wins and losses: we ignore the 50-move rule), and their DTW (plies to the end of the
//! game) can never be shorter than our DTC (plies to the next conversion, which a won game
//! must pass through before it ends).
//!
//! Which positions: by default (CI) a sample that takes a few minutes: every index of the
//! materials whose table has at most [`WHOLE`] indices, and of the larger ones the indices
//! picked by a fixed hash (the same ones on every run, spread over the whole table) until
//! about [`SAMPLE`] of them, of the materials in [`CI_MATERIALS`] (those whose tables build
//! in seconds); every material checked has positions checked, and every material with
//! pawns of both colours must have checked en passant positions. With `ANTICHESS_FULL_CHECKS=1`,
//! every index of every material (38,442,466 positions; about half an hour on two cores).
//!
//! Run with `cargo test -p antichess-tb --features oracle --test integration oracle:: --
//! --nocapture` (add `--release` for the full check; building antichess-tb-sys needs
//! libclang-dev and a C++ compiler). Without the feature this module is empty. The oracle directory is taken from ANTICHESS_ORACLE_DIR, else
//! ../shared/oracle/an0 next to the repository.

#![cfg(feature = "oracle")]

use std::ffi::{c_char, c_int};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use antichess_core::{Color, Piece, Position, Role, Rules, Square};
use antichess_tb::{build, BuildOptions, Material, Tablebase, Wdl};
use antichess_testkit::{full_checks, temp_dir};
use rayon::prelude::*;

const MATERIALS: [&str; 13] = [
    "BBvK", "BNPvP", "KBNvK", "KKNvK", "KPPvK", "KQRvK", "KRPvK", "KvP", "KvR", "PPvP", "PPvPP",
    "RPvP", "RPvPP",
];

/// The materials checked without `ANTICHESS_FULL_CHECKS=1`: every one of at most 3 units
/// (PPvP and RPvP have en passant positions) and the pawnless ones of 4 units. Their tables
/// and those their captures lead to build in seconds; the 4-unit materials with pawns
/// (BNPvP, KPPvK, KRPvK, PPvPP, RPvPP) need, through their promotions, most of the 4-unit
/// set, about ten minutes of building on two cores, so CI leaves them to the full check.
const CI_MATERIALS: [&str; 8] = [
    "BBvK", "KBNvK", "KKNvK", "KQRvK", "KvP", "KvR", "PPvP", "RPvP",
];

/// Without `ANTICHESS_FULL_CHECKS=1`, a table with at most this many indices is checked
/// whole.
const WHOLE: u64 = 200_000;

/// Without `ANTICHESS_FULL_CHECKS=1`, about this many indices of a larger table are checked.
const SAMPLE: u64 = 100_000;

/// Whether index `idx` of the table of `material` (of `size` indices) is checked: all of
/// them in the full check or when the table is small, else those whose hash (splitmix64 of
/// the index and the material's name) falls in a fixed `SAMPLE / size` share.
fn sampled(full: bool, material: &str, size: u64, idx: u64) -> bool {
    if full || size <= WHOLE {
        return true;
    }
    let salt = material.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    });
    let mut z = (idx ^ salt).wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^= z >> 31;
    // z < 2^64 * SAMPLE / size, without overflow.
    (u128::from(z) * u128::from(size)) < (u128::from(SAMPLE) << 64)
}

fn oracle_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("ANTICHESS_ORACLE_DIR") {
        return Some(PathBuf::from(dir));
    }
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    [
        manifest.join("../../../shared/oracle/an0"),
        PathBuf::from("/work/shared/oracle/an0"),
    ]
    .into_iter()
    .find(|d| d.join("KvP.an0").exists())
}

/// Their result for the side to move: (WDL, |DTW| in plies).
fn oracle_probe(pos: &Position) -> Result<(Wdl, u32), i32> {
    let mut squares = [Vec::new(), Vec::new()];
    let mut pieces = [Vec::new(), Vec::new()];
    for (sq, piece) in pos.board().pieces() {
        squares[piece.color.index()].push(sq.index() as c_int);
        pieces[piece.color.index()].push(piece.role.index() as c_int + 1);
    }
    let mut dtw: c_int = 0;
    let res = unsafe {
        antichess_tb_sys::antichess_tb_probe_dtw(
            squares[0].as_ptr(),
            pieces[0].as_ptr(),
            squares[0].len(),
            squares[1].as_ptr(),
            pieces[1].as_ptr(),
            squares[1].len(),
            if pos.turn() == Color::White { 0 } else { 1 },
            pos.ep_square().map_or(-1, |sq| sq.index() as c_int),
            &mut dtw,
        )
    };
    match res {
        0 | 1 if dtw > 0 => Ok((Wdl::Win, dtw as u32)),
        0 | 1 if dtw < 0 => Ok((Wdl::Loss, (-dtw) as u32)),
        // No legal move: under international rules the side to move has won.
        0 | 1 => Ok((Wdl::Win, 0)),
        2 => Ok((Wdl::Draw, 0)),
        err => Err(err),
    }
}

/// The position with an en passant square for every pawn of the side not to move that
/// could just have made a double step next to a pawn of the side to move.
fn en_passant_variants(pos: &Position) -> Vec<Position> {
    let them = pos.turn().other();
    let mut out = Vec::new();
    let (rank, step): (u8, i32) = if them == Color::White {
        (3, -8)
    } else {
        (4, 8)
    };
    for sq in pos.board().by_piece(Piece::new(them, Role::Pawn)) {
        if sq.rank() != rank {
            continue;
        }
        let passed = Square::from_index((sq.index() as i32 + step) as u32);
        let origin = Square::from_index((sq.index() as i32 + 2 * step) as u32);
        if pos.board().occupied().contains(passed) || pos.board().occupied().contains(origin) {
            continue;
        }
        let p = Position::from_board_with_ep_unchecked(
            *pos.board(),
            pos.turn(),
            Some(passed),
            pos.rules(),
        );
        if p.ep_square().is_some() {
            out.push(p);
        }
    }
    out
}

#[test]
fn every_position_agrees_with_lichess_tables() {
    let Some(dir) = oracle_dir() else {
        eprintln!("SKIPPED: oracle tables not found (set ANTICHESS_ORACLE_DIR)");
        return;
    };
    let path = dir.to_str().expect("utf-8 path");
    assert_eq!(
        unsafe { antichess_tb_sys::antichess_tb_init() },
        0,
        "oracle init"
    );
    let missing = -unsafe {
        antichess_tb_sys::antichess_tb_add_path(path.as_ptr() as *const c_char, path.len())
    };
    eprintln!("oracle: {path} ({missing} of its listed tables absent)");

    let full = full_checks();
    eprintln!(
        "{}",
        if full {
            "ANTICHESS_FULL_CHECKS=1: every position of every material"
        } else {
            "a sample (ANTICHESS_FULL_CHECKS=1 checks every position)"
        }
    );
    let rules = Rules::INTERNATIONAL;
    let ours = temp_dir("oracle");
    let started = Instant::now();
    let names: &[&str] = if full { &MATERIALS } else { &CI_MATERIALS };
    let targets: Vec<Material> = names.iter().map(|m| m.parse().unwrap()).collect();
    build(
        &targets,
        &BuildOptions {
            rules,
            dir: ours.clone(),
            threads: 0,
            strategy: Default::default(),
        },
        &|_| {},
    )
    .unwrap();
    let tb = Tablebase::open(&ours, rules).unwrap();
    eprintln!(
        "our tables built in {:.1} s",
        started.elapsed().as_secs_f64()
    );

    let covered: Vec<Material> = targets.iter().map(|m| m.canonical().0).collect();
    // An en passant position is resolved by its captures; the oracle can answer only if
    // every capture leads to a material it has a table for.
    let oracle_covers_captures = |p: &Position| {
        p.legal_moves().iter().all(|m| {
            let child = p.play(*m);
            child.us().is_empty()
                || child.them().is_empty()
                || covered.contains(&Material::from_board(child.board()).canonical().0)
        })
    };
    let mut total = 0u64;
    let mut uncovered_total = 0u64;
    let mut failures: Vec<String> = Vec::new();
    for material in &targets {
        let material = material.canonical().0;
        let name = material.to_string();
        let table = tb.table(&material).unwrap().unwrap();
        let index = table.index();
        let size = index.size();
        let started = Instant::now();
        let checked = AtomicU64::new(0);
        let ep_checked = AtomicU64::new(0);
        let uncovered = AtomicU64::new(0);
        let problems: Vec<String> = (0..size as usize)
            .into_par_iter()
            .filter(|&idx| sampled(full, &name, size, idx as u64))
            .flat_map_iter(|idx| {
                let board = index.decode(idx as u64);
                let mut bad = Vec::new();
                if !index.is_canonical(idx as u64, &board) {
                    return bad;
                }
                for side in Color::ALL {
                    let pos = Position::from_board_unchecked(board, side, rules);
                    let mut variants = en_passant_variants(&pos);
                    ep_checked.fetch_add(variants.len() as u64, Ordering::Relaxed);
                    variants.push(pos);
                    for p in variants {
                        checked.fetch_add(1, Ordering::Relaxed);
                        let value = tb.probe(&p).unwrap().unwrap();
                        match oracle_probe(&p) {
                            Err(_) if p.ep_square().is_some() && !oracle_covers_captures(&p) => {
                                uncovered.fetch_add(1, Ordering::Relaxed);
                            }
                            Err(code) => bad.push(format!("{}: oracle error {code}", p.fen())),
                            Ok((wdl, dtw)) if wdl != value.wdl => bad.push(format!(
                                "{}: ours {} (dtc {}), lichess {wdl} (dtw {dtw})",
                                p.fen(),
                                value.wdl,
                                value.dtc
                            )),
                            Ok((wdl, dtw)) if wdl != Wdl::Draw && dtw < u32::from(value.dtc) => bad
                                .push(format!(
                                    "{}: {wdl} with dtw {dtw} plies, shorter than our dtc {}",
                                    p.fen(),
                                    value.dtc
                                )),
                            Ok(_) => {}
                        }
                    }
                }
                bad
            })
            .collect();
        let n = checked.load(Ordering::Relaxed);
        let u = uncovered.load(Ordering::Relaxed);
        let ep = ep_checked.load(Ordering::Relaxed);
        eprintln!(
            "{material}: {n} positions of {size} indices ({ep} with en passant, {u} of them \
             beyond the oracle's tables), {} disagreements, {:.1} s",
            problems.len(),
            started.elapsed().as_secs_f64()
        );
        assert!(n > 0, "{material}: no position checked");
        // En passant is possible when both sides have pawns: the sample must reach it.
        let pawns = |color| material.count(color, Role::Pawn) > 0;
        assert!(
            ep > 0 || !(pawns(Color::White) && pawns(Color::Black)),
            "{material}: no en passant position checked"
        );
        failures.extend(
            problems
                .into_iter()
                .take(10)
                .map(|p| format!("{material}: {p}")),
        );
        total += n;
        uncovered_total += u;
    }
    eprintln!(
        "{total} positions checked, {uncovered_total} en passant positions not answerable by \
         the oracle, {} disagreements shown",
        failures.len()
    );
    let _ = std::fs::remove_dir_all(&ours);
    assert!(
        failures.is_empty(),
        "disagreements with lichess's tables:\n{}",
        failures.join("\n")
    );
}
