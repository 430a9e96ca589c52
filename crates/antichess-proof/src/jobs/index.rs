//! The text of `proof index`'s report ([`crate::index_proof_files`]): one line per file
//! ([`IndexedFile`]'s `Display`).

use std::fmt;

use crate::IndexedFile;

impl fmt::Display for IndexedFile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let file = self.file.display();
        let index = self
            .index
            .as_ref()
            .map_or(String::new(), |p| p.display().to_string());
        match (self.outcome, &self.error) {
            (_, Some(error)) => write!(f, "{file}: not indexed: {error}"),
            ("found", _) => write!(
                f,
                "{file}: index found ({} positions, {} bytes): {index}",
                self.positions, self.index_bytes
            ),
            _ => write!(
                f,
                "{file}: verified ({} nodes) and indexed ({} positions, {} bytes) in {:.1} s: {index}{}",
                self.nodes,
                self.positions,
                self.index_bytes,
                self.seconds,
                self.replaced
                    .as_ref()
                    .map_or(String::new(), |why| format!(" (the index found was not used: {why})"))
            ),
        }
    }
}
