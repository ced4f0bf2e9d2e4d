//! Errors as values with the seven stable codes (spec `protocol.errors`).

use std::fmt;

/// The stable error codes of the session-reference contract. Hosts route on
/// the code; messages are for people and may change.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorCode {
    /// `SESSION_REFERENCE_INVALID_CONFIG`: a configuration value is out of range.
    InvalidConfig,
    /// `SESSION_REFERENCE_INVALID_REFERENCE`: a URI, mention, reference or limit is malformed.
    InvalidReference,
    /// `SESSION_REFERENCE_SELF_REFERENCE`: a session cites itself.
    SelfReference,
    /// `SESSION_REFERENCE_TOO_MANY`: more distinct references than allowed.
    TooMany,
    /// `SESSION_REFERENCE_READ_FAILED`: a referenced session could not be read.
    ReadFailed,
    /// `SESSION_REFERENCE_BUDGET_EXCEEDED`: a snapshot's fixed fields exceed the budget.
    BudgetExceeded,
    /// `SESSION_REFERENCE_CANCELLED`: the turn was cancelled.
    Cancelled,
}

impl ErrorCode {
    /// Every code, in the order the contract lists them.
    pub const ALL: [ErrorCode; 7] = [
        ErrorCode::InvalidConfig,
        ErrorCode::InvalidReference,
        ErrorCode::SelfReference,
        ErrorCode::TooMany,
        ErrorCode::ReadFailed,
        ErrorCode::BudgetExceeded,
        ErrorCode::Cancelled,
    ];

    /// The code as it travels on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidConfig => "SESSION_REFERENCE_INVALID_CONFIG",
            ErrorCode::InvalidReference => "SESSION_REFERENCE_INVALID_REFERENCE",
            ErrorCode::SelfReference => "SESSION_REFERENCE_SELF_REFERENCE",
            ErrorCode::TooMany => "SESSION_REFERENCE_TOO_MANY",
            ErrorCode::ReadFailed => "SESSION_REFERENCE_READ_FAILED",
            ErrorCode::BudgetExceeded => "SESSION_REFERENCE_BUDGET_EXCEEDED",
            ErrorCode::Cancelled => "SESSION_REFERENCE_CANCELLED",
        }
    }

    /// The code named by its wire text.
    pub fn from_wire(text: &str) -> Option<ErrorCode> {
        ErrorCode::ALL
            .into_iter()
            .find(|code| code.as_str() == text)
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A contract failure: a stable code and upstream's message text.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    /// The stable code.
    pub code: ErrorCode,
    /// Upstream's human-readable message.
    pub message: String,
}

impl Error {
    /// A failure with `code` and `message`.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for Error {}

/// Why an operation failed: a contract error with a stable code, or a
/// failure outside the contract (upstream throws a plain error without a
/// code, such as for an unknown surface event), which adapters answer as
/// `INTERNAL`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Failure {
    /// A contract error.
    Contract(Error),
    /// A failure without a stable code.
    Internal(String),
}

impl From<Error> for Failure {
    fn from(error: Error) -> Self {
        Failure::Contract(error)
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Contract(error) => error.fmt(f),
            Failure::Internal(message) => write!(f, "INTERNAL: {message}"),
        }
    }
}

impl std::error::Error for Failure {}

/// Codes travel as their wire text (`SESSION_REFERENCE_…`).
#[cfg(feature = "serde")]
impl serde::Serialize for ErrorCode {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

#[cfg(feature = "serde")]
impl<'de> serde::Deserialize<'de> for ErrorCode {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        ErrorCode::from_wire(&text)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown error code {text:?}")))
    }
}
