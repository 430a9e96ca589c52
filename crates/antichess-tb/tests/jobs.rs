//! The `tb` jobs (`antichess_tb::jobs`): a build's plan and its size, the build job with
//! its announcement and report, a probe that builds on the way, the statistics report.

use antichess_core::{Position, Rules};
use antichess_tb::jobs::build::{
    build_tables, BuildRow, TablesBuildEvent, TablesBuildOptions, TablesBuildReport,
};
use antichess_tb::jobs::plan::{dependencies_note, PlanSize};
use antichess_tb::jobs::probe::{probe_position, ProbeOptions, ProbeReport};
use antichess_tb::jobs::stats::tables_stats;
use antichess_tb::{BuildOptions, Material, Tablebase, TbError};
use antichess_testkit::temp_dir;

const RULES: Rules = Rules::INTERNATIONAL;

fn m(s: &str) -> Material {
    s.parse().unwrap()
}

#[test]
fn plan_size_and_dependencies_note() {
    let rows = [
        (m("KRk"), 100, false),
        (m("Kk"), 300, false),
        (m("Rk"), 50, true),
    ];
    let size = PlanSize::of(rows, false);
    assert_eq!((size.tables, size.to_build, size.positions), (3, 2, 400));
    assert_eq!(size.largest, Some((m("Kk"), 300)));
    assert_eq!(size.peak_memory(), 300 * size.per_position);
    assert_eq!(size.disk(), Some(160));
    assert!(size.warnings().is_empty());
    let line = size.line("tables", std::path::Path::new("/t"));
    assert!(line.starts_with("3 tables needed, 1 present, 2 to build (400 positions"));
    let note = dependencies_note(&[m("KRk")], &rows).expect("dependencies are most");
    assert!(note.starts_with("1 table asked for (100 positions to build)"));
    assert_eq!(dependencies_note(&[m("Kk")], &rows), None);
    assert!(PlanSize::of(rows, true).disk().is_none());
}

#[test]
fn build_job_plans_builds_reports_and_probes() {
    let dir = temp_dir("tb-jobs");
    let build = BuildOptions {
        rules: RULES,
        dir: dir.clone(),
        threads: 2,
        strategy: Default::default(),
    };
    let mut options = TablesBuildOptions {
        build: build.clone(),
        targets: vec![m("KRk")],
        bound: None,
        dry_run: true,
    };
    let TablesBuildReport::Plan(plan) = build_tables(&options, &|_| {}).unwrap() else {
        panic!("a dry run reports its plan");
    };
    assert_eq!(plan.to_build, plan.tables);
    assert_eq!(plan.plan.last().unwrap().material, "KRk");
    assert!(plan
        .plan
        .iter()
        .all(|r| r.status == "missing" && r.kind.is_none()));
    options.dry_run = false;
    let planned = std::sync::atomic::AtomicUsize::new(0);
    let report = build_tables(&options, &|e| {
        if let TablesBuildEvent::Planned { summary, .. } = e {
            assert!(summary.contains("to build"));
            planned.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
    })
    .unwrap();
    let TablesBuildReport::Built(summary) = report else {
        panic!("a build reports what it built");
    };
    assert_eq!(planned.into_inner(), 1);
    assert_eq!(summary.built, plan.tables);
    assert_eq!(summary.present, 0);
    assert!(matches!(summary.tables[0], BuildRow::Built { .. }));
    let json = serde_json::to_value(&summary).unwrap();
    assert_eq!(json["built"], plan.tables);
    assert_eq!(json["tables"][0]["status"], "built");

    // Everything present now: no announcement, rows "present".
    let again = build_tables(&options, &|e| {
        assert!(!matches!(e, TablesBuildEvent::Planned { .. }));
    })
    .unwrap();
    let TablesBuildReport::Built(again) = again else {
        panic!("a build reports");
    };
    assert_eq!((again.built, again.present), (0, plan.tables));

    // A probe of a KRk position: the tables are there, `ensure` opens them.
    let fen = "8/8/8/3k4/8/8/8/KR6 w - - 0 1";
    let pos = Position::from_fen(fen, RULES).unwrap();
    let probe_options = ProbeOptions {
        dir: dir.clone(),
        rules: RULES,
        build_units: 5,
    };
    let report = probe_position(fen, &pos, &probe_options, |targets| {
        assert!(targets.contains(&m("KRk")));
        Tablebase::open(&dir, RULES)
    })
    .unwrap();
    let ProbeReport::Exact(exact) = &report else {
        panic!("KRk has an exact table");
    };
    assert_eq!(exact.moves.len(), pos.legal_moves().len());
    assert!(report
        .text()
        .starts_with(&format!("fen: {}\nrules: ", pos.fen())));
    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(json["moves"].as_array().unwrap().len(), exact.moves.len());

    // Larger than build_units: not built on the way, and said so.
    let small = ProbeOptions {
        build_units: 2,
        ..probe_options
    };
    let missing = "8/8/8/3k4/8/8/8/KQ6 w - - 0 1";
    let pos = Position::from_fen(missing, RULES).unwrap();
    let err = probe_position(missing, &pos, &small, |_| -> Result<Tablebase, TbError> {
        panic!("not built on the way")
    })
    .unwrap_err();
    assert!(
        err.to_string().contains("are not built on the way"),
        "{err}"
    );

    let tb = Tablebase::open(&dir, RULES).unwrap();
    let stats = tables_stats(&tb, &[m("KRk")]).unwrap();
    assert_eq!(stats.tables.len(), 1);
    let json = serde_json::to_value(&stats).unwrap();
    assert_eq!(json["tables"][0]["material"], "KRk");
    assert!(json["tables"][0]["white_to_move"]["wins"].as_u64().unwrap() > 0);
    assert!(stats.text().starts_with("KRk (KRvK): "));
    std::fs::remove_dir_all(&dir).ok();
}
