//! One table in memory: a file image (memory-mapped, or bytes for tests) with its parsed
//! header and index. Construction checks the header, the section offsets and the
//! checksum, so that reads afterwards cannot fail, and that the file is the table it is
//! opened for: a table is always opened *as* a material under a rule set, and refused
//! unless its header names exactly that material, rule set and format version (a renamed
//! or copied file must not answer for another material).

use std::cell::RefCell;
use std::collections::{HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};

use antichess_core::{Board, Color, Rules};

use crate::format::{self, Header, TableKind, DTC_BLOCK};
use crate::index::TableIndex;
use crate::material::Material;
use crate::wdl::{Value, Wdl};
use crate::TbError;

/// The bytes of a table file.
#[derive(Debug)]
enum Storage {
    Mapped(memmap2::Mmap),
    Owned(Vec<u8>),
}

impl Storage {
    fn bytes(&self) -> &[u8] {
        match self {
            Storage::Mapped(map) => map,
            Storage::Owned(bytes) => bytes,
        }
    }
}

/// Distinguishes tables in the per-thread DTC block cache (an address could be reused).
static NEXT_TABLE_ID: AtomicU64 = AtomicU64::new(1);

/// The DTC blocks each thread decompressed last (up to [`DTC_CACHE_BLOCKS`], the oldest
/// dropped first), by (table id, side, block), and the thread's zstd decompression
/// context. Probes of neighbouring positions (`tb probe` of every move, a walk over a
/// table for both sides to move, a proof played out from a table) then decompress a block
/// once: playing a proof out probes the best move of every prover node, and with the 4
/// blocks this cache once held, almost every probe decompressed 64 K values.
struct DtcCache {
    recent: HashMap<(u64, usize, u64), Rc<Vec<u16>>>,
    order: VecDeque<(u64, usize, u64)>,
    decompressor: Option<zstd::bulk::Decompressor<'static>>,
    raw: Vec<u8>,
}

/// At most this many blocks per thread (128 KB each: 32 MB).
const DTC_CACHE_BLOCKS: usize = 256;

thread_local! {
    static DTC_CACHE: RefCell<DtcCache> = RefCell::new(DtcCache {
        recent: HashMap::new(),
        order: VecDeque::new(),
        decompressor: None,
        raw: Vec::new(),
    });
}

/// A loaded, checked table.
#[derive(Debug)]
pub struct Table {
    id: u64,
    path: PathBuf,
    header: Header,
    index: TableIndex,
    storage: Storage,
}

impl Table {
    /// Memory-maps and checks the table file of `material` (either orientation), which
    /// must be built for `rules`.
    pub fn open(path: &Path, material: &Material, rules: Rules) -> Result<Table, TbError> {
        Table::open_kind(path, material, TableKind::Exact, rules)
    }

    /// Like [`Table::open`], for a table of `kind` (exact or a bound table).
    pub fn open_kind(
        path: &Path,
        material: &Material,
        kind: TableKind,
        rules: Rules,
    ) -> Result<Table, TbError> {
        let file =
            std::fs::File::open(path).map_err(|e| match std::fs::symlink_metadata(path) {
                Ok(link) if link.file_type().is_symlink() => {
                    crate::error::unfollowable_link(path, &e)
                }
                _ => TbError::io(path, e),
            })?;
        // Safety: the file is opened read-only and table files are never modified in place
        // (they are written under a temporary name and renamed); a concurrent truncation by
        // another program would be outside our control, as for any mmap user.
        let map = unsafe { memmap2::Mmap::map(&file) }.map_err(|e| TbError::io(path, e))?;
        Table::from_storage(path, Storage::Mapped(map), material, kind, rules)
    }

    /// Checks a table of `material` held in memory (`path` is only used in messages).
    pub fn from_bytes(
        path: &Path,
        bytes: Vec<u8>,
        material: &Material,
        rules: Rules,
    ) -> Result<Table, TbError> {
        Table::from_storage(
            path,
            Storage::Owned(bytes),
            material,
            TableKind::Exact,
            rules,
        )
    }

    fn from_storage(
        path: &Path,
        storage: Storage,
        material: &Material,
        kind: TableKind,
        rules: Rules,
    ) -> Result<Table, TbError> {
        let bytes = storage.bytes();
        // The format version is checked first, by the parser (a file of another version
        // is refused naming both versions).
        let header = Header::parse(bytes, path)?;
        let expected = material.canonical().0;
        if header.material != expected {
            return Err(TbError::WrongMaterial {
                path: path.to_path_buf(),
                found: header.material.name(),
                expected: expected.name(),
            });
        }
        if header.kind != kind {
            return Err(TbError::corrupt(
                path,
                format!(
                    "the header says {} but the file name says {kind} (a renamed file?)",
                    header.kind
                ),
            ));
        }
        if header.rules != rules {
            return Err(TbError::WrongRules {
                path: path.to_path_buf(),
                found: header.rules.to_string(),
                expected: rules.to_string(),
            });
        }
        if !header.material.is_canonical() {
            return Err(TbError::corrupt(
                path,
                format!(
                    "signature {} is not in canonical orientation",
                    header.material
                ),
            ));
        }
        let index = TableIndex::new(&header.material);
        if index.size() != header.size {
            return Err(TbError::corrupt(
                path,
                format!(
                    "{} positions per side recorded, {} expected for {}",
                    header.size,
                    index.size(),
                    header.material
                ),
            ));
        }
        let sum = format::checksum(bytes);
        if sum != header.checksum {
            return Err(TbError::corrupt(
                path,
                format!(
                    "checksum mismatch (stored {:016x}, computed {sum:016x})",
                    header.checksum
                ),
            ));
        }
        let table = Table {
            id: NEXT_TABLE_ID.fetch_add(1, Ordering::Relaxed),
            path: path.to_path_buf(),
            header,
            index,
            storage,
        };
        table.check_dtc_index()?;
        Ok(table)
    }

    fn check_dtc_index(&self) -> Result<(), TbError> {
        let data_len = self.header.file_len - self.header.dtc_data_offset;
        for side in 0..2 {
            let mut prev = 0;
            for block in 0..=self.header.blocks() {
                let off = self.dtc_index_entry(side, block);
                if off < prev || off > data_len {
                    return Err(TbError::corrupt(
                        &self.path,
                        format!("DTC block index entry {block} of side {side} is out of range"),
                    ));
                }
                prev = off;
            }
        }
        Ok(())
    }

    fn bytes(&self) -> &[u8] {
        self.storage.bytes()
    }

    fn dtc_index_entry(&self, side: usize, block: u64) -> u64 {
        let at = (self.header.dtc_index_offset
            + 8 * (side as u64 * (self.header.blocks() + 1) + block)) as usize;
        u64::from_le_bytes(self.bytes()[at..at + 8].try_into().expect("8 bytes"))
    }

    #[must_use]
    pub fn header(&self) -> &Header {
        &self.header
    }

    #[must_use]
    pub fn index(&self) -> &TableIndex {
        &self.index
    }

    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// WDL of the position with index `idx` and `side` to move (colours as in the
    /// canonical orientation).
    #[must_use]
    #[inline]
    pub fn wdl(&self, side: Color, idx: u64) -> Wdl {
        let at = self.header.wdl_offset + side.index() as u64 * self.header.wdl_len + idx / 4;
        let code = (self.bytes()[at as usize] >> (2 * (idx % 4))) & 3;
        Wdl::from_code(code).unwrap_or(Wdl::Draw)
    }

    /// The raw 2-bit WDL code of a position (0 loss, 1 draw, 2 win; 3 is invalid and
    /// read as a draw by [`Table::wdl`]): for verification.
    #[must_use]
    pub fn wdl_code(&self, side: Color, idx: u64) -> u8 {
        let at = self.header.wdl_offset + side.index() as u64 * self.header.wdl_len + idx / 4;
        (self.bytes()[at as usize] >> (2 * (idx % 4))) & 3
    }

    /// WDL of a board (canonical colours).
    #[must_use]
    #[inline]
    pub fn wdl_of(&self, board: &Board, side: Color) -> Wdl {
        self.wdl(side, self.index.encode(board))
    }

    /// Decompresses DTC block `block` of `side`, or takes it from this thread's cache.
    fn dtc_block(&self, side: usize, block: u64) -> Result<Rc<Vec<u16>>, TbError> {
        DTC_CACHE.with(|cache| {
            let mut cache = cache.borrow_mut();
            let wanted = (self.id, side, block);
            if let Some(values) = cache.recent.get(&wanted) {
                return Ok(Rc::clone(values));
            }
            let values = Rc::new(self.decompress_block(&mut cache, side, block)?);
            if cache.order.len() >= DTC_CACHE_BLOCKS {
                if let Some(oldest) = cache.order.pop_front() {
                    cache.recent.remove(&oldest);
                }
            }
            cache.order.push_back(wanted);
            cache.recent.insert(wanted, Rc::clone(&values));
            Ok(values)
        })
    }

    fn decompress_block(
        &self,
        cache: &mut DtcCache,
        side: usize,
        block: u64,
    ) -> Result<Vec<u16>, TbError> {
        let start = self.dtc_index_entry(side, block);
        let end = self.dtc_index_entry(side, block + 1);
        let base = self.header.dtc_data_offset as usize;
        let data = &self.bytes()[base + start as usize..base + end as usize];
        let entries = (self.header.size - block * DTC_BLOCK).min(DTC_BLOCK) as usize;
        let width = usize::from(self.header.dtc_bytes);
        let corrupt = |e: &dyn std::fmt::Display| {
            TbError::corrupt(&self.path, format!("DTC block {block} of side {side}: {e}"))
        };
        if cache.decompressor.is_none() {
            cache.decompressor = Some(zstd::bulk::Decompressor::new().map_err(|e| corrupt(&e))?);
        }
        let DtcCache {
            decompressor, raw, ..
        } = cache;
        raw.clear();
        raw.reserve(entries * width);
        let n = decompressor
            .as_mut()
            .expect("created above")
            .decompress_to_buffer(data, raw)
            .map_err(|e| corrupt(&e))?;
        if n != entries * width {
            return Err(TbError::corrupt(
                &self.path,
                format!("DTC block {block} of side {side} has the wrong length"),
            ));
        }
        Ok(if width == 1 {
            raw.iter().map(|&b| u16::from(b)).collect()
        } else {
            raw.chunks_exact(2)
                .map(|c| u16::from_le_bytes([c[0], c[1]]))
                .collect()
        })
    }

    /// WDL and DTC of one position (decompresses one block unless drawn or cached).
    pub fn value(&self, side: Color, idx: u64) -> Result<Value, TbError> {
        let wdl = self.wdl(side, idx);
        let dtc = if wdl == Wdl::Draw {
            0
        } else {
            self.dtc_block(side.index(), idx / DTC_BLOCK)?[(idx % DTC_BLOCK) as usize]
        };
        Ok(Value { wdl, dtc })
    }

    /// All DTC values of one side (decompresses every block).
    pub fn dtc_all(&self, side: Color) -> Result<Vec<u16>, TbError> {
        let mut out = Vec::with_capacity(self.header.size as usize);
        for block in 0..self.header.blocks() {
            out.extend(self.dtc_block(side.index(), block)?.iter());
        }
        Ok(out)
    }

    /// All WDL values of one side, one byte each.
    #[must_use]
    pub fn wdl_all(&self, side: Color) -> Vec<Wdl> {
        (0..self.header.size).map(|i| self.wdl(side, i)).collect()
    }
}
