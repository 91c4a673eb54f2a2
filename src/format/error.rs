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
        /// The file as the user named it.
        file: String,
        /// The step that failed: "opening", "mapping", or one of the atomic writer's steps
        /// ([`WriteError::what`](crate::atomic::WriteError::what)).
        what: &'static str,
        /// What the system said.
        error: std::io::Error,
    },
    /// A folder, device, FIFO or socket was given where a `.throng` file is expected.
    #[error("{file}: is {what}, not a .throng file")]
    NotAFile {
        /// The path as the user gave it.
        file: String,
        /// What it is instead: "a folder", "a device", "a FIFO" or "a socket".
        what: &'static str,
    },
    /// The file is larger than a `.throng` file may be ([`crate::input::THRONG_LIMIT`]).
    #[error("{file}: {why}")]
    TooLarge {
        /// The path as the user gave it.
        file: String,
        /// Its size and the limit.
        why: crate::input::Refused,
    },
    /// A [`crate::format::Builder`] holds something the reader would refuse, so it was not
    /// written; `what` says it in the reader's words.
    #[error("{file}: not written: {what}")]
    Unwritable {
        /// The file that was to be written, as the caller named it.
        file: String,
        /// The first problem, as the reader would word it.
        what: String,
    },
    /// Not a `.throng` file at all.
    #[error("{file}: not a throng file (the first 8 bytes are not the throng magic)")]
    NotThrong {
        /// The file as the user named it (or the name given for bytes held in memory).
        file: String,
    },
    /// Another major version of the format.
    #[error("{file}: {what}")]
    Version {
        /// The file as the user named it (or the name given for bytes held in memory).
        file: String,
        /// Which version made it and which this build reads, e.g. "made by a newer throng
        /// (format 2.0); this build reads 1.x".
        what: String,
    },
    /// The file is shorter or longer than its header says, or was cut off.
    #[error(
        "{file}: the header says the file is {declared} bytes, but it is {actual} (truncated or appended to)"
    )]
    Size {
        /// The file as the user named it (or the name given for bytes held in memory).
        file: String,
        /// The file's length according to its header, bytes.
        declared: u64,
        /// The file's actual length, bytes.
        actual: u64,
    },
    /// A checksum does not match: the bytes changed after writing.
    #[error(
        "{file}: {part} checksum is {found:08x}, expected {expected:08x} (the file is corrupt)"
    )]
    Checksum {
        /// The file as the user named it (or the name given for bytes held in memory).
        file: String,
        /// Which checksum failed: "header" (the header's first 60 bytes) or "content"
        /// (everything after the header).
        part: &'static str,
        /// The CRC-32 of the bytes as they are now.
        found: u32,
        /// The CRC-32 the file records for them.
        expected: u32,
    },
    /// The header or the section table is inconsistent.
    #[error("{file}: {what}")]
    Malformed {
        /// The file as the user named it (or the name given for bytes held in memory).
        file: String,
        /// What is inconsistent, naming the section, record or byte offset where it applies.
        what: String,
    },
    /// A section the writer was given is unusable.
    #[error("section '{kind}': {what}")]
    BadSection {
        /// The section's four-character kind, e.g. `META`.
        kind: String,
        /// What is wrong with it, e.g. "the kind must be 4 printable ASCII characters".
        what: String,
    },
}
