//! Read-only memory maps of files the suite writes once and never changes in place (they
//! are replaced whole by [`crate::write_atomic`]: a new file renamed over the old one, so a
//! map of the old file keeps seeing the old bytes). The one `unsafe` of this crate.
//!
//! Reading a map costs page faults, not system calls, and only the pages read are loaded:
//! a lookup in a large index file reads a few pages of it.

use std::fs::File;
use std::io;
use std::path::Path;

/// A file mapped read-only (an empty file is an empty slice).
#[derive(Debug)]
pub struct MappedFile {
    map: Option<memmap2::Mmap>,
}

impl MappedFile {
    /// Maps the file at `path` (errors name it).
    pub fn open(path: &Path) -> io::Result<MappedFile> {
        let file = File::open(path).map_err(|e| crate::naming(path, e))?;
        let len = file.metadata().map_err(|e| crate::naming(path, e))?.len();
        if len == 0 {
            return Ok(MappedFile { map: None });
        }
        // Safety: the file is opened read-only, and the files mapped here are never
        // modified in place (they are written under a temporary name and renamed). A
        // truncation by another program while mapped would be outside our control, as for
        // any user of mmap (the tables are mapped the same way).
        #[allow(unsafe_code)]
        let map = unsafe { memmap2::Mmap::map(&file) }.map_err(|e| crate::naming(path, e))?;
        Ok(MappedFile { map: Some(map) })
    }

    /// The file's bytes.
    #[must_use]
    pub fn bytes(&self) -> &[u8] {
        self.map.as_deref().unwrap_or(&[])
    }
}
