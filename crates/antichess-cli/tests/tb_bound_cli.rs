//! Bound tables from the command line: `tb build --bound` (plan, build, JSON), `tb probe`
//! on a position only bound tables cover, `tb verify --bound`, and a proof whose leaves
//! rest on bound tables: `solve --proof` records them, `proof verify` accepts it with
//! them and rejects it without the one it needs, `tb build --from-proof` builds them
//! again; `prove` probes them beside the complete sets.

use crate::common::{antichess, json, ok, s, text};

/// White knight on d5 must be taken (1... exd5), leaving the white king against king and
/// pawn, White to move: a White win that the bound tables of KPk settle.
const ROOT: &str = "7k/8/4p3/3N4/8/8/8/K7 b - - 0 1";

#[test]
fn bound_tables_build_probe_verify_and_back_a_proof() {
    let dir = antichess_testkit::temp_dir("tb-bound-cli");
    let tables = dir.join("tables");
    ok(&["tb", "build", "--units", "2", "--tables", s(&tables)]);

    // The plan, in the colours given: White's wins in K vs k+p are Black's of KPk.
    let plan = json(&[
        "tb",
        "build",
        "--bound",
        "white",
        "kpK",
        "--dry-run",
        "--format",
        "json",
        "--tables",
        s(&tables),
    ]);
    assert_eq!(plan["to_build"], 1, "{plan}");
    assert_eq!(plan["plan"][0]["material"], "KPk", "{plan}");
    assert_eq!(plan["plan"][0]["kind"], "bound for black", "{plan}");

    let build_both = || {
        json(&[
            "tb",
            "build",
            "--bound",
            "both",
            "KPk",
            "--format",
            "json",
            "--tables",
            s(&tables),
        ])
    };
    let built = build_both();
    assert_eq!(built["built"], 2, "{built}");
    assert!(tables.join("KPvK.bound-white.actb").is_file());
    assert!(tables.join("KPvK.bound-black.actb").is_file());
    let again = build_both();
    assert_eq!(
        (again["built"].as_u64(), again["present"].as_u64()),
        (Some(0), Some(2))
    );

    let verified = json(&[
        "tb",
        "verify",
        "--all",
        "--format",
        "json",
        "--tables",
        s(&tables),
    ]);
    assert_eq!(verified["ok"], true, "{verified}");
    let names: Vec<&str> = verified["tables"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["material"].as_str())
        .collect();
    assert!(
        names.contains(&"KPk:bound-w") && names.contains(&"KPk:bound-b"),
        "{names:?}"
    );

    // Probing builds no exact table where bound tables cover the position.
    let after = "7k/8/8/3p4/8/8/8/K7 w - - 0 2";
    let probe = json(&[
        "tb",
        "probe",
        "--fen",
        after,
        "--format",
        "json",
        "--tables",
        s(&tables),
    ]);
    assert_eq!(probe["tables"], "bound", "{probe}");
    assert_eq!(probe["category"], "win", "{probe}");
    assert!(!tables.join("KPvK.actb").exists());

    let proof = dir.join("root.proof");
    let solved = antichess(&[
        "solve",
        "--fen",
        ROOT,
        "--prover",
        "white",
        "--tables",
        s(&tables),
        "--tb-units",
        "2",
        "--proof",
        s(&proof),
    ]);
    assert!(solved.status.success(), "{}", text(&solved));
    assert!(
        text(&solved).contains("proved: white wins"),
        "{}",
        text(&solved)
    );
    let checked = json(&[
        "proof",
        "verify",
        s(&proof),
        "--tables",
        s(&tables),
        "--format",
        "json",
    ]);
    assert_eq!(checked["verified"], true, "{checked}");
    let recorded: Vec<&str> = checked["tables"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["material"].as_str())
        .collect();
    assert!(recorded.contains(&"KPk:bound-b"), "{checked}");

    // `prove` probes every table the directory holds, not only the complete sets (here
    // every 2-unit table and the 3-unit bound tables): its proof rests on KPk's.
    let proved = dir.join("prove.proof");
    let run = json(&[
        "prove",
        "--fen",
        ROOT,
        "--prover",
        "white",
        "-o",
        s(&proved),
        "--units",
        "2",
        "--workers",
        "1",
        "--hash",
        "64M",
        "--cache",
        s(&dir.join("books")),
        "--tables",
        s(&tables),
        "--format",
        "json",
    ]);
    assert_eq!(run["solved"], true, "{run}");
    assert_eq!(run["tables_complete_units"], 2, "{run}");
    assert_eq!(run["tables_units"], 3, "{run}");
    let checked = json(&[
        "proof",
        "verify",
        s(&proved),
        "--tables",
        s(&tables),
        "--format",
        "json",
    ]);
    assert_eq!(checked["verified"], true, "{checked}");
    assert!(
        checked["tables"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["material"] == "KPk:bound-b"),
        "{checked}"
    );

    // Without the bound table the win rests on, the leaf is not covered: rejected.
    std::fs::remove_file(tables.join("KPvK.bound-black.actb")).unwrap();
    let rejected = antichess(&["proof", "verify", s(&proof), "--tables", s(&tables)]);
    assert!(!rejected.status.success(), "{}", text(&rejected));
    assert!(
        text(&rejected).contains("KPk:bound-b"),
        "{}",
        text(&rejected)
    );

    // Bound tables built without the exact tables below them are other tables (their
    // captures into Kk and Kp count as the bound's worst): `tb build --from-proof` keeps
    // them, names them and exits 1.
    let other = dir.join("other");
    ok(&[
        "tb",
        "build",
        "--bound",
        "both",
        "KPk",
        "--tables",
        s(&other),
    ]);
    let differ = antichess(&[
        "tb",
        "build",
        "--from-proof",
        s(&proof),
        "--tables",
        s(&other),
    ]);
    assert_eq!(differ.status.code(), Some(1), "{}", text(&differ));
    assert!(
        text(&differ).contains("table KPk:bound-b differs")
            && text(&differ).contains("0 of the 2 tables"),
        "{}",
        text(&differ)
    );

    // Into an empty directory it builds what the proof records (the exact tables below
    // the bound ones, then the bound ones), and the proof verifies with them.
    let fresh = dir.join("fresh");
    let built = json(&[
        "tb",
        "build",
        "--from-proof",
        s(&proof),
        "--format",
        "json",
        "--tables",
        s(&fresh),
    ]);
    assert_eq!(built["same"], built["recorded"], "{built}");
    let stages: Vec<&str> = built["stages"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|stage| stage["tables"].as_str())
        .collect();
    assert_eq!(stages.last(), Some(&"bound-black"), "{built}");
    assert!(fresh.join("KPvK.bound-black.actb").is_file());
    let checked = json(&[
        "proof",
        "verify",
        s(&proof),
        "--tables",
        s(&fresh),
        "--format",
        "json",
    ]);
    assert_eq!(checked["verified"], true, "{checked}");
}

/// `tb build --from-frontier`: the tables a shipped frontier's proofs rest on (1. e3 b5's,
/// whose tablebase leaves include 5-unit bound tables for White; the smallest frontier
/// shipped, as the test decodes every proof of the file three times), in the order that lets
/// the most proof nodes verify first; `--top` takes the first of them; the plan is of
/// bound tables for the frontier's prover. A frontier of another rule set is refused by
/// name, and `--top` alone is refused.
#[test]
fn from_frontier_plans_the_tables_its_proofs_rest_on() {
    use crate::common::antichess_in;
    let dir = antichess_testkit::temp_dir("tb-from-frontier");
    let tables = dir.join("tables");
    let frontier = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../proofs/partial/e3-b5.frontier");
    let plan = |extra: &[&str]| {
        let mut args = vec!["tb", "build", "--from-frontier", s(&frontier), "--dry-run"];
        args.extend_from_slice(extra);
        args.extend_from_slice(&["--format", "json", "--tables", s(&tables)]);
        let out = antichess_in(&args, &tables);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out));
        // The account is the first line of stderr (a warning about the build's size may
        // follow).
        let err = String::from_utf8_lossy(&out.stderr).to_string();
        let account: serde_json::Value =
            serde_json::from_str(err.lines().next().unwrap_or("")).unwrap();
        let plan: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        (account, plan)
    };
    let (account, all) = plan(&[]);
    assert_eq!(account["prover"], "white", "{account}");
    assert_eq!(account["rules"], "international", "{account}");
    let needing = account["needing_nodes"].as_u64().unwrap();
    assert!(account["needing"].as_u64().unwrap() > 0, "{account}");
    let order = account["tables"].as_array().unwrap();
    assert!(!order.is_empty());
    // The running total of nodes won back grows to every node that needs such a table.
    let whole: Vec<u64> = order
        .iter()
        .map(|t| t["whole_nodes"].as_u64().unwrap())
        .collect();
    assert!(whole.windows(2).all(|w| w[0] <= w[1]), "{whole:?}");
    assert_eq!(*whole.last().unwrap(), needing);
    assert!(
        order.iter().all(|t| t["units"].as_u64().unwrap() >= 5),
        "{account}"
    );
    let kinds: Vec<&str> = all["plan"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["kind"].as_str())
        .collect();
    assert!(kinds.iter().all(|k| k.starts_with("bound")), "{kinds:?}");

    let (_, top) = plan(&["--top", "1"]);
    assert!(top["to_build"].as_u64().unwrap() < all["to_build"].as_u64().unwrap());
    let first = order[0]["material"].as_str().unwrap();
    assert!(
        top["plan"].as_array().unwrap().iter().any(|r| {
            let m: antichess_tb::Material = r["material"].as_str().unwrap().parse().unwrap();
            let f: antichess_tb::Material = first.parse().unwrap();
            m.canonical().0 == f.canonical().0
        }),
        "{top}"
    );

    let out = antichess_in(
        &[
            "tb",
            "build",
            "--from-frontier",
            s(&frontier),
            "--rules",
            "fics",
            "--dry-run",
            "--tables",
            s(&tables),
        ],
        &tables,
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        text(&out).contains("under the rules international"),
        "{}",
        text(&out)
    );
    let out = antichess_in(
        &[
            "tb",
            "build",
            "--units",
            "2",
            "--top",
            "3",
            "--tables",
            s(&tables),
        ],
        &tables,
    );
    assert_ne!(out.status.code(), Some(0));
    assert!(text(&out).contains("--top goes with"), "{}", text(&out));
}
