//! Errors of the hybrid path.

/// Why a live tier cannot be made for a bake.
#[derive(Debug, thiserror::Error)]
pub enum HybridError {
    /// A character cannot be posed live.
    #[error("{file}: character '{character}' cannot be evaluated live: {what}")]
    Rig {
        /// The bake.
        file: String,
        /// The character.
        character: String,
        /// What is wrong.
        what: String,
    },
}
