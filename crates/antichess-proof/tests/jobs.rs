//! The proof jobs (`antichess_proof::jobs`): convert, join and extract on files, their
//! reports and which of their errors are rejections.

use std::path::PathBuf;

use crate::common::*;
use antichess_proof::jobs::{
    convert_verified, ConvertOptions, ExtractOptions, ExtractPlan, FileHead, JoinOptions, JoinPlan,
};
use antichess_proof::{
    write_proof_file, ByteOrder, Format, NoTablebases, ReferenceOptions, VerifyOptions,
};

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "antichess-proof-jobs-{name}-{}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The first test proof, written in our format to `dir/name`.
fn proof_file(dir: &std::path::Path, name: &str) -> (PathBuf, u64) {
    let (_, fen, prover, depth) = PROOFS[0];
    let tree = prove(fen, prover, depth);
    let path = dir.join(name);
    write_proof_file(&tree, &path, Format::Compact, ByteOrder::Little).unwrap();
    (path, tree.len() as u64)
}

#[test]
fn convert_verifies_then_writes_and_does_not_convert_a_forged_proof() {
    let dir = temp_dir("convert");
    let (input, nodes) = proof_file(&dir, "in.proof");
    let head = FileHead::read(&input, None, &ReferenceOptions::default()).unwrap();
    assert_eq!(head.format, Format::Compact);
    assert_eq!(head.announced_nodes(), Some(nodes));
    let options = ConvertOptions {
        output: dir.join("out.proof"),
        to: Format::Compact,
    };
    let report = convert_verified(&head, &NoTablebases, false, &options).unwrap();
    assert_eq!((report.nodes_before, report.nodes_after), (nodes, nodes));
    assert!(report.verified && report.read_back_with.is_none());
    assert!(report.to_string().starts_with("wrote "));

    let forged = dir.join("forged.proof");
    std::fs::write(&forged, antichess_proof::test_support::forged_proof()).unwrap();
    let head = FileHead::read(&forged, None, &ReferenceOptions::default()).unwrap();
    let options = ConvertOptions {
        output: dir.join("forged-out.proof"),
        to: Format::Compact,
    };
    // Its "tablebase leaf" needs tables that nobody has: it cannot be verified (not a
    // verdict, exit 2), and it is not converted either.
    let err = convert_verified(&head, &NoTablebases, false, &options).unwrap_err();
    assert!(!err.is_rejection(), "{err}");
    assert!(
        err.to_string()
            .ends_with("cannot be verified, so it is not converted"),
        "{err}"
    );
    assert!(!dir.join("forged-out.proof").exists());

    // A damaged file is a verdict (exit 1): not converted.
    let mut bytes = std::fs::read(&input).unwrap();
    *bytes.last_mut().unwrap() ^= 0xff;
    let damaged = dir.join("damaged.proof");
    std::fs::write(&damaged, bytes).unwrap();
    let head = FileHead::read(&damaged, None, &ReferenceOptions::default()).unwrap();
    let err = convert_verified(&head, &NoTablebases, false, &options).unwrap_err();
    assert!(err.is_rejection(), "{err}");
    assert!(
        err.to_string().contains("does not verify, not converted"),
        "{err}"
    );
    assert!(!dir.join("forged-out.proof").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn join_refuses_an_output_that_is_a_child() {
    let dir = temp_dir("join");
    let (child, _) = proof_file(&dir, "child.proof");
    let err = JoinPlan::prepare(JoinOptions {
        children: vec![child.clone()],
        fen: None,
        moves: None,
        output: child,
        verify: VerifyOptions::default(),
    })
    .unwrap_err();
    assert!(!err.is_rejection());
    assert!(
        err.to_string().contains("which writing would replace"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn extract_of_the_root_is_the_whole_proof() {
    let dir = temp_dir("extract");
    let (input, nodes) = proof_file(&dir, "in.proof");
    let options = ExtractOptions {
        moves: String::new(),
        output: dir.join("root.proof"),
        verify: VerifyOptions::default(),
    };
    let plan = ExtractPlan::prepare(&input, options).unwrap();
    let report = plan.run(&NoTablebases).unwrap();
    assert_eq!(
        (report.stats.counts.total, report.source_nodes),
        (nodes, nodes)
    );
    assert!(report.verified);
    let bad = ExtractOptions {
        moves: "Ke8".to_string(),
        output: dir.join("bad.proof"),
        verify: VerifyOptions::default(),
    };
    let err = ExtractPlan::prepare(&input, bad).unwrap_err();
    assert!(err.to_string().starts_with("--moves \"Ke8\""), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
