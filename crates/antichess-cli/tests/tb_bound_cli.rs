//! Bound tables from the command line: `tb build --bound` (plan, build, JSON), `tb probe`
//! on a position only bound tables cover, `tb verify --bound`, and a proof whose leaves
//! rest on bound tables: `solve --proof` records them, `proof verify` accepts it with
//! them and rejects it without the one it needs; `prove` probes them beside the complete
//! sets.

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
}
