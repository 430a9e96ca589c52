//! With the cargo feature `embed-web` (the README's test command `cargo test --workspace
//! --features antichess-cli/mip,antichess-web/embed-web`, which `.ci/run` runs):
//! the front end's built pages are in the binary,
//! with every script and style sheet they load. Without the feature this file is empty.
#![cfg(feature = "embed-web")]

use antichess_web::assets;

/// The `/assets/...` files a page loads (its `src` and `href` attributes).
fn assets_of(page: &str) -> Vec<String> {
    let mut out = Vec::new();
    for attr in ["src=\"/", "href=\"/"] {
        let mut rest = page;
        while let Some(at) = rest.find(attr) {
            rest = &rest[at + attr.len()..];
            let path = rest.split('"').next().unwrap_or_default();
            if path.starts_with("assets/") {
                out.push(path.to_string());
            }
        }
    }
    out
}

#[test]
fn the_built_front_end_is_in_the_binary() {
    let files = assets::embedded().expect("the feature embed-web embeds the front end");
    for page in assets::PAGES {
        let html = files(page).unwrap_or_else(|| panic!("{page} is not embedded"));
        let html = std::str::from_utf8(html).unwrap();
        let wanted = assets_of(html);
        assert!(
            wanted.len() >= 2,
            "{page} loads a script and a style sheet: {wanted:?}"
        );
        for asset in wanted {
            let bytes =
                files(&asset).unwrap_or_else(|| panic!("{asset} of {page} is not embedded"));
            assert!(bytes.len() > 100, "{asset} is nearly empty");
        }
    }
    assert!(files("assets/nothing-here.js").is_none());
}
