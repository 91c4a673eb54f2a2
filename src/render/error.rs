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
        /// The adapter's backend, as wgpu names it (e.g. "Vulkan", "Gl").
        backend: String,
        /// The adapter's name as its driver reports it (e.g. "llvmpipe (LLVM 19.1.7, 256 bits)").
        adapter: String,
        /// wgpu's reason.
        what: String,
    },
    /// The bake does not fit this device (even re-laid out), or exceeds what the shader
    /// supports.
    #[error("{file}: {what}")]
    Unsupported {
        /// The bake's file name (or, for live matrices uploaded from the CPU, "live matrices").
        file: String,
        /// What does not fit the device, or what the bake lacks (a character, a joint), with
        /// the limit or count at stake.
        what: String,
    },
    /// A GPU operation failed (validation, out of memory, readback).
    #[error("{0}")]
    Gpu(String),
}
