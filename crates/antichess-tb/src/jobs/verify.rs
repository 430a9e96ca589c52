//! The text of `tb verify` (the job is [`crate::verify_tables`]): a table's line as it is
//! verified, with the first disagreements below a mismatch.

use crate::verify_set::{VerifyRow, VerifyStatus};

impl VerifyRow {
    /// A table's line of `tb verify`, and below a mismatch its first disagreements (one
    /// line each, indented).
    #[must_use]
    pub fn text(&self) -> String {
        let name = &self.material;
        let positions = self.positions.unwrap_or(0);
        match self.status {
            VerifyStatus::Ok => format!("{name}: ok ({positions} positions)"),
            VerifyStatus::Mismatch => {
                let mut out = format!(
                    "{name}: {} of {positions} positions disagree with their successors",
                    self.mismatches.unwrap_or(0)
                );
                for e in self.examples.iter().flatten() {
                    out += &format!("\n  {e}");
                }
                out
            }
            VerifyStatus::Error => {
                format!(
                    "{name}: error: {}",
                    self.error.as_deref().unwrap_or_default()
                )
            }
        }
    }
}
