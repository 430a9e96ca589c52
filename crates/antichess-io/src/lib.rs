//! Atomic file writes, the one way the suite replaces a file: proofs, tables, checkpoints,
//! books cut or copied to SQLite, every output a command writes.
//!
//! A write goes to a temporary file in the output's directory, named
//! `.<name>.tmp-<pid>-<n>` and created with `create_new` (`O_EXCL`: never an existing file,
//! never through a symlink planted there); the file is synced, renamed over the output, and
//! the directory is synced, so that the output is either the old file or the new one, even
//! after a crash. The temporary file is removed on any error, and when an [`AtomicFile`] is
//! dropped without [`AtomicFile::commit`].
//!
//! **What may be replaced.** Only a regular file, or nothing. An output that exists and is
//! a directory, a device (`/dev/null`, `/dev/full`), a FIFO or a socket is refused with an
//! error that names it and what it is, and left as it was: a rename would turn the device
//! into a regular file. An output that is a **symbolic link is refused too**, whatever it
//! points to: the link is neither followed (that would write where the user may not expect)
//! nor replaced (that would silently break it). Name the file it points to to write there.
//! The output is checked when the write starts and again just before the rename.
//!
//! A replaced file keeps its permissions. Temporary files left behind by a process killed
//! while writing can be removed with [`remove_stale_temps`], which removes only those of
//! one output whose process is gone.
//!
//! Errors are [`std::io::Error`]s whose message names the path.
//!
//! Files written this way can be read through a read-only memory map ([`MappedFile`]): a
//! replaced file is a new file, so a map of the old one never changes under its reader.

// One `unsafe` block, in `mapped` (a read-only memory map), with its safety argument.
#![deny(unsafe_code)]
#![warn(missing_docs)]

mod mapped;
pub use mapped::MappedFile;

use std::collections::HashSet;
use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

/// Temporary files this process is writing now (never removed as stale).
static LIVE: Mutex<Option<HashSet<PathBuf>>> = Mutex::new(None);
/// The counter that makes this process's temporary names unique.
static COUNTER: AtomicU64 = AtomicU64::new(0);

fn live(f: impl FnOnce(&mut HashSet<PathBuf>)) {
    let mut guard = LIVE
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    f(guard.get_or_insert_with(HashSet::new));
}

fn is_live(path: &Path) -> bool {
    let mut found = false;
    live(|set| found = set.contains(path));
    found
}

/// An error about `path` (its message names it).
fn error(kind: io::ErrorKind, path: &Path, message: impl std::fmt::Display) -> io::Error {
    io::Error::new(kind, format!("{}: {message}", path.display()))
}

/// The same error with the path in front of its message.
fn naming(path: &Path, e: io::Error) -> io::Error {
    error(e.kind(), path, e)
}

/// What a file that is not a regular file is, in words ("a directory", "a character
/// device", ...), for messages that refuse it.
#[must_use]
pub fn kind_of(file_type: std::fs::FileType) -> &'static str {
    if file_type.is_dir() {
        return "a directory";
    }
    if file_type.is_symlink() {
        return "a symbolic link";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if file_type.is_char_device() {
            return "a character device";
        }
        if file_type.is_block_device() {
            return "a block device";
        }
        if file_type.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if file_type.is_socket() {
            return "a socket";
        }
    }
    "not a regular file"
}

/// Checks that `path` may be replaced: it does not exist, or it is a regular file (not a
/// symbolic link, a directory, a device, a FIFO or a socket). Returns its metadata if it
/// exists.
///
/// # Errors
/// When it may not be replaced (the message names the path and what it is), or its
/// metadata cannot be read.
pub fn check_target(path: &Path) -> io::Result<Option<std::fs::Metadata>> {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_file() => Ok(Some(meta)),
        Ok(meta) if meta.file_type().is_symlink() => Err(error(
            io::ErrorKind::InvalidInput,
            path,
            "is a symbolic link: refusing to replace it or write through it (name the file it points to)",
        )),
        Ok(meta) => Err(error(
            io::ErrorKind::InvalidInput,
            path,
            format!(
                "is {}, not a regular file: refusing to replace it",
                kind_of(meta.file_type())
            ),
        )),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(naming(path, e)),
    }
}

/// The directory of `path` (`.` for a bare name) and its file name.
fn split(path: &Path) -> io::Result<(PathBuf, String)> {
    let name = path
        .file_name()
        .ok_or_else(|| error(io::ErrorKind::InvalidInput, path, "is not a file name"))?
        .to_string_lossy()
        .into_owned();
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
        _ => PathBuf::from("."),
    };
    Ok((dir, name))
}

/// The prefix of every temporary name of `path`'s writes: `.<name>.tmp-`.
fn temp_prefix(name: &str) -> String {
    format!(".{name}.tmp-")
}

/// A fresh temporary name beside `path`: `.<name>.tmp-<pid>-<n>`.
fn next_temp(dir: &Path, name: &str) -> PathBuf {
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    dir.join(format!("{}{}-{n}", temp_prefix(name), std::process::id()))
}

/// Creates a new temporary file beside `path` (with `create_new`); returns it and its path.
fn create_temp(path: &Path) -> io::Result<(File, PathBuf)> {
    let (dir, name) = split(path)?;
    let mut last = None;
    for _ in 0..64 {
        let temp = next_temp(&dir, &name);
        match OpenOptions::new().write(true).create_new(true).open(&temp) {
            Ok(file) => {
                live(|set| {
                    set.insert(temp.clone());
                });
                return Ok((file, temp));
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => {
                return Err(error(
                    e.kind(),
                    path,
                    format!("creating a temporary file in {}: {e}", dir.display()),
                ))
            }
        }
    }
    Err(error(
        io::ErrorKind::AlreadyExists,
        path,
        format!(
            "no free temporary name in {}: {}",
            dir.display(),
            last.map_or_else(String::new, |e| e.to_string())
        ),
    ))
}

/// Syncs the directory of `path` after a rename (where the platform allows it).
fn sync_dir(path: &Path) -> io::Result<()> {
    let (dir, _) = split(path)?;
    #[cfg(unix)]
    {
        match File::open(&dir).and_then(|d| d.sync_all()) {
            Ok(()) => Ok(()),
            // Some file systems cannot sync a directory; the rename is done all the same.
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::InvalidInput | io::ErrorKind::Unsupported
                ) =>
            {
                Ok(())
            }
            Err(e) => Err(error(
                e.kind(),
                path,
                format!("syncing {}: {e}", dir.display()),
            )),
        }
    }
    #[cfg(not(unix))]
    {
        let _ = dir;
        Ok(())
    }
}

/// Renames the synced `temp` over `path` after checking `path` again, then syncs the
/// directory. Gives `temp` the permissions of the file it replaces.
fn rename_into_place(temp: &Path, path: &Path) -> io::Result<()> {
    if let Some(meta) = check_target(path)? {
        std::fs::set_permissions(temp, meta.permissions()).map_err(|e| naming(path, e))?;
    }
    std::fs::rename(temp, path).map_err(|e| {
        error(
            e.kind(),
            path,
            format!("renaming {} over it: {e}", temp.display()),
        )
    })?;
    sync_dir(path)
}

/// Writes `bytes` to `path` atomically (see the crate's documentation).
///
/// # Errors
/// When `path` may not be replaced ([`check_target`]) or a step fails; the temporary file
/// is removed and `path` left as it was.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut file = AtomicFile::create(path)?;
    file.write_all(bytes).map_err(|e| naming(path, e))?;
    file.commit()
}

/// A file being written under a temporary name beside its destination, renamed over it by
/// [`AtomicFile::commit`]. Writes are buffered. Dropped without a commit, it removes its
/// temporary file.
#[derive(Debug)]
pub struct AtomicFile {
    path: PathBuf,
    temp: PathBuf,
    file: Option<BufWriter<File>>,
}

impl AtomicFile {
    /// Starts a write of `path`: checks that `path` may be replaced ([`check_target`]) and
    /// creates the temporary file.
    ///
    /// # Errors
    /// When `path` may not be replaced, or the temporary file cannot be created.
    pub fn create(path: &Path) -> io::Result<AtomicFile> {
        check_target(path)?;
        let (file, temp) = create_temp(path)?;
        Ok(AtomicFile {
            path: path.to_path_buf(),
            temp,
            file: Some(BufWriter::with_capacity(1 << 16, file)),
        })
    }

    /// The destination.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The temporary file being written (e.g. to verify it before the commit, after
    /// [`AtomicFile::sync`]).
    #[must_use]
    pub fn temp_path(&self) -> &Path {
        &self.temp
    }

    fn writer(&mut self) -> &mut BufWriter<File> {
        self.file
            .as_mut()
            .expect("an AtomicFile is only used before its commit")
    }

    /// Flushes the buffered writes and syncs the temporary file to disk.
    ///
    /// # Errors
    /// When the flush or the sync fails.
    pub fn sync(&mut self) -> io::Result<()> {
        let path = self.path.clone();
        let w = self.writer();
        w.flush().map_err(|e| naming(&path, e))?;
        w.get_ref().sync_all().map_err(|e| naming(&path, e))
    }

    /// Flushes and syncs the temporary file, checks the destination again, renames the
    /// temporary file over it and syncs the directory.
    ///
    /// # Errors
    /// When a step fails or the destination may no longer be replaced; the temporary file
    /// is then removed and the destination left as it was.
    pub fn commit(mut self) -> io::Result<()> {
        self.sync()?;
        drop(self.file.take());
        let result = rename_into_place(&self.temp, &self.path);
        if result.is_err() {
            let _ = std::fs::remove_file(&self.temp);
        }
        live(|set| {
            set.remove(&self.temp);
        });
        result
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.writer().write(buf)
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.writer().write_all(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.writer().flush()
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if self.file.take().is_some() {
            let _ = std::fs::remove_file(&self.temp);
            live(|set| {
                set.remove(&self.temp);
            });
        }
    }
}

/// A temporary name beside `path` for a writer that must create the file itself (e.g.
/// SQLite): checks that `path` may be replaced and returns a name that does not exist yet,
/// to be written and then passed to [`commit_temp`] (or removed by the caller on failure).
///
/// # Errors
/// When `path` may not be replaced or is not a file name.
pub fn temp_path(path: &Path) -> io::Result<PathBuf> {
    check_target(path)?;
    let (dir, name) = split(path)?;
    for _ in 0..64 {
        let temp = next_temp(&dir, &name);
        if std::fs::symlink_metadata(&temp).is_err() {
            live(|set| {
                set.insert(temp.clone());
            });
            return Ok(temp);
        }
    }
    Err(error(
        io::ErrorKind::AlreadyExists,
        path,
        format!("no free temporary name in {}", dir.display()),
    ))
}

/// Syncs `temp` (written under a name from [`temp_path`]), renames it over `path` after
/// checking `path` again, and syncs the directory. On failure `temp` is left for the caller
/// to remove.
///
/// # Errors
/// When `path` may no longer be replaced, or a step fails.
pub fn commit_temp(temp: &Path, path: &Path) -> io::Result<()> {
    let result = File::open(temp)
        .and_then(|f| f.sync_all())
        .map_err(|e| error(e.kind(), path, format!("syncing {}: {e}", temp.display())))
        .and_then(|()| rename_into_place(temp, path));
    live(|set| {
        set.remove(temp);
    });
    result
}

/// Whether the process `pid` is gone (on Linux, through `/proc`; elsewhere nothing is
/// known to be gone).
fn process_gone(pid: u32) -> bool {
    let proc = Path::new("/proc");
    proc.join("self").exists() && !proc.join(pid.to_string()).exists()
}

/// Removes the temporary files that writes of `path` left behind (a process killed during
/// a write): files beside `path` named `.<name>.tmp-<pid>` or `.<name>.tmp-<pid>-<n>` whose
/// process is gone, or that are this process's own and not being written now. Files of a
/// live process are left alone. Returns the files removed.
///
/// # Errors
/// When the directory cannot be read or a stale file cannot be removed.
pub fn remove_stale_temps(path: &Path) -> io::Result<Vec<PathBuf>> {
    let (dir, name) = split(path)?;
    let prefix = temp_prefix(&name);
    let entries = match std::fs::read_dir(&dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(error(e.kind(), &dir, e)),
    };
    let mut removed = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| naming(&dir, e))?;
        let file_name = entry.file_name();
        let Some(rest) = file_name.to_str().and_then(|n| n.strip_prefix(&prefix)) else {
            continue;
        };
        let pid_text = rest.split_once('-').map_or(rest, |(pid, n)| {
            if n.bytes().all(|b| b.is_ascii_digit()) && !n.is_empty() {
                pid
            } else {
                ""
            }
        });
        let Ok(pid) = pid_text.parse::<u32>() else {
            continue;
        };
        let temp = entry.path();
        let stale = if pid == std::process::id() {
            !is_live(&temp)
        } else {
            process_gone(pid)
        };
        if stale && entry.file_type().is_ok_and(|t| t.is_file()) {
            std::fs::remove_file(&temp).map_err(|e| naming(&temp, e))?;
            removed.push(temp);
        }
    }
    Ok(removed)
}

#[cfg(test)]
mod tests;
