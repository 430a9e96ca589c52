//! `antichess book tables`: the materials of at most 6 units the book's searches met
//! without a table, most positions first, each marked present, bound (bound tables only)
//! or missing in a tables directory, with the disk they take. `antichess tb build --from-book BOOK`
//! builds the first of them; the book's next searches use them.

use std::process::ExitCode;

use antichess_book::jobs::tables::book_tables;
use antichess_book::text::steering::tables_text;
use antichess_book::Book;
use clap::Args;

use crate::common::args::default_tables_dir;
use crate::common::output::{print_json, Format};

/// List the materials (at most 6 units; --units to show fewer) the book's searches met
/// without a table, most positions first, and whether a table for each is in the tables
/// directory now. `tb build --from-book` takes those of at most 5 units unless told.
///
/// In JSON: `book`, `tables` (the directory), and `materials`: one object per material
/// with `material`, `units`, `positions` (evaluated by the book's searches while it had no
/// table), `table` ("present", "bound" when only bound tables are there, or "missing") and
/// `bytes` (the files' size, present and bound ones).
#[derive(Debug, Args)]
pub struct TablesArgs {
    pub book: String,

    /// Directory of table files (default: that of the book's rule set,
    /// ~/.cache/antichess/tables/<rules>).
    #[arg(long, value_name = "DIR")]
    pub tables: Option<std::path::PathBuf>,

    /// Show only materials of at most this many units.
    #[arg(long, value_name = "N")]
    pub units: Option<u32>,

    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
}

pub fn run_tables(args: &TablesArgs) -> anyhow::Result<ExitCode> {
    let mut book = Book::open_read_only(&args.book)?;
    let rules = book.meta().rules;
    let dir = args
        .tables
        .clone()
        .unwrap_or_else(|| default_tables_dir(rules));
    let report = book_tables(&mut book, &dir, args.units)?;
    if args.format == Format::Json {
        return print_json(&report).map(|()| ExitCode::SUCCESS);
    }
    let units = args.units.unwrap_or(antichess_book::tables::RECORD_UNITS);
    print!("{}", tables_text(&report, units, &args.book));
    Ok(ExitCode::SUCCESS)
}
