//! The book format's name and version: what the `format` and `version` meta entries of
//! every book hold. A leaf below the stores, which write and check them, and the errors,
//! which name the version this build reads; [`crate::store`] re-exports both.

/// The book format version this build writes and reads.
pub const FORMAT_VERSION: u32 = 1;

/// The value of the `format` meta entry, which identifies a book.
pub const FORMAT_NAME: &str = "antichess-book";
