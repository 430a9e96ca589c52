//! The counts behind the table of candidate conventions for the paper's KPkp row
//! (docs/research/lasker-engine.md, "KPkp: positions with an en passant right"): per side
//! to move and value 0..4, the stored positions, those with the side to move in check, in
//! check from a pawn on its start square, with no legal last move (with and without
//! un-captures), the positions with an en passant right whose position before the double
//! step is legal (`e`) or not (`e_illegal_pre`) and their twins' values, and the
//! double-step boards. Run as `cargo run --profile test -p antichess-tb --example
//! lasker_conventions -- DIR KPkp` with KPkp and its smaller tables in DIR.

use antichess_core::attacks::pawn_attacks;
use antichess_core::orthodox::{in_check, OrthoPosition};
use antichess_core::{Board, Color, Piece, Role, Square};
use antichess_tb::lasker::LaskerTablebase;
use antichess_tb::Material;
use rayon::prelude::*;

#[derive(Default, Clone)]
struct C {
    base: [u64; 5],
    // side to move in check by a pawn on its start rank
    start_rank_check: [u64; 5],
    // side to move in check (any)
    in_check: [u64; 5],
    // unreachable (no un-move of the last mover, un-captures allowed)
    unreach_cap: [u64; 5],
    // unreachable without un-captures (inside KPkp)
    unreach_nocap: [u64; 5],
    // reachable only by a double step that gives an ep right (un-captures allowed)
    only_ep_cap: [u64; 5],
    only_ep_nocap: [u64; 5],
    // E nodes: value with the right
    e: [u64; 5],
    // twin value of E nodes (per E node)
    e_twin: [u64; 5],
    // T positions with >=1 E node: T value; and best E value
    t_with_e: [u64; 5],
    t_best_e: [u64; 5],
    // pseudo double-step positions (opp pawn on 4th, two squares behind empty, pre legal)
    ds: [u64; 5],
    ds_adjacent_pawn: [u64; 5],
    e_illegal_pre: [u64; 5],
    e_illegal_pre_twin: [u64; 5],
}

fn add(a: &mut [u64; 5], b: &[u64; 5]) {
    for i in 0..5 {
        a[i] += b[i];
    }
}

/// Un-move kinds of the player `o` who made the last move, into `board` with `s` to move.
/// Returns (reachable without double step with ep, with un-captures), etc.
fn reach(board: &Board, s: Color, ep_sqs: &[Square], uncap: bool) -> (bool, bool) {
    let o = s.other();
    let occ = board.occupied();
    let mut plain = false;
    let mut via_ep = false;
    let caps: &[Option<Role>] = if uncap {
        &[
            None,
            Some(Role::Queen),
            Some(Role::Rook),
            Some(Role::Bishop),
            Some(Role::Knight),
            Some(Role::Pawn),
        ]
    } else {
        &[None]
    };
    let legal_pre = |pre: &Board| !in_check(pre, s);
    // king
    let ok = Piece::new(o, Role::King);
    let k = board.by_piece(ok).first().unwrap();
    for f in antichess_core::attacks::king_attacks(k) {
        if occ.contains(f) {
            continue;
        }
        for &c in caps {
            if c == Some(Role::Pawn) && (k.rank() == 0 || k.rank() == 7) {
                continue;
            }
            let mut pre = *board;
            pre.remove_unchecked(k, ok);
            pre.put_unchecked(f, ok);
            if let Some(r) = c {
                pre.put_unchecked(k, Piece::new(s, r));
            }
            if legal_pre(&pre) {
                plain = true;
            }
        }
    }
    // pawns
    let op = Piece::new(o, Role::Pawn);
    for p in board.by_piece(op) {
        let rr = p.relative_rank(o); // 0-based
        let back = |n: i32| match o {
            Color::White => p.offset(-8 * n),
            Color::Black => p.offset(8 * n),
        };
        // single step
        if rr >= 2 {
            let b1 = back(1).unwrap();
            if !occ.contains(b1) {
                let mut pre = *board;
                pre.remove_unchecked(p, op);
                pre.put_unchecked(b1, op);
                if legal_pre(&pre) {
                    plain = true;
                }
            }
        }
        if rr == 3 {
            let b1 = back(1).unwrap();
            let b2 = back(2).unwrap();
            if !occ.contains(b1) && !occ.contains(b2) {
                let mut pre = *board;
                pre.remove_unchecked(p, op);
                pre.put_unchecked(b2, op);
                if legal_pre(&pre) {
                    if ep_sqs.contains(&b1) {
                        via_ep = true;
                    } else {
                        plain = true;
                    }
                }
            }
        }
        if uncap && rr >= 2 {
            for d in pawn_attacks(s, p) {
                if occ.contains(d) {
                    continue;
                }
                for &c in &caps[1..] {
                    let mut pre = *board;
                    pre.remove_unchecked(p, op);
                    pre.put_unchecked(d, op);
                    pre.put_unchecked(p, Piece::new(s, c.unwrap()));
                    if legal_pre(&pre) {
                        plain = true;
                    }
                }
            }
        }
    }
    (plain, via_ep)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let dir = std::path::Path::new(&args[0]);
    let material: Material = args[1].parse().unwrap();
    let tb = LaskerTablebase::open(dir).unwrap();
    let table = tb.table(&material).unwrap().unwrap();
    let index = table.index();
    for side in Color::ALL {
        let c = (0..index.size())
            .into_par_iter()
            .fold(C::default, |mut c, idx| {
                let Some(v) = table.value(side, idx) else {
                    return c;
                };
                let v = usize::from(v.value);
                let board = index.decode(idx);
                c.base[v] += 1;
                let o = side.other();
                let king = board
                    .by_piece(Piece::new(side, Role::King))
                    .first()
                    .unwrap();
                if in_check(&board, side) {
                    c.in_check[v] += 1;
                    let checkers =
                        pawn_attacks(side, king) & board.by_piece(Piece::new(o, Role::Pawn));
                    if Iterator::any(&mut checkers.into_iter(), |p: Square| {
                        p.relative_rank(o) == 1
                    }) {
                        c.start_rank_check[v] += 1;
                    }
                }
                // ep squares
                let mut eps: Vec<Square> = Vec::new();
                let op = Piece::new(o, Role::Pawn);
                for to in board.by_piece(op) {
                    if to.relative_rank(o) != 3 {
                        continue;
                    }
                    let (ep, start) = match o {
                        Color::White => (to.offset(-8).unwrap(), to.offset(-16).unwrap()),
                        Color::Black => (to.offset(8).unwrap(), to.offset(16).unwrap()),
                    };
                    let occ = board.occupied();
                    if occ.contains(ep) || occ.contains(start) {
                        continue;
                    }
                    let mut pre = board;
                    pre.remove_unchecked(to, op);
                    pre.put_unchecked(start, op);
                    if in_check(&pre, side) {
                        let pos =
                            OrthoPosition::from_board_with_ep_unchecked(board, side, Some(ep));
                        if pos.ep_square().is_some() {
                            let ev = tb.probe(&pos).unwrap();
                            c.e_illegal_pre[usize::from(ev.value)] += 1;
                            c.e_illegal_pre_twin[v] += 1;
                        }
                        continue;
                    }
                    c.ds[v] += 1;
                    let adj = pawn_attacks(o, ep) & board.by_piece(Piece::new(side, Role::Pawn));
                    if adj.any() {
                        c.ds_adjacent_pawn[v] += 1;
                    }
                    let pos = OrthoPosition::from_board_with_ep_unchecked(board, side, Some(ep));
                    if pos.ep_square().is_some() {
                        eps.push(ep);
                    }
                }
                if !eps.is_empty() {
                    c.t_with_e[v] += 1;
                    let mut best: Option<antichess_tb::lasker::LaskerValue> = None;
                    for &ep in &eps {
                        let pos =
                            OrthoPosition::from_board_with_ep_unchecked(board, side, Some(ep));
                        let ev = tb.probe(&pos).unwrap();
                        c.e[usize::from(ev.value)] += 1;
                        c.e_twin[v] += 1;
                        if best.is_none_or(|b| ev.key() > b.key()) {
                            best = Some(ev);
                        }
                    }
                    c.t_best_e[usize::from(best.unwrap().value)] += 1;
                }
                let (p1, e1) = reach(&board, side, &eps, true);
                if !p1 {
                    if e1 {
                        c.only_ep_cap[v] += 1;
                    } else {
                        c.unreach_cap[v] += 1;
                    }
                }
                let (p0, e0) = reach(&board, side, &eps, false);
                if !p0 {
                    if e0 {
                        c.only_ep_nocap[v] += 1;
                    } else {
                        c.unreach_nocap[v] += 1;
                    }
                }
                c
            })
            .reduce(C::default, |mut a, b| {
                add(&mut a.base, &b.base);
                add(&mut a.start_rank_check, &b.start_rank_check);
                add(&mut a.in_check, &b.in_check);
                add(&mut a.unreach_cap, &b.unreach_cap);
                add(&mut a.unreach_nocap, &b.unreach_nocap);
                add(&mut a.only_ep_cap, &b.only_ep_cap);
                add(&mut a.only_ep_nocap, &b.only_ep_nocap);
                add(&mut a.e, &b.e);
                add(&mut a.e_twin, &b.e_twin);
                add(&mut a.t_with_e, &b.t_with_e);
                add(&mut a.t_best_e, &b.t_best_e);
                add(&mut a.ds, &b.ds);
                add(&mut a.ds_adjacent_pawn, &b.ds_adjacent_pawn);
                add(&mut a.e_illegal_pre, &b.e_illegal_pre);
                add(&mut a.e_illegal_pre_twin, &b.e_illegal_pre_twin);
                a
            });
        println!("side {side:?} (values 0..4)");
        for (name, a) in [
            ("base", c.base),
            ("in_check", c.in_check),
            ("start_rank_check", c.start_rank_check),
            ("unreach_cap", c.unreach_cap),
            ("unreach_nocap", c.unreach_nocap),
            ("only_ep_cap", c.only_ep_cap),
            ("only_ep_nocap", c.only_ep_nocap),
            ("e", c.e),
            ("e_twin", c.e_twin),
            ("t_with_e", c.t_with_e),
            ("t_best_e", c.t_best_e),
            ("ds", c.ds),
            ("ds_adjacent_pawn", c.ds_adjacent_pawn),
            ("e_illegal_pre", c.e_illegal_pre),
            ("e_illegal_pre_twin", c.e_illegal_pre_twin),
        ] {
            println!("  {name:18} {:?} total {}", a, a.iter().sum::<u64>());
        }
    }
}
