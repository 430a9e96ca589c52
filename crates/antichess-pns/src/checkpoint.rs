//! Checkpoints of a search: the transposition table saved to a file, so that a long search
//! can be stopped (Ctrl-C, a time limit, a crash after the last checkpoint) and resumed
//! where it stood. df-pn keeps all of its state in the table, so reloading the entries
//! and searching the same root again continues the search.
//!
//! Format (documented in `docs/formats/checkpoint.md`): the magic `ACHKPT01`, a header of
//! `name=value` text lines ended by an empty line (version, rules, prover, root FEN, nodes
//! and seconds searched so far), then one zstd frame with a content checksum holding the
//! entries, 22 bytes each, little-endian: key (u64), proof (u32), disproof (u32), work
//! (u32), best move (u16); then the trailer `ACHKEND1` and the number of entries (u64 LE).
//! The file is written to a temporary name
//! and renamed ([`antichess_io::AtomicFile`]), so a checkpoint is either the old one or the
//! new one, never half of each; a temporary file left by a save killed midway is removed
//! by the next save ([`remove_stale_checkpoint_temps`]).
//! The entries may be loaded into a table of another size (each is stored again by key).

use std::fs::File;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;

use antichess_core::{Color, Position};

use crate::error::{PnsError, Result};
use crate::tt::{TranspositionTable, TtEntry};

const MAGIC: &[u8; 8] = b"ACHKPT01";
const VERSION: u32 = 1;
const RECORD: usize = 22;
const TRAILER: &[u8; 8] = b"ACHKEND1";

/// What a checkpoint says about its search.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckpointInfo {
    /// The root position (its FEN records the rule set too, through `rules`).
    pub fen: String,
    pub rules: String,
    pub prover: Color,
    /// Nodes and seconds searched before the checkpoint (over all earlier runs).
    pub nodes: u64,
    pub seconds: f64,
    /// Entries in the file (known after loading; 0 from [`read_checkpoint_info`]).
    pub entries: u64,
}

impl CheckpointInfo {
    /// The description of a search of `root` for `prover`.
    #[must_use]
    pub fn for_search(root: &Position, prover: Color, nodes: u64, seconds: f64) -> CheckpointInfo {
        CheckpointInfo {
            fen: root.fen(),
            rules: root.rules().to_string(),
            prover,
            nodes,
            seconds,
            entries: 0,
        }
    }

    /// Whether a search of `root` for `prover` may resume from this checkpoint; if not,
    /// why.
    pub fn matches(&self, root: &Position, prover: Color) -> Result<()> {
        if self.rules != root.rules().to_string() {
            return Err(PnsError::Mismatch(format!(
                "the checkpoint is for {} rules, this search uses {}",
                self.rules,
                root.rules()
            )));
        }
        if self.fen != root.fen() {
            return Err(PnsError::Mismatch(format!(
                "the checkpoint is for the position {}, this search is for {}",
                self.fen,
                root.fen()
            )));
        }
        if self.prover != prover {
            return Err(PnsError::Mismatch(format!(
                "the checkpoint proves a win for {}, this search for {}",
                self.prover, prover
            )));
        }
        Ok(())
    }
}

fn error(path: &Path, message: impl Into<String>) -> PnsError {
    PnsError::Checkpoint {
        path: path.to_path_buf(),
        message: message.into(),
    }
}

/// Removes the temporary files that saves of the checkpoint `path` left behind when
/// their process was killed during the save (only those named after `path` whose process
/// is gone: see [`antichess_io::remove_stale_temps`]); returns them. [`save_checkpoint`]
/// does it before each save; a run may call it when it starts.
pub fn remove_stale_checkpoint_temps(path: &Path) -> Result<Vec<std::path::PathBuf>> {
    antichess_io::remove_stale_temps(path).map_err(|e| error(path, io_message(path, &e)))
}

/// The message of an error of [`antichess_io`] without the path it starts with (the
/// checkpoint error names it).
fn io_message(path: &Path, e: &std::io::Error) -> String {
    let message = e.to_string();
    let prefix = format!("{}: ", path.display());
    message
        .strip_prefix(&prefix)
        .unwrap_or(&message)
        .to_string()
}

/// Saves the entries of `table` with `info` to `path` (atomically, with
/// [`antichess_io::AtomicFile`]: an existing `path` that is not a regular file is refused
/// and left as it was); returns the entries written. The table may be in use by running
/// searches. Stale temporary files of earlier saves killed midway are removed first.
pub fn save_checkpoint(
    table: &TranspositionTable,
    info: &CheckpointInfo,
    path: &Path,
) -> Result<u64> {
    remove_stale_checkpoint_temps(path)?;
    let out =
        antichess_io::AtomicFile::create(path).map_err(|e| error(path, io_message(path, &e)))?;
    let result = (|| -> std::io::Result<u64> {
        let mut out = out;
        out.write_all(MAGIC)?;
        write!(
            out,
            "version={VERSION}\nrules={}\nprover={}\nfen={}\nnodes={}\nseconds={}\n\n",
            info.rules,
            info.prover.name(),
            info.fen,
            info.nodes,
            info.seconds
        )?;
        let mut z = zstd::stream::write::Encoder::new(out, 1)?;
        z.include_checksum(true)?;
        let mut written = 0u64;
        let mut failure = None;
        let mut record = [0u8; RECORD];
        table.for_each(|key, e| {
            if failure.is_some() {
                return;
            }
            record[0..8].copy_from_slice(&key.to_le_bytes());
            record[8..12].copy_from_slice(&e.proof.to_le_bytes());
            record[12..16].copy_from_slice(&e.disproof.to_le_bytes());
            record[16..20].copy_from_slice(&e.work.to_le_bytes());
            record[20..22].copy_from_slice(&e.best.to_le_bytes());
            match z.write_all(&record) {
                Ok(()) => written += 1,
                Err(err) => failure = Some(err),
            }
        });
        if let Some(err) = failure {
            return Err(err);
        }
        let mut out = z.finish()?;
        out.write_all(TRAILER)?;
        out.write_all(&written.to_le_bytes())?;
        // (Dropped on an error above, the temporary file is removed.)
        out.commit()?;
        Ok(written)
    })();
    result.map_err(|e| error(path, io_message(path, &e)))
}

/// Reads only the header of a checkpoint.
pub fn read_checkpoint_info(path: &Path) -> Result<CheckpointInfo> {
    let file = File::open(path).map_err(|e| error(path, e.to_string()))?;
    let mut reader = BufReader::new(file);
    read_header(path, &mut reader)
}

fn read_header(path: &Path, reader: &mut impl BufRead) -> Result<CheckpointInfo> {
    let mut magic = [0u8; 8];
    reader
        .read_exact(&mut magic)
        .map_err(|_| error(path, "not a checkpoint file (too short)"))?;
    if &magic != MAGIC {
        return Err(error(path, "not a checkpoint file (wrong magic)"));
    }
    let mut fields = std::collections::HashMap::new();
    loop {
        let mut line = String::new();
        let n = reader
            .read_line(&mut line)
            .map_err(|e| error(path, format!("header: {e}")))?;
        if n == 0 {
            return Err(error(path, "truncated header"));
        }
        let line = line.trim_end_matches('\n');
        if line.is_empty() {
            break;
        }
        let (name, value) = line
            .split_once('=')
            .ok_or_else(|| error(path, format!("malformed header line \"{line}\"")))?;
        fields.insert(name.to_string(), value.to_string());
        if fields.len() > 64 {
            return Err(error(path, "header too long"));
        }
    }
    let get = |name: &str| {
        fields
            .get(name)
            .cloned()
            .ok_or_else(|| error(path, format!("header has no \"{name}\"")))
    };
    let number = |name: &str| -> Result<u64> {
        get(name)?
            .parse()
            .map_err(|_| error(path, format!("header field \"{name}\" is not a number")))
    };
    let version = number("version")?;
    if version != u64::from(VERSION) {
        return Err(error(
            path,
            format!("format version {version}; this program reads version {VERSION}"),
        ));
    }
    let prover_name = get("prover")?;
    let prover = Color::from_name(&prover_name)
        .ok_or_else(|| error(path, format!("unknown prover \"{prover_name}\"")))?;
    let seconds: f64 = get("seconds")?
        .parse()
        .map_err(|_| error(path, "header field \"seconds\" is not a number"))?;
    Ok(CheckpointInfo {
        fen: get("fen")?,
        rules: get("rules")?,
        prover,
        nodes: number("nodes")?,
        seconds,
        entries: 0,
    })
}

/// Loads a checkpoint into `table` (which should be empty); returns its header.
pub fn load_checkpoint(table: &TranspositionTable, path: &Path) -> Result<CheckpointInfo> {
    let file = File::open(path).map_err(|e| error(path, e.to_string()))?;
    let mut reader = BufReader::new(file);
    let mut info = read_header(path, &mut reader)?;
    let mut z = zstd::stream::read::Decoder::with_buffer(reader)
        .map_err(|e| error(path, format!("entries: {e}")))?
        .single_frame();
    let mut record = [0u8; RECORD];
    let mut count = 0u64;
    loop {
        let mut filled = 0;
        while filled < RECORD {
            let n = z.read(&mut record[filled..]).map_err(|e| {
                error(
                    path,
                    format!("truncated or corrupt after {count} entries: {e}"),
                )
            })?;
            if n == 0 {
                break;
            }
            filled += n;
        }
        if filled == 0 {
            break;
        }
        if filled < RECORD {
            return Err(error(
                path,
                format!("truncated entry after {count} entries"),
            ));
        }
        let word = |a: usize| u32::from_le_bytes(record[a..a + 4].try_into().expect("4 bytes"));
        let key = u64::from_le_bytes(record[0..8].try_into().expect("8 bytes"));
        if table.wants_growth() {
            table.grow_now(); // the table is not searched while it is loaded
        }
        table.put(
            key,
            TtEntry {
                proof: word(8),
                disproof: word(12),
                work: word(16),
                best: u16::from_le_bytes([record[20], record[21]]),
            },
        );
        count += 1;
    }
    let mut reader = z.finish();
    let mut trailer = [0u8; 16];
    reader
        .read_exact(&mut trailer)
        .map_err(|_| error(path, format!("truncated: no trailer after {count} entries")))?;
    if &trailer[..8] != TRAILER {
        return Err(error(path, "corrupt trailer"));
    }
    let announced = u64::from_le_bytes(trailer[8..].try_into().expect("8 bytes"));
    if announced != count {
        return Err(error(
            path,
            format!("the trailer announces {announced} entries, the file holds {count}"),
        ));
    }
    info.entries = count;
    Ok(info)
}
