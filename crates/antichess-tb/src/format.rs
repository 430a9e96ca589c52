//! The table file format (documented in docs/formats/tablebase.md): a 128-byte header,
//! the WDL sections (2 bits per position, White to move then Black to move), and the DTC
//! sections (1 or 2 bytes per position) compressed with zstd in independent blocks with
//! an offset index, so that one DTC value can be read by decompressing one block.
//!
//! Files are written to a temporary name in the target directory and renamed when
//! complete, so a file with the final name is always whole.

use std::path::{Path, PathBuf};

use antichess_core::{Color, Rules};
use rayon::prelude::*;

use crate::material::Material;
use crate::TbError;

/// The first 8 bytes of every table file.
pub const MAGIC: [u8; 8] = *b"ACTB\r\n\x1a\n";
/// The format version this code writes and reads.
pub const VERSION: u16 = 1;
/// Header length in bytes.
pub const HEADER_LEN: usize = 128;
/// Metric code: WDL plus DTC in plies.
pub const METRIC_WDL_DTC: u8 = 1;
/// Positions per compressed DTC block.
pub const DTC_BLOCK: u64 = 1 << 16;
/// File name extension.
pub const EXTENSION: &str = "actb";
/// The most units (pieces, kings included) a table may have. The index of a material is
/// built before its size can be checked, and for more units that alone takes gigabytes
/// (the lead group's placements), so a header naming more is refused first.
pub const MAX_UNITS: u32 = 6;

/// The WDL code of an index that is not a position (the side not to move in check), in
/// the tables of the royal rule sets ([`crate::royal`]).
pub const CODE_NOT_POSITION: u8 = 3;

/// What a table's values are: exact, or bounds from a build that left promotions open.
///
/// A **bound table for colour `c`** (`tb build --bound`) is built as if every move that
/// leaves it for a material without a table (every promotion without a capture, unless
/// its table is present) ended in the result worst for `c`: a win for the other side.
/// Retrograde analysis is monotone in the values of the positions a table leads to, so
/// each value in it is a lower bound, from `c`'s point of view, of the true value: a win
/// for `c` in it is a true win, a draw means `c` does not lose; a loss says nothing. A
/// bound table for each colour together give the exact value where they agree. Colours
/// are those of the table's material in its canonical orientation (the file's
/// signature). The bound tables of a material need neither its promotion tables nor
/// their closure, which is what makes pawn-heavy 5- and 6-unit materials affordable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TableKind {
    /// Every value is the position's true value.
    Exact,
    /// Values are lower bounds for this colour (its wins are sure).
    Bound(Color),
}

impl TableKind {
    /// The header code (offset 13): 0 exact, 1 bound for White, 2 bound for Black.
    #[must_use]
    pub fn code(self) -> u8 {
        match self {
            TableKind::Exact => 0,
            TableKind::Bound(Color::White) => 1,
            TableKind::Bound(Color::Black) => 2,
        }
    }

    /// The kind of a header code.
    #[must_use]
    pub fn from_code(code: u8) -> Option<TableKind> {
        match code {
            0 => Some(TableKind::Exact),
            1 => Some(TableKind::Bound(Color::White)),
            2 => Some(TableKind::Bound(Color::Black)),
            _ => None,
        }
    }

    /// The file name's part before the extension: empty for exact tables,
    /// `.bound-white` or `.bound-black` for bound tables.
    #[must_use]
    pub fn suffix(self) -> &'static str {
        match self {
            TableKind::Exact => "",
            TableKind::Bound(Color::White) => ".bound-white",
            TableKind::Bound(Color::Black) => ".bound-black",
        }
    }

    /// The kind named by a file stem's suffix (see [`TableKind::suffix`]) and the
    /// material part of the stem.
    #[must_use]
    pub fn split_stem(stem: &str) -> (&str, TableKind) {
        TableKind::split_by(stem, TableKind::suffix)
    }

    /// The suffix naming a table of this kind in a proof's table list (16 bytes per
    /// name): empty for exact tables, `:bound-w` or `:bound-b` (`RPPPpp:bound-w`).
    #[must_use]
    pub fn record_suffix(self) -> &'static str {
        match self {
            TableKind::Exact => "",
            TableKind::Bound(Color::White) => ":bound-w",
            TableKind::Bound(Color::Black) => ":bound-b",
        }
    }

    /// The material part and the kind of a record name (see [`TableKind::record_suffix`]).
    #[must_use]
    pub fn split_record(name: &str) -> (&str, TableKind) {
        TableKind::split_by(name, TableKind::record_suffix)
    }

    /// The part of `name` before a bound kind's `suffix`, and that kind (exact if none).
    fn split_by(name: &str, suffix: fn(TableKind) -> &'static str) -> (&str, TableKind) {
        [
            TableKind::Bound(Color::White),
            TableKind::Bound(Color::Black),
        ]
        .into_iter()
        .find_map(|kind| name.strip_suffix(suffix(kind)).map(|m| (m, kind)))
        .unwrap_or((name, TableKind::Exact))
    }

    /// The kind seen with the colours swapped (for a material stored in the other
    /// orientation).
    #[must_use]
    pub fn swapped(self, swap: bool) -> TableKind {
        match self {
            TableKind::Bound(c) if swap => TableKind::Bound(c.other()),
            kind => kind,
        }
    }
}

impl std::fmt::Display for TableKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TableKind::Exact => f.write_str("exact"),
            TableKind::Bound(c) => write!(f, "bound for {c}"),
        }
    }
}

/// The parsed header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    pub rules: Rules,
    pub material: Material,
    /// Exact values or bounds (offset 13; 0 in every exact table, as before bounds).
    pub kind: TableKind,
    /// Positions per side to move.
    pub size: u64,
    /// Bytes per DTC value (1 or 2).
    pub dtc_bytes: u8,
    /// Offset of White-to-move WDL bytes; Black's follow after `wdl_len`.
    pub wdl_offset: u64,
    /// WDL bytes per side: ceil(size / 4).
    pub wdl_len: u64,
    /// Offset of the DTC block index: for each side, `blocks + 1` u64 offsets (relative to
    /// `dtc_data_offset`).
    pub dtc_index_offset: u64,
    pub dtc_data_offset: u64,
    pub file_len: u64,
    pub checksum: u64,
    /// Largest DTC per side (0 if no decided position).
    pub max_dtc: [u16; 2],
}

impl Header {
    /// Number of DTC blocks per side.
    #[must_use]
    pub fn blocks(&self) -> u64 {
        self.size.div_ceil(DTC_BLOCK)
    }

    fn to_bytes(&self) -> [u8; HEADER_LEN] {
        let mut b = [0u8; HEADER_LEN];
        b[0..8].copy_from_slice(&MAGIC);
        b[8..10].copy_from_slice(&VERSION.to_le_bytes());
        b[10] = self.rules.code();
        b[11] = METRIC_WDL_DTC;
        b[12] = self.dtc_bytes;
        b[13] = self.kind.code();
        let name = self.material.name();
        b[16..16 + name.len()].copy_from_slice(name.as_bytes());
        let words = [
            self.size,
            self.wdl_offset,
            self.wdl_len,
            self.dtc_index_offset,
            self.dtc_data_offset,
            self.file_len,
            self.checksum,
        ];
        for (i, w) in words.iter().enumerate() {
            b[32 + 8 * i..40 + 8 * i].copy_from_slice(&w.to_le_bytes());
        }
        b[88..90].copy_from_slice(&self.max_dtc[0].to_le_bytes());
        b[90..92].copy_from_slice(&self.max_dtc[1].to_le_bytes());
        b
    }

    /// Parses and checks a header against the file length.
    pub fn parse(bytes: &[u8], path: &Path) -> Result<Header, TbError> {
        let corrupt = |reason: String| TbError::corrupt(path, reason);
        if bytes.len() < HEADER_LEN {
            return Err(corrupt(format!(
                "{} bytes, shorter than the {HEADER_LEN}-byte header",
                bytes.len()
            )));
        }
        if bytes[0..8] != MAGIC {
            return Err(corrupt(
                "bad magic bytes at offset 0 (not an antichess table file)".into(),
            ));
        }
        let version = u16::from_le_bytes([bytes[8], bytes[9]]);
        if version != VERSION {
            return Err(corrupt(format!(
                "format version {version} at offset 8; this program reads version {VERSION}"
            )));
        }
        let rules = Rules::from_code(bytes[10])
            .ok_or_else(|| corrupt(format!("unknown rule set code {} at offset 10", bytes[10])))?;
        if bytes[11] != METRIC_WDL_DTC {
            return Err(corrupt(format!(
                "unknown metric code {} at offset 11",
                bytes[11]
            )));
        }
        let dtc_bytes = bytes[12];
        if dtc_bytes != 1 && dtc_bytes != 2 {
            return Err(corrupt(format!(
                "DTC width {dtc_bytes} at offset 12 (expected 1 or 2)"
            )));
        }
        let kind = TableKind::from_code(bytes[13]).ok_or_else(|| {
            corrupt(format!(
                "unknown table kind code {} at offset 13 (0 exact, 1 or 2 bound)",
                bytes[13]
            ))
        })?;
        let name_end = bytes[16..32]
            .iter()
            .position(|&c| c == 0)
            .map_or(32, |p| 16 + p);
        let name = std::str::from_utf8(&bytes[16..name_end])
            .map_err(|_| corrupt("signature at offset 16 is not text".into()))?;
        let material: Material = name
            .parse()
            .map_err(|e| corrupt(format!("signature at offset 16: {e}")))?;
        if material.units() > MAX_UNITS {
            return Err(corrupt(format!(
                "signature {material} at offset 16 has {} units; tables have at most {MAX_UNITS}",
                material.units()
            )));
        }
        let word = |i: usize| {
            u64::from_le_bytes(bytes[32 + 8 * i..40 + 8 * i].try_into().expect("8 bytes"))
        };
        let header = Header {
            rules,
            material,
            kind,
            size: word(0),
            dtc_bytes,
            wdl_offset: word(1),
            wdl_len: word(2),
            dtc_index_offset: word(3),
            dtc_data_offset: word(4),
            file_len: word(5),
            checksum: word(6),
            max_dtc: [
                u16::from_le_bytes([bytes[88], bytes[89]]),
                u16::from_le_bytes([bytes[90], bytes[91]]),
            ],
        };
        if header.file_len != bytes.len() as u64 {
            return Err(corrupt(format!(
                "the header records {} bytes but the file has {} (truncated or extended)",
                header.file_len,
                bytes.len()
            )));
        }
        if header.wdl_len != header.size.div_ceil(4)
            || header.wdl_offset != HEADER_LEN as u64
            || header.dtc_index_offset != header.wdl_offset + 2 * header.wdl_len
            || header.dtc_data_offset != header.dtc_index_offset + 2 * 8 * (header.blocks() + 1)
            || header.dtc_data_offset > header.file_len
        {
            return Err(corrupt("inconsistent section offsets in the header".into()));
        }
        Ok(header)
    }
}

/// The checksum of a file image: xxh3-64 of everything except the checksum field.
#[must_use]
pub fn checksum(bytes: &[u8]) -> u64 {
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    hasher.update(&bytes[..80]);
    hasher.update(&[0u8; 8]);
    hasher.update(&bytes[88..]);
    hasher.digest()
}

/// The file name of a material's table.
#[must_use]
pub fn file_name(material: &Material) -> String {
    kind_file_name(material, TableKind::Exact)
}

/// The file name of a material's table of `kind` (`KRPvKP.actb`,
/// `RPPvPP.bound-white.actb`).
#[must_use]
pub fn kind_file_name(material: &Material, kind: TableKind) -> String {
    format!("{}{}.{EXTENSION}", material.syzygy_name(), kind.suffix())
}

/// The values of a table being written, read position by position: the generator's
/// words, or the arrays of a [`TableData`].
pub trait TableValues: Sync {
    /// Positions per side to move.
    fn size(&self) -> u64;
    /// The WDL code (0 loss, 1 draw, 2 win) and DTC (0 for draws) of position `idx` with
    /// side `side` (0 White, 1 Black) to move.
    fn value(&self, side: usize, idx: u64) -> (u8, u16);
}

/// Final values of a generated table, per side to move.
#[derive(Debug)]
pub struct TableData {
    pub material: Material,
    pub rules: Rules,
    /// WDL codes (0 loss, 1 draw, 2 win), one byte per position, per side.
    pub wdl: [Vec<u8>; 2],
    /// DTC per position (0 for draws), per side.
    pub dtc: [Vec<u16>; 2],
}

impl TableValues for TableData {
    fn size(&self) -> u64 {
        self.wdl[0].len() as u64
    }
    #[inline]
    fn value(&self, side: usize, idx: u64) -> (u8, u16) {
        (self.wdl[side][idx as usize], self.dtc[side][idx as usize])
    }
}

impl TableData {
    /// Serialises to the file image.
    pub fn to_bytes(&self) -> Result<Vec<u8>, TbError> {
        table_image(&self.material, self.rules, TableKind::Exact, self)
    }

    /// Writes the table into `dir` atomically (temporary file, then rename). Returns the
    /// final path.
    pub fn write(&self, dir: &Path) -> Result<PathBuf, TbError> {
        write_table(&self.material, self.rules, TableKind::Exact, self, dir)
    }
}

/// Writes the table of `material` with `values` into `dir` atomically (temporary file,
/// then rename). Returns the final path.
pub fn write_table(
    material: &Material,
    rules: Rules,
    kind: TableKind,
    values: &impl TableValues,
    dir: &Path,
) -> Result<PathBuf, TbError> {
    let bytes = table_image(material, rules, kind, values)?;
    let path = dir.join(kind_file_name(material, kind));
    write_atomically(&path, &bytes)?;
    Ok(path)
}

/// Positions per parallel work unit when packing WDL codes (a multiple of 4).
const WDL_CHUNK: u64 = 1 << 16;

/// The file image of a table. The values are read block by block (never copied whole):
/// one pass for the largest DTC, one to compress the DTC blocks, one to pack the WDL
/// codes; the image itself (2 bits per position plus the compressed DTC) is the only
/// large allocation.
pub fn table_image(
    material: &Material,
    rules: Rules,
    kind: TableKind,
    values: &impl TableValues,
) -> Result<Vec<u8>, TbError> {
    let size = values.size();
    let max_dtc = [0usize, 1].map(|side| {
        (0..size.div_ceil(DTC_BLOCK))
            .into_par_iter()
            .map(|block| {
                let start = block * DTC_BLOCK;
                (start..(start + DTC_BLOCK).min(size))
                    .map(|i| values.value(side, i).1)
                    .max()
                    .unwrap_or(0)
            })
            .max()
            .unwrap_or(0)
    });
    let dtc_bytes: u8 = if max_dtc[0].max(max_dtc[1]) > 255 {
        2
    } else {
        1
    };
    let wdl_len = size.div_ceil(4);
    let blocks = size.div_ceil(DTC_BLOCK);
    let mut header = Header {
        rules,
        material: *material,
        kind,
        size,
        dtc_bytes,
        wdl_offset: HEADER_LEN as u64,
        wdl_len,
        dtc_index_offset: HEADER_LEN as u64 + 2 * wdl_len,
        dtc_data_offset: HEADER_LEN as u64 + 2 * wdl_len + 2 * 8 * (blocks + 1),
        file_len: 0,
        checksum: 0,
        max_dtc,
    };
    let mut compressed: Vec<Vec<Vec<u8>>> = Vec::new();
    for side in 0..2 {
        let parts: Result<Vec<Vec<u8>>, TbError> = (0..blocks)
            .into_par_iter()
            .map_init(Vec::new, |raw, block| {
                let start = block * DTC_BLOCK;
                raw.clear();
                for i in start..(start + DTC_BLOCK).min(size) {
                    let d = values.value(side, i).1;
                    if dtc_bytes == 1 {
                        raw.push(d as u8);
                    } else {
                        raw.extend_from_slice(&d.to_le_bytes());
                    }
                }
                let mut block = zstd::bulk::compress(raw, 3)
                    .map_err(|e| TbError::Unsupported(format!("zstd: {e}")))?;
                // The buffer is allocated at the compression bound (more than the block's
                // raw size); thousands of them would hold more than the image itself.
                block.shrink_to_fit();
                Ok(block)
            })
            .collect();
        compressed.push(parts?);
    }
    let data_len: usize = compressed.iter().flatten().map(Vec::len).sum();
    let mut out = Vec::with_capacity(header.dtc_data_offset as usize + data_len);
    out.extend_from_slice(&header.to_bytes());
    for side in 0..2 {
        let at = out.len();
        out.resize(at + wdl_len as usize, 0);
        out[at..]
            .par_chunks_mut((WDL_CHUNK / 4) as usize)
            .enumerate()
            .for_each(|(chunk, bytes)| {
                let first = chunk as u64 * WDL_CHUNK;
                for (j, byte) in bytes.iter_mut().enumerate() {
                    let base = first + 4 * j as u64;
                    *byte = (base..(base + 4).min(size))
                        .enumerate()
                        .fold(0u8, |acc, (i, idx)| {
                            acc | (values.value(side, idx).0 & 3) << (2 * i)
                        });
                }
            });
    }
    let mut offset = 0u64;
    for side in 0..2 {
        out.extend_from_slice(&offset.to_le_bytes());
        for block in &compressed[side] {
            offset += block.len() as u64;
            out.extend_from_slice(&offset.to_le_bytes());
        }
    }
    for side in compressed {
        for block in side {
            out.extend_from_slice(&block);
        }
    }
    header.file_len = out.len() as u64;
    out[..HEADER_LEN].copy_from_slice(&header.to_bytes());
    let sum = checksum(&out);
    header.checksum = sum;
    out[..HEADER_LEN].copy_from_slice(&header.to_bytes());
    Ok(out)
}

/// Writes `bytes` to `path` through a temporary file in the same directory (created if
/// missing), with [`antichess_io::write_atomic`]: an existing `path` that is not a regular
/// file (a symbolic link, a directory, a device, a FIFO) is refused and left as it was.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), TbError> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(|e| TbError::io(dir, e))?;
    antichess_io::write_atomic(path, bytes).map_err(|e| {
        // The message names the path already; the error shows it once.
        let message = e.to_string();
        let prefix = format!("{}: ", path.display());
        TbError::Io {
            path: path.to_path_buf(),
            kind: e.kind(),
            message: message
                .strip_prefix(&prefix)
                .unwrap_or(&message)
                .to_string(),
        }
    })
}
