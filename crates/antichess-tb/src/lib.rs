//! Endgame tablebases for losing chess (and, in [`lasker`], for Lasker chess: orthodox
//! endgames where stalemate is a lesser win): material signatures, position indexing with
//! symmetry, retrograde generation of WDL and DTC (distance to conversion, in plies), the
//! table file format, memory-mapped probing, statistics and verification.
//!
//! Under the royal-king rule sets (`pritchard3`, `pritchard4`) the tables are built by a
//! generator of their own ([`royal`]) into the same file format, and probing follows
//! their rules (bare king, check, mate per variant).
//!
//! A table covers one material (both sides to move); colour-swapped materials share one
//! table. Positions with an en passant capture available are not stored: probing resolves
//! them by their captures. Tables depend on the rules (stalemate scoring and promotion
//! rule); a table built for other rules is refused.
//!
//! Jobs of the CLI live here too: [`bench`] (`antichess bench tablebase`),
//! [`verify_tables`] (`antichess tb verify`) and the other `tb` commands ([`jobs`]), each
//! with options in and a report out.

pub mod bench;
mod build;
mod build_tracker;
mod dirs;
mod error;
pub mod format;
mod generate;
pub mod index;
pub mod jobs;
pub mod lasker;
pub mod material;
pub mod memory;
pub mod royal;
pub mod slices;
mod stats;
pub mod symmetry;
mod table;
mod tablebase;
mod verify;
mod verify_set;
mod wdl;
mod zeroed;

pub use build::{
    bound_dependencies, bound_plan, build, build_bounds, build_one, check_set_units, dependencies,
    direct_dependencies, plan, positions, BuildEvent, BuildOptions, BuildReport, Built, PlanEntry,
};
pub use build_tracker::BuildTracker;
pub use dirs::{default_tables_dir, verification_tables};
pub use error::TbError;
pub use format::TableKind;
pub use generate::{generate, generate_kind, GenEvent, GenStats, GeneratedTable, Strategy};
pub use material::Material;
pub use royal::{royal_generate, royal_table_ok, RoyalTable, ROYAL_MAX_UNITS};
pub use stats::{table_stats, SideStats, TableStats};
pub use table::Table;
pub use tablebase::{board_key, MoveValue, Tablebase};
pub use verify::{verify_table, verify_table_kind, VerifyReport};
pub use verify_set::{
    verify_tables, VerifyRow, VerifyStatus, VerifyTablesOptions, VerifyTablesReport,
};
pub use wdl::{Value, Wdl};
