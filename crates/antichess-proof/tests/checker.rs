//! The proof rules that both formats share, on crafted files: a reference that repeats a
//! position of its own line is rejected (like an internal node that does), and the
//! reference format's reserved index 0x3fffffff means "no sibling" for no kind of node
//! (issue 36, item 7).

use std::collections::HashMap;

use crate::common::*;
use antichess_core::{Color, Move, Position, Rules};
use antichess_proof::test_support::ProverWinsEverywhere;
use antichess_proof::{
    encode_compact, encode_reference, ordered_moves, read_reference, verify_compact,
    verify_reference, ByteOrder, LeafOracle, Node, NodeKind, ProofError, ProofStats, ProofTree,
    ReferenceFile, ReferenceOptions, VerifyOptions,
};

fn reference_options(tree: &ProofTree) -> ReferenceOptions {
    ReferenceOptions {
        rules: tree.rules(),
        prover: tree.prover(),
        byte_order: None,
        start_fen: Some(tree.root().fen()),
    }
}

fn verify_ours(bytes: &[u8], oracle: &dyn LeafOracle) -> Result<ProofStats, ProofError> {
    verify_compact(
        bytes,
        Some(bytes.len() as u64),
        oracle,
        &VerifyOptions::default(),
        &mut |_| {},
    )
}

fn verify_theirs(
    bytes: &[u8],
    tree: &ProofTree,
    oracle: &dyn LeafOracle,
) -> Result<ProofStats, ProofError> {
    let options = VerifyOptions {
        reference: reference_options(tree),
        ..VerifyOptions::default()
    };
    verify_reference(bytes, oracle, &options, &mut |_| {})
}

/// What a crafted proof does at the end of a line (moves in SAN from the root, separated
/// by spaces); lines not planned end in a leaf.
enum Plan {
    /// A prover node playing this move.
    Play(&'static str),
    /// An opponent node with every legal move.
    All,
    /// A reference to the node at the end of this line.
    RefersTo(&'static str),
}

/// Builds the nodes of a crafted proof in preorder.
fn grow(
    pos: Position,
    mv: Option<Move>,
    line: String,
    plans: &HashMap<&str, Plan>,
    nodes: &mut Vec<Node>,
    at: &mut HashMap<String, usize>,
) {
    at.insert(line.clone(), nodes.len());
    let then = |san: &str| {
        if line.is_empty() {
            san.to_string()
        } else {
            format!("{line} {san}")
        }
    };
    match plans.get(line.as_str()) {
        Some(Plan::Play(san)) => {
            nodes.push(Node {
                mv,
                kind: NodeKind::Prover,
            });
            let m = pos.parse_san(san).unwrap();
            grow(pos.play(m), Some(m), then(san), plans, nodes, at);
        }
        Some(Plan::All) => {
            let moves = ordered_moves(&pos);
            nodes.push(Node {
                mv,
                kind: NodeKind::Opponent {
                    children: moves.len() as u16,
                },
            });
            for m in moves {
                grow(pos.play(m), Some(m), then(&pos.san(m)), plans, nodes, at);
            }
        }
        Some(Plan::RefersTo(target)) => nodes.push(Node {
            mv,
            kind: NodeKind::Reference {
                target: at[*target] as u32,
            },
        }),
        None => nodes.push(Node {
            mv,
            kind: if pos.legal_moves().is_empty() {
                NodeKind::Terminal
            } else {
                NodeKind::Tablebase
            },
        }),
    }
}

/// After 1. Nf3, with White the prover: Black's knight goes to a6 and back while White's
/// returns to g1, which reaches the start position (node T, White plays 2. e3); the same
/// happens through c6 (node Q), then White's knight goes to h3 and back while Black's goes
/// to a6 and back: the start position again, a reference to T on a line through Q.
/// `repeat`: whether that last node is the reference (else a tablebase leaf). Returns the
/// tree and the reference's node number.
fn line_through_the_start_position_twice(repeat: bool) -> (ProofTree, usize) {
    let start = Position::start(Rules::INTERNATIONAL);
    let root = start.play(start.parse_san("Nf3").unwrap());
    let last = "Nc6 Ng1 Nb8 Nh3 Na6 Ng1 Nb8";
    let mut plans: HashMap<&str, Plan> = HashMap::from([
        ("", Plan::All),
        ("Na6", Plan::Play("Ng1")),
        ("Na6 Ng1", Plan::All),
        ("Na6 Ng1 Nb8", Plan::Play("e3")),
        ("Nc6", Plan::Play("Ng1")),
        ("Nc6 Ng1", Plan::All),
        ("Nc6 Ng1 Nb8", Plan::Play("Nh3")),
        ("Nc6 Ng1 Nb8 Nh3", Plan::All),
        ("Nc6 Ng1 Nb8 Nh3 Na6", Plan::Play("Ng1")),
        ("Nc6 Ng1 Nb8 Nh3 Na6 Ng1", Plan::All),
    ]);
    if repeat {
        plans.insert(last, Plan::RefersTo("Na6 Ng1 Nb8"));
    }
    let mut nodes = Vec::new();
    let mut at = HashMap::new();
    grow(root, None, String::new(), &plans, &mut nodes, &mut at);
    let r = at[last];
    let tree = ProofTree::from_parts(root, Color::White, vec![], nodes).unwrap();
    (tree, r)
}

#[test]
fn a_reference_that_repeats_its_line_is_rejected() {
    let oracle = ProverWinsEverywhere(Color::White);
    // Without the repetition the crafted proof is valid (with these tables).
    let (fine, _) = line_through_the_start_position_twice(false);
    verify_ours(&encode_compact(&fine).unwrap(), &oracle).unwrap();
    let theirs = encode_reference(&fine, ByteOrder::Little).unwrap();
    verify_theirs(&theirs, &fine, &oracle).unwrap();

    // With it: the reference is the start position, which is already on its line (node
    // Q), though its target (T) is complete and the same position.
    let (tree, r) = line_through_the_start_position_twice(true);
    assert!(matches!(tree.nodes()[r].kind, NodeKind::Reference { .. }));
    let expected = format!(
        "node {r} (1... Nc6 2. Ng1 Nb8 3. Nh3 Na6 4. Ng1 Nb8): the position repeats on the path from the root"
    );
    let err = verify_ours(&encode_compact(&tree).unwrap(), &oracle).unwrap_err();
    assert!(err.is_rejection(), "{err}");
    assert!(err.to_string().starts_with(&expected), "{err}");
    // The reference format: a transposition to a finished node.
    let theirs = encode_reference(&tree, ByteOrder::Little).unwrap();
    let err = verify_theirs(&theirs, &tree, &oracle).unwrap_err();
    assert!(err.is_rejection(), "{err}");
    assert!(err.to_string().starts_with(&expected), "{err}");
}

#[test]
fn reference_format_reserved_index() {
    let &(_, fen, prover, depth) = PROOFS.last().unwrap();
    let tree = prove(fen, prover, depth);
    assert!(tree.prolog().is_empty(), "node k is at byte 6k");
    let good = encode_reference(&tree, ByteOrder::Little).unwrap();
    let word =
        |bytes: &[u8], k: usize| u32::from_le_bytes(bytes[6 * k..6 * k + 4].try_into().unwrap());
    let set = |bytes: &mut Vec<u8>, k: usize, w: u32| {
        bytes[6 * k..6 * k + 4].copy_from_slice(&w.to_le_bytes())
    };
    const LOW: u32 = 0x3fff_ffff;

    // Kind 00 (no children) is "no sibling" with index 0 only: 0x3fffffff is rejected.
    let k = (1..tree.len())
        .find(|&k| word(&good, k) == 0)
        .expect("a leaf that is its parent's last child");
    let mut bad = good.clone();
    set(&mut bad, k, LOW);
    let err = verify_theirs(&bad, &tree, &ProverWinsEverywhere(prover)).unwrap_err();
    let text = err.to_string();
    assert!(err.is_rejection(), "{text}");
    assert!(
        text.contains(&format!("node {k}: kind 00 with index 0x3fffffff")),
        "{text}"
    );
    let mut file = ReferenceFile::open(&bad[..], None).unwrap();
    let err = read_reference(&mut file, &reference_options(&tree)).unwrap_err();
    assert!(err.to_string().contains("0x3fffffff"), "{err}");

    // Kind 01 with 0x3fffffff, as documented: no children, the next sibling is the next
    // node. A leaf whose next sibling is the next node may be written so.
    let (tree, good, k) = PROOFS
        .iter()
        .find_map(|&(_, fen, prover, depth)| {
            let tree = prove(fen, prover, depth);
            let good = encode_reference(&tree, ByteOrder::Little).unwrap();
            let k = (1..tree.len()).find(|&k| word(&good, k) == k as u32 + 1)?;
            Some((tree, good, k))
        })
        .expect("a leaf followed by its next sibling");
    let mut other = good.clone();
    set(&mut other, k, 1 << 30 | LOW);
    let stats = verify_theirs(&other, &tree, &ProverWinsEverywhere(tree.prover())).unwrap();
    assert_eq!(stats.counts, tree.counts());
    let mut file = ReferenceFile::open(&other[..], None).unwrap();
    assert_eq!(
        read_reference(&mut file, &reference_options(&tree)).unwrap(),
        tree
    );
}
