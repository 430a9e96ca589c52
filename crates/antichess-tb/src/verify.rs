//! Verification of a stored table against the rules, by a code path separate from the
//! generator: every position is decoded, its legal moves are generated *forwards* and
//! played, and its value is recomputed from its successors (this table for quiet moves,
//! the smaller tables through the probing code for captures and promotions; they must be
//! present and open as the materials they are named for) or, without legal moves, from the
//! rules' scoring, and compared with what is stored, DTC included. Decoding is also
//! checked against encoding, stored codes must be valid (WDL code 3 is not) and draws
//! must store DTC 0.
//!
//! Local consistency of WDL and DTC everywhere implies the table is right: by induction on
//! the DTC, every decided position is decided correctly, and a position stored as a draw
//! could only be a win or loss if one of its successors contradicted it.
//!
//! A bound table ([`TableKind::Bound`]) is verified the same way, its conversions valued
//! as its generator values them: the bound for its colour from the tables present, or the
//! result worst for that colour where none covers the position.

use antichess_core::{Color, Position};
use rayon::prelude::*;

use crate::format::TableKind;
use crate::material::Material;
use crate::tablebase::Tablebase;
use crate::wdl::{Value, Wdl};
use crate::TbError;

/// The result of verifying a table.
#[derive(Debug, Clone, Default)]
pub struct VerifyReport {
    pub positions: u64,
    pub mismatches: u64,
    /// Descriptions of the first mismatches.
    pub examples: Vec<String>,
}

/// Recomputes every value of `material`'s table from its successors.
pub fn verify_table(tb: &Tablebase, material: &Material) -> Result<VerifyReport, TbError> {
    verify_table_kind(tb, material, TableKind::Exact)
}

/// Like [`verify_table`], for `material`'s table of `kind` (a bound table's colour in
/// `material`'s colours as given).
pub fn verify_table_kind(
    tb: &Tablebase,
    material: &Material,
    kind: TableKind,
) -> Result<VerifyReport, TbError> {
    let (canonical, swapped) = material.canonical();
    let material = canonical;
    let kind = kind.swapped(swapped);
    let bound = match kind {
        TableKind::Exact => None,
        TableKind::Bound(c) => Some(c),
    };
    let table = match bound {
        None => tb.table(&material)?,
        Some(c) => tb.bound_table(&material, c)?,
    };
    let table = table.ok_or_else(|| TbError::Missing {
        material: format!("{}{}", material.name(), kind.suffix()),
        dir: tb.dir().map(Into::into).unwrap_or_default(),
    })?;
    let index = table.index();
    let size = index.size();
    let dtc = [table.dtc_all(Color::White)?, table.dtc_all(Color::Black)?];
    if table.header().material != material {
        // `Tablebase::table` opens a file as the material asked for; this is a guard.
        return Err(TbError::Verification {
            table: material.name(),
            reason: format!("the file holds the table of {}", table.header().material),
        });
    }
    let stored = |side: Color, idx: u64| -> Value {
        let wdl = table.wdl(side, idx);
        Value {
            wdl,
            dtc: if wdl == Wdl::Draw {
                0
            } else {
                dtc[side.index()][idx as usize]
            },
        }
    };
    let royal = tb.rules().is_royal();
    let mut report = VerifyReport {
        positions: 2 * size,
        ..VerifyReport::default()
    };
    for side in Color::ALL {
        let results: Result<Vec<(u64, Vec<String>)>, TbError> = (0..size as usize)
            .into_par_iter()
            .chunks(1 << 14)
            .map(|chunk| {
                let mut bad = 0u64;
                let mut examples = Vec::new();
                for idx in chunk {
                    let idx = idx as u64;
                    let board = index.decode(idx);
                    if !index.is_canonical(idx, &board) {
                        // An unused duplicate index of a symmetric position.
                        continue;
                    }
                    let pos = Position::from_board_unchecked(board, side, tb.rules());
                    let mut problem = None;
                    let code = table.wdl_code(side, idx);
                    let raw_dtc = dtc[side.index()][idx as usize];
                    let royal_legal = royal && crate::royal::is_position(&board, side);
                    if royal && !royal_legal {
                        // Not a position under the royal rules: stored as code 3.
                        if code != crate::royal::CODE_NOT_POSITION || raw_dtc != 0 {
                            problem = Some(format!(
                                "{}: not a position (the side not to move is in check), \
                                 stored WDL code {code} dtc {raw_dtc} (expected 3, 0)",
                                pos.fen()
                            ));
                        }
                    } else if index.encode(&board) != idx {
                        problem = Some(format!(
                            "index {idx} decodes to {} which encodes to {}",
                            pos.fen(),
                            index.encode(&board)
                        ));
                    } else if code == 3 {
                        problem = Some(format!("{}: invalid WDL code 3", pos.fen()));
                    } else if code == 1 && raw_dtc != 0 {
                        problem = Some(format!(
                            "{}: stored draw with dtc {raw_dtc} (draws store 0)",
                            pos.fen()
                        ));
                    } else {
                        let expected = expected_value(tb, &pos, index, bound, &stored)?;
                        let got = stored(side, idx);
                        if expected != got {
                            problem = Some(format!(
                                "{}: stored {} dtc {}, successors give {} dtc {}",
                                pos.fen(),
                                got.wdl,
                                got.dtc,
                                expected.wdl,
                                expected.dtc
                            ));
                        }
                    }
                    if let Some(p) = problem {
                        bad += 1;
                        if examples.len() < 5 {
                            examples.push(p);
                        }
                    }
                }
                Ok((bad, examples))
            })
            .collect();
        for (bad, examples) in results? {
            report.mismatches += bad;
            for e in examples {
                if report.examples.len() < 10 {
                    report.examples.push(e);
                }
            }
        }
    }
    Ok(report)
}

/// The value of `pos` recomputed from its successors.
fn expected_value(
    tb: &Tablebase,
    pos: &Position,
    index: &crate::index::TableIndex,
    bound: Option<Color>,
    stored: &dyn Fn(Color, u64) -> Value,
) -> Result<Value, TbError> {
    let moves = pos.legal_moves();
    if moves.is_empty() {
        return Ok(Value {
            wdl: Wdl::from_outcome(pos.no_move_outcome(), pos.turn()),
            dtc: 0,
        });
    }
    let (mut win, mut draw, mut loss) = (None::<u16>, false, 0u16);
    for m in moves {
        let child = pos.play(m);
        let conversion = pos.is_capture(m) || m.is_promotion();
        let after = if conversion {
            Value {
                wdl: tb.probe_wdl_within(&child, bound)?,
                dtc: 0,
            }
        } else if child.ep_square().is_some() {
            match bound {
                None => tb.probe_required(&child)?,
                Some(_) => {
                    // Every move of it captures: it converts on its ply.
                    let wdl = tb.probe_wdl_within(&child, bound)?;
                    Value {
                        wdl,
                        dtc: u16::from(wdl != Wdl::Draw),
                    }
                }
            }
        } else {
            // A quiet move keeps the material (the table was opened as its material).
            stored(child.turn(), index.encode(child.board()))
        };
        let plies = if conversion {
            1
        } else {
            after.dtc.saturating_add(1)
        };
        match -after.wdl {
            Wdl::Win => win = Some(win.map_or(plies, |w| w.min(plies))),
            Wdl::Draw => draw = true,
            Wdl::Loss => loss = loss.max(plies),
        }
    }
    Ok(match (win, draw) {
        (Some(dtc), _) => Value { wdl: Wdl::Win, dtc },
        (None, true) => Value {
            wdl: Wdl::Draw,
            dtc: 0,
        },
        (None, false) => Value {
            wdl: Wdl::Loss,
            dtc: loss,
        },
    })
}
