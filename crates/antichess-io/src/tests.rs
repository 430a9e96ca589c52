//! Tests of the atomic writes: what is replaced, what is refused and left alone, and what
//! is left behind (nothing).

use super::*;

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("antichess-io-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn writes_new_and_replaces_regular_files() {
    let dir = temp_dir("regular");
    let path = dir.join("out");
    write_atomic(&path, b"one").unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), b"one");
    write_atomic(&path, b"two").unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), b"two");
    let mut f = AtomicFile::create(&path).unwrap();
    f.write_all(b"thr").unwrap();
    f.write_all(b"ee").unwrap();
    f.sync().unwrap();
    assert_eq!(std::fs::read(f.temp_path()).unwrap(), b"three");
    assert_eq!(std::fs::read(&path).unwrap(), b"two");
    f.commit().unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), b"three");
    assert_eq!(names(&dir), ["out"]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[cfg(unix)]
#[test]
fn keeps_the_permissions_of_the_file_replaced() {
    use std::os::unix::fs::PermissionsExt;
    let dir = temp_dir("mode");
    let path = dir.join("out");
    std::fs::write(&path, b"old").unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
    write_atomic(&path, b"new").unwrap();
    let mode = std::fs::metadata(&path).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn dropped_without_commit_leaves_nothing() {
    let dir = temp_dir("drop");
    let path = dir.join("out");
    std::fs::write(&path, b"old").unwrap();
    {
        let mut f = AtomicFile::create(&path).unwrap();
        f.write_all(b"half").unwrap();
    }
    assert_eq!(std::fs::read(&path).unwrap(), b"old");
    assert_eq!(names(&dir), ["out"]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn refuses_a_directory() {
    let dir = temp_dir("dir");
    let path = dir.join("sub");
    std::fs::create_dir(&path).unwrap();
    let err = write_atomic(&path, b"x").unwrap_err().to_string();
    assert!(err.contains(&path.display().to_string()), "{err}");
    assert!(err.contains("is a directory"), "{err}");
    assert!(path.is_dir());
    assert_eq!(names(&dir), ["sub"]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[cfg(unix)]
#[test]
fn refuses_a_symlink_and_leaves_it_and_its_target() {
    let dir = temp_dir("symlink");
    let target = dir.join("target");
    std::fs::write(&target, b"target").unwrap();
    let link = dir.join("link");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let dangling = dir.join("dangling");
    std::os::unix::fs::symlink(dir.join("nowhere"), &dangling).unwrap();
    for path in [&link, &dangling] {
        let err = write_atomic(path, b"x").unwrap_err().to_string();
        assert!(err.contains(&path.display().to_string()), "{err}");
        assert!(err.contains("symbolic link"), "{err}");
        assert!(AtomicFile::create(path).is_err());
        assert!(std::fs::symlink_metadata(path)
            .unwrap()
            .file_type()
            .is_symlink());
    }
    assert_eq!(std::fs::read(&target).unwrap(), b"target");
    assert_eq!(names(&dir), ["dangling", "link", "target"]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[cfg(unix)]
#[test]
fn refuses_a_fifo() {
    let dir = temp_dir("fifo");
    let path = dir.join("pipe");
    let made = std::process::Command::new("mkfifo").arg(&path).status();
    if !made.is_ok_and(|s| s.success()) {
        eprintln!("skipped: mkfifo is not available");
        return;
    }
    let err = write_atomic(&path, b"x").unwrap_err().to_string();
    assert!(err.contains("FIFO"), "{err}");
    use std::os::unix::fs::FileTypeExt;
    assert!(std::fs::symlink_metadata(&path)
        .unwrap()
        .file_type()
        .is_fifo());
    assert_eq!(names(&dir), ["pipe"]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[cfg(unix)]
#[test]
fn refuses_a_device() {
    // /dev/null is only looked at: the check refuses it before anything is created.
    let err = check_target(Path::new("/dev/null"))
        .unwrap_err()
        .to_string();
    assert!(err.contains("/dev/null: is a character device"), "{err}");
}

#[test]
fn the_temporary_name_is_beside_the_output_and_commits() {
    let dir = temp_dir("temp-path");
    let path = dir.join("book");
    let temp = temp_path(&path).unwrap();
    assert_eq!(temp.parent(), Some(dir.as_path()));
    std::fs::write(&temp, b"data").unwrap();
    commit_temp(&temp, &path).unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), b"data");
    assert_eq!(names(&dir), ["book"]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[cfg(unix)]
#[test]
fn stale_temporary_files_are_removed_and_live_ones_kept() {
    let dir = temp_dir("stale");
    let path = dir.join("ck");
    std::fs::write(&path, b"ck").unwrap();
    // A process that is surely gone: a pid above Linux's pid_max.
    let gone = dir.join(".ck.tmp-4294967290");
    let gone_n = dir.join(".ck.tmp-4294967290-3");
    // Another file's temporary file, and names that only look alike.
    let other = dir.join(".other.tmp-4294967290-1");
    let unlike = dir.join(".ck.tmp-abc");
    for p in [&gone, &gone_n, &other, &unlike] {
        std::fs::write(p, b"").unwrap();
    }
    // One being written by this process.
    let mut writing = AtomicFile::create(&path).unwrap();
    writing.write_all(b"new").unwrap();
    // One of a live process (this one's parent is alive while the test runs).
    let parent = std::os::unix::process::parent_id();
    let alive = dir.join(format!(".ck.tmp-{parent}-0"));
    std::fs::write(&alive, b"").unwrap();
    let removed = remove_stale_temps(&path).unwrap();
    if Path::new("/proc/self").exists() {
        let mut removed = removed;
        removed.sort();
        assert_eq!(removed, [gone.clone(), gone_n.clone()]);
        assert!(!gone.exists() && !gone_n.exists());
    }
    assert!(other.exists() && unlike.exists() && alive.exists());
    assert!(writing.temp_path().exists());
    writing.commit().unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), b"new");
    let _ = std::fs::remove_dir_all(&dir);
}
