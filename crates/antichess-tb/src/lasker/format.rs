//! The Lasker table file format (docs/formats/lasker-table.md): a 64-byte header and, for
//! White to move then Black to move, one zstd frame of 16-bit little-endian codes, one per
//! index (value in the top 4 bits, depth in plies below; `0xf000` for an index that is not
//! a position). Written to a temporary name and renamed, like the antichess tables.

use std::path::{Path, PathBuf};

use crate::material::Material;
use crate::TbError;

/// The first 8 bytes of a Lasker table file.
pub const LASKER_MAGIC: [u8; 8] = *b"LCTB\r\n\x1a\n";
/// The format version this code writes and reads.
pub const LASKER_VERSION: u16 = 1;
/// File name extension.
pub const LASKER_EXTENSION: &str = "lctb";
/// Header length in bytes.
pub const HEADER_LEN: usize = 64;
/// Game code at offset 10: Lasker chess (orthodox rules, stalemate a lesser win).
const GAME_LASKER: u8 = 1;
/// Metric code at offset 11: five-valued result with DTM / DTS in plies.
const METRIC_VALUE_DEPTH: u8 = 1;

/// Final codes of a generated table, per side to move.
#[derive(Debug)]
pub struct LaskerTableData {
    pub material: Material,
    pub codes: [Vec<u16>; 2],
}

/// The file name of a material's Lasker table.
#[must_use]
pub fn lasker_file_name(material: &Material) -> String {
    format!("{}.{LASKER_EXTENSION}", material.syzygy_name())
}

fn checksum(bytes: &[u8]) -> u64 {
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    hasher.update(&bytes[..40]);
    hasher.update(&[0u8; 8]);
    hasher.update(&bytes[48..]);
    hasher.digest()
}

/// The little-endian bytes of `codes`. On a little-endian machine they are the codes' own
/// memory, so a table's image is compressed without a copy of its codes (two bytes per
/// index and side less at the writer's peak; docs/research/lasker-engine.md, "Memory").
fn le_bytes(codes: &[u16]) -> std::borrow::Cow<'_, [u8]> {
    #[cfg(target_endian = "little")]
    {
        // Safety: the slice covers exactly the `2 * codes.len()` initialised bytes of
        // `codes` and borrows it for its lifetime; `u8` has alignment 1 and every byte is a
        // valid `u8`. On a little-endian machine those bytes are the codes' little-endian
        // encoding, the file's.
        let bytes =
            unsafe { std::slice::from_raw_parts(codes.as_ptr().cast::<u8>(), 2 * codes.len()) };
        std::borrow::Cow::Borrowed(bytes)
    }
    #[cfg(not(target_endian = "little"))]
    std::borrow::Cow::Owned(codes.iter().flat_map(|c| c.to_le_bytes()).collect())
}

/// The `len` codes of one zstd frame of little-endian codes. On a little-endian machine the
/// frame is decompressed straight into the codes (no raw copy while a table loads).
fn decompress_codes(frame: &[u8], len: usize) -> Result<Vec<u16>, String> {
    #[cfg(target_endian = "little")]
    {
        let mut codes = vec![0u16; len];
        // Safety: as in `le_bytes`, with a unique borrow: every byte pattern written into
        // the slice is a valid `u16`, and the slice is dropped before `codes` is used.
        let bytes =
            unsafe { std::slice::from_raw_parts_mut(codes.as_mut_ptr().cast::<u8>(), 2 * len) };
        let n = zstd::bulk::decompress_to_buffer(frame, bytes).map_err(|e| e.to_string())?;
        if n != 2 * len {
            return Err("wrong length".into());
        }
        Ok(codes)
    }
    #[cfg(not(target_endian = "little"))]
    {
        let raw = zstd::bulk::decompress(frame, 2 * len).map_err(|e| e.to_string())?;
        if raw.len() != 2 * len {
            return Err("wrong length".into());
        }
        Ok(raw
            .chunks_exact(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]))
            .collect())
    }
}

impl LaskerTableData {
    /// The file image.
    pub fn to_bytes(&self) -> Result<Vec<u8>, TbError> {
        let size = self.codes[0].len() as u64;
        let mut frames = Vec::new();
        for side in &self.codes {
            frames.push(
                zstd::bulk::compress(&le_bytes(side), 9)
                    .map_err(|e| TbError::Unsupported(format!("zstd: {e}")))?,
            );
        }
        let mut out = vec![0u8; HEADER_LEN];
        out[0..8].copy_from_slice(&LASKER_MAGIC);
        out[8..10].copy_from_slice(&LASKER_VERSION.to_le_bytes());
        out[10] = GAME_LASKER;
        out[11] = METRIC_VALUE_DEPTH;
        let name = self.material.name();
        out[16..16 + name.len()].copy_from_slice(name.as_bytes());
        out[32..40].copy_from_slice(&size.to_le_bytes());
        out[48..56].copy_from_slice(&(frames[0].len() as u64).to_le_bytes());
        out[56..64].copy_from_slice(&(frames[1].len() as u64).to_le_bytes());
        for frame in &frames {
            out.extend_from_slice(frame);
        }
        let sum = checksum(&out);
        out[40..48].copy_from_slice(&sum.to_le_bytes());
        Ok(out)
    }

    /// Writes the table into `dir` atomically; returns the path.
    pub fn write(&self, dir: &Path) -> Result<PathBuf, TbError> {
        let path = dir.join(lasker_file_name(&self.material));
        crate::format::write_atomically(&path, &self.to_bytes()?)?;
        Ok(path)
    }

    /// Reads and checks a file image of `expected` (canonical orientation) with `size`
    /// indices per side.
    pub fn from_bytes(
        bytes: &[u8],
        path: &Path,
        expected: &Material,
        size: u64,
    ) -> Result<LaskerTableData, TbError> {
        let corrupt = |reason: String| TbError::corrupt(path, reason);
        if bytes.len() < HEADER_LEN {
            return Err(corrupt(format!(
                "{} bytes, shorter than the {HEADER_LEN}-byte header",
                bytes.len()
            )));
        }
        if bytes[0..8] != LASKER_MAGIC {
            return Err(corrupt(
                "bad magic bytes at offset 0 (not a Lasker table file)".into(),
            ));
        }
        let version = u16::from_le_bytes([bytes[8], bytes[9]]);
        if version != LASKER_VERSION {
            return Err(corrupt(format!(
                "format version {version} at offset 8; this program reads version {LASKER_VERSION}"
            )));
        }
        if bytes[10] != GAME_LASKER || bytes[11] != METRIC_VALUE_DEPTH {
            return Err(corrupt(format!(
                "unknown game or metric code {} {} at offset 10",
                bytes[10], bytes[11]
            )));
        }
        let word = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"));
        let stored = word(40);
        let sum = checksum(bytes);
        if stored != sum {
            return Err(corrupt(format!(
                "checksum mismatch (stored {stored:016x}, computed {sum:016x})"
            )));
        }
        let name_end = bytes[16..32]
            .iter()
            .position(|&c| c == 0)
            .map_or(32, |p| 16 + p);
        let name = std::str::from_utf8(&bytes[16..name_end])
            .map_err(|_| corrupt("signature at offset 16 is not text".into()))?;
        let material: Material = name
            .parse()
            .map_err(|e| corrupt(format!("signature at offset 16: {e}")))?;
        if material != *expected {
            return Err(TbError::WrongMaterial {
                path: path.to_path_buf(),
                found: material.name(),
                expected: expected.name(),
            });
        }
        if word(32) != size {
            return Err(corrupt(format!(
                "{} positions per side recorded, {size} expected for {material}",
                word(32)
            )));
        }
        let (len0, len1) = (word(48) as usize, word(56) as usize);
        if HEADER_LEN as u64 + word(48) + word(56) != bytes.len() as u64 {
            return Err(corrupt(
                "section lengths in the header do not add up to the file length".into(),
            ));
        }
        let mut codes: [Vec<u16>; 2] = [Vec::new(), Vec::new()];
        let frames = [
            &bytes[HEADER_LEN..HEADER_LEN + len0],
            &bytes[HEADER_LEN + len0..HEADER_LEN + len0 + len1],
        ];
        for (side, frame) in frames.iter().enumerate() {
            codes[side] = decompress_codes(frame, size as usize)
                .map_err(|e| corrupt(format!("side {side}: {e}")))?;
        }
        Ok(LaskerTableData { material, codes })
    }
}
