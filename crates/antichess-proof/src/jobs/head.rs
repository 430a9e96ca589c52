//! The start of a proof file, read before the work ([`FileHead`]: its format, its compact
//! header, the rule set that says which tables to open, the node count it announces for a
//! progress bar), and the reports of `proof verify` ([`VerifyReport`], [`VerifyRejection`]).

use std::fmt;
use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};

use antichess_core::Rules;
use serde::Serialize;

use crate::{
    compare_tables, detect_file_format, CompactHeader, Format, LeafOracle, PagedFile, ProofError,
    ProofStats, ReferenceFile, ReferenceOptions, TableCheck, TableStatus,
};

/// A proof file's format and, for our compact format, its header.
#[derive(Debug, Clone)]
pub struct FileHead {
    /// The file.
    pub path: PathBuf,
    /// Its format (as given, else detected from the magic bytes).
    pub format: Format,
    /// The compact format's header (`None` for the reference format).
    pub header: Option<CompactHeader>,
    /// How a reference-format file is read (it records no rules, root or prover).
    pub reference: ReferenceOptions,
}

impl FileHead {
    /// Reads the start of the proof file `path`: its format (`None`: detected) and, for the
    /// compact format, its header.
    ///
    /// # Errors
    /// When the file cannot be opened, its format not detected or its header not read.
    pub fn read(
        path: &Path,
        format: Option<Format>,
        reference: &ReferenceOptions,
    ) -> Result<FileHead, ProofError> {
        let format = match format {
            Some(format) => format,
            None => detect_file_format(path)?,
        };
        let header = match format {
            Format::Compact => {
                let file = File::open(path).map_err(|e| ProofError::Io {
                    context: format!("opening {}", path.display()),
                    source: e,
                })?;
                Some(CompactHeader::read(&mut BufReader::new(file))?)
            }
            Format::Reference => None,
        };
        Ok(FileHead {
            path: path.to_path_buf(),
            format,
            header,
            reference: reference.clone(),
        })
    }

    /// The proof's rule set: the header's, else the reference options'.
    #[must_use]
    pub fn rules(&self) -> Rules {
        self.header
            .as_ref()
            .map_or(self.reference.rules, |h| h.rules)
    }

    /// The tables the file records (version 2 on) compared with those of `oracle`
    /// (`None`: the file records none).
    #[must_use]
    pub fn table_checks(&self, oracle: &dyn LeafOracle) -> Option<Vec<TableCheck>> {
        self.header
            .as_ref()
            .filter(|h| h.version >= 2)
            .map(|h| compare_tables(&h.tables, oracle))
    }

    /// The node count the file announces (for a progress bar).
    #[must_use]
    pub fn announced_nodes(&self) -> Option<u64> {
        match &self.header {
            Some(header) => Some(header.counts.total),
            None => announced_nodes(&self.path, self.format, &self.reference),
        }
    }
}

/// The node count a proof file of `format` announces in its header, if it can be read
/// (for a progress bar).
#[must_use]
pub fn announced_nodes(path: &Path, format: Format, reference: &ReferenceOptions) -> Option<u64> {
    match format {
        Format::Compact => {
            let mut reader = BufReader::new(File::open(path).ok()?);
            CompactHeader::read(&mut reader)
                .ok()
                .map(|h| h.counts.total)
        }
        Format::Reference => {
            let paged = PagedFile::new(File::open(path).ok()?).ok()?;
            ReferenceFile::open(paged, reference.byte_order)
                .ok()
                .map(|f| f.node_count())
        }
    }
}

/// A proof file that verified: the verifier's statistics (`verified` is true). The text
/// is the verdict's line, then the statistics.
#[derive(Debug, Clone, Serialize)]
pub struct VerifyReport {
    /// The verifier's statistics.
    #[serde(flatten)]
    pub stats: ProofStats,
    /// Always true.
    pub verified: bool,
}

impl VerifyReport {
    /// The report of `stats`, verified.
    #[must_use]
    pub fn new(stats: ProofStats) -> VerifyReport {
        VerifyReport {
            stats,
            verified: true,
        }
    }
}

impl fmt::Display for VerifyReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let stats = &self.stats;
        writeln!(
            f,
            "verified: {} wins from {} under {} rules ({} nodes, {} format)",
            stats.prover, stats.root_fen, stats.rules, stats.counts.total, stats.format
        )?;
        write!(f, "{stats}")
    }
}

/// A proof file the verifier rejected, with the tables the file records compared with
/// those given (`verified` is false).
#[derive(Debug, Clone, Serialize)]
pub struct VerifyRejection {
    /// Always false.
    pub verified: bool,
    /// Why it was rejected.
    pub error: String,
    /// The recorded tables against those given (`None`: the file records none).
    pub tables: Option<Vec<TableCheck>>,
}

impl VerifyRejection {
    /// The rejection for `error`.
    #[must_use]
    pub fn new(error: &ProofError, tables: Option<Vec<TableCheck>>) -> VerifyRejection {
        VerifyRejection {
            verified: false,
            error: error.to_string(),
            tables,
        }
    }
}

/// The warnings to print before a verification: one line per recorded table that is not
/// the one given (the verdict is for the tables given).
#[must_use]
pub fn table_warnings(checks: Option<&[TableCheck]>) -> Vec<String> {
    checks
        .into_iter()
        .flatten()
        .filter(|check| check.status != TableStatus::Same)
        .map(|check| {
            format!(
                "warning: {} (the verdict below is for the tables given)",
                check.describe()
            )
        })
        .collect()
}
