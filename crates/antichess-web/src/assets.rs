//! The front end's files: where they are, and building them when they are missing or
//! older than their sources.
//!
//! The front end lives in the repository's `web/` (TypeScript, bundled by esbuild, with
//! `@lichess-org/chessground` from npm); `npm ci && npm run build` there writes
//! `web/dist`, which the server serves. [`ensure_built`] runs those two commands when
//! `dist` is missing or stale and `npm` is available, printing what it does, and otherwise
//! fails with a message that names the one command to run. Cargo builds never run npm, so
//! `cargo build` and `cargo test` need neither Node nor the network.
//!
//! With the cargo feature `embed-web`, the build script puts the built files into the
//! binary instead ([`embedded`]): an installed `antichess serve` then serves its pages
//! with no `web/` and no npm at run time, and writes nothing anywhere. The build script
//! takes `$ANTICHESS_WEB_DIST` (a built `dist` directory) if set, else the repository's
//! `web/dist` when it is built and newer than its sources, else builds a copy of `web/`
//! with npm in cargo's `OUT_DIR` (the source tree is left as it is); see `build.rs`.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::SystemTime;

/// The command that builds the front end by hand.
pub const BUILD_COMMAND: &str = "cd web && npm ci && npm run build";

/// The front end's source directory: `$ANTICHESS_WEB_DIR`, else the repository's `web/`
/// (as compiled in).
#[must_use]
pub fn default_web_dir() -> PathBuf {
    let dir = std::env::var_os("ANTICHESS_WEB_DIR").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../../web"),
        PathBuf::from,
    );
    dir.canonicalize().unwrap_or(dir)
}

/// The pages and the files they are built from.
pub const PAGES: [&str; 3] = ["index.html", "search.html", "tablebase.html"];

fn modified(path: &Path) -> Option<SystemTime> {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}

/// The newest modification time of the files under `dir` (recursively).
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
            } else if let Some(t) = modified(&path) {
                newest = newest.max(Some(t));
            }
        }
    }
    newest
}

/// Whether `web/dist` holds every page and is newer than the sources.
#[must_use]
pub fn is_built(web: &Path) -> bool {
    let dist = web.join("dist");
    let Some(built) = PAGES
        .iter()
        .map(|p| modified(&dist.join(p)))
        .collect::<Option<Vec<_>>>()
        .and_then(|times| times.into_iter().min())
    else {
        return false;
    };
    let sources = [
        newest_under(&web.join("src")),
        modified(&web.join("package-lock.json")),
        modified(&web.join("build.mjs")),
    ];
    sources.into_iter().flatten().all(|t| t <= built)
}

fn run(web: &Path, args: &[&str], log: &mut dyn FnMut(&str)) -> Result<(), String> {
    log(&format!(
        "web: running `npm {}` in {}",
        args.join(" "),
        web.display()
    ));
    let status = Command::new("npm")
        .args(args)
        .current_dir(web)
        .stdin(Stdio::null())
        .status()
        .map_err(|e| format!("running npm: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("`npm {}` failed ({status})", args.join(" ")))
    }
}

/// Makes sure the front end in `web` is built, building it if needed (`npm ci` when its
/// packages are missing, then `npm run build`); returns `web/dist`. `log` receives
/// progress lines.
pub fn ensure_built(web: &Path, log: &mut dyn FnMut(&str)) -> Result<PathBuf, String> {
    let dist = web.join("dist");
    if is_built(web) {
        return Ok(dist);
    }
    let has_sources = web.join("package.json").exists();
    if !has_sources {
        return Err(format!(
            "no front end at {}: neither built pages in dist/ nor its sources (give --web-dir, or set ANTICHESS_WEB_DIR to the repository's web/ directory)",
            web.display()
        ));
    }
    let npm = Command::new("npm")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    let fail = |why: String| {
        format!(
            "{why}; the front end in {} is not built: run `cd {} && npm ci && npm run build` (Node.js 20 or newer), or start with --no-web for the API alone",
            web.display(),
            web.display()
        )
    };
    if !npm {
        return Err(fail("npm was not found".into()));
    }
    let installed = web.join("node_modules/.package-lock.json");
    let need_install = match (
        modified(&installed),
        modified(&web.join("package-lock.json")),
    ) {
        (Some(installed), Some(lock)) => installed < lock,
        (None, _) => true,
        (Some(_), None) => false,
    };
    if need_install {
        log("web: installing the front end's packages from npm (one time)");
        run(web, &["ci", "--no-audit", "--no-fund"], log).map_err(fail)?;
    }
    log("web: building the front end");
    run(web, &["run", "build"], log).map_err(fail)?;
    if !is_built(web) {
        return Err(fail("the build did not write every page".into()));
    }
    Ok(dist)
}

/// A set of built front-end files held in memory: the file at a path of `dist`
/// (`index.html`, `assets/explorer.js`), if there is one.
pub type EmbeddedFiles = fn(&str) -> Option<&'static [u8]>;

#[cfg(feature = "embed-web")]
static DIST: include_dir::Dir<'static> = include_dir::include_dir!("$OUT_DIR/web-dist");

#[cfg(feature = "embed-web")]
fn embedded_file(path: &str) -> Option<&'static [u8]> {
    DIST.get_file(path).map(include_dir::File::contents)
}

/// The front end built into this binary (cargo feature `embed-web`), if it was.
#[must_use]
pub fn embedded() -> Option<EmbeddedFiles> {
    #[cfg(feature = "embed-web")]
    {
        Some(embedded_file)
    }
    #[cfg(not(feature = "embed-web"))]
    {
        None
    }
}

/// The `Content-Type` of a front-end file, by its extension.
#[must_use]
pub fn content_type(path: &str) -> &'static str {
    match path.rsplit_once('.').map_or("", |(_, ext)| ext) {
        "html" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "json" | "map" => "application/json",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "woff2" => "font/woff2",
        "woff" => "font/woff",
        _ => "application/octet-stream",
    }
}
