//! Proof files in the reference solution's 6-byte format: verified from arbitrary bytes.
#![no_main]
use antichess_proof::{verify_reference, NoTablebases, VerifyOptions};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = verify_reference(data, &NoTablebases, &VerifyOptions::default(), &mut |_| {});
});
