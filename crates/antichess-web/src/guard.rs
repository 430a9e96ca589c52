//! What the server guards against the clients it answers: writes, file paths and slow
//! requests.
//!
//! - **Writes** (the endpoints that change a book: queue, clear the queue, pin, mark) are
//!   decided by the address the server is *bound* to — what it exposes — not by the peer
//!   (behind a proxy every peer is local): see [`WriteRule`]. A server with a [`Token`]
//!   answers a write only with `Authorization: Bearer <token>` (401 otherwise, with
//!   `WWW-Authenticate: Bearer`), wherever it listens; a server bound to an address that
//!   is not loopback and has no token is read-only (403); a server on a loopback address
//!   without a token takes writes from anyone who can connect, as before. The token is
//!   compared in constant time.
//! - **File paths** never reach a client: the books' and tables' locations are shown by
//!   name, and every error answer has the paths the server knows replaced by their names
//!   ([`crate::state::AppState::hide_paths`]).
//! - **Slow requests**: a request's body must arrive whole within the body timeout (and
//!   be at most [`MAX_BODY_BYTES`]), else 408 (or 413) and the connection is closed. The
//!   header timeout and the cap on connections are in [`crate::server`].

use std::net::IpAddr;
use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

pub use crate::access::{Token, WriteRule, TOKEN_ENV};
use crate::error::ApiError;
use crate::state::AppState;

/// The largest request body read (the API's bodies are small JSON objects).
pub const MAX_BODY_BYTES: usize = 64 << 10;

/// Whether an address is loopback (IPv4-mapped IPv6 addresses as their IPv4 address).
#[must_use]
pub fn is_loopback(ip: IpAddr) -> bool {
    ip.to_canonical().is_loopback()
}

/// The 403 of a read-only server.
fn read_only() -> Response {
    ApiError::new(
        StatusCode::FORBIDDEN,
        format!(
            "this server is read-only: it listens on an address that is not loopback and was \
             started without a token; start it with --token-file FILE (or ${TOKEN_ENV}) and \
             send `Authorization: Bearer <token>` to queue, pin or mark"
        ),
    )
    .into_response()
}

/// The 401 of a write without the right token.
fn unauthorized(message: &str) -> Response {
    let mut res = ApiError::new(StatusCode::UNAUTHORIZED, message).into_response();
    res.headers_mut()
        .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
    res
}

/// The bearer token of a request, if its `Authorization` header has one.
fn bearer(req: &Request) -> Option<&[u8]> {
    let value = req.headers().get(header::AUTHORIZATION)?.as_bytes();
    let (scheme, rest) = value.split_at(value.iter().position(|&b| b == b' ')?);
    scheme
        .eq_ignore_ascii_case(b"bearer")
        .then(|| rest.trim_ascii())
}

/// Middleware of the write endpoints: lets a request through only under the server's
/// [`WriteRule`].
pub async fn guard_writes(
    State(state): State<Arc<AppState>>,
    req: Request,
    next: Next,
) -> Response {
    match state.write_rule() {
        WriteRule::Open => next.run(req).await,
        WriteRule::ReadOnly => read_only(),
        WriteRule::Token => match (bearer(&req), state.token.as_ref()) {
            (Some(given), Some(token)) if token.matches(given) => next.run(req).await,
            (Some(_), _) => unauthorized("the bearer token is not this server's token"),
            (None, _) => unauthorized(
                "this request changes a book: send the server's token as \
                 `Authorization: Bearer <token>`",
            ),
        },
    }
}

/// Middleware of every request: reads the body whole within the body timeout (408 and the
/// connection closed if it does not arrive in time, 413 if it is too large), and removes
/// the known file paths from error answers.
pub async fn guard_requests(
    State(state): State<Arc<AppState>>,
    req: Request,
    next: Next,
) -> Response {
    let (parts, body) = req.into_parts();
    let read = tokio::time::timeout(
        state.limits.body_timeout,
        axum::body::to_bytes(body, MAX_BODY_BYTES),
    )
    .await;
    let bytes = match read {
        Ok(Ok(bytes)) => bytes,
        Ok(Err(_)) => {
            return closing(ApiError::new(
                StatusCode::PAYLOAD_TOO_LARGE,
                format!(
                    "the request body could not be read whole (at most {} KiB)",
                    MAX_BODY_BYTES >> 10
                ),
            ))
        }
        Err(_) => {
            return closing(ApiError::new(
                StatusCode::REQUEST_TIMEOUT,
                format!(
                    "the request body did not arrive within {} s",
                    state.limits.body_timeout.as_secs_f64()
                ),
            ))
        }
    };
    let res = next
        .run(Request::from_parts(parts, Body::from(bytes)))
        .await;
    if res.status().is_client_error() || res.status().is_server_error() {
        hide_paths_in(&state, res).await
    } else {
        res
    }
}

/// An error answer after which the connection is closed.
fn closing(error: ApiError) -> Response {
    let mut res = error.into_response();
    res.headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    res
}

/// An error answer with the known paths replaced by names (in the JSON's `error` string,
/// or in the text of another answer).
async fn hide_paths_in(state: &AppState, res: Response) -> Response {
    let (mut parts, body) = res.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, 1 << 20).await else {
        return ApiError::internal("the answer could not be read").into_response();
    };
    let hidden = match serde_json::from_slice::<serde_json::Value>(&bytes) {
        Ok(serde_json::Value::Object(mut map)) => {
            if let Some(serde_json::Value::String(message)) = map.get_mut("error") {
                *message = state.hide_paths(message);
            }
            serde_json::Value::Object(map).to_string().into_bytes()
        }
        _ => state
            .hide_paths(&String::from_utf8_lossy(&bytes))
            .into_bytes(),
    };
    if hidden == bytes {
        return Response::from_parts(parts, Body::from(bytes));
    }
    parts.headers.remove(header::CONTENT_LENGTH);
    Response::from_parts(parts, Body::from(hidden))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_match_only_themselves() {
        let t = Token::new("s3cret-token\n", "test").unwrap();
        assert!(t.matches(b"s3cret-token"));
        for other in [
            &b""[..],
            b"s3cret-toke",
            b"s3cret-token!",
            b"S3cret-token",
            b"x",
        ] {
            assert!(!t.matches(other), "{}", String::from_utf8_lossy(other));
        }
    }

    #[test]
    fn token_files_hold_the_token_alone() {
        let dir = std::env::temp_dir().join(format!("antichess-token-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("token");
        std::fs::write(&file, "abc\n").unwrap();
        let (token, warnings) = Token::from_file(&file).unwrap();
        assert!(token.matches(b"abc"));
        assert!(
            warnings.iter().any(|w| w.contains("3 characters")),
            "{warnings:?}"
        );
        std::fs::write(&file, vec![b'a'; 5000]).unwrap();
        let e = Token::from_file(&file).unwrap_err();
        assert!(e.contains("larger than 4 KiB"), "{e}");
        assert!(Token::from_file(&dir.join("missing")).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn tokens_are_refused_when_empty_or_unsendable() {
        assert!(Token::new(" \n", "the token file t")
            .unwrap_err()
            .contains("is empty"));
        assert!(Token::new("a b", "x").unwrap_err().contains("a space"));
        assert!(Token::new("é", "x")
            .unwrap_err()
            .contains("printable ASCII"));
        assert_eq!(
            format!("{:?}", Token::new("abc", "x").unwrap()),
            "Token(***)"
        );
    }

    #[test]
    fn the_rule_follows_the_token_then_the_address() {
        assert_eq!(WriteRule::of(false, false), WriteRule::Open);
        assert_eq!(WriteRule::of(false, true), WriteRule::ReadOnly);
        assert_eq!(WriteRule::of(true, false), WriteRule::Token);
        assert_eq!(WriteRule::of(true, true), WriteRule::Token);
        assert!(is_loopback("127.0.0.1".parse().unwrap()));
        assert!(is_loopback("::1".parse().unwrap()));
        assert!(is_loopback("::ffff:127.0.0.1".parse().unwrap()));
        assert!(!is_loopback("0.0.0.0".parse().unwrap()));
        assert!(!is_loopback("::".parse().unwrap()));
        assert!(!is_loopback("192.168.1.2".parse().unwrap()));
    }
}
