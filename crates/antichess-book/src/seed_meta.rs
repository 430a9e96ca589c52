//! Seeds as a book stores them, and the lookups an expansion makes: one meta entry per
//! seeded position, named `seed:<Zobrist key, 16 hex digits>`, whose value is the
//! position's FEN, a newline, and the proof file's bytes (our compact format) in
//! hexadecimal, and the entry `seeds` (`1`) once there is one. The meta table is common to
//! both stores and every copy of a book carries it, so seeds need no schema change.
//!
//! Below the tree's changes (`tree.rs`, which asks [`has_seeds`] and [`seeded_size`] for a
//! new node) and the seeding itself ([`crate::seed`], which writes these entries).

use antichess_proof::{read_compact, ProofTree};

use crate::error::{BookError, Result};
use crate::node::same_position;
use crate::store::Txn;

/// The meta entry that says the book has seeds (so that a book without any reads one
/// entry per expansion, not one per new node).
pub(crate) const SEEDS_FLAG: &str = "seeds";

/// Whether the book has seeds.
pub(crate) fn has_seeds(txn: &mut dyn Txn) -> Result<bool> {
    Ok(txn.meta(SEEDS_FLAG)?.is_some())
}

/// The meta entry of a seeded position.
pub(crate) fn meta_name(key: u64) -> String {
    format!("seed:{key:016x}")
}

/// Whether a meta entry is a seed.
pub(crate) fn is_seed_name(name: &str) -> bool {
    name.starts_with("seed:")
}

/// A seed as stored: the position's FEN and the proof file's bytes.
#[derive(Debug, Clone)]
pub struct Seed {
    pub fen: String,
    pub bytes: Vec<u8>,
}

impl Seed {
    pub(crate) fn encode(&self) -> String {
        let mut out = String::with_capacity(self.fen.len() + 1 + 2 * self.bytes.len());
        out.push_str(&self.fen);
        out.push('\n');
        for b in &self.bytes {
            out.push_str(&format!("{b:02x}"));
        }
        out
    }

    pub(crate) fn decode(name: &str, value: &str) -> Result<Seed> {
        let bad = |why: &str| BookError::Corrupt(format!("meta {name}: {why}"));
        let (fen, hex) = value.split_once('\n').ok_or_else(|| bad("no proof"))?;
        if hex.len() % 2 != 0 {
            return Err(bad("odd number of hexadecimal digits"));
        }
        let bytes = (0..hex.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&hex[i..i + 2], 16))
            .collect::<std::result::Result<Vec<u8>, _>>()
            .map_err(|_| bad("not hexadecimal"))?;
        Ok(Seed {
            fen: fen.to_string(),
            bytes,
        })
    }

    /// The proof, decoded (its structure checked; it was verified when it was seeded).
    pub fn tree(&self) -> Result<ProofTree> {
        read_compact(&self.bytes[..])
            .map_err(|e| BookError::Corrupt(format!("the seed proof of {}: {e}", self.fen)))
    }
}

/// The size of the seed proof of the position with `key` and `fen`, if the book has one:
/// a node created for it is won at once.
pub(crate) fn seeded_size(txn: &mut dyn Txn, key: u64, fen: &str) -> Result<Option<u64>> {
    let name = meta_name(key);
    let Some(value) = txn.meta(&name)? else {
        return Ok(None);
    };
    let seed = Seed::decode(&name, &value)?;
    if !same_position(&seed.fen, fen) {
        return Ok(None);
    }
    Ok(Some(seed.tree()?.len() as u64))
}
