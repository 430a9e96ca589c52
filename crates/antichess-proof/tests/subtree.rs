//! Subtrees: cutting the proof of a node out of a proof (`subtree_proof`), and joining the
//! proofs of a node's children back into the node's proof.

use crate::common::*;
use antichess_core::Move;
use antichess_proof::{
    encode_compact, join_proofs, subtree_proof, verify_compact, ChildProof, NoTablebases,
    ProofError, ProofTree, VerifyOptions,
};

fn verified_nodes(tree: &ProofTree) -> u64 {
    let bytes = encode_compact(tree).unwrap();
    verify_compact(
        &bytes[..],
        Some(bytes.len() as u64),
        &NoTablebases,
        &VerifyOptions::default(),
        &mut |_| {},
    )
    .unwrap()
    .counts
    .total
}

/// Every line of `tree` from its root, `plies` deep (the proof's move where the prover
/// moves, every reply where the opponent does), ending at internal nodes or leaves.
fn lines(tree: &ProofTree, plies: usize) -> Vec<Vec<Move>> {
    let mut out = vec![Vec::new()];
    let mut frontier = vec![Vec::new()];
    for _ in 0..plies {
        let mut next = Vec::new();
        for line in &frontier {
            let Ok(sub) = subtree_proof(tree.clone(), line) else {
                continue;
            };
            let pos = *sub.root();
            let moves = if pos.turn() == tree.prover() {
                // The proof's move: the first node's child.
                sub.nodes().get(1).and_then(|n| n.mv).into_iter().collect()
            } else if sub.len() > 1 {
                pos.legal_moves().to_vec()
            } else {
                Vec::new()
            };
            for m in moves {
                let mut longer: Vec<Move> = line.clone();
                longer.push(m);
                next.push(longer);
            }
        }
        out.extend(next.iter().cloned());
        frontier = next;
    }
    out
}

#[test]
fn every_node_of_the_test_proofs_gives_a_proof_and_the_children_join_back() {
    let mut checked = 0;
    for &(name, fen, prover, depth) in PROOFS {
        let tree = prove(fen, prover, depth);
        for line in lines(&tree, 4) {
            let sub = subtree_proof(tree.clone(), &line)
                .unwrap_or_else(|e| panic!("{name} {line:?}: {e}"));
            let mut pos = *tree.root();
            for &m in &line {
                pos = pos.play(m);
            }
            assert_eq!(sub.root(), &pos, "{name} {line:?}");
            assert_eq!(sub.prover(), tree.prover());
            assert_eq!(verified_nodes(&sub), sub.len() as u64, "{name} {line:?}");
            assert!(sub.len() <= tree.len() * 2, "{name} {line:?}");
            checked += 1;
        }
        // The root's children, cut out and joined again, prove the root.
        let root = *tree.root();
        if root.turn() != prover {
            let children: Vec<ChildProof> = root
                .legal_moves()
                .iter()
                .map(|&m| ChildProof {
                    name: format!("{name} {m}"),
                    tree: subtree_proof(tree.clone(), &[m]).unwrap(),
                })
                .collect();
            let joined = join_proofs(root, Vec::new(), &children).unwrap();
            assert_eq!(verified_nodes(&joined), joined.len() as u64, "{name}");
        }
    }
    assert!(checked > 100, "{checked}");
}

#[test]
fn a_line_off_the_proof_is_refused_with_its_move_named() {
    let &(_, fen, prover, depth) = &PROOFS[2]; // king-two-pawns: White proves, to move
    let tree = prove(fen, prover, depth);
    let root = *tree.root();
    let played = tree.nodes()[1].mv.unwrap();
    let other = root
        .legal_moves()
        .iter()
        .copied()
        .find(|&m| m != played)
        .expect("another move");
    let err = subtree_proof(tree.clone(), &[other]).unwrap_err();
    assert!(matches!(err, ProofError::Join(_)), "{err}");
    assert!(
        err.to_string()
            .contains(&format!("the proof plays {}", root.san(played))),
        "{err}"
    );
    // An illegal move (a move of the side not to move).
    let after = root.play(played);
    let illegal = after.legal_moves()[0];
    let err = subtree_proof(tree.clone(), &[illegal]).unwrap_err();
    assert!(err.to_string().contains("not a legal move"), "{err}");
    // The empty line is the proof itself.
    assert_eq!(subtree_proof(tree.clone(), &[]).unwrap().len(), tree.len());
}
