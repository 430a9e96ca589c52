//! Stand-ins that the workspace's tests of proofs share (the feature `test-support`, a
//! dev-dependency feature only, never of a release build): tables that call every
//! tablebase leaf a win for the prover, and the forged 12-byte proof of issue 63.
//!
//! Here, in the crate that defines [`LeafOracle`] and the reference format, rather than in
//! antichess-testkit: the testkit is a dev-dependency of antichess-tb, on which this crate
//! depends, so it cannot depend on this crate without a circle.

use antichess_core::{Color, Move, Position, Rules};

use crate::{encode_reference, ByteOrder, LeafOracle, LeafValue, Node, NodeKind, ProofTree};

/// Tables that say the prover (the colour given) wins at every tablebase leaf, of any
/// number of units: for tests of what is not the tables' verdict (the index, crafted
/// proofs that cut every line they do not need with a tablebase leaf). The shipped
/// proofs verify with real tables in antichess-cli's `proofs_manifest` test.
#[derive(Debug, Clone, Copy)]
pub struct ProverWinsEverywhere(pub Color);

impl LeafOracle for ProverWinsEverywhere {
    fn max_units(&self) -> u32 {
        32
    }

    fn probe(&self, pos: &Position) -> Result<Option<LeafValue>, String> {
        Ok(Some(if pos.turn() == self.0 {
            LeafValue::Win
        } else {
            LeafValue::Loss
        }))
    }

    fn best_move(&self, _pos: &Position) -> Result<Option<Move>, String> {
        Ok(None)
    }
}

/// The forged proof of issue 63, in the reference format (little-endian): the start
/// position and one prover move, 1. e3, to a "tablebase leaf" of 32 units, which no table
/// covers: 12 bytes that must never be believed.
///
/// # Panics
/// Never for these fixed contents (the encoding is checked to be 12 bytes).
#[must_use]
pub fn forged_proof() -> Vec<u8> {
    let start = Position::start(Rules::INTERNATIONAL);
    let e3 = start.parse_uci("e2e3").expect("1. e3 is legal");
    let nodes = vec![
        Node {
            mv: None,
            kind: NodeKind::Prover,
        },
        Node {
            mv: Some(e3),
            kind: NodeKind::Tablebase,
        },
    ];
    let tree =
        ProofTree::from_parts(start, Color::White, Vec::new(), nodes).expect("a well-formed tree");
    let bytes = encode_reference(&tree, ByteOrder::Little).expect("encodes");
    assert_eq!(bytes.len(), 12);
    bytes
}
