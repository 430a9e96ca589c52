//! Proofs waiting for tables: a proof that cannot be verified here only because a table
//! it rests on is not built (a frontier file's proof loaded on a new machine, whose
//! tablebase leaves need 5-unit bound tables) is kept in the book instead of being
//! dropped, and seeded once the tables exist.
//!
//! Storage: one meta entry per proof, `pending_seed:<position key>`, holding the proof as a
//! seed does (its root's FEN and the file's bytes; `seed_meta`). Keeping one adds its
//! missing materials to the book's counts of materials met without a table
//! (`crate::tables`), weighted by the proof's nodes, so `tb build --from-book` and
//! `prove`'s table rounds build them among the materials the searches meet.
//! [`retry_pending`] (run by `prove` when it starts and after each table round, and by
//! `book load-frontier`) seeds every pending proof whose tables are now there: verified in
//! full by `seed_bytes` as any seed, so a pending proof is never trusted before that.
//! Until then its node stays open and the walk may search it again; whichever decides it
//! first wins it, and a seed of a position already won changes nothing.

use std::collections::BTreeSet;

use antichess_core::Color;
use antichess_pns::MissingTable;
use antichess_proof::{probed_positions, read_compact, NodeKind, ProofTree};
use antichess_tb::{Material, Tablebase};

use crate::error::{BookError, Result};
use crate::seed::seed_bytes;
use crate::seed_meta::Seed;
use crate::Book;

/// The meta name prefix of a pending proof.
const PREFIX: &str = "pending_seed:";

/// What [`retry_pending`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct PendingReport {
    /// Proofs verified and seeded now.
    pub seeded: u64,
    /// Book nodes they won.
    pub won: u64,
    /// Proofs still waiting for a table.
    pub left: u64,
    /// Proofs that had their tables but did not verify (why): dropped.
    pub dropped: Vec<String>,
}

/// The materials at the tablebase leaves of the compact proof `bytes` for which
/// `tablebase` has neither an exact table nor a bound table for `prover` (a leaf with an
/// en passant capture to make counts by the materials its captures lead to). Empty when
/// every leaf can be probed.
///
/// # Errors
/// The proof cannot be decoded.
pub fn missing_materials(
    tree: &ProofTree,
    tablebase: Option<&Tablebase>,
    prover: Color,
) -> Result<BTreeSet<String>> {
    let kinds = tree.nodes();
    let mut missing = BTreeSet::new();
    tree.for_each_position(|n, pos, _| {
        if kinds[n].kind != NodeKind::Tablebase {
            return Ok(());
        }
        for pos in probed_positions(pos) {
            let material = Material::from_board(pos.board());
            let covered = tablebase
                .is_some_and(|t| t.contains(&material) || t.has_bound_table(&material, prover));
            if !covered {
                missing.insert(material.name());
            }
        }
        Ok(())
    })
    .map_err(|e| BookError::Input(format!("a pending proof cannot be walked: {e}")))?;
    Ok(missing)
}

/// Keeps the proof `bytes` (decoded: `tree`) until the tables it needs (`missing`, from
/// [`missing_materials`]) are built, and counts those materials as met by the book (the
/// proof's nodes each).
///
/// # Errors
/// The store's.
pub fn keep_pending(
    book: &mut Book,
    tree: &ProofTree,
    bytes: Vec<u8>,
    missing: &BTreeSet<String>,
) -> Result<()> {
    let nodes = tree.len() as u64;
    let key = tree.root().key();
    let seed = Seed {
        fen: tree.root().fen(),
        bytes,
    };
    let met: Vec<MissingTable> = missing
        .iter()
        .map(|m| MissingTable {
            material: m.clone(),
            units: m.chars().filter(char::is_ascii_alphabetic).count() as u32,
            positions: nodes,
        })
        .collect();
    book.write_txn(|txn| {
        txn.set_meta(&format!("{PREFIX}{key:016x}"), &seed.encode())?;
        crate::tables::record_missing(txn, &met)
    })
}

/// The pending proofs of `book` (meta name and proof).
fn pending(book: &mut Book) -> Result<Vec<(String, Seed)>> {
    book.read_txn(|txn| {
        txn.all_meta()?
            .into_iter()
            .filter(|(name, _)| name.starts_with(PREFIX))
            .map(|(name, value)| Seed::decode(&name, &value).map(|s| (name, s)))
            .collect()
    })
}

/// The proofs of `book` that wait for tables, with their root positions' keys (a frontier
/// save writes them too, for a machine that has their tables).
///
/// # Errors
/// The store's; a damaged entry.
pub fn pending_proofs(book: &mut Book) -> Result<Vec<(u64, Seed)>> {
    pending(book)?
        .into_iter()
        .map(|(name, seed)| {
            u64::from_str_radix(&name[PREFIX.len()..], 16)
                .map(|key| (key, seed))
                .map_err(|_| BookError::Corrupt(format!("meta {name}: not a position key")))
        })
        .collect()
}

/// Seeds every pending proof of `book` whose tables `tablebase` now has (verified in full
/// by [`seed_bytes`]); a proof that still lacks a table stays; one that has its tables but
/// does not verify is dropped (and said why).
///
/// # Errors
/// The store's.
pub fn retry_pending(book: &mut Book, tablebase: Option<&Tablebase>) -> Result<PendingReport> {
    let prover = book.meta().prover;
    let mut report = PendingReport::default();
    for (name, seed) in pending(book)? {
        let missing = match read_compact(&seed.bytes[..])
            .map_err(|e| BookError::Input(format!("it cannot be read: {e}")))
            .and_then(|tree| missing_materials(&tree, tablebase, prover))
        {
            Ok(m) => m,
            Err(e) => {
                report.dropped.push(format!("{}: {e}", seed.fen));
                book.write_txn(|txn| txn.delete_meta(&name))?;
                continue;
            }
        };
        if !missing.is_empty() {
            report.left += 1;
            continue;
        }
        let label = format!("the pending proof of {}", seed.fen);
        match seed_bytes(book, seed.bytes, &label, tablebase) {
            Ok(r) => {
                report.seeded += 1;
                report.won += r.won_now;
            }
            Err(BookError::Input(why) | BookError::Mismatch(why)) => report.dropped.push(why),
            Err(e @ BookError::Seed { .. }) => report.dropped.push(e.to_string()),
            Err(e) => return Err(e),
        }
        book.write_txn(|txn| txn.delete_meta(&name))?;
    }
    Ok(report)
}
