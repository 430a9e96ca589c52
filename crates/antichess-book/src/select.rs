//! Choosing the next leaf: a walk from the start node (the root, or the pinned node) down
//! to an open leaf that no other worker holds.
//!
//! At each node the walk picks among the open children either at random, with weight
//! `ratio ^ exponent` where the ratio is taken from the side to move's point of view
//! (disproof / proof at the prover's nodes, proof / disproof at the opponent's), or, in
//! [`Selection::MostProving`] mode, the most proving child (smallest proof number at the
//! prover's nodes, smallest disproof number at the opponent's). Children that are decided,
//! leaves under a valid lease, and subtrees found to have no free leaf are skipped; when a
//! node has nothing left the walk marks it and starts again.

use std::collections::HashSet;

use crate::error::Result;
use crate::node::{Node, NodeId};
use crate::store::Txn;

/// How the walk picks a child.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Selection {
    /// At random, with weight ratio^exponent (default exponent 2).
    Weighted { exponent: f64 },
    /// The most proving child.
    MostProving,
}

impl Default for Selection {
    fn default() -> Selection {
        Selection::Weighted { exponent: 2.0 }
    }
}

/// A small xorshift64* generator (selection needs no more).
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    #[must_use]
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1)
    }

    /// Seeded from the clock, the process id and `salt`.
    #[must_use]
    pub fn from_entropy(salt: u64) -> Rng {
        let t = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        Rng::new(t ^ (u64::from(std::process::id()) << 32) ^ salt.rotate_left(17))
    }

    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// Uniform in [0, 1).
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// The child the walk takes from `parent` among `kids` (all open, at least one).
#[must_use]
pub fn pick<'a>(parent: &Node, kids: &[&'a Node], selection: Selection, rng: &mut Rng) -> &'a Node {
    let or_node = parent.prover_to_move;
    match selection {
        Selection::MostProving => kids
            .iter()
            .min_by_key(|k| {
                if or_node {
                    (k.proof, u32::MAX - k.disproof)
                } else {
                    (k.disproof, u32::MAX - k.proof)
                }
            })
            .expect("non-empty"),
        Selection::Weighted { exponent } => {
            // Weights in log space: ln w = exponent * (ln a - ln b).
            let logs: Vec<f64> = kids
                .iter()
                .map(|k| {
                    let (a, b) = if or_node {
                        (k.disproof, k.proof)
                    } else {
                        (k.proof, k.disproof)
                    };
                    exponent * (f64::from(a.max(1)).ln() - f64::from(b.max(1)).ln())
                })
                .collect();
            let max = logs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let weights: Vec<f64> = logs.iter().map(|l| (l - max).exp()).collect();
            let total: f64 = weights.iter().sum();
            let mut r = rng.next_f64() * total;
            for (k, w) in kids.iter().zip(&weights) {
                if r < *w {
                    return k;
                }
                r -= w;
            }
            kids[kids.len() - 1]
        }
    }
}

/// Walks from `start` to a free open leaf. `excluded` collects nodes known to have no
/// free leaf (it may be reused for the next walk of the same claim attempt). Returns
/// `None` if there is none below `start`.
pub fn walk(
    txn: &mut dyn Txn,
    start: NodeId,
    selection: Selection,
    rng: &mut Rng,
    now_ms: i64,
    excluded: &mut HashSet<NodeId>,
) -> Result<Option<NodeId>> {
    'restart: loop {
        if excluded.contains(&start) {
            return Ok(None);
        }
        let Some(mut node) = txn.node(start)? else {
            return Ok(None);
        };
        loop {
            if !node.is_open() {
                excluded.insert(node.id);
                continue 'restart;
            }
            if !node.expanded {
                if node.is_claimable(now_ms) {
                    return Ok(Some(node.id));
                }
                excluded.insert(node.id);
                continue 'restart;
            }
            let children = txn.children(node.id)?;
            let open: Vec<&Node> = children
                .iter()
                .filter(|k| {
                    k.is_open() && !excluded.contains(&k.id) && (k.expanded || !k.is_leased(now_ms))
                })
                .collect();
            if open.is_empty() {
                excluded.insert(node.id);
                continue 'restart;
            }
            let next = pick(&node, &open, selection, rng).clone();
            node = next;
        }
    }
}
