//! TLS for the PostgreSQL store, with libpq's settings: the URL may carry `sslmode`,
//! `sslrootcert`, `sslcert` and `sslkey`, as `psql` takes them, and they mean what they
//! mean there.
//!
//! | `sslmode` | encrypted | server certificate checked |
//! |---|---|---|
//! | `disable` | never | — |
//! | `prefer` (default) | if the server offers TLS, else plain TCP | no (with `sslrootcert`: as `verify-ca`) |
//! | `require` | always | no (with `sslrootcert`: as `verify-ca`) |
//! | `verify-ca` | always | signed by a root of `sslrootcert` |
//! | `verify-full` | always | as `verify-ca`, and issued for the URL's host name or address |
//!
//! `sslrootcert` is a PEM file of root certificates; `verify-ca` and `verify-full` without
//! it use `~/.postgresql/root.crt`, as libpq does. Without a check of the certificate
//! the connection is encrypted but a machine in the middle could impersonate the server;
//! use `verify-full` across networks you do not control. The handshake's own signature is
//! checked in every mode. TLS is rustls with the ring provider (no OpenSSL).
//!
//! A client certificate (for servers whose `pg_hba.conf` says `cert` or
//! `clientcert=verify-ca|verify-full`) is `sslcert`, a PEM file of the certificate (and
//! any intermediates), with its unencrypted private key in `sslkey` (PKCS#8, PKCS#1 or
//! SEC1 PEM). As in libpq, without `sslcert` the client sends `~/.postgresql/postgresql.crt`
//! if that file exists, and without `sslkey` the key is `~/.postgresql/postgresql.key`.
//! Unlike libpq, a certificate file named in the URL that cannot be read is an error, not
//! a connection without a certificate; encrypted keys (`sslpassword`) are not supported.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use postgres::config::SslMode;
use postgres::Config;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::client::WebPkiServerVerifier;
use rustls::crypto::{verify_tls12_signature, verify_tls13_signature, CryptoProvider};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName, UnixTime};
use rustls::{
    CertificateError, ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme,
};
use tokio_postgres_rustls::MakeRustlsConnect;

use crate::error::{BookError, Result};

/// How much of the server's certificate to check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Check {
    /// Nothing (the connection is only encrypted).
    Nothing,
    /// The chain up to a trusted root.
    Chain,
    /// The chain and the host name.
    Full,
}

/// The TLS settings of a URL, taken out of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TlsSettings {
    mode: SslMode,
    check: Check,
    roots: Option<PathBuf>,
    /// The client certificate and its key, if one is sent.
    identity: Option<(PathBuf, PathBuf)>,
}

/// Removes `sslmode`, `sslrootcert`, `sslcert` and `sslkey` from the URL's query (the
/// PostgreSQL driver does not know every value libpq takes) and returns the URL left and the
/// settings they make.
pub(crate) fn take_settings(url: &str, shown: &str) -> Result<(String, TlsSettings)> {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    take_settings_in(url, shown, home.as_deref())
}

/// [`take_settings`] with `home` for libpq's default files under `~/.postgresql`.
fn take_settings_in(url: &str, shown: &str, home: Option<&Path>) -> Result<(String, TlsSettings)> {
    let (base, query) = match url.split_once('?') {
        Some((base, query)) => (base, query),
        None => (url, ""),
    };
    let mut mode = None;
    let mut roots = None;
    let mut cert = None;
    let mut key_file = None;
    let mut kept = Vec::new();
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        let path = || percent_decode(value, key, shown).map(PathBuf::from);
        match key {
            "sslmode" => mode = Some(value.to_string()),
            "sslrootcert" => roots = Some(path()?),
            "sslcert" => cert = Some(path()?),
            "sslkey" => key_file = Some(path()?),
            _ => kept.push(pair),
        }
    }
    let rest = if kept.is_empty() {
        base.to_string()
    } else {
        format!("{base}?{}", kept.join("&"))
    };
    let given_roots = roots.is_some();
    let (mode, check) = match mode.as_deref().unwrap_or("prefer") {
        "disable" => (SslMode::Disable, Check::Nothing),
        "prefer" if given_roots => (SslMode::Prefer, Check::Chain),
        "prefer" => (SslMode::Prefer, Check::Nothing),
        "require" if given_roots => (SslMode::Require, Check::Chain),
        "require" => (SslMode::Require, Check::Nothing),
        "verify-ca" => (SslMode::Require, Check::Chain),
        "verify-full" => (SslMode::Require, Check::Full),
        other => {
            return Err(BookError::Input(format!(
                "{shown}: sslmode={other} is not supported (disable, prefer, require, verify-ca or verify-full)"
            )))
        }
    };
    let default = |name: &str| home.map(|home| home.join(".postgresql").join(name));
    if check != Check::Nothing && roots.is_none() {
        roots = default("root.crt");
    }
    if cert.is_some() && mode == SslMode::Disable {
        return Err(BookError::Input(format!(
            "{shown}: a client certificate (sslcert) needs TLS, but sslmode=disable"
        )));
    }
    let cert = match cert {
        Some(cert) => Some(cert),
        None if mode == SslMode::Disable => None,
        None => default("postgresql.crt").filter(|c| c.is_file()),
    };
    let identity = match (cert, key_file) {
        (Some(cert), Some(key)) => Some((cert, key)),
        (Some(cert), None) => match default("postgresql.key") {
            Some(key) => Some((cert, key)),
            None => {
                return Err(BookError::Input(format!(
                    "{shown}: sslcert={} needs sslkey=FILE (no home directory for ~/.postgresql/postgresql.key)",
                    cert.display()
                )))
            }
        },
        (None, Some(key)) => {
            return Err(BookError::Input(format!(
                "{shown}: sslkey={} without a certificate: give sslcert=FILE too",
                key.display()
            )))
        }
        (None, None) => None,
    };
    Ok((
        rest,
        TlsSettings {
            mode,
            check,
            roots,
            identity,
        },
    ))
}

/// `%XX` escapes of the URL query value of `key`, decoded.
fn percent_decode(value: &str, key: &str, shown: &str) -> Result<String> {
    let bytes = value.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = value
                .get(i + 1..i + 3)
                .and_then(|h| u8::from_str_radix(h, 16).ok())
                .ok_or_else(|| BookError::Input(format!("{shown}: a bad %-escape in {key}")))?;
            out.push(hex);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).map_err(|_| BookError::Input(format!("{shown}: {key} is not UTF-8")))
}

impl TlsSettings {
    /// Sets the driver's mode and returns the connector for `config`'s connections.
    pub(crate) fn connector(&self, config: &mut Config, shown: &str) -> Result<MakeRustlsConnect> {
        config.ssl_mode(self.mode);
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let chain = match self.check {
            Check::Nothing => None,
            Check::Chain | Check::Full => Some(
                WebPkiServerVerifier::builder_with_provider(
                    Arc::new(self.root_store(shown)?),
                    Arc::clone(&provider),
                )
                .build()
                .map_err(|e| BookError::Input(format!("{shown}: the root certificates: {e}")))?,
            ),
        };
        let verifier = Arc::new(Verifier {
            provider: Arc::clone(&provider),
            chain,
            check_name: self.check == Check::Full,
        });
        let builder = ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| BookError::Input(format!("{shown}: TLS: {e}")))?
            .dangerous()
            .with_custom_certificate_verifier(verifier);
        let tls = match &self.identity {
            None => builder.with_no_client_auth(),
            Some((cert, key)) => {
                let (chain, key_der) = client_identity(cert, key, shown)?;
                builder.with_client_auth_cert(chain, key_der).map_err(|e| {
                    BookError::Input(format!(
                        "{shown}: the client certificate {} and key {}: {e}",
                        cert.display(),
                        key.display()
                    ))
                })?
            }
        };
        Ok(MakeRustlsConnect::new(tls))
    }

    /// The root certificates of `sslrootcert`.
    fn root_store(&self, shown: &str) -> Result<RootCertStore> {
        let Some(path) = &self.roots else {
            return Err(BookError::Input(format!(
                "{shown}: checking the server's certificate needs sslrootcert=FILE (no home directory for ~/.postgresql/root.crt)"
            )));
        };
        let mut store = RootCertStore::empty();
        for cert in read_certificates(path, "root certificates", shown)? {
            store.add(cert).map_err(|e| {
                BookError::Input(format!(
                    "{shown}: the root certificates in {}: {e}",
                    path.display()
                ))
            })?;
        }
        Ok(store)
    }
}

/// The certificates of a PEM file (`what` names them in messages); none is an error.
fn read_certificates(path: &Path, what: &str, shown: &str) -> Result<Vec<CertificateDer<'static>>> {
    let bad =
        |why: String| BookError::Input(format!("{shown}: the {what} in {}: {why}", path.display()));
    let certs = CertificateDer::pem_file_iter(path)
        .map_err(|e| bad(e.to_string()))?
        .collect::<std::result::Result<Vec<_>, _>>()
        .map_err(|e| bad(e.to_string()))?;
    if certs.is_empty() {
        return Err(bad("no certificate in the file".into()));
    }
    Ok(certs)
}

/// The certificate chain of `sslcert` and the private key of `sslkey`.
fn client_identity(
    cert: &Path,
    key: &Path,
    shown: &str,
) -> Result<(Vec<CertificateDer<'static>>, PrivateKeyDer<'static>)> {
    let chain = read_certificates(cert, "client certificate (sslcert)", shown)?;
    let key_der = PrivateKeyDer::from_pem_file(key).map_err(|e| {
        let why = match e {
            rustls::pki_types::pem::Error::NoItemsFound => {
                "no unencrypted private key in the file (encrypted keys are not supported)"
                    .to_string()
            }
            e => e.to_string(),
        };
        BookError::Input(format!(
            "{shown}: the private key (sslkey) in {}: {why}",
            key.display()
        ))
    })?;
    Ok((chain, key_der))
}

/// Checks the server's certificate as far as the mode asks: not at all (`prefer`,
/// `require`), its chain up to a trusted root (`verify-ca`), or also its name
/// (`verify-full`). The handshake's signatures are checked in every mode, as libpq does.
#[derive(Debug)]
struct Verifier {
    provider: Arc<CryptoProvider>,
    /// The chain's check, if any.
    chain: Option<Arc<WebPkiServerVerifier>>,
    /// Whether a certificate issued for another name is refused.
    check_name: bool,
}

impl ServerCertVerifier for Verifier {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> std::result::Result<ServerCertVerified, rustls::Error> {
        let Some(chain) = &self.chain else {
            return Ok(ServerCertVerified::assertion());
        };
        match chain.verify_server_cert(end_entity, intermediates, server_name, ocsp_response, now) {
            Err(rustls::Error::InvalidCertificate(
                CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. },
            )) if !self.check_name => Ok(ServerCertVerified::assertion()),
            other => other,
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> std::result::Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls12_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> std::result::Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls13_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.provider
            .signature_verification_algorithms
            .supported_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(url: &str) -> Result<(String, TlsSettings)> {
        take_settings_in(url, "URL", None)
    }

    #[test]
    fn sslcert_and_sslkey_follow_libpq_defaults() {
        let (rest, s) =
            settings("postgres://u@h/db?sslcert=/c/me.crt&sslkey=/c/me%2Ekey&x=1").unwrap();
        assert_eq!(rest, "postgres://u@h/db?x=1");
        let want = (PathBuf::from("/c/me.crt"), PathBuf::from("/c/me.key"));
        assert_eq!(s.identity, Some(want));
        assert_eq!(settings("postgres://u@h/db").unwrap().1.identity, None);
        let e = settings("postgres://u@h/db?sslkey=/c/me.key").unwrap_err();
        assert!(e.to_string().contains("give sslcert=FILE too"), "{e}");
        let e = settings("postgres://u@h/db?sslcert=/c/me.crt").unwrap_err();
        assert!(e.to_string().contains("needs sslkey=FILE"), "{e}");
        let e = settings("postgres://u@h/db?sslmode=disable&sslcert=a&sslkey=b").unwrap_err();
        assert!(e.to_string().contains("sslmode=disable"), "{e}");
        let e = settings("postgres://u@h/db?sslcert=%4").unwrap_err();
        assert!(e.to_string().contains("%-escape in sslcert"), "{e}");
        // ~/.postgresql: the certificate only if it exists; the key beside it by default.
        let home = std::env::temp_dir().join(format!("antichess-home-{}", std::process::id()));
        let dir = home.join(".postgresql");
        std::fs::create_dir_all(&dir).unwrap();
        let _ = std::fs::remove_file(dir.join("postgresql.crt"));
        let url = "postgres://u@h/db?sslmode=require";
        let (_, s) = take_settings_in(url, "URL", Some(&home)).unwrap();
        assert_eq!(s.identity, None);
        std::fs::write(dir.join("postgresql.crt"), "").unwrap();
        let (_, s) = take_settings_in(url, "URL", Some(&home)).unwrap();
        let want = (dir.join("postgresql.crt"), dir.join("postgresql.key"));
        assert_eq!(s.identity, Some(want));
        let (_, s) = take_settings_in(&format!("{url}&sslkey=/k"), "URL", Some(&home)).unwrap();
        assert_eq!(s.identity.unwrap().1, PathBuf::from("/k"));
        // Without TLS the default certificate is not looked at.
        let plain = "postgres://u@h/db?sslmode=disable";
        let (_, s) = take_settings_in(plain, "URL", Some(&home)).unwrap();
        assert_eq!(s.identity, None);
        // The empty certificate file and a missing key are named when the connector is made.
        let (_, s) = take_settings_in(url, "URL", Some(&home)).unwrap();
        let e = s
            .connector(&mut Config::new(), "URL")
            .err()
            .expect("refused");
        assert!(
            e.to_string().contains("no certificate in the file")
                && e.to_string().contains("postgresql.crt"),
            "{e}"
        );
        let _ = std::fs::remove_dir_all(&home);
    }

    #[test]
    fn sslmode_and_sslrootcert_are_taken_out_of_the_url() {
        let (rest, s) = settings("postgres://u@h/db").unwrap();
        assert_eq!(rest, "postgres://u@h/db");
        assert_eq!((s.mode, s.check), (SslMode::Prefer, Check::Nothing));
        let (rest, s) = settings("postgres://u@h/db?sslmode=disable&connect_timeout=5").unwrap();
        assert_eq!(rest, "postgres://u@h/db?connect_timeout=5");
        assert_eq!(s.mode, SslMode::Disable);
        let (rest, s) =
            settings("postgres://u@h/db?sslmode=verify-full&sslrootcert=/a%20b/ca.pem").unwrap();
        assert_eq!(rest, "postgres://u@h/db");
        assert_eq!((s.mode, s.check), (SslMode::Require, Check::Full));
        assert_eq!(s.roots.as_deref(), Some(Path::new("/a b/ca.pem")));
        let (_, s) = settings("postgres://u@h/db?sslmode=verify-ca&sslrootcert=ca.pem").unwrap();
        assert_eq!((s.mode, s.check), (SslMode::Require, Check::Chain));
        let (_, s) = settings("postgres://u@h/db?sslrootcert=ca.pem&sslmode=require").unwrap();
        assert_eq!((s.mode, s.check), (SslMode::Require, Check::Chain));
        let (_, s) = settings("postgres://u@h/db?sslmode=require").unwrap();
        assert_eq!((s.mode, s.check), (SslMode::Require, Check::Nothing));
        let e = settings("postgres://u@h/db?sslmode=allow").unwrap_err();
        assert!(
            e.to_string().contains("sslmode=allow is not supported"),
            "{e}"
        );
        let e = settings("postgres://u@h/db?sslrootcert=%zz").unwrap_err();
        assert!(e.to_string().contains("%-escape"), "{e}");
    }

    #[test]
    fn a_missing_or_empty_root_file_is_named() {
        let (_, s) =
            settings("postgres://u@h/db?sslmode=verify-full&sslrootcert=/nonexistent/ca.pem")
                .unwrap();
        let e = s
            .connector(&mut Config::new(), "URL")
            .err()
            .expect("refused");
        assert!(e.to_string().contains("/nonexistent/ca.pem"), "{e}");
        let empty =
            std::env::temp_dir().join(format!("antichess-empty-{}.pem", std::process::id()));
        std::fs::write(&empty, "").unwrap();
        let url = format!(
            "postgres://u@h/db?sslmode=verify-ca&sslrootcert={}",
            empty.display()
        );
        let (_, s) = settings(&url).unwrap();
        let e = s
            .connector(&mut Config::new(), "URL")
            .err()
            .expect("refused");
        assert!(e.to_string().contains("no certificate"), "{e}");
        let _ = std::fs::remove_file(&empty);
    }
}
