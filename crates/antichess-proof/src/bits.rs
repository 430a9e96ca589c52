//! Bit-level writing and reading for the compact format's body: bits are packed
//! most-significant first within each byte, multi-bit fields are written most-significant
//! bit first, and the last byte is padded with zero bits. Also the Elias-delta code used
//! for reference distances, and the bit width of a move index.
//!
//! The reader streams from any `Read`, hashes every body byte it consumes (xxh3-64) and
//! never reads past the body length the header gives.

use std::io::Read;

use xxhash_rust::xxh3::Xxh3;

/// Bits needed for an index below `n`: ceil(log2(n)); 0 for n <= 1.
#[must_use]
pub fn index_width(n: usize) -> u32 {
    if n <= 1 {
        0
    } else {
        usize::BITS - (n - 1).leading_zeros()
    }
}

/// Writes bits into a growing byte vector.
#[derive(Debug, Default)]
pub(crate) struct BitWriter {
    bytes: Vec<u8>,
    bits: u64,
}

impl BitWriter {
    pub(crate) fn bit(&mut self, bit: bool) {
        if self.bits % 8 == 0 {
            self.bytes.push(0);
        }
        if bit {
            let last = self.bytes.len() - 1;
            self.bytes[last] |= 0x80 >> (self.bits % 8);
        }
        self.bits += 1;
    }

    /// The low `width` bits of `value`, most significant first.
    pub(crate) fn bits(&mut self, value: u64, width: u32) {
        for i in (0..width).rev() {
            self.bit((value >> i) & 1 == 1);
        }
    }

    /// Elias-delta code of `value` (>= 1).
    pub(crate) fn elias_delta(&mut self, value: u64) {
        debug_assert!(value >= 1);
        let n = 64 - value.leading_zeros(); // bit length of value, 1..=64
        let l = 31 - n.leading_zeros(); // floor(log2(n)), 0..=6
        self.bits(0, l);
        self.bits(u64::from(n), l + 1);
        self.bits(value, n - 1);
    }

    pub(crate) fn len_bits(&self) -> u64 {
        self.bits
    }

    pub(crate) fn into_bytes(self) -> Vec<u8> {
        self.bytes
    }
}

/// Why a read of bits failed.
#[derive(Debug)]
pub(crate) enum BitError {
    /// The body (as long as the header says) is exhausted.
    EndOfBody,
    /// The underlying reader ended before the body did (the file is truncated).
    Truncated {
        bytes_read: u64,
    },
    Io(std::io::Error),
    /// A malformed variable-length code.
    BadCode(&'static str),
}

/// Reads bits from a stream, hashing the bytes it consumes.
pub(crate) struct BitReader<R> {
    inner: R,
    hasher: Xxh3,
    buf: Vec<u8>,
    buf_pos: usize,
    buf_len: usize,
    /// Body bytes consumed from `inner` so far.
    bytes_read: u64,
    body_bytes: u64,
    body_bits: u64,
    current: u8,
    /// Bits consumed so far.
    pos: u64,
}

impl<R: Read> BitReader<R> {
    pub(crate) fn new(inner: R, body_bits: u64) -> BitReader<R> {
        BitReader {
            inner,
            hasher: Xxh3::new(),
            buf: vec![0; 1 << 16],
            buf_pos: 0,
            buf_len: 0,
            bytes_read: 0,
            body_bytes: body_bits.div_ceil(8),
            body_bits,
            current: 0,
            pos: 0,
        }
    }

    /// Bits consumed so far.
    pub(crate) fn position(&self) -> u64 {
        self.pos
    }

    fn next_byte(&mut self) -> Result<u8, BitError> {
        if self.buf_pos == self.buf_len {
            let left = self.body_bytes - self.bytes_read;
            if left == 0 {
                return Err(BitError::EndOfBody);
            }
            let want = (self.buf.len() as u64).min(left) as usize;
            let got = loop {
                match self.inner.read(&mut self.buf[..want]) {
                    Ok(got) => break got,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(e) => return Err(BitError::Io(e)),
                }
            };
            if got == 0 {
                return Err(BitError::Truncated {
                    bytes_read: self.bytes_read,
                });
            }
            self.hasher.update(&self.buf[..got]);
            self.bytes_read += got as u64;
            self.buf_pos = 0;
            self.buf_len = got;
        }
        let byte = self.buf[self.buf_pos];
        self.buf_pos += 1;
        Ok(byte)
    }

    pub(crate) fn bit(&mut self) -> Result<bool, BitError> {
        if self.pos >= self.body_bits {
            return Err(BitError::EndOfBody);
        }
        if self.pos % 8 == 0 {
            self.current = self.next_byte()?;
        }
        let bit = self.current & (0x80 >> (self.pos % 8)) != 0;
        self.pos += 1;
        Ok(bit)
    }

    pub(crate) fn bits(&mut self, width: u32) -> Result<u64, BitError> {
        let mut value = 0u64;
        for _ in 0..width {
            value = value << 1 | u64::from(self.bit()?);
        }
        Ok(value)
    }

    pub(crate) fn elias_delta(&mut self) -> Result<u64, BitError> {
        let mut l = 0u32;
        while !self.bit()? {
            l += 1;
            if l > 6 {
                return Err(BitError::BadCode(
                    "Elias-delta length prefix longer than 6 zeros",
                ));
            }
        }
        let n = (1u64 << l) | self.bits(l)?;
        if n > 64 {
            return Err(BitError::BadCode("Elias-delta value longer than 64 bits"));
        }
        let n = n as u32;
        let low = self.bits(n - 1)?;
        Ok(if n == 64 {
            1 << 63 | low
        } else {
            1 << (n - 1) | low
        })
    }

    /// After the tree: the padding bits of the last byte must be zero. Returns false if not.
    pub(crate) fn padding_is_zero(&mut self) -> Result<bool, BitError> {
        let mut ok = true;
        while self.pos % 8 != 0 && self.pos < self.body_bytes * 8 {
            // Reading past body_bits is allowed here, only for the padding.
            let bit = self.current & (0x80 >> (self.pos % 8)) != 0;
            ok &= !bit;
            self.pos += 1;
        }
        Ok(ok)
    }

    /// Reads (and hashes) the rest of the body; returns the number of body bytes actually
    /// present in the stream (less than the header's count if the file is truncated).
    pub(crate) fn drain(&mut self) -> Result<u64, BitError> {
        self.buf_pos = self.buf_len;
        while self.bytes_read < self.body_bytes {
            let want = (self.buf.len() as u64).min(self.body_bytes - self.bytes_read) as usize;
            let got = match self.inner.read(&mut self.buf[..want]) {
                Ok(got) => got,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(BitError::Io(e)),
            };
            if got == 0 {
                break;
            }
            self.hasher.update(&self.buf[..got]);
            self.bytes_read += got as u64;
        }
        Ok(self.bytes_read)
    }

    /// The checksum of the body bytes consumed so far.
    pub(crate) fn checksum(&self) -> u64 {
        self.hasher.digest()
    }

    /// Whether the underlying stream has more bytes after the body.
    pub(crate) fn has_trailing_bytes(&mut self) -> Result<bool, BitError> {
        let mut one = [0u8; 1];
        loop {
            match self.inner.read(&mut one) {
                Ok(got) => return Ok(got > 0),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(BitError::Io(e)),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widths() {
        assert_eq!(index_width(0), 0);
        assert_eq!(index_width(1), 0);
        assert_eq!(index_width(2), 1);
        assert_eq!(index_width(3), 2);
        assert_eq!(index_width(4), 2);
        assert_eq!(index_width(5), 3);
        assert_eq!(index_width(256), 8);
    }

    #[test]
    fn round_trip_fields() {
        let values = [1u64, 2, 3, 4, 7, 8, 1000, 1 << 40, u64::MAX, (1 << 63) + 5];
        let mut w = BitWriter::default();
        for (i, &v) in values.iter().enumerate() {
            w.elias_delta(v);
            w.bits(i as u64, 5);
            w.bit(i % 2 == 0);
        }
        let bits = w.len_bits();
        let bytes = w.into_bytes();
        let mut r = BitReader::new(&bytes[..], bits);
        for (i, &v) in values.iter().enumerate() {
            assert_eq!(r.elias_delta().unwrap(), v);
            assert_eq!(r.bits(5).unwrap(), i as u64);
            assert_eq!(r.bit().unwrap(), i % 2 == 0);
        }
        assert!(matches!(r.bit(), Err(BitError::EndOfBody)));
        assert!(r.padding_is_zero().unwrap());
    }

    #[test]
    fn elias_delta_lengths() {
        let len = |v: u64| {
            let mut w = BitWriter::default();
            w.elias_delta(v);
            w.len_bits()
        };
        assert_eq!(len(1), 1);
        assert_eq!(len(2), 4);
        assert_eq!(len(3), 4);
        assert_eq!(len(4), 5);
        assert_eq!(len(1 << 20), 29);
    }
}
