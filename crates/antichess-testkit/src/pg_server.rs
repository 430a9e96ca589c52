//! A throwaway PostgreSQL server for tests, from Debian's packaged binaries
//! (`/usr/lib/postgresql/<version>/bin`): a fresh cluster in a temporary directory
//! (`initdb`, run as the `postgres` user when the tests run as root, since PostgreSQL
//! refuses to run as root), listening on 127.0.0.1 on a free port and on a socket in that
//! directory, stopped by its pid (SIGINT: fast shutdown) when the last test using it is
//! done. A watchdog stops it too if the test process dies first. Nothing depends on the
//! Debian cluster service.
//!
//! Without the binaries the tests that need a server are skipped with a message, unless
//! `ANTICHESS_REQUIRE_POSTGRES=1` is set (CI sets it), which makes that a failure.
//!
//! Used by the book store's tests and the CLI's `book` tests on PostgreSQL.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

/// A running server.
#[derive(Debug)]
pub struct PgServer {
    dir: PathBuf,
    bin: PathBuf,
    root: bool,
    port: u16,
    postmaster: u32,
    /// `postgres` (or `runuser`, which waits for it).
    child: Child,
    watchdog: Option<Child>,
}

static SHARED: Mutex<Weak<PgServer>> = Mutex::new(Weak::new());
static DATABASES: AtomicUsize = AtomicUsize::new(0);

/// A server of the caller's own (for a test that stops and restarts it), or `None` as
/// for [`server`].
pub fn dedicated() -> Option<PgServer> {
    PgServer::start()
}

/// The server shared by the tests running now (started if none is), or `None` when
/// PostgreSQL is not installed and not required (the caller skips its test).
pub fn server() -> Option<Arc<PgServer>> {
    let mut shared = SHARED.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(server) = shared.upgrade() {
        return Some(server);
    }
    let server = Arc::new(PgServer::start()?);
    *shared = Arc::downgrade(&server);
    Some(server)
}

fn required() -> bool {
    std::env::var("ANTICHESS_REQUIRE_POSTGRES").is_ok_and(|v| v == "1")
}

/// Skips (prints why, returns `None`) or, when PostgreSQL is required, fails.
fn unavailable(why: &str) -> Option<PgServer> {
    assert!(
        !required(),
        "PostgreSQL is required (ANTICHESS_REQUIRE_POSTGRES=1) but {why}"
    );
    eprintln!(
        "skipping a PostgreSQL test: {why} (install Debian's postgresql package; set ANTICHESS_REQUIRE_POSTGRES=1 to make this a failure)"
    );
    None
}

/// The newest `/usr/lib/postgresql/<version>/bin` with `initdb` and `postgres`.
fn bin_dir() -> Option<PathBuf> {
    let mut found: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let version = e.file_name().to_string_lossy().parse::<u32>().ok()?;
            let bin = e.path().join("bin");
            (bin.join("initdb").exists() && bin.join("postgres").exists()).then_some((version, bin))
        })
        .collect();
    found.sort();
    found.pop().map(|(_, bin)| bin)
}

fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("Uid:"))
                .and_then(|l| l.split_whitespace().nth(1).map(|u| u == "0"))
        })
        .unwrap_or(false)
}

/// A command of the server's binaries, as the `postgres` user when we are root.
fn pg_command(bin: &Path, program: &str, root: bool) -> Command {
    if root {
        let mut c = Command::new("runuser");
        c.args(["-u", "postgres", "--"]).arg(bin.join(program));
        c
    } else {
        Command::new(bin.join(program))
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port on 127.0.0.1")
}

/// Starts `postgres` on the cluster in `dir` (its data in `dir/data`) on `port` and waits
/// until it accepts connections; returns the process, the postmaster's pid and a
/// watchdog that stops it if the test process dies first.
fn launch(
    bin: &Path,
    root: bool,
    dir: &Path,
    port: u16,
) -> Result<(Child, u32, Option<Child>), String> {
    let data = dir.join("data");
    let log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(dir.join("server.log"))
        .expect("the server's log");
    let child = pg_command(bin, "postgres", root)
        .arg("-D")
        .arg(&data)
        .arg("-p")
        .arg(port.to_string())
        .arg("-k")
        .arg(dir)
        .args([
            "-c",
            "listen_addresses=127.0.0.1",
            "-c",
            "max_connections=200",
            "-c",
            "fsync=off",
            "-c",
            "full_page_writes=off",
        ])
        .stdin(Stdio::null())
        .stdout(log.try_clone().expect("log"))
        .stderr(log)
        .spawn();
    let mut child = child.map_err(|e| format!("cannot start postgres: {e}"))?;
    // Ready when it accepts connections; its pid is the first line of postmaster.pid.
    let start = Instant::now();
    let postmaster = loop {
        let ready = Command::new(bin.join("pg_isready"))
            .args(["-h", "127.0.0.1", "-p", &port.to_string(), "-q"])
            .status()
            .is_ok_and(|s| s.success());
        let pid = std::fs::read_to_string(data.join("postmaster.pid"))
            .ok()
            .and_then(|s| s.lines().next().and_then(|l| l.trim().parse::<u32>().ok()));
        if let (true, Some(pid)) = (ready, pid) {
            break pid;
        }
        if child.try_wait().ok().flatten().is_some() || start.elapsed() > Duration::from_secs(60) {
            let log = std::fs::read_to_string(dir.join("server.log")).unwrap_or_default();
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("the server did not start:\n{log}"));
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    // Stops the server if this test process dies without dropping it.
    let watchdog = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "while kill -0 {} 2>/dev/null; do sleep 1; done; kill -INT {postmaster} 2>/dev/null; sleep 10; rm -rf '{}'",
            std::process::id(),
            dir.display()
        ))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .ok();
    Ok((child, postmaster, watchdog))
}

impl PgServer {
    fn start() -> Option<PgServer> {
        let Some(bin) = bin_dir() else {
            return unavailable("no server binaries under /usr/lib/postgresql/*/bin");
        };
        let root = is_root();
        static SERVERS: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "antichess-pg-{}-{}",
            std::process::id(),
            SERVERS.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create the server's directory");
        if root {
            let chown = Command::new("chown")
                .args(["postgres:postgres"])
                .arg(&dir)
                .output();
            if !chown.as_ref().is_ok_and(|o| o.status.success()) {
                let _ = std::fs::remove_dir_all(&dir);
                return unavailable(&format!(
                    "cannot give {} to the postgres user: {chown:?}",
                    dir.display()
                ));
            }
        }
        let data = dir.join("data");
        let initdb = pg_command(&bin, "initdb", root)
            .arg("-D")
            .arg(&data)
            .args([
                "-A",
                "trust",
                "-U",
                "postgres",
                "-E",
                "UTF8",
                "--locale=C",
                "--no-sync",
            ])
            .output();
        match &initdb {
            Ok(o) if o.status.success() => {}
            _ => {
                let _ = std::fs::remove_dir_all(&dir);
                return unavailable(&format!("initdb failed: {initdb:?}"));
            }
        }
        let port = free_port();
        let (child, postmaster, watchdog) = match launch(&bin, root, &dir, port) {
            Ok(started) => started,
            Err(why) => {
                let _ = std::fs::remove_dir_all(&dir);
                return unavailable(&why);
            }
        };
        eprintln!(
            "PostgreSQL test server: pid {postmaster}, port {port}, directory {}",
            dir.display()
        );
        Some(PgServer {
            dir,
            bin,
            root,
            port,
            postmaster,
            child,
            watchdog,
        })
    }

    /// Stops the server (fast shutdown: connections are cut), keeping its data.
    pub fn stop(&mut self) {
        if let Some(mut w) = self.watchdog.take() {
            let _ = w.kill();
            let _ = w.wait();
        }
        if self.child.try_wait().ok().flatten().is_some() {
            return;
        }
        let _ = Command::new("kill")
            .args(["-INT", &self.postmaster.to_string()])
            .status();
        let start = Instant::now();
        while self.child.try_wait().ok().flatten().is_none() {
            if start.elapsed() > Duration::from_secs(30) {
                let _ = Command::new("kill")
                    .args(["-KILL", &self.postmaster.to_string()])
                    .status();
                let _ = self.child.kill();
                let _ = self.child.wait();
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Starts the stopped server again on the same port and data.
    pub fn start_again(&mut self) {
        let (child, postmaster, watchdog) =
            launch(&self.bin, self.root, &self.dir, self.port).expect("the server restarts");
        self.child = child;
        self.postmaster = postmaster;
        self.watchdog = watchdog;
    }

    /// Restarts the server with TLS required on TCP (`hostssl` only in pg_hba.conf) and a
    /// certificate for `localhost` signed by a test CA, both made with `openssl`; the role
    /// `certuser` (may create databases) logs in only with a client certificate signed by
    /// that CA and naming it (`cert` authentication). Returns the files ([`TlsFiles`]);
    /// `None` (the caller skips) when `openssl` is missing and PostgreSQL is not required.
    pub fn require_tls(&mut self) -> Option<TlsFiles> {
        let tls = self.dir.join("tls");
        std::fs::create_dir_all(&tls).expect("the certificates' directory");
        let openssl = |args: &[&str]| {
            Command::new("openssl")
                .args(args)
                .current_dir(&tls)
                .output()
                .map_err(|e| format!("openssl: {e}"))
                .and_then(|o| {
                    if o.status.success() {
                        Ok(())
                    } else {
                        Err(format!(
                            "openssl {args:?}: {}",
                            String::from_utf8_lossy(&o.stderr)
                        ))
                    }
                })
        };
        let ca = |name: &str| {
            openssl(&[
                "req",
                "-x509",
                "-newkey",
                "rsa:2048",
                "-nodes",
                "-days",
                "2",
                "-keyout",
                &format!("{name}.key"),
                "-out",
                &format!("{name}.crt"),
                "-subj",
                &format!("/CN=antichess test {name}"),
            ])
        };
        // A key and an X.509 v3 certificate for `cn` with the extensions of the file `ext`,
        // signed by `signer`.
        let signed = |name: &str, cn: &str, signer: &str, ext: &str| {
            let (key, csr, crt) = (
                format!("{name}.key"),
                format!("{name}.csr"),
                format!("{name}.crt"),
            );
            let (ca_crt, ca_key) = (format!("{signer}.crt"), format!("{signer}.key"));
            let subject = format!("/CN={cn}");
            openssl(&[
                "req", "-newkey", "rsa:2048", "-nodes", "-keyout", &key, "-out", &csr, "-subj",
                &subject,
            ])?;
            openssl(&[
                "x509",
                "-req",
                "-in",
                &csr,
                "-CA",
                &ca_crt,
                "-CAkey",
                &ca_key,
                "-CAcreateserial",
                "-days",
                "2",
                "-out",
                &crt,
                "-extfile",
                ext,
            ])
        };
        std::fs::write(tls.join("server.ext"), "subjectAltName=DNS:localhost\n").expect("ext");
        std::fs::write(tls.join("client.ext"), "extendedKeyUsage=clientAuth\n").expect("ext");
        let made = ca("ca")
            .and_then(|()| ca("other-ca"))
            .and_then(|()| signed("client", "certuser", "ca", "client.ext"))
            .and_then(|()| signed("foreign-client", "certuser", "other-ca", "client.ext"))
            .and_then(|()| signed("server", "localhost", "ca", "server.ext"));
        if let Err(why) = made {
            let _ = unavailable(&why);
            return None;
        }
        let created = Command::new(self.bin.join("createuser"))
            .args([
                "-h",
                "127.0.0.1",
                "-p",
                &self.port.to_string(),
                "-U",
                "postgres",
            ])
            .args(["--login", "--createdb", "certuser"])
            .status();
        assert!(
            created.as_ref().is_ok_and(|s| s.success()),
            "createuser certuser: {created:?}"
        );
        let data = self.dir.join("data");
        for file in ["server.crt", "server.key", "ca.crt"] {
            std::fs::copy(tls.join(file), data.join(file)).expect("copy the certificate");
        }
        std::fs::write(
            data.join("pg_hba.conf"),
            "local all all trust\nhostssl all certuser 127.0.0.1/32 cert\nhostssl all all 127.0.0.1/32 trust\n",
        )
        .expect("pg_hba.conf");
        let mut conf = std::fs::OpenOptions::new()
            .append(true)
            .open(data.join("postgresql.conf"))
            .expect("postgresql.conf");
        std::io::Write::write_all(&mut conf, b"\nssl = on\nssl_ca_file = 'ca.crt'\n")
            .expect("postgresql.conf");
        if self.root {
            let owned = Command::new("chown")
                .args(["-R", "postgres:postgres"])
                .arg(&data)
                .status();
            assert!(owned.is_ok_and(|s| s.success()), "chown the data directory");
        }
        std::fs::set_permissions(
            data.join("server.key"),
            std::os::unix::fs::PermissionsExt::from_mode(0o600),
        )
        .expect("chmod server.key");
        self.stop();
        self.start_again();
        Some(TlsFiles {
            ca: tls.join("ca.crt"),
            other_ca: tls.join("other-ca.crt"),
            client: (tls.join("client.crt"), tls.join("client.key")),
            foreign_client: (
                tls.join("foreign-client.crt"),
                tls.join("foreign-client.key"),
            ),
        })
    }

    /// The port the server listens on (on 127.0.0.1).
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The URL of a fresh database (`book new` creates it).
    pub fn url(&self, name: &str) -> String {
        format!(
            "postgres://postgres@127.0.0.1:{}/{name}_{}",
            self.port,
            DATABASES.fetch_add(1, Ordering::Relaxed)
        )
    }
}

/// The PEM files of [`PgServer::require_tls`].
#[derive(Debug)]
pub struct TlsFiles {
    /// The CA that signed the server's certificate and `client`.
    pub ca: PathBuf,
    /// A CA that signed neither.
    pub other_ca: PathBuf,
    /// A client certificate for `certuser` signed by `ca`, and its key.
    pub client: (PathBuf, PathBuf),
    /// A client certificate for `certuser` signed by `other_ca`, and its key.
    pub foreign_client: (PathBuf, PathBuf),
}

impl Drop for PgServer {
    fn drop(&mut self) {
        self.stop();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
