//! How a proof's verdict and an error with its causes are written (`solve`, `proof
//! minimize`); the error's text is the pns crate's [`antichess_pns::prove::job::error_text`].

use antichess_pns::ProofOutcome;

pub use antichess_pns::prove::job::error_text as describe_error;

/// The verifier's verdict on a proof: `Ok`, or why it was rejected (or not verified).
pub fn verdict(p: &ProofOutcome) -> Result<(), String> {
    match &p.verdict {
        Some(Ok(_)) => Ok(()),
        Some(Err(e)) => Err(e.to_string()),
        None => Err("not verified".to_string()),
    }
}
