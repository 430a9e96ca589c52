//! `LaskerTablebase`: the Lasker tables of one directory, each loaded whole into memory on
//! first use (decompressed, two bytes per index and side to move), and probing: the value
//! of a position and of each of its legal moves.
//!
//! A position with only the two kings is a draw without a table. A position in which the
//! side to move can capture en passant is not stored: its value is the best of its moves'.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use antichess_core::orthodox::OrthoPosition;
use antichess_core::{Board, Color, Move};

use super::format::{lasker_file_name, LaskerTableData, LASKER_EXTENSION};
use super::{LaskerValue, CODE_NONE};
use crate::index::TableIndex;
use crate::material::Material;
use crate::TbError;

/// One loaded table.
#[derive(Debug)]
pub struct LaskerTable {
    index: TableIndex,
    codes: [Vec<u16>; 2],
}

impl LaskerTable {
    /// Reads and checks the file of `material` (canonical orientation).
    pub fn open(path: &Path, material: &Material) -> Result<LaskerTable, TbError> {
        let bytes = std::fs::read(path).map_err(|e| TbError::io(path, e))?;
        let index = TableIndex::new(material);
        let data = LaskerTableData::from_bytes(&bytes, path, material, index.size())?;
        Ok(LaskerTable {
            index,
            codes: data.codes,
        })
    }

    /// A table from generated data.
    #[must_use]
    pub fn from_data(data: LaskerTableData) -> LaskerTable {
        LaskerTable {
            index: TableIndex::new(&data.material),
            codes: data.codes,
        }
    }

    #[must_use]
    pub fn index(&self) -> &TableIndex {
        &self.index
    }

    /// The stored code of index `idx` with `side` to move.
    #[must_use]
    #[inline]
    pub fn code(&self, side: Color, idx: u64) -> u16 {
        self.codes[side.index()][idx as usize]
    }

    /// The value of index `idx`, `None` if it is not a position.
    #[must_use]
    #[inline]
    pub fn value(&self, side: Color, idx: u64) -> Option<LaskerValue> {
        LaskerValue::from_code(self.code(side, idx))
    }
}

#[derive(Debug)]
struct Slot {
    material: Material,
    path: PathBuf,
    table: OnceLock<Result<LaskerTable, TbError>>,
}

/// The value of one legal move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LaskerMoveValue {
    pub mv: Move,
    /// The position after the move, for the opponent (then to move).
    pub after: LaskerValue,
}

impl LaskerMoveValue {
    /// The value of the move for the player making it.
    #[must_use]
    pub fn for_mover(&self) -> LaskerValue {
        LaskerValue::for_mover(self.after)
    }
}

/// The Lasker tables of a directory.
#[derive(Debug, Default)]
pub struct LaskerTablebase {
    dir: Option<PathBuf>,
    slots: Vec<Slot>,
    /// Material key in either orientation → (slot, colours swapped).
    by_key: HashMap<u64, (usize, bool)>,
}

impl LaskerTablebase {
    /// No tables.
    #[must_use]
    pub fn empty() -> LaskerTablebase {
        LaskerTablebase::default()
    }

    /// The tables in `dir` (files named like `KQvK.lctb`); a missing directory is empty.
    pub fn open(dir: &Path) -> Result<LaskerTablebase, TbError> {
        let mut tb = LaskerTablebase {
            dir: Some(dir.to_path_buf()),
            ..LaskerTablebase::default()
        };
        if !crate::tablebase::existing_dir(dir)? {
            return Ok(tb);
        }
        let mut found = Vec::new();
        for entry in std::fs::read_dir(dir).map_err(|e| TbError::io(dir, e))? {
            let path = entry.map_err(|e| TbError::io(dir, e))?.path();
            if path.extension().and_then(|e| e.to_str()) != Some(LASKER_EXTENSION) {
                continue;
            }
            let Some(stem) = path.file_stem().and_then(|s| s.to_str()) else {
                continue;
            };
            if let Ok(material) = stem.parse::<Material>() {
                let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
                if material.is_canonical() && lasker_file_name(&material) == name {
                    found.push((material, path));
                }
            }
        }
        found.sort();
        for (material, path) in found {
            tb.add_file(&material, path);
        }
        Ok(tb)
    }

    fn add_slot(&mut self, slot: Slot) {
        let material = slot.material;
        if let Some(&(i, _)) = self.by_key.get(&material.key()) {
            self.slots[i] = slot;
            return;
        }
        self.slots.push(slot);
        let i = self.slots.len() - 1;
        self.by_key.insert(material.swapped().key(), (i, true));
        self.by_key.insert(material.key(), (i, false));
    }

    /// Registers the file of `material` (checked when first used).
    pub fn add_file(&mut self, material: &Material, path: PathBuf) {
        self.add_slot(Slot {
            material: material.canonical().0,
            path,
            table: OnceLock::new(),
        });
    }

    /// Registers a loaded table.
    pub fn add_table(&mut self, material: &Material, table: LaskerTable) {
        let slot = Slot {
            material: material.canonical().0,
            path: PathBuf::new(),
            table: OnceLock::new(),
        };
        let _ = slot.table.set(Ok(table));
        self.add_slot(slot);
    }

    #[must_use]
    pub fn dir(&self) -> Option<&Path> {
        self.dir.as_deref()
    }

    /// Whether a table of `material` (either orientation) is registered.
    #[must_use]
    pub fn contains(&self, material: &Material) -> bool {
        self.by_key.contains_key(&material.key())
    }

    /// Materials present, canonical, in build order.
    #[must_use]
    pub fn materials(&self) -> Vec<Material> {
        let mut out: Vec<Material> = self.slots.iter().map(|s| s.material).collect();
        crate::material::sort_for_building(&mut out);
        out
    }

    fn load<'a>(&self, slot: &'a Slot) -> Result<&'a LaskerTable, TbError> {
        match slot
            .table
            .get_or_init(|| LaskerTable::open(&slot.path, &slot.material))
        {
            Ok(t) => Ok(t),
            Err(e) => Err(e.clone()),
        }
    }

    /// The table of `material` (either orientation); `None` if absent.
    pub fn table(&self, material: &Material) -> Result<Option<&LaskerTable>, TbError> {
        match self.by_key.get(&material.key()) {
            Some(&(i, _)) => Ok(Some(self.load(&self.slots[i])?)),
            None => Ok(None),
        }
    }

    fn missing(&self, material: &Material) -> TbError {
        TbError::Missing {
            material: material.canonical().0.name(),
            dir: self
                .dir
                .clone()
                .unwrap_or_else(|| PathBuf::from("(no directory)")),
        }
    }

    /// The value of a board with `side` to move and no en passant capture available.
    /// Errors if its table is missing or the board is not a legal position.
    #[inline]
    pub fn probe_board(&self, board: &Board, side: Color) -> Result<LaskerValue, TbError> {
        let material = Material::from_board(board);
        if material.units() == 2 {
            return Ok(LaskerValue::DRAW);
        }
        let Some(&(i, swapped)) = self.by_key.get(&material.key()) else {
            return Err(self.missing(&material));
        };
        let table = self.load(&self.slots[i])?;
        let code = if swapped {
            let b = board.swap_colors();
            table.code(side.other(), table.index.encode(&b))
        } else {
            table.code(side, table.index.encode(board))
        };
        if code == CODE_NONE {
            return Err(TbError::Unsupported(format!(
                "{} is not a legal position (the side not to move is in check)",
                OrthoPosition::from_board_unchecked(*board, side).fen()
            )));
        }
        LaskerValue::from_code(code).ok_or_else(|| {
            TbError::corrupt(
                self.slots[i].path.clone(),
                format!("invalid value code {code:#06x}"),
            )
        })
    }

    /// The value of a position (en passant positions through their moves).
    pub fn probe(&self, pos: &OrthoPosition) -> Result<LaskerValue, TbError> {
        if pos.ep_square().is_none() {
            return self.probe_board(pos.board(), pos.turn());
        }
        let mut best: Option<LaskerValue> = None;
        for m in pos.legal_moves() {
            let v = LaskerValue::for_mover(self.probe(&pos.play(m))?);
            if best.is_none_or(|b| v.key() > b.key()) {
                best = Some(v);
            }
        }
        Ok(best.expect("an en passant capture is legal"))
    }

    /// The value of every legal move, best first for the side to move (ties by UCI).
    pub fn probe_moves(&self, pos: &OrthoPosition) -> Result<Vec<LaskerMoveValue>, TbError> {
        let mut out = Vec::new();
        for m in pos.legal_moves() {
            out.push(LaskerMoveValue {
                mv: m,
                after: self.probe(&pos.play(m))?,
            });
        }
        out.sort_by_key(|mv| (-mv.for_mover().key(), mv.mv.to_string()));
        Ok(out)
    }
}
