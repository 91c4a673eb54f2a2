//! Errors of baking.

use thiserror::Error;

/// Why a bake could not be done.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum BakeError {
    /// A frame rate or duration that cannot be baked.
    #[error("clip '{clip}': {what}")]
    BadSchedule { clip: String, what: String },
}
