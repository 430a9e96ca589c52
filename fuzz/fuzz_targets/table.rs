//! Tablebase files: opened from arbitrary bytes, and probed when they open.
#![no_main]
use antichess_core::{Color, Rules};
use antichess_tb::Table;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let path = std::path::Path::new("fuzz.actb");
    if let Ok(table) = Table::from_bytes(path, data.to_vec(), Rules::INTERNATIONAL) {
        for side in [Color::White, Color::Black] {
            let _ = table.wdl_all(side);
            let _ = table.dtc_all(side);
        }
    }
});
