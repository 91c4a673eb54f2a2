//! Errors of the `.throng` container: what is wrong, in which file, at which byte.

use thiserror::Error;

/// Why a `.throng` file could not be written or read.
#[derive(Debug, Error)]
pub enum FormatError {
    /// The file could not be read, mapped, written or renamed into place. The system's
    /// words are part of the message, so they are not also the error's `source()` (a chain
    /// printed whole would say them twice).
    #[error("{file}: {what}: {error}")]
    Io {
        file: String,
        what: &'static str,
        error: std::io::Error,
    },
    /// A folder, device, pipe or socket was given where a `.throng` file is expected.
    #[error("{file}: is {what}, not a .throng file")]
    NotAFile { file: String, what: &'static str },
    /// A [`crate::format::Builder`] holds something the reader would refuse, so it was not
    /// written; `what` says it in the reader's words.
    #[error("{file}: not written: {what}")]
    Unwritable { file: String, what: String },
    /// Not a `.throng` file at all.
    #[error("{file}: not a throng file (the first 8 bytes are not the throng magic)")]
    NotThrong { file: String },
    /// Another major version of the format.
    #[error("{file}: {what}")]
    Version { file: String, what: String },
    /// The file is shorter or longer than its header says, or was cut off.
    #[error(
        "{file}: the header says the file is {declared} bytes, but it is {actual} (truncated or appended to)"
    )]
    Size {
        file: String,
        declared: u64,
        actual: u64,
    },
    /// A checksum does not match: the bytes changed after writing.
    #[error(
        "{file}: {part} checksum is {found:08x}, expected {expected:08x} (the file is corrupt)"
    )]
    Checksum {
        file: String,
        part: &'static str,
        found: u32,
        expected: u32,
    },
    /// The header or the section table is inconsistent.
    #[error("{file}: {what}")]
    Malformed { file: String, what: String },
    /// A section the writer was given is unusable.
    #[error("section '{kind}': {what}")]
    BadSection { kind: String, what: String },
}
