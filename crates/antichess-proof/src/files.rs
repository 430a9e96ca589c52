//! Files: format detection, atomic writing (a temporary file in the same directory, then
//! a rename), and the entry points that verify, read, write, convert and summarise proof
//! files of either format.

use std::fs::{self, File};
use std::io::{BufReader, Read};
use std::path::Path;

use crate::compact::{walk_compact, CompactHeader, CompactWalk, COMPACT_MAGIC};
use crate::oracle::{compare_tables, LeafChecker, LeafOracle, DEFAULT_PLAYOUT_DEPTH};
use crate::read_at::{PagedFile, ReadAt};
use crate::reference::{
    encode_reference, read_reference, walk_reference, ByteOrder, ReferenceFile, ReferenceOptions,
};
use crate::tables::{unchecked_tables, TableRecord};
use crate::walk::{CheckLeaves, CollectNodes, NoChecks, Visitor};
use crate::{encode_compact, ProofError, ProofStats, ProofTree};

/// The two proof file formats (on the command line `ours`, or `compact`, and `reference`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum Format {
    /// Our compact bitstream (docs/formats/proof.md): well under a byte per node.
    #[cfg_attr(feature = "clap", value(name = "ours", alias = "compact"))]
    Compact,
    /// The reference solution's 6 bytes per node.
    Reference,
}

impl Format {
    /// Guesses the format from a file's first bytes: compact if it starts with the magic.
    #[must_use]
    pub fn detect(first_bytes: &[u8]) -> Format {
        if first_bytes.starts_with(&COMPACT_MAGIC) {
            Format::Compact
        } else {
            Format::Reference
        }
    }

    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Format::Compact => "compact",
            Format::Reference => "reference",
        }
    }
}

/// How to verify.
#[derive(Debug, Clone)]
pub struct VerifyOptions {
    /// Play tablebase leaves out to the end of the game instead of trusting the tables.
    pub expand_tablebase_leaves: bool,
    /// Depth limit of a play-out, in plies.
    pub playout_depth_limit: u32,
    /// Rules, prover and byte order of reference-format files.
    pub reference: ReferenceOptions,
}

impl Default for VerifyOptions {
    fn default() -> VerifyOptions {
        VerifyOptions {
            expand_tablebase_leaves: false,
            playout_depth_limit: DEFAULT_PLAYOUT_DEPTH,
            reference: ReferenceOptions::default(),
        }
    }
}

/// Verifies a compact-format proof read as a stream. `file_bytes` (if known) is reported
/// in the statistics; `progress` is called with the number of nodes walked from time to
/// time.
pub fn verify_compact<R: Read>(
    mut reader: R,
    file_bytes: Option<u64>,
    oracle: &dyn LeafOracle,
    options: &VerifyOptions,
    progress: &mut dyn FnMut(u64),
) -> Result<ProofStats, ProofError> {
    let header = CompactHeader::read(&mut reader)?;
    if let Some(len) = file_bytes {
        check_compact_length(&header, len)?;
    }
    if header.counts.tablebase > 0 && !tables_cover(&header, oracle) {
        return Err(ProofError::NeedTablebases {
            leaves: header.counts.tablebase,
            units: header.tablebase_units,
            available: oracle.max_units(),
        });
    }
    let mut visitor = CheckLeaves(LeafChecker::new(
        oracle,
        header.prover,
        options.expand_tablebase_leaves,
        options.playout_depth_limit,
    ));
    let mut stats = walk_compact(
        CompactWalk {
            header: &header,
            visitor: &mut visitor,
            progress,
            file_bytes,
        },
        reader,
    )?;
    stats.tables = recorded_tables(&header).map(|tables| compare_tables(tables, oracle));
    Ok(stats)
}

/// The table list of a compact header, if its version has one.
/// Whether `oracle` can be expected to judge the proof's tablebase leaves: it has every
/// table the header records (a file that records them), or covers as many units as its
/// largest leaf. (A leaf with an en-passant capture to make is valued by the tables one
/// unit smaller, so the recorded tables may be smaller than the header's unit count.)
fn tables_cover(header: &CompactHeader, oracle: &dyn LeafOracle) -> bool {
    if oracle.max_units() == 0 {
        return false;
    }
    if oracle.max_units() >= header.tablebase_units {
        return true;
    }
    recorded_tables(header).is_some_and(|tables| {
        !tables.is_empty()
            && tables
                .iter()
                .all(|t| matches!(oracle.table_checksum(&t.material), Ok(Some(_))))
    })
}

fn recorded_tables(header: &CompactHeader) -> Option<&[TableRecord]> {
    (header.version >= 2).then_some(header.tables.as_slice())
}

fn check_compact_length(header: &CompactHeader, len: u64) -> Result<(), ProofError> {
    let expected = header.header_len + header.body_len();
    if len < expected {
        return Err(ProofError::corrupt(
            len,
            format!(
                "the file is truncated: the header announces {} body bytes ({expected} bytes in all), the file has {len}",
                header.body_len()
            ),
        ));
    }
    if len > expected {
        return Err(ProofError::corrupt(
            expected,
            format!(
                "{} unexpected bytes after the end of the body",
                len - expected
            ),
        ));
    }
    Ok(())
}

/// Verifies a reference-format proof.
pub fn verify_reference<S: ReadAt>(
    source: S,
    oracle: &dyn LeafOracle,
    options: &VerifyOptions,
    progress: &mut dyn FnMut(u64),
) -> Result<ProofStats, ProofError> {
    let len = source.size();
    let mut file = ReferenceFile::open(source, options.reference.byte_order)?;
    let mut visitor = CheckLeaves(LeafChecker::new(
        oracle,
        options.reference.prover,
        options.expand_tablebase_leaves,
        options.playout_depth_limit,
    ));
    let mut stats = walk_reference(&mut file, &options.reference, &mut visitor, progress)?;
    stats.file_bytes = Some(len);
    Ok(stats)
}

/// Decodes a compact-format stream into a tree (structure checked, leaves not judged).
pub fn read_compact<R: Read>(mut reader: R) -> Result<ProofTree, ProofError> {
    let header = CompactHeader::read(&mut reader)?;
    let mut visitor = CollectNodes::default();
    walk_compact(
        CompactWalk {
            header: &header,
            visitor: &mut visitor,
            progress: &mut |_| {},
            file_bytes: None,
        },
        reader,
    )?;
    let mut tree = ProofTree::from_parts(header.root, header.prover, header.prolog, visitor.0)?;
    tree.set_tables(header.tables);
    Ok(tree)
}

fn open(path: &Path) -> Result<File, ProofError> {
    File::open(path).map_err(|e| ProofError::io(format!("opening {}", path.display()), e))
}

/// Detects the format of a file from its first bytes.
pub fn detect_file_format(path: &Path) -> Result<Format, ProofError> {
    let mut first = Vec::with_capacity(8);
    open(path)?
        .take(8)
        .read_to_end(&mut first)
        .map_err(|e| ProofError::io(format!("reading {}", path.display()), e))?;
    Ok(Format::detect(&first))
}

/// `format`, or the one detected from the file's first bytes.
fn format_of(path: &Path, format: Option<Format>) -> Result<Format, ProofError> {
    match format {
        Some(format) => Ok(format),
        None => detect_file_format(path),
    }
}

/// The file behind the reference format's random access.
fn open_paged(path: &Path) -> Result<PagedFile, ProofError> {
    PagedFile::new(open(path)?)
        .map_err(|e| ProofError::io(format!("reading {}", path.display()), e))
}

fn file_len(path: &Path) -> Result<u64, ProofError> {
    Ok(fs::metadata(path)
        .map_err(|e| ProofError::io(format!("reading {}", path.display()), e))?
        .len())
}

/// Verifies a proof file (format detected when `format` is `None`).
pub fn verify_file(
    path: &Path,
    format: Option<Format>,
    oracle: &dyn LeafOracle,
    options: &VerifyOptions,
    progress: &mut dyn FnMut(u64),
) -> Result<ProofStats, ProofError> {
    let format = format_of(path, format)?;
    match format {
        Format::Compact => {
            let len = file_len(path)?;
            let reader = BufReader::with_capacity(1 << 16, open(path)?);
            verify_compact(reader, Some(len), oracle, options, progress)
        }
        Format::Reference => {
            let paged = open_paged(path)?;
            verify_reference(paged, oracle, options, progress)
        }
    }
}

/// Statistics of a proof file, without judging its leaves (the structure is checked).
pub fn stats_file(
    path: &Path,
    format: Option<Format>,
    reference: &ReferenceOptions,
    progress: &mut dyn FnMut(u64),
) -> Result<ProofStats, ProofError> {
    let format = format_of(path, format)?;
    let len = file_len(path)?;
    let mut visitor = NoChecks;
    match format {
        Format::Compact => {
            let mut reader = BufReader::with_capacity(1 << 16, open(path)?);
            let header = CompactHeader::read(&mut reader)?;
            check_compact_length(&header, len)?;
            let mut stats = walk_compact(
                CompactWalk {
                    header: &header,
                    visitor: &mut visitor as &mut dyn Visitor,
                    progress,
                    file_bytes: Some(len),
                },
                reader,
            )?;
            stats.tables = recorded_tables(&header).map(unchecked_tables);
            Ok(stats)
        }
        Format::Reference => {
            let paged = open_paged(path)?;
            let mut file = ReferenceFile::open(paged, reference.byte_order)?;
            let mut stats = walk_reference(&mut file, reference, &mut visitor, progress)?;
            stats.file_bytes = Some(len);
            Ok(stats)
        }
    }
}

/// Reads a proof file of either format into memory.
pub fn read_proof_file(
    path: &Path,
    format: Option<Format>,
    reference: &ReferenceOptions,
) -> Result<ProofTree, ProofError> {
    let format = format_of(path, format)?;
    match format {
        Format::Compact => {
            let len = file_len(path)?;
            let mut reader = BufReader::with_capacity(1 << 16, open(path)?);
            let header = CompactHeader::read(&mut reader)?;
            check_compact_length(&header, len)?;
            let mut visitor = CollectNodes::default();
            walk_compact(
                CompactWalk {
                    header: &header,
                    visitor: &mut visitor,
                    progress: &mut |_| {},
                    file_bytes: Some(len),
                },
                reader,
            )?;
            let mut tree =
                ProofTree::from_parts(header.root, header.prover, header.prolog, visitor.0)?;
            tree.set_tables(header.tables);
            Ok(tree)
        }
        Format::Reference => {
            let paged = open_paged(path)?;
            let mut file = ReferenceFile::open(paged, reference.byte_order)?;
            read_reference(&mut file, reference)
        }
    }
}

/// Writes bytes to `path` atomically, through [`antichess_io::write_atomic`]: a temporary
/// file in the same directory, synced, then renamed over `path`. An existing `path` that
/// is not a regular file (a symbolic link, a directory, a device, a FIFO) is refused and
/// left as it was.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), ProofError> {
    antichess_io::write_atomic(path, bytes).map_err(|e| {
        // The message names the path already: the error shows it once.
        let message = e.to_string();
        let prefix = format!("{}: ", path.display());
        let message = message
            .strip_prefix(&prefix)
            .unwrap_or(&message)
            .to_string();
        ProofError::io(
            format!("writing {}", path.display()),
            std::io::Error::new(e.kind(), message),
        )
    })
}

/// Writes a proof in a format, atomically.
pub fn write_proof_file(
    tree: &ProofTree,
    path: &Path,
    format: Format,
    byte_order: ByteOrder,
) -> Result<(), ProofError> {
    let bytes = match format {
        Format::Compact => encode_compact(tree)?,
        Format::Reference => encode_reference(tree, byte_order)?,
    };
    write_atomic(path, &bytes)
}

/// Converts a proof file to another format (through memory); returns the tree.
pub fn convert_file(
    input: &Path,
    output: &Path,
    to: Format,
    reference: &ReferenceOptions,
) -> Result<ProofTree, ProofError> {
    let tree = read_proof_file(input, None, reference)?;
    write_proof_file(&tree, output, to, reference.byte_order.unwrap_or_default())?;
    Ok(tree)
}
