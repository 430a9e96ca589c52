//! The on-disk index of a proof file: what a player needs at each internal position of a
//! verified proof (the move to play, the side that wins, the subtree's size and height, as
//! [`LoadedProof::play`] answers), in a file that is memory-mapped, so that a lookup reads a
//! few bytes of it and opening it costs next to nothing whatever the proof's size. The
//! format is described in docs/formats/proof-index.md.
//!
//! **Only verified proofs are indexed.** [`open_or_build_index`] reads the proof file once,
//! verifies those bytes with the crate's verifier (tablebase leaves judged by the oracle it
//! is given) and indexes the same bytes; a proof that fails verification, or whose tablebase
//! leaves the oracle cannot judge, gets no index and the error says why. An index file is
//! therefore the record that its proof verified.
//!
//! **Keyed by the proof's checksum.** An index is named after the XXH3-128 checksum of the
//! proof file's bytes and the rule set (`<checksum>-<rules>.pidx`), and its header repeats
//! them with the file's length. A proof changed in any byte gets another name; an index
//! whose header does not match the proof it is opened for, or is truncated, damaged (its
//! header has its own checksum) or of another version, is refused with a
//! [`ProofError::BadIndex`] and built again: never trusted, never a panic. The records are
//! not checksummed at every opening (that would read the whole file);
//! [`ProofIndex::check_records`] does it on request, and a lookup only ever returns a record
//! whose 128-bit position identity matches.
//!
//! **Where.** [`default_index_dir`]: `$ANTICHESS_PROOF_INDEX`, else
//! `$XDG_CACHE_HOME/antichess/proof-index`, else `~/.cache/antichess/proof-index` (beside the
//! tables' default `~/.cache/antichess/tables`). Files are written atomically (a temporary
//! name, then a rename), so a reader sees a whole index or none.
//!
//! **Layout.** An open-addressing hash table of fixed-size records (24 bytes: position key,
//! second hash, subtree nodes, move, height), at most three quarters full, probed linearly
//! from the slot the key maps to; the header records the longest probe, which bounds a
//! lookup. Heights are in plies.

use std::path::{Path, PathBuf};
use std::str::FromStr;

use antichess_core::{Color, Move, Position, Rules};
use antichess_io::MappedFile;
use xxhash_rust::xxh3::{xxh3_128, xxh3_64};

use crate::loaded::{file_name, LoadedProof, ProofPlay, MAX_HEIGHT, NO_HEIGHT};
use crate::oracle::LeafOracle;
use crate::reference::{read_reference, ReferenceFile, ReferenceOptions};
use crate::{
    read_compact, verify_compact, verify_reference, write_atomic, CompactHeader, Format,
    PositionId, ProofError, VerifyOptions,
};

/// The first bytes of an index file.
pub const INDEX_MAGIC: [u8; 8] = *b"ACPINDEX";
/// The format version this program writes and reads.
pub const INDEX_VERSION: u32 = 1;
/// The environment variable that names the index directory.
pub const INDEX_DIR_ENV: &str = "ANTICHESS_PROOF_INDEX";

/// Bytes per record.
const RECORD: usize = 24;
/// Bytes of the header's fixed part (before the rules' name and the root's FEN).
const FIXED: usize = 80;

/// The default directory of index files (see the module documentation).
#[must_use]
pub fn default_index_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os(INDEX_DIR_ENV) {
        return PathBuf::from(dir);
    }
    std::env::var_os("XDG_CACHE_HOME")
        .map(|d| PathBuf::from(d).join("antichess/proof-index"))
        .or_else(|| {
            std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/antichess/proof-index"))
        })
        .unwrap_or_else(|| PathBuf::from("proof-index"))
}

/// The checksum an index is keyed by: XXH3-128 of the proof file's bytes.
#[must_use]
pub fn proof_checksum(bytes: &[u8]) -> u128 {
    xxh3_128(bytes)
}

/// The index file of a proof (by its checksum) under `rules`, in `dir`.
#[must_use]
pub fn index_path(dir: &Path, checksum: u128, rules: Rules) -> PathBuf {
    dir.join(format!("{checksum:032x}-{rules}.pidx"))
}

/// An index file's header.
#[derive(Debug, Clone)]
pub struct IndexHeader {
    pub version: u32,
    /// [`proof_checksum`] of the proof file indexed.
    pub proof_checksum: u128,
    /// Length of the proof file in bytes.
    pub proof_bytes: u64,
    /// Nodes of the proof file.
    pub proof_nodes: u64,
    /// Records (distinct internal positions of the proof).
    pub positions: u64,
    /// Slots of the hash table.
    pub slots: u64,
    /// The longest probe from a record's home slot to the record.
    pub max_probe: u32,
    pub prover: Color,
    pub rules: Rules,
    pub root: Position,
    /// XXH3-64 of the records.
    pub records_checksum: u64,
    /// Bytes before the records.
    pub header_len: usize,
}

fn bad(message: impl Into<String>) -> ProofError {
    ProofError::BadIndex {
        message: message.into(),
    }
}

fn u64_at(bytes: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_le_bytes(bytes.get(at..at + 8)?.try_into().ok()?))
}

fn u32_at(bytes: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(bytes.get(at..at + 4)?.try_into().ok()?))
}

fn u16_at(bytes: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(bytes.get(at..at + 2)?.try_into().ok()?))
}

/// The slot a key's probe starts from.
fn home(key: u64, slots: u64) -> u64 {
    ((u128::from(key) * u128::from(slots)) >> 64) as u64
}

impl IndexHeader {
    /// Reads and checks the header of an index file's bytes (whole: its length is checked
    /// against the header's counts).
    pub fn parse(bytes: &[u8]) -> Result<IndexHeader, ProofError> {
        let len = bytes.len();
        if len < 8 || bytes[..8] != INDEX_MAGIC {
            return Err(bad("not a proof index (bad magic bytes)"));
        }
        let truncated = || bad(format!("truncated: {len} bytes, shorter than its header"));
        let version = u32_at(bytes, 8).ok_or_else(truncated)?;
        if version != INDEX_VERSION {
            return Err(bad(format!(
                "format version {version}; this program reads version {INDEX_VERSION}"
            )));
        }
        let header_len = u32_at(bytes, 12).ok_or_else(truncated)? as usize;
        if header_len > len {
            return Err(truncated());
        }
        if header_len < FIXED + 8 || header_len % 8 != 0 {
            return Err(bad(format!("impossible header length {header_len}")));
        }
        let stored = u64_at(bytes, header_len - 8).ok_or_else(truncated)?;
        if xxh3_64(&bytes[..header_len - 8]) != stored {
            return Err(bad(
                "the header's checksum does not match: the file is damaged",
            ));
        }
        // From here the header is as written; its fields are still checked, so that no
        // value can make a read go astray.
        let field = |at| u64_at(bytes, at).ok_or_else(truncated);
        let proof_checksum = u128::from(field(16)?) | u128::from(field(24)?) << 64;
        let proof_bytes = field(32)?;
        let proof_nodes = field(40)?;
        let positions = field(48)?;
        let slots = field(56)?;
        let max_probe = u32_at(bytes, 64).ok_or_else(truncated)?;
        let prover = match bytes[68] {
            0 => Color::White,
            1 => Color::Black,
            other => return Err(bad(format!("impossible prover {other}"))),
        };
        let records_checksum = field(72)?;
        let text = |at: usize| -> Result<(String, usize), ProofError> {
            let n = usize::from(u16_at(bytes, at).ok_or_else(truncated)?);
            let end = at + 2 + n;
            if end > header_len - 8 {
                return Err(bad("the header's text runs past its end"));
            }
            let s = std::str::from_utf8(&bytes[at + 2..end])
                .map_err(|_| bad("the header's text is not UTF-8"))?;
            Ok((s.to_string(), end))
        };
        let (rules_name, at) = text(FIXED)?;
        let (fen, _) = text(at)?;
        let rules = Rules::from_str(&rules_name)
            .map_err(|e| bad(format!("unknown rules '{rules_name}': {e}")))?;
        let root =
            Position::from_fen(&fen, rules).map_err(|e| bad(format!("bad root '{fen}': {e}")))?;
        if slots == 0 || positions > slots || u64::from(max_probe) >= slots {
            return Err(bad(format!(
                "impossible counts: {positions} positions in {slots} slots, probes of {max_probe}"
            )));
        }
        let expected = slots
            .checked_mul(RECORD as u64)
            .and_then(|r| r.checked_add(header_len as u64));
        if expected != Some(len as u64) {
            return Err(bad(match expected {
                Some(e) if e > len as u64 => {
                    format!("truncated: the header announces {e} bytes, the file has {len}")
                }
                Some(e) => format!("{} unexpected bytes after the records", len as u64 - e),
                None => format!("impossible slot count {slots}"),
            }));
        }
        Ok(IndexHeader {
            version,
            proof_checksum,
            proof_bytes,
            proof_nodes,
            positions,
            slots,
            max_probe,
            prover,
            rules,
            root,
            records_checksum,
            header_len,
        })
    }

    /// Whether this is the index of the proof file with `checksum` and `bytes` under
    /// `rules`; the error says how it differs.
    pub fn matches(&self, checksum: u128, bytes: u64, rules: Rules) -> Result<(), ProofError> {
        if self.proof_checksum != checksum || self.proof_bytes != bytes {
            return Err(bad(format!(
                "stale: it indexes a proof file of {} bytes with checksum {:032x}, not this one ({bytes} bytes, {checksum:032x})",
                self.proof_bytes, self.proof_checksum
            )));
        }
        if self.rules != rules {
            return Err(bad(format!(
                "it was built for the {} rules, not {rules}",
                self.rules
            )));
        }
        Ok(())
    }
}

/// Encodes the index of a verified proof (`proof_checksum` and `proof_bytes`: of its file).
#[must_use]
pub fn encode_index(proof: &LoadedProof, proof_checksum: u128, proof_bytes: u64) -> Vec<u8> {
    let mut entries: Vec<(PositionId, ProofPlay)> = Vec::new();
    proof.for_each_play(|id, play| entries.push((id, play)));
    let positions = entries.len() as u64;
    // At most three quarters full.
    let slots = positions + positions / 3 + 1;
    let mut records = vec![0u8; slots as usize * RECORD];
    let mut max_probe = 0u32;
    for (id, play) in &entries {
        let mut slot = home(id.key, slots);
        let mut probe = 0u32;
        // A record's nodes are never 0: that marks an empty slot.
        while u32_at(&records, slot as usize * RECORD + 16) != Some(0) {
            slot = (slot + 1) % slots;
            probe += 1;
        }
        max_probe = max_probe.max(probe);
        let at = slot as usize * RECORD;
        let height = play
            .plies_to_end
            .filter(|&h| h <= MAX_HEIGHT)
            .map_or(NO_HEIGHT, |h| h as u16);
        let record = &mut records[at..at + RECORD];
        record[..8].copy_from_slice(&id.key.to_le_bytes());
        record[8..16].copy_from_slice(&id.check.to_le_bytes());
        record[16..20]
            .copy_from_slice(&(play.nodes.clamp(1, u64::from(u32::MAX)) as u32).to_le_bytes());
        record[20..22].copy_from_slice(&play.mv.bits().to_le_bytes());
        record[22..24].copy_from_slice(&height.to_le_bytes());
    }
    let mut out = Vec::with_capacity(FIXED + 128 + records.len());
    out.extend_from_slice(&INDEX_MAGIC);
    out.extend_from_slice(&INDEX_VERSION.to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes()); // header length, set below
    out.extend_from_slice(&proof_checksum.to_le_bytes());
    out.extend_from_slice(&proof_bytes.to_le_bytes());
    out.extend_from_slice(&proof.node_count().to_le_bytes());
    out.extend_from_slice(&positions.to_le_bytes());
    out.extend_from_slice(&slots.to_le_bytes());
    out.extend_from_slice(&max_probe.to_le_bytes());
    out.push(match proof.prover() {
        Color::White => 0,
        Color::Black => 1,
    });
    out.extend_from_slice(&[0; 3]);
    out.extend_from_slice(&xxh3_64(&records).to_le_bytes());
    debug_assert_eq!(out.len(), FIXED);
    for text in [proof.rules().to_string(), proof.root().fen()] {
        out.extend_from_slice(&(text.len() as u16).to_le_bytes());
        out.extend_from_slice(text.as_bytes());
    }
    while (out.len() + 8) % 8 != 0 {
        out.push(0);
    }
    let header_len = out.len() + 8;
    out[12..16].copy_from_slice(&(header_len as u32).to_le_bytes());
    let checksum = xxh3_64(&out);
    out.extend_from_slice(&checksum.to_le_bytes());
    out.extend_from_slice(&records);
    out
}

/// The bytes of an index: mapped from its file, or in memory.
#[derive(Debug)]
enum Bytes {
    Mapped(MappedFile),
    Owned(Vec<u8>),
}

impl Bytes {
    fn get(&self) -> &[u8] {
        match self {
            Bytes::Mapped(map) => map.bytes(),
            Bytes::Owned(bytes) => bytes,
        }
    }
}

/// An index whose header was checked: lookups by position.
#[derive(Debug)]
pub struct ProofIndex {
    bytes: Bytes,
    header: IndexHeader,
}

impl ProofIndex {
    /// Memory-maps and checks the index file at `path`.
    pub fn open(path: &Path) -> Result<ProofIndex, ProofError> {
        let map = MappedFile::open(path)
            .map_err(|e| ProofError::io(format!("opening {}", path.display()), e))?;
        let header = IndexHeader::parse(map.bytes())?;
        Ok(ProofIndex {
            bytes: Bytes::Mapped(map),
            header,
        })
    }

    /// Checks an index held in memory.
    pub fn from_bytes(bytes: Vec<u8>) -> Result<ProofIndex, ProofError> {
        let header = IndexHeader::parse(&bytes)?;
        Ok(ProofIndex {
            bytes: Bytes::Owned(bytes),
            header,
        })
    }

    #[must_use]
    pub fn header(&self) -> &IndexHeader {
        &self.header
    }

    /// The proof's root position.
    #[must_use]
    pub fn root(&self) -> &Position {
        &self.header.root
    }

    /// Checks the records against the checksum the header gives them (reads the whole file).
    pub fn check_records(&self) -> Result<(), ProofError> {
        let records = &self.bytes.get()[self.header.header_len..];
        if xxh3_64(records) != self.header.records_checksum {
            return Err(bad(
                "the records' checksum does not match: the file is damaged",
            ));
        }
        Ok(())
    }

    /// What the proof plays at `pos`, as [`LoadedProof::play`] answers (`None`: not an
    /// internal position of the proof). Reads at most `max_probe + 1` records.
    #[must_use]
    pub fn play(&self, pos: &Position) -> Option<ProofPlay> {
        let id = PositionId::of(pos);
        let bytes = self.bytes.get();
        let slots = self.header.slots;
        let mut slot = home(id.key, slots);
        for _ in 0..=self.header.max_probe {
            let at = self.header.header_len + slot as usize * RECORD;
            let nodes = u32_at(bytes, at + 16)?;
            if nodes == 0 {
                return None;
            }
            if u64_at(bytes, at)? == id.key && u64_at(bytes, at + 8)? == id.check {
                let height = u16_at(bytes, at + 22)?;
                return Some(ProofPlay {
                    mv: Move::from_bits(u16_at(bytes, at + 20)?)?,
                    prover_to_move: pos.turn() == self.header.prover,
                    nodes: u64::from(nodes),
                    plies_to_end: (height != NO_HEIGHT).then_some(u32::from(height)),
                });
            }
            slot = (slot + 1) % slots;
        }
        None
    }
}

/// How [`open_or_build_index`] had its index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IndexSource {
    /// A valid index of the file was in the directory.
    Found,
    /// The proof was verified and its index written now; `replaced`: why an index found
    /// under its name was not used (stale, damaged, ...).
    Built { replaced: Option<String> },
}

/// The index of the proof file at `path` under `rules`, from `dir`: opened if a valid one
/// is there, else built (the file verified with `oracle` judging its tablebase leaves, then
/// indexed, written atomically and opened). A proof that does not verify gets no index: the
/// error says why (a rejection, or tablebase leaves the oracle cannot judge).
pub fn open_or_build_index(
    path: &Path,
    rules: Rules,
    dir: &Path,
    oracle: &dyn LeafOracle,
) -> Result<(ProofIndex, IndexSource), ProofError> {
    let bytes = std::fs::read(path)
        .map_err(|e| ProofError::io(format!("reading {}", path.display()), e))?;
    let checksum = proof_checksum(&bytes);
    let target = index_path(dir, checksum, rules);
    let replaced = match ProofIndex::open(&target) {
        Ok(index) => match index.header.matches(checksum, bytes.len() as u64, rules) {
            Ok(()) => return Ok((index, IndexSource::Found)),
            Err(e) => Some(e.to_string()),
        },
        Err(ProofError::Io { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => Some(e.to_string()),
    };
    let proof = verify_and_load(path, &bytes, rules, oracle)?;
    let encoded = encode_index(&proof, checksum, bytes.len() as u64);
    drop(proof);
    std::fs::create_dir_all(dir)
        .map_err(|e| ProofError::io(format!("creating {}", dir.display()), e))?;
    write_atomic(&target, &encoded)?;
    let index = ProofIndex::open(&target)?;
    Ok((index, IndexSource::Built { replaced }))
}

/// The proof file at `path` loaded whole for the explorer (`serve`), only if it verified:
/// `index_dir` holds a valid index of these bytes under `rules` (the record that they
/// verified: see the module documentation), or they are verified now with `oracle` judging
/// the tablebase leaves (nothing is written). `id`: the proof's number in the server.
///
/// # Errors
/// The file cannot be read, is for other rules, or does not verify (a rejection, or
/// tablebase leaves the oracle cannot judge): a proof that did not verify is never loaded.
pub fn load_verified(
    id: usize,
    path: &Path,
    rules: Rules,
    index_dir: Option<&Path>,
    oracle: &dyn LeafOracle,
) -> Result<LoadedProof, ProofError> {
    let bytes = std::fs::read(path)
        .map_err(|e| ProofError::io(format!("reading {}", path.display()), e))?;
    let indexed = index_dir.is_some_and(|dir| {
        let checksum = proof_checksum(&bytes);
        ProofIndex::open(&index_path(dir, checksum, rules)).is_ok_and(|index| {
            index
                .header
                .matches(checksum, bytes.len() as u64, rules)
                .is_ok()
        })
    });
    let mut proof = load_checked(path, &bytes, rules, oracle, !indexed)?;
    proof.id = id;
    Ok(proof)
}

/// Verifies a proof file's bytes and loads the same bytes for indexing.
fn verify_and_load(
    path: &Path,
    bytes: &[u8],
    rules: Rules,
    oracle: &dyn LeafOracle,
) -> Result<LoadedProof, ProofError> {
    load_checked(path, bytes, rules, oracle, true)
}

/// Loads a proof file's bytes, verified first when `verify` (else their rules are still
/// checked).
fn load_checked(
    path: &Path,
    bytes: &[u8],
    rules: Rules,
    oracle: &dyn LeafOracle,
    verify: bool,
) -> Result<LoadedProof, ProofError> {
    let options = VerifyOptions {
        reference: ReferenceOptions {
            rules,
            ..ReferenceOptions::default()
        },
        ..VerifyOptions::default()
    };
    let tree = match Format::detect(bytes) {
        Format::Compact => {
            let found = CompactHeader::read(&mut &bytes[..])?.rules;
            if found != rules {
                return Err(ProofError::Unsupported(format!(
                    "the proof is for the {found} rules, not {rules}"
                )));
            }
            if verify {
                verify_compact(
                    bytes,
                    Some(bytes.len() as u64),
                    oracle,
                    &options,
                    &mut |_| {},
                )?;
            }
            read_compact(bytes)?
        }
        Format::Reference => {
            if verify {
                verify_reference(bytes, oracle, &options, &mut |_| {})?;
            }
            let mut file = ReferenceFile::open(bytes, options.reference.byte_order)?;
            read_reference(&mut file, &options.reference)?
        }
    };
    LoadedProof::from_tree(0, file_name(path), path.to_path_buf(), tree).map_err(bad)
}

/// What indexing one file came to (an event of [`index_proof_files`], and its report).
#[derive(Debug, Clone, serde::Serialize)]
pub struct IndexedFile {
    /// The proof file.
    pub file: PathBuf,
    /// `found` (a valid index was there), `built` (verified and indexed now) or
    /// `refused` (it did not verify, or could not be read: see `error`).
    pub outcome: &'static str,
    /// The index file (none when refused).
    pub index: Option<PathBuf>,
    /// Nodes of the proof and positions of its index.
    pub nodes: u64,
    pub positions: u64,
    /// Bytes of the index file.
    pub index_bytes: u64,
    /// Wall-clock seconds (opening, or verifying and indexing).
    pub seconds: f64,
    /// Why an index found under its name was not used (built again).
    pub replaced: Option<String>,
    /// Why the file gets no index.
    pub error: Option<String>,
}

/// The `*.proof` files `paths` name: files as given, directories by their `*.proof`
/// files in name order.
pub fn proof_files_in(paths: &[PathBuf]) -> Result<Vec<PathBuf>, ProofError> {
    let mut files = Vec::new();
    for path in paths {
        if path.is_dir() {
            let mut found: Vec<PathBuf> = std::fs::read_dir(path)
                .map_err(|e| ProofError::io(format!("reading {}", path.display()), e))?
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "proof"))
                .collect();
            found.sort();
            files.extend(found);
        } else {
            files.push(path.clone());
        }
    }
    Ok(files)
}

/// Opens or builds the index of every proof file `paths` name ([`proof_files_in`]) in
/// `dir` ([`open_or_build_index`], one file after another); `event` hears of each file as
/// it is done. A file that does not verify is reported and the others go on.
pub fn index_proof_files(
    paths: &[PathBuf],
    rules: Rules,
    dir: &Path,
    oracle: &dyn LeafOracle,
    event: &mut dyn FnMut(&IndexedFile),
) -> Result<Vec<IndexedFile>, ProofError> {
    let mut report = Vec::new();
    for file in proof_files_in(paths)? {
        let started = std::time::Instant::now();
        let result = open_or_build_index(&file, rules, dir, oracle);
        let seconds = started.elapsed().as_secs_f64();
        let done = match result {
            Ok((index, source)) => {
                let header = index.header();
                let path = index_path(dir, header.proof_checksum, rules);
                let (outcome, replaced) = match source {
                    IndexSource::Found => ("found", None),
                    IndexSource::Built { replaced } => ("built", replaced),
                };
                IndexedFile {
                    index_bytes: std::fs::metadata(&path).map_or(0, |m| m.len()),
                    index: Some(path),
                    file,
                    outcome,
                    nodes: header.proof_nodes,
                    positions: header.positions,
                    seconds,
                    replaced,
                    error: None,
                }
            }
            Err(e) => IndexedFile {
                file,
                outcome: "refused",
                index: None,
                nodes: 0,
                positions: 0,
                index_bytes: 0,
                seconds,
                replaced: None,
                error: Some(e.to_string()),
            },
        };
        event(&done);
        report.push(done);
    }
    Ok(report)
}
