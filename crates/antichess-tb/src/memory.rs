//! The peak resident memory of this process, for the build logs: Linux's `VmHWM` (high
//! water mark of the resident set) from `/proc/self/status`, reset before each table by
//! writing `5` to `/proc/self/clear_refs` so that the peak is the table's own. Elsewhere
//! (or where `/proc` is not readable) nothing is known and the figure is `None`.

/// Resets the peak to the current resident size; `false` if this system cannot.
pub fn reset_peak() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}

/// The peak resident memory in bytes since the process started or since the last
/// [`reset_peak`].
#[must_use]
pub fn peak_resident() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status_field(&status, "VmHWM:")
}

/// A `kB` field of `/proc/self/status`, in bytes.
fn status_field(status: &str, name: &str) -> Option<u64> {
    let line = status.lines().find(|l| l.starts_with(name))?;
    let kb: u64 = line[name.len()..]
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    Some(kb * 1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_fields_are_read_in_bytes() {
        let status = "Name:\tx\nVmHWM:\t   13576 kB\nVmRSS:\t 100 kB\n";
        assert_eq!(status_field(status, "VmHWM:"), Some(13576 * 1024));
        assert_eq!(status_field(status, "VmRSS:"), Some(100 * 1024));
        assert_eq!(status_field(status, "VmPeak:"), None);
        if cfg!(target_os = "linux") {
            let before = peak_resident().expect("Linux has /proc/self/status");
            let big = vec![1u8; 64 << 20];
            let after = peak_resident().unwrap();
            assert!(after >= before + (32 << 20), "{before} {after} {}", big[77]);
        }
    }
}
