//! Lasker chess tables against the figures of Müller and Haworth, "Stalemate and DTS
//! depth to stalemate endgame tables", ICGA Journal 41(4), 2020 (tables built by Aloril):
//! the percentages of the five values per side to move in KBk, KNk, KPk and KQk, and the
//! deepest forced stalemates of KNNk, KPk, KNk and KBk with the number of such positions.
//!
//! The convention that reproduces the paper (docs/research/lasker-engine.md): positions
//! are legal ones (the side not to move not in check) counted as "unique" positions of a
//! Nalimov-style index — without pawns the White king in the a1–d1–d4 triangle and, with
//! it on the diagonal, the Black king on or below the diagonal; with pawns the White king
//! on files a–d ([`unique_images`]). Counting up to symmetry or on the whole board gives
//! other pawnless percentages (asserted below too, so that the conventions stay distinct).
//!
//! KPkp's row matches when the positions with an en passant right are counted as positions
//! of their own besides the stored ones ([`antichess_tb::lasker::ep_positions_of`]), those
//! after an illegal position included. Its tables take about a minute of CPU to build, so
//! `kpkp_row` builds them only with `ANTICHESS_FULL_CHECKS=1` (or reads them from
//! `LASKER_TB_DIR`); `lasker_ep::kpkp_over_synthetic_promotions` checks the counting of
//! those positions on every run.

use antichess_core::orthodox::{Ending, OrthoPosition};
use antichess_tb::lasker::{lasker_build, lasker_stats, LaskerStats, LaskerTablebase};
use antichess_tb::Material;
use antichess_testkit::temp_dir;

fn stats(dir: &std::path::Path, name: &str) -> LaskerStats {
    let material: Material = name.parse().unwrap();
    lasker_build(&[material], dir, 0, &|_| {}).unwrap();
    let tb = LaskerTablebase::open(dir).unwrap();
    lasker_stats(&tb, &material).unwrap()
}

/// Percentages of values 4, 3, 2, 1, 0 (the paper's order) to three decimals.
fn percentages(s: &LaskerStats, side: usize) -> [String; 5] {
    let p = s.sides[side].percentages();
    [4, 3, 2, 1, 0].map(|v| format!("{:.3}", p[v]))
}

/// The deepest DTS over both sides to move, with its "unique" count.
fn deepest_stalemate(s: &LaskerStats) -> (u16, u64) {
    let d: Vec<_> = s
        .sides
        .iter()
        .filter_map(|x| x.deepest_dts.clone())
        .collect();
    let depth = d.iter().map(|x| x.depth).max().unwrap();
    (
        depth,
        d.iter()
            .filter(|x| x.depth == depth)
            .map(|x| x.unique)
            .sum(),
    )
}

#[test]
fn paper_figures() {
    let dir = temp_dir("lasker-paper");
    let kbk = stats(&dir, "KBk");
    assert_eq!(
        percentages(&kbk, 0),
        ["0.000", "3.974", "96.026", "0.000", "0.000"]
    );
    assert_eq!(
        percentages(&kbk, 1),
        ["0.000", "0.000", "99.022", "0.978", "0.000"]
    );
    assert_eq!(deepest_stalemate(&kbk), (17, 37));
    // Up to symmetry the same table counts 36 such positions (one class has both kings on
    // the diagonal and the bishop off it, and the paper's convention counts it twice).
    assert_eq!(kbk.sides[0].deepest_dts.as_ref().unwrap().positions, 36);

    let knk = stats(&dir, "KNk");
    assert_eq!(
        percentages(&knk, 0),
        ["0.000", "1.476", "98.524", "0.000", "0.000"]
    );
    assert_eq!(
        percentages(&knk, 1),
        ["0.000", "0.000", "99.745", "0.255", "0.000"]
    );
    assert_eq!(deepest_stalemate(&knk), (27, 9));

    let kqk = stats(&dir, "KQk");
    assert_eq!(
        percentages(&kqk, 0),
        ["100.000", "0.000", "0.000", "0.000", "0.000"]
    );
    assert_eq!(
        percentages(&kqk, 1),
        ["0.000", "0.000", "9.908", "0.401", "89.691"]
    );
    // On the whole board the Black-to-move figures differ: the conventions are distinct.
    let b = &kqk.sides[1].boards;
    let whole = 100.0 * b[1] as f64 / b.iter().sum::<u64>() as f64;
    assert_eq!(format!("{whole:.3}"), "0.389");

    let kpk = stats(&dir, "KPk");
    assert_eq!(
        percentages(&kpk, 0),
        ["76.509", "10.330", "13.159", "0.002", "0.000"]
    );
    // The paper prints 30.605 for the draws; these counts (25,711 draws among 84,012
    // unique positions) give 30.60396 (see docs/research/lasker-engine.md).
    assert_eq!(
        percentages(&kpk, 1),
        ["0.000", "0.008", "30.604", "11.298", "58.089"]
    );
    assert_eq!(kpk.sides[1].unique, [48_802, 9_492, 25_711, 7, 0]);
    assert_eq!(deepest_stalemate(&kpk), (42, 21));

    // The DTS line from the deepest KPk position: 42 plies, every move legal, ending in a
    // stalemate of the loser.
    let start = OrthoPosition::from_fen(kpk.line_start.as_deref().unwrap()).unwrap();
    assert_eq!(kpk.line.len(), 42);
    let mut pos = start;
    for m in &kpk.line {
        let mv = pos.parse_move(&m.uci).unwrap();
        assert!(pos.is_legal(mv));
        pos = pos.play(mv);
    }
    assert_eq!(pos.ending(), Some(Ending::Stalemate));
    assert_eq!(Some(pos.fen()), kpk.line_end);

    let knnk = stats(&dir, "KNNk");
    assert_eq!(deepest_stalemate(&knnk), (52, 6));
}

#[test]
fn kpkp_row() {
    let kpkp: Material = "KPkp".parse().unwrap();
    let dir = match std::env::var("LASKER_TB_DIR") {
        Ok(d) => std::path::PathBuf::from(d),
        Err(_) if antichess_testkit::full_checks() => {
            let dir = temp_dir("lasker-paper-kpkp");
            lasker_build(&[kpkp], &dir, 0, &|_| {}).unwrap();
            dir
        }
        Err(_) => {
            eprintln!(
                "kpkp_row: skipped (builds KPkp and its 19 smaller tables; \
                 ANTICHESS_FULL_CHECKS=1 or LASKER_TB_DIR=<dir with them>)"
            );
            return;
        }
    };
    let tb = LaskerTablebase::open(&dir).unwrap();
    let s = lasker_stats(&tb, &kpkp).unwrap();
    // KPkp is its own colour image: both sides to move have the same counts.
    assert_eq!(s.sides[0].unique, s.sides[1].unique);
    assert_eq!(s.sides[0].ep_unique, s.sides[1].ep_unique);
    let side = &s.sides[0];
    assert_eq!(side.unique, [868_985, 84_610, 991_403, 166_532, 1_606_514]);
    assert_eq!(side.ep_unique, [0, 0, 3_944, 717, 17_232]);
    assert_eq!(side.ep_unique_illegal_before, [0, 0, 0, 10, 700]);
    let row = |p: [f64; 5]| [4, 3, 2, 1, 0].map(|v| format!("{:.3}", p[v]));
    // The paper's row (values 4, 3, 2, 1, 0; White to move, and Black to move by symmetry).
    let paper = ["43.416", "4.472", "26.614", "2.262", "23.235"];
    assert_eq!(row(side.percentages_with_ep()), paper);
    assert_eq!(row(s.sides[1].percentages_with_ep()), paper);
    // The stored positions alone, or with only the en passant positions whose position
    // before the double step is legal (the generator's en passant nodes), miss it.
    assert_eq!(
        row(side.percentages()),
        ["43.209", "4.479", "26.665", "2.276", "23.372"]
    );
    let mut legal_only = side.clone();
    for v in 0..5 {
        legal_only.ep_unique[v] -= side.ep_unique_illegal_before[v];
    }
    assert_eq!(
        row(legal_only.percentages_with_ep()),
        ["43.406", "4.473", "26.619", "2.263", "23.240"]
    );
}
