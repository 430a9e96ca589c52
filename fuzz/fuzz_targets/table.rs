//! Tablebase files: opened from arbitrary bytes as a given material (the one the header
//! names, and a fixed other one, which must be refused unless the header names it), read
//! whole when they open, and small ones checked against the rules by `verify_table`.
#![no_main]
use antichess_core::{Color, Rules};
use antichess_tb::{verify_table, Material, Table, Tablebase};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let path = std::path::Path::new("fuzz.actb");
    let named = data
        .get(16..32)
        .and_then(|b| std::str::from_utf8(b.split(|&c| c == 0).next()?).ok())
        .and_then(|s| s.parse::<Material>().ok());
    let fixed: Material = "KRk".parse().expect("valid");
    for material in named.into_iter().chain([fixed]) {
        let Ok(table) = Table::from_bytes(path, data.to_vec(), &material, Rules::INTERNATIONAL)
        else {
            continue;
        };
        assert_eq!(table.header().material, material.canonical().0);
        for side in [Color::White, Color::Black] {
            let _ = table.wdl_all(side);
            let _ = table.dtc_all(side);
        }
        if table.header().size <= 4096 {
            // Checked against its successors (tables it needs are absent: an error).
            let mut tb = Tablebase::empty(Rules::INTERNATIONAL);
            tb.add_table(table);
            let _ = verify_table(&tb, &material);
        }
    }
});
