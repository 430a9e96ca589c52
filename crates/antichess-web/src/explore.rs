//! The explorer's answer for one position ([`explore`]): the line that reached it, the
//! game's state, and for every legal move its tablebase result and DTC (when a loaded table
//! covers the position after it), its status and subtree size in each loaded proof, and its
//! book numbers (proof / disproof, ratio, status, subtree estimate). Moves are sorted best
//! first: by the tablebase when it knows, else the proof's move first, else by the book's
//! numbers, else in SAN order.

use std::collections::HashMap;

use antichess_core::{Move, Position, START_FEN};
use serde::Serialize;
use serde_json::{json, Value};

use crate::books::{BookHandle, NodeJson, NotFound};
use crate::error::ApiResult;
use crate::line::Line;
use crate::proofs::{LoadedProof, ProofHit};
use crate::state::AppState;
use crate::tables::{self, TablebaseReport};

/// One move of the line that reached the position.
#[derive(Debug, Clone, Serialize)]
pub struct LineMove {
    pub uci: String,
    pub san: String,
    /// The position after the move.
    pub fen: String,
    /// The move is the main-line move of a loaded proof at the position before it.
    pub main_line: bool,
}

/// A proof's view of a position or of a move.
#[derive(Debug, Clone, Serialize)]
pub struct ProofView {
    /// The proof's id (its index in `/api/proofs`) and file name.
    pub id: usize,
    pub name: String,
    /// The position (after the move, for a move) is in the proof.
    pub in_proof: bool,
    /// Its node kind there: `prover`, `opponent`, `terminal`, `tablebase`.
    pub kind: Option<&'static str>,
    /// Nodes of the file in its subtree, and the same with shared positions unfolded.
    pub nodes: Option<u64>,
    pub unfolded: Option<u64>,
    /// For a move: the proof plays it (at the prover's nodes) or must answer it (at the
    /// opponent's). For a position: the proof's move there, in UCI.
    pub proof_move: Option<String>,
    /// For a move: it is the proof's main-line move here. For a position: the main line's
    /// next move (UCI), if the position is on the main line.
    pub main_line: Option<String>,
}

/// One legal move with everything known about it.
#[derive(Debug, Clone, Serialize)]
pub struct ExploreMove {
    pub uci: String,
    pub san: String,
    /// The position after the move.
    pub fen: String,
    /// Tablebase category and DTC of the position after the move, for the side then to
    /// move (as in the tablebase endpoint); `"unknown"` when no table covers it.
    pub tablebase: TbMove,
    /// One entry per loaded proof.
    pub proofs: Vec<ProofView>,
    /// The book's node for the move (`null` if the book has none).
    pub book: Option<NodeJson>,
}

/// A move's tablebase result.
#[derive(Debug, Clone, Serialize)]
pub struct TbMove {
    pub category: &'static str,
    pub dtc: Option<u16>,
    /// The result for the player making the move: `win`, `draw`, `loss`, `unknown`.
    pub result: &'static str,
}

fn view(proof: &LoadedProof, hit: Option<ProofHit>) -> ProofView {
    ProofView {
        id: proof.id,
        name: proof.name.clone(),
        in_proof: hit.is_some(),
        kind: hit.map(|h| h.kind),
        nodes: hit.map(|h| h.nodes),
        unfolded: hit.map(|h| h.unfolded),
        proof_move: hit.and_then(|h| h.proof_move).map(|m| m.to_uci()),
        main_line: hit.and_then(|h| h.main_line_move).map(|m| m.to_uci()),
    }
}

fn mover_result(category: &str) -> &'static str {
    match category {
        "win" => "loss",
        "loss" => "win",
        "draw" => "draw",
        _ => "unknown",
    }
}

/// The book part of the explorer's answer.
fn book_view(book: &BookHandle, line: &Line) -> ApiResult<(Value, HashMap<String, NodeJson>)> {
    let (found, children, now) = book.explore(line)?;
    let pos = line.position();
    let mut by_uci = HashMap::new();
    let value = match found {
        Ok(found) => {
            for (uci, child) in &children {
                by_uci.insert(uci.clone(), NodeJson::of(child, Some(pos), now));
            }
            json!({
                "name": book.name,
                "node": NodeJson::of(&found.node, None, now),
                "found_by": found.how,
                "note": if found.node.expanded {
                    String::new()
                } else {
                    format!("node {} is a leaf of the book", found.node.id)
                },
            })
        }
        Err(NotFound::BelowLeaf(leaf)) => json!({
            "name": book.name,
            "node": null,
            "leaf": NodeJson::of(&leaf, None, now),
            "note": format!("not in the book: the line leaves it below leaf node {}", leaf.id),
        }),
        Err(NotFound::Absent) => json!({
            "name": book.name,
            "node": null,
            "note": "not in the book",
        }),
    };
    Ok((value, by_uci))
}

/// Everything the explorer shows for the position at the end of `line`. `book`: the book
/// to consult (none if the server has none).
pub fn explore(state: &AppState, line: &Line, book: Option<&BookHandle>) -> ApiResult<Value> {
    let pos = *line.position();
    let tb = state.tablebase.as_deref();
    let report: TablebaseReport = tables::probe(tb, &pos)?;
    let proofs = &state.proofs;
    // The line, with main-line flags.
    let mut line_moves = Vec::with_capacity(line.moves().len());
    for (i, &m) in line.moves().iter().enumerate() {
        let before = &line.positions[i];
        let main_line = proofs.iter().any(|p| p.main_line_move(before) == Some(m));
        line_moves.push(LineMove {
            uci: m.to_uci(),
            san: before.san(m),
            fen: line.positions[i + 1].fen(),
            main_line,
        });
    }
    let position_proofs: Vec<ProofView> = proofs.iter().map(|p| view(p, p.lookup(&pos))).collect();
    let (book_json, book_moves) = match book {
        Some(book) => {
            let (v, m) = book_view(book, line)?;
            (Some(v), m)
        }
        None => (None, HashMap::new()),
    };
    // Every legal move, with the tablebase's values from the report.
    let tb_by_uci: HashMap<&str, &tables::TablebaseMove> =
        report.moves.iter().map(|m| (m.uci.as_str(), m)).collect();
    let tb_order: HashMap<&str, usize> = report
        .moves
        .iter()
        .enumerate()
        .filter(|(_, m)| m.category != "unknown")
        .map(|(i, m)| (m.uci.as_str(), i))
        .collect();
    let here: Vec<Option<ProofHit>> = proofs.iter().map(|p| p.lookup(&pos)).collect();
    let mut moves: Vec<(Move, ExploreMove)> = Vec::new();
    for m in pos.legal_moves() {
        let uci = m.to_uci();
        let after = pos.play(m);
        let tbm = tb_by_uci.get(uci.as_str());
        let category = tbm.map_or("unknown", |t| t.category);
        let proof_views = proofs
            .iter()
            .zip(&here)
            .map(|(p, here)| {
                let hit = p.lookup(&after);
                let mut v = view(p, hit);
                // Relative to this position: the proof's move, and the main-line move.
                v.proof_move = match here {
                    Some(h) if h.kind == "prover" => (h.proof_move == Some(m)).then(|| uci.clone()),
                    Some(h) if h.kind == "opponent" => hit.is_some().then(|| uci.clone()),
                    _ => None,
                };
                v.main_line = (p.main_line_move(&pos) == Some(m)).then(|| uci.clone());
                v
            })
            .collect();
        moves.push((
            m,
            ExploreMove {
                san: pos.san(m),
                fen: after.fen(),
                tablebase: TbMove {
                    category,
                    dtc: tbm.and_then(|t| t.dtc),
                    result: mover_result(category),
                },
                proofs: proof_views,
                book: book_moves.get(&uci).cloned(),
                uci,
            },
        ));
    }
    let book_prover_to_move = book_json
        .as_ref()
        .and_then(|b| b.get("node"))
        .and_then(|n| n.get("prover_to_move"))
        .and_then(Value::as_bool);
    moves.sort_by_cached_key(|(_, e)| {
        let tb_rank = tb_order.get(e.uci.as_str()).copied().unwrap_or(usize::MAX);
        let proof_rank = if e.proofs.iter().any(|p| p.main_line.is_some()) {
            0
        } else if e.proofs.iter().any(|p| p.proof_move.is_some()) {
            1
        } else {
            2
        };
        let book_rank = e.book.as_ref().map_or(u64::MAX, |b| {
            let n = |v: &Value| v.as_u64().unwrap_or(u64::MAX);
            // Most proving first at the prover's nodes, most disproving at the opponent's.
            if book_prover_to_move == Some(false) {
                n(&b.disproof)
            } else {
                n(&b.proof)
            }
        });
        (tb_rank, proof_rank, book_rank, e.san.clone())
    });
    let outcome = line.game.outcome(false).map(|o| {
        json!({
            "winner": o.winner().map(|c| c.name()),
            "result": o.pgn(),
            "text": o.to_string(),
        })
    });
    Ok(json!({
        "rules": state.rules.to_string(),
        "start_fen": line.start().fen(),
        "standard_start": line.start().fen() == START_FEN,
        "moves_uci": line.uci_text(),
        "line": line_moves,
        "fen": pos.fen(),
        "turn": pos.turn().name(),
        "outcome": outcome,
        "repetitions": line.game.repetitions(),
        "tablebase": {
            "category": report.category,
            "dtc": report.dtc,
            "material": report.material,
            "missing": report.missing,
            "units": pos.board().occupied().count(),
            "tables_units": state.tables_units,
        },
        "proofs": position_proofs,
        "book": book_json,
        "moves": moves.into_iter().map(|(_, e)| e).collect::<Vec<_>>(),
    }))
}

/// The explorer's query (`fen`, `moves`) for a book's or a proof's root: the moves from
/// the start position when they are known (so the explorer shows the opening too), else
/// the root's FEN.
#[must_use]
pub fn explorer_query(root: &Position, prolog: &[Move]) -> Value {
    if prolog.is_empty() {
        json!({ "fen": root.fen(), "moves": "" })
    } else {
        json!({
            "fen": null,
            "moves": prolog.iter().map(|m| m.to_uci()).collect::<Vec<_>>().join(" "),
        })
    }
}
