//! Proof files end to end: building proofs with a brute-force prover, both formats' round
//! trips, verification of valid proofs, and rejection of wrong proofs and damaged files
//! with messages that name the node or the byte offset.

use crate::common::*;
use antichess_core::{Color, Position, Rules};
use antichess_proof::{
    build_proof, encode_compact, encode_compact_unchecked, encode_reference, index_width,
    read_compact, read_reference, verify_compact, verify_reference, ByteOrder, CompactHeader,
    LeafOracle, NoTablebases, Node, NodeKind, ProofError, ProofTree, ReferenceFile,
    ReferenceOptions, VerifyOptions,
};

fn all_proofs() -> Vec<(&'static str, ProofTree)> {
    PROOFS
        .iter()
        .map(|&(name, fen, prover, depth)| (name, prove(fen, prover, depth)))
        .collect()
}

fn verify_ours(
    bytes: &[u8],
    oracle: &dyn LeafOracle,
    expand: bool,
) -> Result<antichess_proof::ProofStats, ProofError> {
    let options = VerifyOptions {
        expand_tablebase_leaves: expand,
        ..VerifyOptions::default()
    };
    verify_compact(
        bytes,
        Some(bytes.len() as u64),
        oracle,
        &options,
        &mut |_| {},
    )
}

fn reference_options(tree: &ProofTree) -> ReferenceOptions {
    ReferenceOptions {
        rules: tree.rules(),
        prover: tree.prover(),
        byte_order: None,
        start_fen: Some(tree.root().fen()),
    }
}

fn verify_theirs(
    bytes: &[u8],
    tree: &ProofTree,
) -> Result<antichess_proof::ProofStats, ProofError> {
    let options = VerifyOptions {
        reference: reference_options(tree),
        ..VerifyOptions::default()
    };
    verify_reference(bytes, &NoTablebases, &options, &mut |_| {})
}

fn read_theirs(bytes: &[u8], tree: &ProofTree) -> Result<ProofTree, ProofError> {
    let mut file = ReferenceFile::open(bytes, None)?;
    read_reference(&mut file, &reference_options(tree))
}

#[test]
fn proofs_have_the_expected_shape() {
    let proofs = all_proofs();
    assert!(
        proofs.iter().any(|(_, t)| t.counts().references > 0),
        "at least one proof shares transposed positions"
    );
    for (name, tree) in &proofs {
        let c = tree.counts();
        assert_eq!(c.total as usize, tree.len(), "{name}");
        assert_eq!(
            c.total,
            c.prover + c.opponent + c.terminal + c.tablebase + c.references
        );
    }
}

#[test]
fn compact_round_trip_and_verification() {
    for (name, tree) in all_proofs() {
        let bytes = encode_compact(&tree).unwrap();
        let back = read_compact(&bytes[..]).unwrap();
        assert_eq!(back, tree, "{name}: decoded tree differs");
        let stats = verify_ours(&bytes, &NoTablebases, false).unwrap();
        assert_eq!(stats.counts, tree.counts(), "{name}");
        assert_eq!(
            stats.root_moves.iter().map(|r| r.nodes).sum::<u64>() + 1,
            stats.counts.total
        );
        let header = CompactHeader::read(&mut &bytes[..]).unwrap();
        assert_eq!(header.counts, tree.counts());
        assert_eq!(header.prover, tree.prover());
        assert_eq!(header.root.fen(), tree.root().fen());
    }
}

#[test]
fn reference_round_trip_and_verification() {
    for (name, tree) in all_proofs() {
        for order in [ByteOrder::Little, ByteOrder::Big] {
            let theirs = encode_reference(&tree, order).unwrap();
            assert_eq!(theirs.len(), 6 * tree.len(), "{name}: 6 bytes per node");
            let back = read_theirs(&theirs, &tree).unwrap();
            assert_eq!(
                back, tree,
                "{name} {order:?}: ours -> reference -> ours differs"
            );
            let stats = verify_theirs(&theirs, &tree).unwrap();
            assert_eq!(stats.counts, tree.counts(), "{name} {order:?}");
            // And back to ours, byte for byte.
            assert_eq!(
                encode_compact(&back).unwrap(),
                encode_compact(&tree).unwrap()
            );
        }
    }
}

#[test]
fn compact_format_is_small() {
    let (mut nodes, mut bytes, mut body_bytes) = (0u64, 0u64, 0u64);
    for (name, tree) in all_proofs() {
        let encoded = encode_compact(&tree).unwrap();
        let header = CompactHeader::read(&mut &encoded[..]).unwrap();
        let n = tree.len() as f64;
        let per_node = encoded.len() as f64 / n;
        let body_per_node = header.body_len() as f64 / n;
        eprintln!(
            "{name}: {} nodes, {} bytes ({per_node:.3} bytes/node), body {} bytes ({body_per_node:.3} bytes/node, {:.2} bits/node)",
            tree.len(),
            encoded.len(),
            header.body_len(),
            header.body_bits as f64 / n
        );
        assert!(body_per_node <= 2.0, "{name}");
        if tree.len() >= 100 {
            assert!(per_node <= 2.0, "{name}: {per_node} bytes per node");
        }
        nodes += tree.len() as u64;
        bytes += encoded.len() as u64;
        body_bytes += header.body_len();
    }
    let overall = bytes as f64 / nodes as f64;
    eprintln!(
        "all test proofs: {nodes} nodes, {bytes} bytes with headers ({overall:.3} bytes/node), bodies {:.3} bytes/node",
        body_bytes as f64 / nodes as f64
    );
    assert!(overall <= 2.0);
}

#[test]
fn terminal_leaf_that_is_not_a_win_is_rejected() {
    // White is stalemated: a win for White under international rules, a draw under
    // vinciperdi.
    let fen = "8/8/8/8/8/p7/P7/8 w - - 0 1";
    let tree = prove(fen, Color::White, 1);
    assert_eq!(tree.counts().terminal, 1);
    verify_ours(&encode_compact(&tree).unwrap(), &NoTablebases, false).unwrap();
    let drawn = Position::from_fen(fen, Rules::VINCIPERDI).unwrap();
    let bad = ProofTree::from_parts(drawn, Color::White, vec![], tree.nodes().to_vec()).unwrap();
    let err = verify_ours(&encode_compact(&bad).unwrap(), &NoTablebases, false).unwrap_err();
    assert!(err.is_rejection());
    let text = err.to_string();
    assert!(
        text.starts_with("node 0 (the root): white to move has no legal move"),
        "{text}"
    );
    assert!(text.contains("draw"), "{text}");
    // A builder refuses it too.
    let mut source = BruteForce::new(Color::White, 2);
    assert!(build_proof(drawn, Color::White, &mut source).is_err());
}

/// The biggest test proof and its node numbers of interest.
fn big_proof() -> ProofTree {
    let &(_, fen, prover, depth) = PROOFS.last().unwrap();
    prove(fen, prover, depth)
}

#[test]
fn reference_to_a_different_position_is_rejected() {
    let mut tree = big_proof();
    let ends = subtree_ends(&tree);
    let (r, t) = tree
        .nodes()
        .iter()
        .enumerate()
        .find_map(|(i, n)| match n.kind {
            NodeKind::Reference { target } => Some((i, target as usize)),
            _ => None,
        })
        .expect("the proof has references");
    // Another internal node, complete before r.
    let u = (1..r)
        .find(|&u| {
            u != t
                && ends[u] <= r
                && matches!(
                    tree.nodes()[u].kind,
                    NodeKind::Prover | NodeKind::Opponent { .. }
                )
        })
        .expect("another complete internal node");
    tree.nodes_mut()[r].kind = NodeKind::Reference { target: u as u32 };
    let bytes = encode_compact(&tree).unwrap();
    let err = verify_ours(&bytes, &NoTablebases, false).unwrap_err();
    let text = err.to_string();
    assert!(err.is_rejection(), "{text}");
    assert!(text.starts_with(&format!("node {r} (")), "{text}");
    assert!(
        text.contains(&format!(
            "refers to node {u}, which is a different position"
        )),
        "{text}"
    );
    // The reference format: a transposition to a different position.
    let theirs = encode_reference(&tree, ByteOrder::Little).unwrap();
    let err = verify_theirs(&theirs, &tree).unwrap_err();
    let text = err.to_string();
    assert!(text.contains(&format!("node {r} (")), "{text}");
    assert!(text.contains("different position"), "{text}");
}

#[test]
fn reference_to_an_unfinished_ancestor_is_rejected() {
    let mut tree = big_proof();
    let parent = parents(&tree);
    let r = tree
        .nodes()
        .iter()
        .position(|n| matches!(n.kind, NodeKind::Reference { .. }))
        .unwrap();
    let ancestor = parent[parent[r].unwrap()].unwrap();
    tree.nodes_mut()[r].kind = NodeKind::Reference {
        target: ancestor as u32,
    };
    let err = verify_ours(&encode_compact(&tree).unwrap(), &NoTablebases, false).unwrap_err();
    let text = err.to_string();
    assert!(text.starts_with(&format!("node {r} (1. K")), "{text}");
    assert!(
        text.contains(&format!("refers to node {ancestor}, which is not complete")),
        "{text}"
    );
    let theirs = encode_reference(&tree, ByteOrder::Little).unwrap();
    let err = verify_theirs(&theirs, &tree).unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains(&format!("node {r} (")) && text.contains("not complete"),
        "{text}"
    );
}

#[test]
fn dropped_opponent_move_is_rejected() {
    let tree = big_proof();
    let ends = subtree_ends(&tree);
    let parent = parents(&tree);
    // A leaf child of an opponent node with several children.
    let (c, p) = (1..tree.len())
        .find_map(|c| {
            let p = parent[c]?;
            match tree.nodes()[p].kind {
                NodeKind::Opponent { children } if children > 1 && ends[c] == c + 1 => {
                    let no_refs_to_later = true;
                    no_refs_to_later.then_some((c, p))
                }
                _ => None,
            }
        })
        .unwrap();
    let mut nodes = tree.nodes().to_vec();
    let NodeKind::Opponent { children } = nodes[p].kind else {
        unreachable!()
    };
    nodes[p].kind = NodeKind::Opponent {
        children: children - 1,
    };
    let dropped = nodes.remove(c).mv.unwrap();
    for node in &mut nodes {
        if let NodeKind::Reference { target } = &mut node.kind {
            if *target as usize > c {
                *target -= 1;
            }
        }
    }
    let bad = ProofTree::from_parts(*tree.root(), tree.prover(), vec![], nodes).unwrap();
    // Ours cannot even express it: the strict encoder refuses, and the bitstream written
    // anyway is rejected.
    assert!(encode_compact(&bad).is_err());
    let err = verify_ours(
        &encode_compact_unchecked(&bad).unwrap(),
        &NoTablebases,
        false,
    )
    .unwrap_err();
    assert!(err.is_rejection(), "{err}");
    assert!(err.to_string().contains("node "), "{err}");
    // The reference format names the opponent node and the missing move.
    let theirs = encode_reference(&bad, ByteOrder::Little).unwrap();
    let err = verify_theirs(&theirs, &tree).unwrap_err();
    let text = err.to_string();
    assert!(text.starts_with(&format!("node {p} (")), "{text}");
    let mut pos_p = *tree.root();
    let mut chain = vec![];
    let mut k = p;
    while let Some(q) = parent[k] {
        chain.push(tree.nodes()[k].mv.unwrap());
        k = q;
    }
    for m in chain.iter().rev() {
        pos_p = pos_p.play(*m);
    }
    assert!(
        text.contains(&format!("opponent moves missing: {}", pos_p.san(dropped))),
        "{text}"
    );
}

#[test]
fn changed_prover_move_is_rejected() {
    let tree = big_proof();
    let mut positions = Vec::new();
    tree.for_each_position(|_, pos, _| {
        positions.push(*pos);
        Ok(())
    })
    .unwrap();
    // A prover node with another legal move.
    let p = (0..tree.len())
        .find(|&p| tree.nodes()[p].kind == NodeKind::Prover && positions[p].legal_moves().len() > 1)
        .unwrap();
    let chosen = tree.nodes()[p + 1].mv.unwrap();
    let other = *positions[p]
        .legal_moves()
        .iter()
        .find(|&&m| m != chosen)
        .unwrap();
    let mut bad = tree.clone();
    bad.nodes_mut()[p + 1].mv = Some(other);
    let err =
        verify_theirs(&encode_reference(&bad, ByteOrder::Little).unwrap(), &tree).unwrap_err();
    assert!(
        err.is_rejection() && err.to_string().starts_with("node "),
        "{err}"
    );
    // An illegal move: named exactly.
    let mut bytes = encode_reference(&tree, ByteOrder::Little).unwrap();
    let at = 6 * (p + 1) + 4;
    bytes[at..at + 2].copy_from_slice(&0x0fffu16.to_le_bytes()); // h8h8
    let err = verify_theirs(&bytes, &tree).unwrap_err();
    let text = err.to_string();
    assert!(
        text.starts_with(&format!("node {} (", p + 1))
            || text.starts_with(&format!("node {} (the root)", p + 1)),
        "{text}"
    );
    assert!(text.contains("h8h8 is not legal"), "{text}");
    // Ours: the other move decodes, and the rest of the stream no longer fits.
    let err = match encode_compact_unchecked(&bad) {
        Ok(bytes) => verify_ours(&bytes, &NoTablebases, false).unwrap_err(),
        Err(err) => err,
    };
    assert!(err.to_string().contains("node "), "{err}");
    // Ours: change the index bits of the root's prover move directly (if it has a choice).
    let n = positions[0].legal_moves().len();
    if tree.nodes()[0].kind == NodeKind::Prover && index_width(n) > 0 {
        let mut bytes = encode_compact(&tree).unwrap();
        let header_len = CompactHeader::read(&mut &bytes[..]).unwrap().header_len as usize;
        bytes[header_len] ^= 0x40; // first index bit after the kind bit `0`
        let err = verify_ours(&bytes, &NoTablebases, false).unwrap_err();
        assert!(err.to_string().contains("checksum mismatch"), "{err}");
    }
}

#[test]
fn tablebase_leaves() {
    // Positions with at most 3 units are tablebase leaves.
    let &(_, fen, prover, depth) = &PROOFS[4];
    let mut source = BruteForce::new(prover, depth);
    source.tablebase_units = 3;
    let tree = build_proof(position(fen), prover, &mut source).unwrap();
    let c = tree.counts();
    assert!(c.tablebase > 0, "{c:?}");
    let bytes = encode_compact(&tree).unwrap();
    let header = CompactHeader::read(&mut &bytes[..]).unwrap();
    assert_eq!(header.tablebase_units, 3);
    // No tables: a clear error, not a rejection.
    let err = verify_ours(&bytes, &NoTablebases, false).unwrap_err();
    assert!(!err.is_rejection());
    assert!(
        err.to_string()
            .starts_with("tablebase leaves cannot be checked without tables"),
        "{err}"
    );
    // With tables: probed, or played out.
    let oracle = BruteOracle::new(3, 12);
    let stats = verify_ours(&bytes, &oracle, false).unwrap();
    assert_eq!(stats.tablebase_units, 3);
    verify_ours(&bytes, &oracle, true).unwrap();
    // The reference format marks tablebase leaves as childless nodes with legal moves.
    let theirs = encode_reference(&tree, ByteOrder::Little).unwrap();
    assert_eq!(read_theirs(&theirs, &tree).unwrap(), tree);
    let err = verify_theirs(&theirs, &tree).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("tablebase leaves cannot be checked"),
        "{err}"
    );
    // Tables that cover too little.
    let small = BruteOracle::new(2, 12);
    let err = verify_ours(&bytes, &small, false).unwrap_err();
    assert!(
        matches!(
            err,
            ProofError::NeedTablebases {
                units: 3,
                available: 2,
                ..
            }
        ),
        "{err}"
    );

    // A tablebase leaf that is not a win: a prover node whose move is replaced by a worse
    // one, the rest cut to a tablebase leaf.
    let tree = big_proof();
    let mut positions = Vec::new();
    tree.for_each_position(|_, pos, _| {
        positions.push(*pos);
        Ok(())
    })
    .unwrap();
    let oracle = BruteOracle::new(32, 9);
    let ends = subtree_ends(&tree);
    let referenced_inside = |c: usize| {
        tree.nodes().iter().enumerate().any(|(k, n)| {
            matches!(n.kind, NodeKind::Reference { target } if (target as usize) > c && (target as usize) < ends[c] && !(k > c && k < ends[c]))
        })
    };
    let (p, losing) = (0..tree.len())
        .find_map(|p| {
            if tree.nodes()[p].kind != NodeKind::Prover || referenced_inside(p + 1) {
                return None;
            }
            positions[p]
                .legal_moves()
                .iter()
                .copied()
                .find(|&m| {
                    let after = positions[p].play(m);
                    !after.legal_moves().is_empty()
                        && oracle.probe(&after).unwrap() != Some(antichess_proof::LeafValue::Loss)
                })
                .map(|m| (p, m))
        })
        .unwrap();
    {
        let bad = replace_subtree(
            &tree,
            p + 1,
            Node {
                mv: Some(losing),
                kind: NodeKind::Tablebase,
            },
        );
        let bytes = encode_compact(&bad).unwrap();
        let err = verify_ours(&bytes, &oracle, false).unwrap_err();
        let text = err.to_string();
        assert!(err.is_rejection(), "{text}");
        assert!(text.starts_with(&format!("node {} (", p + 1)), "{text}");
        assert!(
            text.contains("tablebase leaf is not a win for white"),
            "{text}"
        );
        // Played out: no winning move.
        let err = verify_ours(&bytes, &oracle, true).unwrap_err();
        assert!(err.to_string().contains("tablebase play-out"), "{err}");
    }
}

fn fix_header_checksum(bytes: &mut [u8], header_len: usize) {
    let end = header_len - 8;
    let sum = xxhash_rust::xxh3::xxh3_64(&bytes[..end]);
    bytes[end..end + 8].copy_from_slice(&sum.to_le_bytes());
}

#[test]
fn damaged_compact_files_are_clear_errors() {
    let tree = big_proof();
    let good = encode_compact(&tree).unwrap();
    let hl = {
        // header_len without the checksum helper (the header is good here).
        let mut r = &good[..];
        CompactHeader::read(&mut r).unwrap().header_len as usize
    };
    let check = |bytes: &[u8], expect: &str| {
        let err = verify_ours(bytes, &NoTablebases, false).unwrap_err();
        let text = err.to_string();
        assert!(err.is_rejection(), "{text}");
        assert!(text.contains(expect), "expected {expect:?} in: {text}");
        // The streaming reader without the file length gives an error too.
        let err = verify_compact(
            bytes,
            None,
            &NoTablebases,
            &VerifyOptions::default(),
            &mut |_| {},
        )
        .unwrap_err();
        assert!(err.is_rejection(), "{err}");
        // And the plain reader.
        assert!(read_compact(bytes).is_err());
    };
    // Truncated, in the body and in the header.
    check(&good[..good.len() - 3], "truncated");
    check(&good[..hl + 1], "truncated");
    check(&good[..40], "ends inside the header");
    check(&good[..0], "bad magic");
    // A flipped byte in the body or the header.
    for at in [hl, hl + 5, good.len() - 1] {
        let mut bad = good.clone();
        bad[at] ^= 0x10;
        check(&bad, "body checksum mismatch");
    }
    let mut bad = good.clone();
    bad[95] ^= 1; // in the FEN
    check(&bad, "header checksum mismatch");
    // Wrong magic, wrong version.
    let mut bad = good.clone();
    bad[0] = b'X';
    check(&bad, "bad magic");
    let mut bad = good.clone();
    bad[8] = 3; // versions 1 and 2 are read (2 adds the table list)
    check(&bad, "unsupported proof format version 3");
    // Header counts that do not match the body (with a valid header checksum).
    let mut bad = good.clone();
    for at in [16, 24] {
        let v = u64::from_le_bytes(bad[at..at + 8].try_into().unwrap()) + 1;
        bad[at..at + 8].copy_from_slice(&v.to_le_bytes());
    }
    fix_header_checksum(&mut bad, hl);
    check(&bad, "header count mismatch: the header says");
    // Counts that do not add up.
    let mut bad = good.clone();
    bad[16] ^= 1;
    fix_header_checksum(&mut bad, hl);
    check(&bad, "do not add up");
    // Trailing garbage.
    let mut bad = good.clone();
    bad.push(0);
    let err = verify_ours(&bad, &NoTablebases, false).unwrap_err();
    assert!(
        err.to_string()
            .contains("unexpected bytes after the end of the body"),
        "{err}"
    );
    let err = read_compact(&bad[..]).unwrap_err();
    assert!(err.to_string().contains("unexpected bytes"), "{err}");
    // Every single-byte truncation is an error, never a panic.
    for len in 0..good.len() {
        assert!(verify_ours(&good[..len], &NoTablebases, false).is_err());
    }
    // Every flipped bit is an error, never a panic.
    for at in 0..good.len() {
        for bit in [0x01, 0x80] {
            let mut bad = good.clone();
            bad[at] ^= bit;
            assert!(
                verify_ours(&bad, &NoTablebases, false).is_err(),
                "byte {at} bit {bit}"
            );
        }
    }
}

#[test]
fn damaged_reference_files_are_clear_errors() {
    let tree = big_proof();
    let good = encode_reference(&tree, ByteOrder::Little).unwrap();
    // Node count does not match the length.
    let err = verify_theirs(&good[..good.len() - 6], &tree).unwrap_err();
    let text = err.to_string();
    assert!(text.contains("does not match the file length"), "{text}");
    assert!(
        text.contains(&format!("little-endian it says {} nodes", tree.len())),
        "{text}"
    );
    // Big-endian files are detected.
    let big = encode_reference(&tree, ByteOrder::Big).unwrap();
    let file = ReferenceFile::open(&big[..], None).unwrap();
    assert_eq!(file.byte_order(), ByteOrder::Big);
    // Size records after the nodes are accepted and ignored.
    let mut with_records = good.clone();
    with_records.extend_from_slice(&[0u8; 16]);
    let file = ReferenceFile::open(&with_records[..], None).unwrap();
    assert_eq!(file.trailer_records(), 2);
    verify_theirs(&with_records, &tree).unwrap();
    // Flipped bits anywhere: an error (or, rarely, a still valid proof), never a panic.
    for at in 0..good.len() {
        for bit in [0x01u8, 0x40, 0x80] {
            let mut bad = good.clone();
            bad[at] ^= bit;
            let _ = verify_theirs(&bad, &tree);
            let _ = read_theirs(&bad, &tree);
        }
    }
    // Empty and tiny files.
    assert!(verify_theirs(&[], &tree)
        .unwrap_err()
        .to_string()
        .contains("not an antichess proof file (the file is empty)"));
    assert!(verify_theirs(&good[..5], &tree)
        .unwrap_err()
        .to_string()
        .contains("not an antichess proof file (5 bytes, shorter than any proof)"));
    // Some other file: no header node's shape in either byte order.
    let text = verify_theirs(b"1. e3 wins for White, they say\n", &tree)
        .unwrap_err()
        .to_string();
    assert!(
        text.starts_with("not an antichess proof file (31 bytes: neither"),
        "{text}"
    );
}

#[test]
fn stats_report_root_moves() {
    let tree = big_proof();
    let bytes = encode_compact(&tree).unwrap();
    let stats = verify_ours(&bytes, &NoTablebases, false).unwrap();
    // White to move at the root: one row, the chosen move.
    assert_eq!(stats.root_moves.len(), 1);
    let row = &stats.root_moves[0];
    assert_eq!(row.nodes + 1, stats.counts.total);
    assert!(row.unfolded_nodes >= row.nodes);
    assert_eq!(row.depth, stats.max_depth);
    assert!(
        stats.unfolded_nodes > stats.counts.total,
        "references unfold to more nodes"
    );
    let theirs = encode_reference(&tree, ByteOrder::Little).unwrap();
    let their_stats = verify_theirs(&theirs, &tree).unwrap();
    assert_eq!(their_stats.counts, stats.counts);
    assert_eq!(their_stats.max_depth, stats.max_depth);
    assert_eq!(their_stats.unfolded_nodes, stats.unfolded_nodes);
    // An opponent-to-move root: one row per reply.
    let tree = prove(PROOFS[3].1, PROOFS[3].2, PROOFS[3].3);
    let stats = verify_ours(&encode_compact(&tree).unwrap(), &NoTablebases, false).unwrap();
    assert_eq!(stats.root_moves.len(), tree.root().legal_moves().len());
    let text = stats.to_string();
    assert!(text.contains("references:"), "{text}");
}

#[test]
fn forward_transpositions_in_reference_files() {
    // Rewrite a proof so that the first occurrence of a shared position is the
    // transposition and the full subtree comes later in the file (the reference solution's
    // files may do this; ours never do).
    let tree = big_proof();
    let nodes = tree.nodes();
    let ends = subtree_ends(&tree);
    let referenced = |k: usize| {
        nodes
            .iter()
            .filter(|n| n.kind == NodeKind::Reference { target: k as u32 })
            .count()
    };
    let (r, t) = (0..nodes.len())
        .find_map(|r| match nodes[r].kind {
            NodeKind::Reference { target } => {
                let t = target as usize;
                let clean = (t..ends[t]).all(|k| {
                    !matches!(nodes[k].kind, NodeKind::Reference { .. })
                        && (k == t || referenced(k) == 0)
                }) && referenced(t) == 1;
                clean.then_some((r, t))
            }
            _ => None,
        })
        .expect("a reference to a clean subtree");
    let size = ends[t] - t;
    let shift = |k: usize| if k > t && k < r { k - (size - 1) } else { k };
    let mut new_nodes: Vec<Node> = Vec::new();
    let mut k = 0;
    while k < nodes.len() {
        if k == t {
            new_nodes.push(Node {
                mv: nodes[t].mv,
                kind: NodeKind::Tablebase,
            });
            k = ends[t];
            continue;
        }
        if k == r {
            for (j, node) in nodes[t..ends[t]].iter().enumerate() {
                let mv = if j == 0 { nodes[r].mv } else { node.mv };
                new_nodes.push(Node {
                    mv,
                    kind: node.kind,
                });
            }
            k += 1;
            continue;
        }
        let mut node = nodes[k];
        if let NodeKind::Reference { target } = node.kind {
            node.kind = NodeKind::Reference {
                target: shift(target as usize) as u32,
            };
        }
        new_nodes.push(node);
        k += 1;
    }
    let moved = ProofTree::from_parts(*tree.root(), tree.prover(), vec![], new_nodes).unwrap();
    let mut bytes = encode_reference(&moved, ByteOrder::Little).unwrap();
    let at = 6 * t;
    let old = u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
    assert_eq!(old >> 30, 0, "the placeholder is a leaf");
    let top = if old & 0x3fff_ffff != 0 {
        0b11u32
    } else {
        0b10
    };
    let new_r = r - (size - 1);
    bytes[at..at + 4].copy_from_slice(&(top << 30 | new_r as u32).to_le_bytes());
    let stats = verify_theirs(&bytes, &tree).unwrap();
    assert_eq!(stats.counts, tree.counts());
    assert_eq!(
        read_theirs(&bytes, &tree).unwrap(),
        tree,
        "normalised to the original"
    );
    // The same file with the transposition pointing at a different (later) position.
    let wrong = (new_r + 1..moved.len())
        .find(|&k| {
            matches!(
                moved.nodes()[k].kind,
                NodeKind::Prover | NodeKind::Opponent { .. }
            )
        })
        .unwrap();
    bytes[at..at + 4].copy_from_slice(&(top << 30 | wrong as u32).to_le_bytes());
    let err = verify_theirs(&bytes, &tree).unwrap_err();
    assert!(err.is_rejection(), "{err}");
    assert!(err.to_string().starts_with("node "), "{err}");
}

#[test]
fn worked_example_of_the_format_docs() {
    // docs/formats/proof.md, "Worked example".
    let tree = prove("8/p7/8/8/8/8/1P6/8 w - - 0 1", Color::Black, 6);
    let kinds: Vec<NodeKind> = tree.nodes().iter().map(|n| n.kind).collect();
    assert_eq!(
        kinds,
        [
            NodeKind::Opponent { children: 2 },
            NodeKind::Prover,
            NodeKind::Opponent { children: 1 },
            NodeKind::Prover,
            NodeKind::Opponent { children: 1 },
            NodeKind::Terminal,
            NodeKind::Prover,
            NodeKind::Reference { target: 4 },
        ]
    );
    let bytes = encode_compact(&tree).unwrap();
    let header = CompactHeader::read(&mut &bytes[..]).unwrap();
    assert_eq!(header.header_len, 128);
    assert_eq!(header.body_bits, 13);
    assert_eq!(&bytes[128..], &[0x24, 0x68]);
    assert_eq!(bytes.len(), 130);
    assert_eq!(&bytes[..8], b"ACPROOF\0");
    let theirs = encode_reference(&tree, ByteOrder::Little).unwrap();
    assert_eq!(&theirs[..6], &[0x08, 0, 0, 0x40, 0, 0]);
    assert_eq!(&theirs[6..12], &[0x06, 0, 0, 0x40, 0x51, 0x02]); // b2b3, sibling node 6
    assert_eq!(&theirs[42..48], &[0x04, 0, 0, 0x80, 0x20, 0x0c]); // a7a5, transposition to 4
}
