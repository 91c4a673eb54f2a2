//! Errors of rendering: what was found, and what to do.

use thiserror::Error;

/// Why rendering could not start or finish.
#[derive(Debug, Error)]
pub enum RenderError {
    /// No adapter for the requested backend.
    #[error("{0}")]
    NoAdapter(String),
    /// The device could not be created.
    #[error("{backend}: cannot create a device on '{adapter}': {what}")]
    Device {
        backend: String,
        adapter: String,
        what: String,
    },
    /// The bake does not fit this device (even re-laid out), or exceeds what the shader
    /// supports.
    #[error("{file}: {what}")]
    Unsupported { file: String, what: String },
    /// A GPU operation failed (validation, out of memory, readback).
    #[error("{0}")]
    Gpu(String),
}
