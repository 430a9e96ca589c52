//! The jobs of the `proof` commands that read proof files and write or verify one:
//! verify (with the tables the file records compared: [`FileHead`], [`VerifyReport`]),
//! convert ([`convert_verified`]), join ([`JoinPlan`]) and extract ([`ExtractPlan`]), the
//! tables a file records as what to build ([`RecordedTables`], `tb build --from-proof`), and
//! the text of `proof index`'s report. Each takes its options, does the work (an output is
//! written atomically and verified before success is reported) and returns a serializable
//! report whose `Display` is the command's text; its errors ([`JobError`]) say whether
//! they are a verdict on a proof (exit 1) or trouble (exit 2). Opening the tables is the
//! caller's (it knows where they live by default): a job that needs the proof's rule set
//! for that first reads it ([`FileHead::read`], [`JoinPlan::prepare`],
//! [`ExtractPlan::prepare`]).

mod convert;
mod error;
mod extract;
mod head;
mod index;
mod join;
mod recorded;

pub use convert::{convert_verified, ConvertOptions, ConvertReport};
pub use error::JobError;
pub use extract::{ExtractOptions, ExtractPlan, ExtractReport};
pub use head::{announced_nodes, table_warnings, FileHead, VerifyRejection, VerifyReport};
pub use join::{JoinOptions, JoinPlan, JoinedReport, UsedChild};
pub use recorded::{
    build_recorded, stage_name, RecordedBuildEvent, RecordedBuildReport, RecordedStage,
    RecordedTables,
};
