//! Errors: every failed call returns an `Error` with the C status as an `ErrorKind` and the library's text.
use std::fmt;

use mkb_sys as sys;

use crate::text::text;

/// The kind of a failure, one per failing `mkb_status` of `include/mkb.h`.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    InvalidArgument,
    Config,
    NotFound,
    State,
    Budget,
    Io,
    Ledger,
    Worker,
    NoMemory,
    Unsupported,
    Version,
    Spec,
    Internal,
    /// A status this binding does not know (from a newer library).
    Other(i32),
}

const KINDS: [(i32, ErrorKind); 13] = [
    (sys::MKB_ERR_INVALID_ARGUMENT, ErrorKind::InvalidArgument),
    (sys::MKB_ERR_CONFIG, ErrorKind::Config),
    (sys::MKB_ERR_NOT_FOUND, ErrorKind::NotFound),
    (sys::MKB_ERR_STATE, ErrorKind::State),
    (sys::MKB_ERR_BUDGET, ErrorKind::Budget),
    (sys::MKB_ERR_IO, ErrorKind::Io),
    (sys::MKB_ERR_LEDGER, ErrorKind::Ledger),
    (sys::MKB_ERR_WORKER, ErrorKind::Worker),
    (sys::MKB_ERR_NO_MEMORY, ErrorKind::NoMemory),
    (sys::MKB_ERR_UNSUPPORTED, ErrorKind::Unsupported),
    (sys::MKB_ERR_VERSION, ErrorKind::Version),
    (sys::MKB_ERR_SPEC, ErrorKind::Spec),
    (sys::MKB_ERR_INTERNAL, ErrorKind::Internal),
];

impl ErrorKind {
    /// The `mkb_status` value of this kind.
    pub fn status(self) -> i32 {
        match self {
            ErrorKind::Other(status) => status,
            kind => KINDS.iter().find(|(_, k)| *k == kind).map(|(status, _)| *status).unwrap(),
        }
    }
}

impl From<i32> for ErrorKind {
    fn from(status: i32) -> ErrorKind {
        KINDS.iter().find(|(s, _)| *s == status).map_or(ErrorKind::Other(status), |(_, kind)| *kind)
    }
}

/// The C name of the status ("MKB_ERR_NOT_FOUND"), as `mkb_status_name` gives it.
impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&unsafe { text(sys::mkb_status_name(self.status())) })
    }
}

/// A failed call: its kind (the C status) and the library's text for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    kind: ErrorKind,
    message: String,
}

impl Error {
    pub(crate) fn new(status: i32, message: impl Into<String>) -> Error {
        Error { kind: ErrorKind::from(status), message: message.into() }
    }

    pub(crate) fn invalid_argument(message: impl Into<String>) -> Error {
        Error::new(sys::MKB_ERR_INVALID_ARGUMENT, message)
    }

    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The `mkb_status` value.
    pub fn status(&self) -> i32 {
        self.kind.status()
    }

    /// The library's text: what went wrong and with which value.
    pub fn message(&self) -> &str {
        &self.message
    }
}

/// "MKB_ERR_CONFIG: gpus: ...".
impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.kind, self.message)
    }
}

impl std::error::Error for Error {}

pub type Result<T> = std::result::Result<T, Error>;
