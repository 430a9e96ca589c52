//! With the cargo feature `embed-web`, finds the front end's built files and copies them
//! into `$OUT_DIR/web-dist`, which `src/assets.rs` embeds in the binary (include_dir).
//! Without the feature it does nothing.
//!
//! Where the built files come from, first found:
//! 1. `$ANTICHESS_WEB_DIST`: a `dist` directory built before (`cd web && npm ci && npm run
//!    build` writes one), e.g. for a build outside the repository;
//! 2. the repository's `web/dist`, when it holds every page and is newer than `web/src`,
//!    `web/package-lock.json` and `web/build.mjs`;
//! 3. otherwise a copy of `web/` (its sources, `package.json`, `package-lock.json`,
//!    `build.mjs`) in `$OUT_DIR/web-build`, built there with `npm ci` and `npm run build`:
//!    the source tree is only read.
//!
//! A build that finds none of these (no `web/`, no npm) fails with a message that says
//! what to do.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::SystemTime;

const PAGES: [&str; 3] = ["index.html", "search.html", "tablebase.html"];

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=ANTICHESS_WEB_DIST");
    if std::env::var_os("CARGO_FEATURE_EMBED_WEB").is_none() {
        return;
    }
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let web = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../web");
    let dist = match find_dist(&web, &out) {
        Ok(dist) => dist,
        Err(why) => panic!("embed-web: {why}"),
    };
    let target = out.join("web-dist");
    let _ = std::fs::remove_dir_all(&target);
    copy_tree(&dist, &target)
        .unwrap_or_else(|e| panic!("embed-web: copying {}: {e}", dist.display()));
    println!(
        "cargo:warning=embed-web: the front end from {} is built into the binary",
        dist.display()
    );
}

fn modified(path: &Path) -> Option<SystemTime> {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}

fn newest_under(dir: &Path) -> Option<SystemTime> {
    let mut newest = None;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else {
                newest = newest.max(modified(&path));
            }
        }
    }
    newest
}

fn has_pages(dist: &Path) -> bool {
    PAGES.iter().all(|p| dist.join(p).is_file()) && dist.join("assets").is_dir()
}

fn find_dist(web: &Path, out: &Path) -> Result<PathBuf, String> {
    if let Some(dist) = std::env::var_os("ANTICHESS_WEB_DIST").map(PathBuf::from) {
        if !has_pages(&dist) {
            return Err(format!(
                "ANTICHESS_WEB_DIST={} does not hold the built pages ({} and assets/)",
                dist.display(),
                PAGES.join(", ")
            ));
        }
        println!("cargo:rerun-if-changed={}", dist.display());
        return Ok(dist);
    }
    if !web.join("package.json").is_file() {
        return Err(format!(
            "no front end at {}: set ANTICHESS_WEB_DIST to a built dist/ directory",
            web.display()
        ));
    }
    let sources = [
        "src",
        "package.json",
        "package-lock.json",
        "build.mjs",
        "tsconfig.json",
    ];
    for s in sources {
        println!("cargo:rerun-if-changed={}", web.join(s).display());
    }
    let dist = web.join("dist");
    println!("cargo:rerun-if-changed={}", dist.display());
    let built = PAGES
        .iter()
        .map(|p| modified(&dist.join(p)))
        .collect::<Option<Vec<_>>>()
        .and_then(|t| t.into_iter().min());
    let newest_source = [
        newest_under(&web.join("src")),
        modified(&web.join("package-lock.json")),
        modified(&web.join("build.mjs")),
    ]
    .into_iter()
    .flatten()
    .max();
    if let Some(built) = built {
        if has_pages(&dist) && newest_source.is_none_or(|s| s <= built) {
            return Ok(dist);
        }
    }
    // Build a copy in OUT_DIR: the source tree is only read.
    let copy = out.join("web-build");
    for s in sources {
        let from = web.join(s);
        if from.is_dir() {
            let _ = std::fs::remove_dir_all(copy.join(s));
            copy_tree(&from, &copy.join(s))
                .map_err(|e| format!("copying {}: {e}", from.display()))?;
        } else if from.is_file() {
            std::fs::create_dir_all(&copy).map_err(|e| e.to_string())?;
            std::fs::copy(&from, copy.join(s))
                .map_err(|e| format!("copying {}: {e}", from.display()))?;
        }
    }
    for args in [
        &["ci", "--no-audit", "--no-fund"][..],
        &["run", "build"][..],
    ] {
        let status = Command::new("npm")
            .args(args)
            .current_dir(&copy)
            .status()
            .map_err(|e| {
                format!(
                    "web/dist is missing or older than its sources, and npm cannot be run ({e}): build it with `cd web && npm ci && npm run build` (Node.js 20 or newer), or set ANTICHESS_WEB_DIST"
                )
            })?;
        if !status.success() {
            return Err(format!(
                "`npm {}` in {} failed ({status})",
                args.join(" "),
                copy.display()
            ));
        }
    }
    let dist = copy.join("dist");
    if !has_pages(&dist) {
        return Err(format!("the build in {} wrote no pages", copy.display()));
    }
    Ok(dist)
}

fn copy_tree(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let path = entry.path();
        let dest = to.join(entry.file_name());
        if path.is_dir() {
            copy_tree(&path, &dest)?;
        } else {
            std::fs::copy(&path, &dest)?;
        }
    }
    Ok(())
}
