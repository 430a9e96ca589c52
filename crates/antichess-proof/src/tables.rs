//! The tables a proof relies on: a compact proof file (version 2) records, for every
//! table material that a probe of one of its tablebase leaves reads, the material and the
//! table file's checksum ([`TableRecord`]). The verifier still judges the leaves by the
//! tables it is given; comparing the records with those tables ([`TableCheck`]) tells
//! the user when they are not the tables the proof was written with. This module holds
//! the records, their encoding and the comparison's result; a tree's records are made by
//! [`crate::tables_used`] (in `tree.rs`) and compared by [`crate::compare_tables`] (in
//! `oracle.rs`), both above it.
//!
//! Materials are named in our notation, canonical orientation (`KRk`); checksums are the
//! table files' own (the xxh3-64 in their header, docs/formats/tablebase.md).

use serde::Serialize;

/// Bytes of one record in the header: the material, zero-padded, then the checksum.
pub(crate) const RECORD_NAME_LEN: usize = 16;

/// One table a proof relies on.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TableRecord {
    /// The material in our notation, canonical orientation (e.g. `KRk`).
    pub material: String,
    /// The checksum of the table file (its header's xxh3-64).
    pub checksum: u64,
}

/// How a recorded table compares with the table given to the verifier.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TableStatus {
    /// The table given has the recorded checksum.
    Same,
    /// The table given has another checksum.
    Different,
    /// No table of this material was given.
    Missing,
    /// The table given cannot be opened (damaged, or not the table of its name).
    Unreadable,
    /// Not compared (statistics of a file, without tables).
    NotChecked,
}

impl TableStatus {
    /// Words for people.
    #[must_use]
    pub fn describe(self) -> &'static str {
        match self {
            TableStatus::Same => "same",
            TableStatus::Different => "different",
            TableStatus::Missing => "missing",
            TableStatus::Unreadable => "unreadable",
            TableStatus::NotChecked => "not checked",
        }
    }
}

/// A recorded table and what the verifier's tables have for its material.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TableCheck {
    pub material: String,
    /// The recorded checksum, 16 hexadecimal digits.
    pub recorded: String,
    /// The checksum of the table given, if there is one that opens.
    pub found: Option<String>,
    pub status: TableStatus,
    /// Why the table given cannot be opened (status `unreadable`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl TableCheck {
    /// A line for people, e.g. `table KRk: recorded 0123…, found 4567… (different)`.
    #[must_use]
    pub fn describe(&self) -> String {
        match self.status {
            TableStatus::Same => format!("table {}: {} (same)", self.material, self.recorded),
            TableStatus::Different => format!(
                "table {} differs from the one the proof was written with: recorded checksum {}, found {}",
                self.material,
                self.recorded,
                self.found.as_deref().unwrap_or("-")
            ),
            TableStatus::Missing => format!(
                "table {} (recorded checksum {}) is missing from the tables given",
                self.material, self.recorded
            ),
            TableStatus::Unreadable => format!(
                "table {} (recorded checksum {}) cannot be opened: {}",
                self.material,
                self.recorded,
                self.error.as_deref().unwrap_or("unknown error")
            ),
            TableStatus::NotChecked => {
                format!("table {}: recorded checksum {}", self.material, self.recorded)
            }
        }
    }
}

/// A checksum as 16 hexadecimal digits.
#[must_use]
pub fn hex_checksum(checksum: u64) -> String {
    format!("{checksum:016x}")
}

/// The records as they are, without comparison (for statistics).
#[must_use]
pub fn unchecked_tables(recorded: &[TableRecord]) -> Vec<TableCheck> {
    recorded
        .iter()
        .map(|r| TableCheck {
            material: r.material.clone(),
            recorded: hex_checksum(r.checksum),
            found: None,
            status: TableStatus::NotChecked,
            error: None,
        })
        .collect()
}

/// Serialises the table list of a version-2 header: a 16-bit count, then per table the
/// material (ASCII, zero-padded to 16 bytes) and the checksum (64-bit little-endian).
pub(crate) fn write_records(out: &mut Vec<u8>, records: &[TableRecord]) {
    out.extend_from_slice(&(records.len() as u16).to_le_bytes());
    for r in records {
        let mut name = [0u8; RECORD_NAME_LEN];
        name[..r.material.len()].copy_from_slice(r.material.as_bytes());
        out.extend_from_slice(&name);
        out.extend_from_slice(&r.checksum.to_le_bytes());
    }
}

/// Checks a record before it is written: a canonical material name that fits.
pub(crate) fn check_record(r: &TableRecord) -> Result<(), String> {
    let (name, kind) = antichess_tb::TableKind::split_record(&r.material);
    let material: antichess_tb::Material = name
        .parse()
        .map_err(|e| format!("table record \"{}\": {e}", r.material))?;
    if material.canonical().0 != material
        || format!("{}{}", material.name(), kind.record_suffix()) != r.material
    {
        return Err(format!(
            "table record \"{}\" is not a material in canonical orientation (\"{}\")",
            r.material,
            material.canonical().0
        ));
    }
    if r.material.len() > RECORD_NAME_LEN {
        return Err(format!("table record \"{}\" is too long", r.material));
    }
    Ok(())
}

/// Parses one record (`bytes` holds exactly its 24 bytes).
pub(crate) fn parse_record(bytes: &[u8]) -> Result<TableRecord, String> {
    let name = &bytes[..RECORD_NAME_LEN];
    let end = name.iter().position(|&c| c == 0).unwrap_or(RECORD_NAME_LEN);
    if name[end..].iter().any(|&c| c != 0) {
        return Err("a table material is not zero-padded".into());
    }
    let material = std::str::from_utf8(&name[..end])
        .map_err(|_| "a table material is not text".to_string())?
        .to_string();
    let checksum = u64::from_le_bytes(bytes[RECORD_NAME_LEN..].try_into().expect("8 bytes"));
    let record = TableRecord { material, checksum };
    check_record(&record)?;
    Ok(record)
}

/// Bytes of one record.
pub(crate) const RECORD_LEN: usize = RECORD_NAME_LEN + 8;
