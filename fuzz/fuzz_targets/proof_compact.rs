//! Proof files in our compact format: read and verified from arbitrary bytes.
#![no_main]
use antichess_proof::{read_compact, verify_compact, NoTablebases, VerifyOptions};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = read_compact(data);
    let _ = verify_compact(
        data,
        Some(data.len() as u64),
        &NoTablebases,
        &VerifyOptions::default(),
        &mut |_| {},
    );
});
