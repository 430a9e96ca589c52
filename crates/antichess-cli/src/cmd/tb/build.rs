//! `antichess tb build`: the command's arguments ([`BuildArgs`], with the [`Game`] choice
//! that other `tb` commands take too), their conversion into the
//! job's options (`antichess_tb::jobs::build`, and the book's side of it for
//! `--from-frontier` and `--queue`), and the printing of its events and report (a dry
//! run's plan included).

use std::process::ExitCode;

use antichess_tb::jobs::build::{
    build_tables, BoundSide, TablesBuildEvent, TablesBuildOptions, TablesBuildReport,
};
use antichess_tb::jobs::plan::PlanReport;
use antichess_tb::jobs::targets::targets;
use antichess_tb::jobs::text::summary_line;
use antichess_tb::Material;
use anyhow::bail;
use clap::Args;

use crate::common::args::TablesArgs;
use crate::common::output::{print_json, print_lines, Format};
use crate::common::progress::BuildProgress;

/// The game whose tables a `tb` command serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Game {
    /// Losing chess (the rule set is chosen with --rules).
    #[default]
    Antichess,
    /// Lasker chess: orthodox endgames where stalemating the opponent is a lesser win
    /// (values 4 mate win, 3 stalemate win, 2 draw, 1 stalemate loss, 0 mated; DTM / DTS
    /// in plies); tables in --tables, default the `lasker` directory beside the antichess
    /// ones.
    Lasker,
}

/// Build tables by retrograde analysis (and every table they depend on), in dependency
/// order, skipping tables already present: an interrupted build resumes (every file is
/// written under a temporary name and renamed when whole; a file found is kept after its
/// header and checksum are checked, and a damaged one is built again).
///
/// Progress: a bar with the time left on a terminal, and one line per table built on
/// stderr (time, positions/s, file size, peak memory, time left), terminal or not.
///
/// Rule sets (--rules): international, fics, joint, vinciperdi, pritchard (any of them
/// +queen-only but pritchard), up to 6 units; and the royal-king pritchard3 / pritchard4,
/// up to 4 units: their tables are K+X against K+Y (15 materials), since a side with a
/// bare king has won by the rule and needs no table (`--units 4` builds the 15).
#[derive(Debug, Args)]
pub struct BuildArgs {
    /// Materials to build, e.g. KRkb or KRvKB (White uppercase, Black lowercase).
    #[arg(value_name = "SIGNATURE")]
    pub signatures: Vec<String>,

    /// Build every table with at most this many units (pieces, kings included). With
    /// --from-book: take only the book's materials of at most this many units (default 5:
    /// a 6-unit pawn material's dependencies are hundreds of tables).
    #[arg(long, value_name = "N", conflicts_with = "signatures")]
    pub units: Option<u32>,

    /// Build the materials a book's searches met most without a table (`antichess book
    /// tables BOOK` lists them): the first --top of them (of at most --units units), with
    /// their dependencies.
    #[arg(long, value_name = "BOOK", conflicts_with = "signatures")]
    pub from_book: Option<String>,

    /// Build the tables that the proofs of a frontier file (`proofs/partial/<line>.frontier`)
    /// rest on: the materials of more than 4 units at their tablebase leaves, as bound
    /// tables for the frontier's prover (unless --bound says otherwise), in the order that
    /// lets the most proof nodes verify first (with --top, the first N of that order). Build
    /// the 4-unit set first (`tb build --units 4`). Without these tables, loading the
    /// frontier (`prove --frontier`) leaves the subtrees that need them open, to be searched
    /// again.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["signatures", "from_book", "units"])]
    pub from_frontier: Option<std::path::PathBuf>,

    /// Build the tables a proof file records (`antichess proof stats FILE` lists them), so
    /// that `antichess proof verify FILE` can check it: its exact tables first (with their
    /// dependencies, and the exact tables of at most 4 units that its bound tables'
    /// captures lead to, which they are built over), then its bound tables for White, then
    /// for Black. Tables present are kept; at the end each recorded table is compared with
    /// the file in the directory (one with another checksum is named, and the exit status
    /// is 1).
    #[arg(long, value_name = "FILE", conflicts_with_all = [
        "signatures", "from_book", "from_frontier", "units", "top", "bound", "queue"
    ])]
    pub from_proof: Option<std::path::PathBuf>,

    /// With --from-book: how many of its materials, most met first (default 10). With
    /// --from-frontier: how many of its materials, in its order (default all).
    #[arg(long, value_name = "N")]
    pub top: Option<usize>,

    /// Build as one worker of the PostgreSQL queue at this URL (workers on any host share
    /// it and a tables directory): claim a table whose dependencies are done, build it,
    /// write it into --tables, mark it done; exit when every table of the queue is done.
    /// The materials given (if any) are added to the queue first. A killed worker loses at
    /// most the table it was building. See "Building tables on several machines" in
    /// docs/guide.md.
    #[arg(long, value_name = "postgres://…", conflicts_with = "dry_run")]
    pub queue: Option<String>,

    /// Build nothing: list the plan (every table needed, in build order, with its
    /// positions, the memory today's generator is expected to need for it, and whether
    /// it is present), then the totals (with the largest table's memory and the files'
    /// size, estimated). A build prints the totals on stderr before it starts; both warn
    /// there when the build is large (over 10^10 positions) or its largest table needs
    /// more memory than is available.
    #[arg(long)]
    pub dry_run: bool,

    /// Output: text, or one JSON object with a row per table of the plan (material,
    /// positions, "built" with its time or "present").
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,

    /// The game: antichess (default) or lasker (orthodox endgames, stalemate a lesser win).
    #[arg(long, value_enum, default_value = "antichess")]
    pub game: Game,

    /// Build bound tables instead of exact ones: promotions without a capture (and any
    /// move into a material with no table) count as the result worst for SIDE, so a
    /// material needs no promotion tables (what makes pawn-heavy 5- and 6-unit materials
    /// affordable). SIDE's wins in a bound table are true wins; `both` builds the two
    /// bounds, which give the exact value wherever they agree. The materials its captures
    /// lead to without an exact table get bound tables too. Files are named
    /// `RPPvPP.bound-white.actb`; probes, the solver, the book and the verifier use them
    /// where no exact table exists (docs/formats/tablebase.md).
    #[arg(long, value_enum, value_name = "SIDE", conflicts_with = "queue")]
    pub bound: Option<BoundSide>,

    #[command(flatten)]
    pub tables: TablesArgs,
}

/// `tb build --from-book` takes the book's materials of at most this many units unless
/// `--units` says otherwise.
const FROM_BOOK_UNITS: u32 = 5;

/// `tb build` of antichess tables (Lasker tables are `lasker.rs`'s, a proof's records
/// `from_proof.rs`'s).
pub(super) fn run(args: &BuildArgs) -> anyhow::Result<ExitCode> {
    if args.top.is_some() && args.from_book.is_none() && args.from_frontier.is_none() {
        bail!("--top goes with --from-book or --from-frontier");
    }
    let (targets, bound) = match &args.from_frontier {
        Some(path) => {
            let (targets, side) = frontier_targets(path, args)?;
            (targets, Some(side))
        }
        None => (asked_targets(args)?, args.bound),
    };
    let build = args.tables.build_options();
    if bound.is_some() {
        if targets.is_empty() {
            bail!("--bound: give the materials (e.g. RPPpp) or --from-book BOOK");
        }
        if build.rules.is_royal() {
            bail!(
                "--bound builds tables for the antichess rule sets, not {}",
                build.rules
            );
        }
    } else if let Some(url) = &args.queue {
        return super::queue::run(url, &targets, build, args.format);
    } else if targets.is_empty() {
        if let Some(book) = &args.from_book {
            bail!(
                "the book {book} records no material of at most {} units met without a table \
                 (its searches record those of at most 6 units; --units N to change the limit)",
                args.units.unwrap_or(FROM_BOOK_UNITS)
            );
        }
        bail!("give signatures (e.g. KRkb), --units N or --from-book BOOK");
    }
    let options = TablesBuildOptions {
        build,
        targets,
        bound: bound.map(|side| side.colors().to_vec()),
        dry_run: args.dry_run,
    };
    run_job(&options, args.format)
}

/// The materials asked for by signature, `--units` or `--from-book`.
fn asked_targets(args: &BuildArgs) -> anyhow::Result<Vec<Material>> {
    Ok(match &args.from_book {
        Some(book) => antichess_book::jobs::tb_build::book_targets(
            book,
            args.top.unwrap_or(10),
            args.units.unwrap_or(FROM_BOOK_UNITS),
            args.tables.rules,
        )?,
        None => targets(&args.signatures, args.units)?,
    })
}

/// The materials `tb build --from-frontier` builds (the first --top of the frontier's
/// order), and for which side: --bound, else the frontier's prover. Says on stderr what
/// the frontier needs and what the build wins back.
fn frontier_targets(
    path: &std::path::Path,
    args: &BuildArgs,
) -> anyhow::Result<(Vec<Material>, BoundSide)> {
    let choice =
        antichess_book::jobs::tb_build::frontier_choice(path, args.tables.rules, args.top)?;
    let side = args.bound.unwrap_or(BoundSide::of(choice.prover));
    if args.format == Format::Json && args.dry_run {
        // The plan's JSON follows on standard output; the frontier's account goes first.
        eprintln!("{}", serde_json::to_string(&choice.found)?);
    } else {
        eprintln!("{}", choice.account);
    }
    if choice.targets.is_empty() {
        bail!(
            "{}: no proof of this frontier has a tablebase leaf of more than 4 units: the \
             4-unit set is all it needs (`tb build --units 4`)",
            path.display()
        );
    }
    Ok((choice.targets, side))
}

/// Runs the build job: the plan's announcement and the build's progress on stderr, the
/// report (or the dry run's plan) on stdout.
fn run_job(options: &TablesBuildOptions, format: Format) -> anyhow::Result<ExitCode> {
    let report = build_stage(options, format)?;
    print_report(&report, options, format)?;
    Ok(ExitCode::SUCCESS)
}

/// The build job with its plan's announcement and progress on stderr; its report.
pub(super) fn build_stage(
    options: &TablesBuildOptions,
    format: Format,
) -> anyhow::Result<TablesBuildReport> {
    let stage = StageDisplay::new(options, format);
    let result = build_tables(options, &|e| stage.event(e));
    stage.finish();
    Ok(result?)
}

/// A build's plan (its start line, note and warnings) and progress on stderr.
pub(super) struct StageDisplay {
    progress: BuildProgress,
    json: bool,
}

impl StageDisplay {
    pub(super) fn new(options: &TablesBuildOptions, format: Format) -> StageDisplay {
        let json = format == Format::Json;
        // The start line on stderr; the summary goes to standard output.
        let progress = BuildProgress::new(json).at(&options.build).table_lines();
        StageDisplay { progress, json }
    }

    pub(super) fn event(&self, event: TablesBuildEvent) {
        match event {
            TablesBuildEvent::Planned {
                summary,
                note,
                warnings,
            } => {
                if !self.json {
                    eprintln!("plan: {summary}");
                    if let Some(note) = note {
                        eprintln!("note: {note}");
                    }
                }
                warn(&warnings);
            }
            TablesBuildEvent::Build(e) => self.progress.event(e),
        }
    }

    pub(super) fn finish(&self) {
        self.progress.finish(None);
    }
}

/// A build's report (or a dry run's plan) on stdout, as text or JSON.
pub(super) fn print_report(
    report: &TablesBuildReport,
    options: &TablesBuildOptions,
    format: Format,
) -> anyhow::Result<()> {
    match report {
        TablesBuildReport::Plan(plan) => print_plan(plan, format)?,
        TablesBuildReport::Built(summary) if format == Format::Json => print_json(summary)?,
        TablesBuildReport::Built(summary) => {
            let noun = if options.bound.is_some() {
                "bound tables"
            } else {
                "tables"
            };
            println!("{}", summary_line(summary, noun));
        }
    }
    Ok(())
}

/// Each warning on stderr.
fn warn(warnings: &[String]) {
    for warning in warnings {
        eprintln!("warning: {warning}");
    }
}

/// A dry run's plan on stdout (a row per table, with its kind in a bound plan, and the
/// totals, as text or one JSON object), then its note (text only) and warnings on stderr.
fn print_plan(plan: &PlanReport, format: Format) -> anyhow::Result<()> {
    print_lines(plan, format)?;
    if let Some(note) = plan.note.as_ref().filter(|_| format == Format::Text) {
        eprintln!("note: {note}");
    }
    warn(&plan.warnings);
    Ok(())
}
