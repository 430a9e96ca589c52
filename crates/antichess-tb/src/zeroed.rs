//! Large zero-initialised arrays of atomics for the generators' per-position words and
//! marks: an anonymous memory map, whose pages the kernel gives zeroed as they are first
//! written, instead of a vector filled by a pass over all of it. (Advising the map to use
//! transparent huge pages was measured and not kept: KBNkr built in 81.5 s with 2 MB
//! pages against 78.0 s without, on the same binary; docs/research/tb-memory.md.)

use std::marker::PhantomData;
use std::ops::Deref;
use std::sync::atomic::{AtomicU16, AtomicU32, AtomicU64};

use crate::TbError;

/// Types whose all-zero bytes are a valid value (the atomics of the generators).
///
/// # Safety
/// An implementor must be valid when all its bytes are zero and have no drop glue.
pub(crate) unsafe trait Zeroable: Sync {}
// SAFETY: integer atomics are plain integers in memory; zero is a valid value.
unsafe impl Zeroable for AtomicU16 {}
// SAFETY: as above.
unsafe impl Zeroable for AtomicU32 {}
// SAFETY: as above.
unsafe impl Zeroable for AtomicU64 {}

/// `len` zeroed values of `T` in an anonymous memory map.
pub(crate) struct ZeroedArray<T: Zeroable> {
    /// `None` for an empty array (a map cannot be empty).
    map: Option<memmap2::MmapMut>,
    len: usize,
    _values: PhantomData<T>,
}

impl<T: Zeroable> ZeroedArray<T> {
    /// Maps `len` zeroed values (pages are given to the process as they are first
    /// written).
    pub(crate) fn new(len: usize) -> Result<ZeroedArray<T>, TbError> {
        if len == 0 {
            return Ok(ZeroedArray {
                map: None,
                len,
                _values: PhantomData,
            });
        }
        let bytes = len
            .checked_mul(std::mem::size_of::<T>())
            .ok_or_else(|| TbError::Unsupported(format!("{len} values do not fit in memory")))?;
        let map = memmap2::MmapMut::map_anon(bytes).map_err(|e| {
            TbError::Unsupported(format!(
                "cannot allocate {bytes} bytes of table memory: {e}"
            ))
        })?;
        Ok(ZeroedArray {
            map: Some(map),
            len,
            _values: PhantomData,
        })
    }
}

impl<T: Zeroable> ZeroedArray<T> {
    /// Shortens the array to its first `len` values and gives the memory past them back
    /// to the kernel (from the first whole megabyte after the new end, a multiple of any
    /// page size).
    pub(crate) fn truncate(&mut self, len: usize) {
        if len >= self.len {
            return;
        }
        self.len = len;
        if let Some(map) = &self.map {
            let keep = (len * std::mem::size_of::<T>()).next_multiple_of(1 << 20);
            if keep < map.len() {
                // SAFETY: the values past `len` are no longer reachable through `self` (its
                // slice now ends at `len`, and `&mut self` means no borrow of them is
                // alive); dropped anonymous pages only read as zeros again if touched.
                let _ = unsafe {
                    map.unchecked_advise_range(
                        memmap2::UncheckedAdvice::DontNeed,
                        keep,
                        map.len() - keep,
                    )
                };
            }
        }
    }
}

impl<T: Zeroable> Deref for ZeroedArray<T> {
    type Target = [T];

    fn deref(&self) -> &[T] {
        match &self.map {
            // SAFETY: the map holds `len * size_of::<T>()` bytes, page-aligned (so aligned
            // for `T`), zero-initialised by the kernel and written only through `T`'s
            // atomic operations; `T` is valid when zero (`Zeroable`). The map lives as
            // long as `self`.
            Some(map) => unsafe { std::slice::from_raw_parts(map.as_ptr().cast::<T>(), self.len) },
            None => &[],
        }
    }
}

impl<T: Zeroable> std::fmt::Debug for ZeroedArray<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ZeroedArray({} values)", self.len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::Ordering::Relaxed;

    #[test]
    fn zeroed_and_writable() {
        let a = ZeroedArray::<AtomicU16>::new(3 << 20).unwrap();
        assert_eq!(a.len(), 3 << 20);
        assert!(a.iter().step_by(4099).all(|w| w.load(Relaxed) == 0));
        a[12345].store(7, Relaxed);
        assert_eq!(a[12345].load(Relaxed), 7);
        let mut b = ZeroedArray::<AtomicU16>::new(3 << 20).unwrap();
        b[(1 << 20) + 5].store(9, Relaxed);
        b[(2 << 20) + 5].store(9, Relaxed);
        b.truncate((1 << 20) + 6);
        assert_eq!(b.len(), (1 << 20) + 6);
        assert_eq!(b[(1 << 20) + 5].load(Relaxed), 9);
        let empty = ZeroedArray::<AtomicU64>::new(0).unwrap();
        assert!(empty.is_empty());
    }
}
