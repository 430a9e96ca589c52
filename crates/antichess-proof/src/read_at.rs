//! Random access to bytes (`ReadAt`), so that the reference format, whose nodes point
//! anywhere in the file, can be read from memory or from a file through a small page cache
//! without loading it whole.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};

/// Bytes that can be read at any offset.
pub trait ReadAt {
    /// Total length in bytes.
    fn size(&self) -> u64;

    /// Fills `buf` from `offset`; fails if that range is not inside the data.
    fn read_exact_at(&mut self, buf: &mut [u8], offset: u64) -> io::Result<()>;
}

impl ReadAt for &[u8] {
    fn size(&self) -> u64 {
        self.len() as u64
    }

    fn read_exact_at(&mut self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        let start = usize::try_from(offset).map_err(|_| out_of_range())?;
        let end = start.checked_add(buf.len()).ok_or_else(out_of_range)?;
        let src = self.get(start..end).ok_or_else(out_of_range)?;
        buf.copy_from_slice(src);
        Ok(())
    }
}

impl ReadAt for Vec<u8> {
    fn size(&self) -> u64 {
        self.len() as u64
    }

    fn read_exact_at(&mut self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        self.as_slice().read_exact_at(buf, offset)
    }
}

fn out_of_range() -> io::Error {
    io::Error::new(
        io::ErrorKind::UnexpectedEof,
        "read past the end of the data",
    )
}

const PAGE_BITS: u32 = 16;
const PAGE: u64 = 1 << PAGE_BITS;
const SLOTS: usize = 256;

/// A file read through a direct-mapped cache of 256 pages of 64 KiB (16 MiB).
#[derive(Debug)]
pub struct PagedFile {
    file: File,
    len: u64,
    slots: Vec<Option<(u64, Vec<u8>)>>,
}

impl PagedFile {
    pub fn new(file: File) -> io::Result<PagedFile> {
        let len = file.metadata()?.len();
        Ok(PagedFile {
            file,
            len,
            slots: vec![None; SLOTS],
        })
    }

    fn page(&mut self, page: u64) -> io::Result<&[u8]> {
        let slot = (page % SLOTS as u64) as usize;
        let hit = matches!(&self.slots[slot], Some((p, _)) if *p == page);
        if !hit {
            let start = page * PAGE;
            let len = PAGE.min(self.len.saturating_sub(start)) as usize;
            let mut data = vec![0u8; len];
            self.file.seek(SeekFrom::Start(start))?;
            self.file.read_exact(&mut data)?;
            self.slots[slot] = Some((page, data));
        }
        Ok(&self.slots[slot].as_ref().expect("filled").1)
    }
}

impl ReadAt for PagedFile {
    fn size(&self) -> u64 {
        self.len
    }

    fn read_exact_at(&mut self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        let end = offset
            .checked_add(buf.len() as u64)
            .ok_or_else(out_of_range)?;
        if end > self.len {
            return Err(out_of_range());
        }
        let mut done = 0usize;
        while done < buf.len() {
            let at = offset + done as u64;
            let page = at >> PAGE_BITS;
            let within = (at % PAGE) as usize;
            let data = self.page(page)?;
            let take = (data.len() - within).min(buf.len() - done);
            buf[done..done + take].copy_from_slice(&data[within..within + take]);
            done += take;
        }
        Ok(())
    }
}
