//! [`ApiError`]: what a handler answers when a request cannot be served — an HTTP status
//! and a message that names the bad input (`{"error": "..."}`). Bad input (a malformed FEN,
//! an illegal move, an unknown book, a node that is not in the book) is a 4xx; a failing
//! store or a damaged file is a 5xx.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::json;

use antichess_book::BookError;

/// An error answer of the API.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    pub status: StatusCode,
    pub message: String,
}

impl ApiError {
    pub fn new(status: StatusCode, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            message: message.into(),
        }
    }

    /// 400: the request is malformed (a bad FEN, an illegal move, a bad parameter).
    pub fn bad_request(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, message)
    }

    /// 404: what the request names does not exist (a book, a proof, a node).
    pub fn not_found(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::NOT_FOUND, message)
    }

    /// 409: the request is valid but conflicts with the state (e.g. queueing a decided
    /// node).
    pub fn conflict(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::CONFLICT, message)
    }

    /// 500: the server failed (a store error, a damaged file).
    pub fn internal(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, message)
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", self.status.as_u16(), self.message)
    }
}

impl std::error::Error for ApiError {}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.status, Json(json!({ "error": self.message }))).into_response()
    }
}

impl From<BookError> for ApiError {
    fn from(err: BookError) -> ApiError {
        match err {
            BookError::Input(_) | BookError::NotReady(_) => ApiError::conflict(err.to_string()),
            BookError::Missing(_)
            | BookError::NotABook { .. }
            | BookError::UnsupportedLocation(_)
            | BookError::Version { .. } => {
                ApiError::new(StatusCode::SERVICE_UNAVAILABLE, err.to_string())
            }
            _ => ApiError::internal(err.to_string()),
        }
    }
}

impl From<antichess_tb::TbError> for ApiError {
    fn from(err: antichess_tb::TbError) -> ApiError {
        ApiError::internal(format!("tablebase: {err}"))
    }
}

/// A blocking task that panicked or was cancelled.
impl From<tokio::task::JoinError> for ApiError {
    fn from(err: tokio::task::JoinError) -> ApiError {
        ApiError::internal(format!("the request's worker failed: {err}"))
    }
}

/// The API's result type.
pub type ApiResult<T> = Result<T, ApiError>;
