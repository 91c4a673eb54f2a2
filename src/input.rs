//! The one way throng reads a file it is given: recipes, character files, LOD presets, play
//! scripts, bench configurations, models with their buffers and images, and `.throng` files.
//!
//! Two things make a path dangerous to read whole. What is not a regular file may never end
//! (`/dev/zero`, a FIFO whose writer never comes, a socket) or cannot be read at all (a
//! folder); and a regular file may be far larger than anything of its kind, or grow while it
//! is read. So every input is looked at before it is opened: a folder, FIFO, device or socket
//! is refused by name ("is a FIFO, not a regular file") without opening it, and a file larger
//! than its [`Kind`]'s limit is refused with both sizes. The file is then opened without
//! blocking (a FIFO put there after the look cannot hold the open), looked at again through
//! the opened handle, and read through a reader that stops with an error one byte past the
//! limit, so nothing reads without end.
//!
//! Errors are [`std::io::Error`]s whose message says the problem without the path: every
//! caller already names the file in its own error, so the name is said once. [`refusal`]
//! tells a refusal from the system's errors.
//!
//! A crate-root leaf that knows only std (and the system's `O_NONBLOCK`), so every module may
//! use it, `format` included.

use std::fs::File;
use std::io::Read;
use std::path::Path;

use thiserror::Error;

/// A kind of input, with the largest file of that kind throng reads (docs/IMPORT.md, "Sizes
/// of inputs").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// TOML and other text throng is handed: recipes, character files, LOD presets, play
    /// scripts, bench configurations. Limit [`TEXT_LIMIT`].
    Text,
    /// glTF and GLB models and the buffers and images they name. Limit [`MODEL_LIMIT`].
    Model,
    /// `.throng` files (mapped, not read). Limit [`THRONG_LIMIT`].
    Throng,
}

/// Largest text input, bytes (8 MiB). throng's own recipes, character files and presets are a
/// few KiB and a generated play script of ten thousand steps is under 1 MiB; a larger "text"
/// file is a mistake (a model or log given by error), and parsing it would cost seconds.
pub const TEXT_LIMIT: u64 = 8 << 20;

/// Largest model, buffer or image file, bytes (4 GiB). A GLB cannot be larger (its header
/// gives its length in 32 bits), and a `.gltf`'s buffers and images are read whole into
/// memory, as the GLB is.
pub const MODEL_LIMIT: u64 = 4 << 30;

/// Largest `.throng` file, bytes (64 GiB). It is mapped rather than read, but opening it
/// checks every section's CRC, and drawing it uploads its texels to one GPU: a bake larger
/// than the memory of the GPUs throng draws on cannot be drawn, and a runaway file of this
/// size would take minutes to check.
pub const THRONG_LIMIT: u64 = 64 << 30;

impl Kind {
    /// The largest file of this kind, bytes.
    pub const fn limit(self) -> u64 {
        match self {
            Kind::Text => TEXT_LIMIT,
            Kind::Model => MODEL_LIMIT,
            Kind::Throng => THRONG_LIMIT,
        }
    }

    /// The files of this kind, as messages name them.
    fn files(self) -> &'static str {
        match self {
            Kind::Text => "recipes, character files and other text inputs",
            Kind::Model => "models, buffers and images",
            Kind::Throng => ".throng files",
        }
    }
}

/// Why an input is refused before (or while) it is read. It travels inside the
/// [`std::io::Error`] the functions here return ([`refusal`] gets it back).
#[derive(Clone, Copy, Debug, Error, PartialEq, Eq)]
pub enum Refused {
    /// A folder, FIFO, device or socket; `.0` says which ("a FIFO").
    #[error("is {0}, not a regular file")]
    NotAFile(&'static str),
    /// A file larger than its kind's limit (or one that grew past it while it was read).
    #[error("is {}, over the {} limit for {}", over(*bytes, kind.limit()), size(kind.limit()), kind.files())]
    TooLarge {
        /// Its size, bytes (at least the limit plus one).
        bytes: u64,
        /// Its kind.
        kind: Kind,
    },
}

impl From<Refused> for std::io::Error {
    fn from(r: Refused) -> Self {
        let kind = match r {
            Refused::NotAFile(_) => std::io::ErrorKind::InvalidInput,
            Refused::TooLarge { .. } => std::io::ErrorKind::FileTooLarge,
        };
        std::io::Error::new(kind, r)
    }
}

/// The refusal inside `error`, if it is one (rather than the system's error).
pub fn refusal(error: &std::io::Error) -> Option<Refused> {
    error
        .get_ref()
        .and_then(|e| e.downcast_ref::<Refused>())
        .copied()
}

/// `bytes` in the largest binary unit that keeps it at least 1, to a tenth: "8 MiB",
/// "20.5 GiB".
fn size(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["bytes", "KiB", "MiB", "GiB", "TiB"];
    let mut v = bytes as f64;
    let mut unit = 0;
    while v >= 1024.0 && unit + 1 < UNITS.len() {
        v /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        return format!("{bytes} bytes");
    }
    let v = format!("{v:.1}");
    format!("{} {}", v.strip_suffix(".0").unwrap_or(&v), UNITS[unit])
}

/// `bytes`, a size over `limit`, said so that it reads larger than the limit: in bytes where
/// rounding would make it equal ("8388609 bytes" over "8 MiB").
fn over(bytes: u64, limit: u64) -> String {
    let s = size(bytes);
    if s == size(limit) {
        format!("{bytes} bytes")
    } else {
        s
    }
}

/// What a file of type `t` is, in a message's words ("a FIFO"); `None` for a regular file.
pub fn what_is(t: std::fs::FileType) -> Option<&'static str> {
    if t.is_file() {
        return None;
    }
    if t.is_dir() {
        return Some("a folder");
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return Some("a FIFO");
        }
        if t.is_char_device() || t.is_block_device() {
            return Some("a device");
        }
        if t.is_socket() {
            return Some("a socket");
        }
    }
    Some("a special file")
}

/// Refuses metadata `m` (of the file, links followed) unless it is a regular file within
/// `kind`'s limit.
fn check(m: &std::fs::Metadata, kind: Kind) -> Result<u64, Refused> {
    if let Some(what) = what_is(m.file_type()) {
        return Err(Refused::NotAFile(what));
    }
    if m.len() > kind.limit() {
        return Err(Refused::TooLarge {
            bytes: m.len(),
            kind,
        });
    }
    Ok(m.len())
}

/// Opens `path` for reading once it is known to be a regular file within `kind`'s limit:
/// looked at first (links followed), opened without blocking, and looked at again through the
/// handle (the path may have been replaced in between). Returns the file and its length.
///
/// # Errors
/// A [`Refused`] (inside the `io::Error`) for what is not a regular file or is too large; the
/// system's error when it cannot be looked at or opened (missing, no permission).
pub fn open(path: &Path, kind: Kind) -> std::io::Result<(File, u64)> {
    check(&std::fs::metadata(path)?, kind)?;
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    // A FIFO swapped in after the look would hold a plain open until a writer comes.
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, libc::O_NONBLOCK);
    let file = options.open(path)?;
    let len = check(&file.metadata()?, kind)?;
    Ok((file, len))
}

/// A reader of a file opened by [`open`] that fails, with [`Refused::TooLarge`], once the file
/// gives more than its kind's limit (a file growing while it is read).
pub struct Limited {
    file: std::io::Take<File>,
    read: u64,
    kind: Kind,
}

impl Read for Limited {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.file.read(buf)?;
        self.read += n as u64;
        if self.read > self.kind.limit() {
            return Err(Refused::TooLarge {
                bytes: self.read,
                kind: self.kind,
            }
            .into());
        }
        Ok(n)
    }
}

/// [`open`]s `path` and returns a [`Limited`] reader of it with the file's length then.
///
/// # Errors
/// As [`open`].
pub fn reader(path: &Path, kind: Kind) -> std::io::Result<(Limited, u64)> {
    let (file, len) = open(path, kind)?;
    let reader = Limited {
        // One byte past the limit is enough to tell that the file is over it.
        file: file.take(kind.limit().saturating_add(1)),
        read: 0,
        kind,
    };
    Ok((reader, len))
}

/// Reads the whole file at `path`, a file of `kind` ([`open`], [`Limited`]).
///
/// # Errors
/// As [`open`], plus [`Refused::TooLarge`] for a file that grows past the limit while read.
pub fn read(path: &Path, kind: Kind) -> std::io::Result<Vec<u8>> {
    let (mut r, len) = reader(path, kind)?;
    // The length was checked against the limit, so this allocation is bounded.
    let mut bytes = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
    r.read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Reads the whole text file at `path` ([`read`] with [`Kind::Text`]).
///
/// # Errors
/// As [`read`], plus [`std::io::ErrorKind::InvalidData`] for text that is not UTF-8.
pub fn read_text(path: &Path) -> std::io::Result<String> {
    let (mut r, len) = reader(path, Kind::Text)?;
    let mut text = String::with_capacity(usize::try_from(len).unwrap_or(0));
    r.read_to_string(&mut text)?;
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh empty folder, unique per test and process.
    fn temp_dir(tag: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("throng-input-{}-{tag}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn refused(path: &Path, kind: Kind) -> String {
        let e = read(path, kind).unwrap_err();
        assert!(refusal(&e).is_some(), "{e}");
        e.to_string()
    }

    #[test]
    fn regular_files_within_the_limit_are_read() {
        let dir = temp_dir("read");
        let f = dir.join("a.toml");
        std::fs::write(&f, "x = 1\n").unwrap();
        assert_eq!(read_text(&f).unwrap(), "x = 1\n");
        assert_eq!(read(&f, Kind::Model).unwrap(), b"x = 1\n");
        let missing = read(&dir.join("none"), Kind::Text).unwrap_err();
        assert_eq!(missing.kind(), std::io::ErrorKind::NotFound);
        assert!(refusal(&missing).is_none());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn what_is_not_a_regular_file_is_refused_by_name() {
        let dir = temp_dir("kinds");
        assert_eq!(refused(&dir, Kind::Text), "is a folder, not a regular file");
        #[cfg(unix)]
        {
            assert_eq!(
                refused(Path::new("/dev/zero"), Kind::Model),
                "is a device, not a regular file"
            );
            let fifo = dir.join("fifo");
            let made = std::process::Command::new("mkfifo").arg(&fifo).status();
            if made.is_ok_and(|s| s.success()) {
                // Refused without opening: with no writer, an open for reading would block.
                assert_eq!(refused(&fifo, Kind::Text), "is a FIFO, not a regular file");
            } else {
                eprintln!("skipped the FIFO: mkfifo failed");
            }
            let sock = dir.join("sock");
            let _listener = std::os::unix::net::UnixListener::bind(&sock).unwrap();
            assert_eq!(
                refused(&sock, Kind::Throng),
                "is a socket, not a regular file"
            );
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn files_over_their_kinds_limit_are_refused_with_both_sizes() {
        let dir = temp_dir("large");
        let f = dir.join("big.toml");
        // Sparse: costs no disk.
        let file = File::create(&f).unwrap();
        file.set_len(TEXT_LIMIT + 1).unwrap();
        assert_eq!(
            refused(&f, Kind::Text),
            "is 8388609 bytes, over the 8 MiB limit for recipes, character files and other text inputs"
        );
        file.set_len(20 * (1 << 30) + (1 << 29)).unwrap();
        assert_eq!(
            refused(&f, Kind::Model),
            "is 20.5 GiB, over the 4 GiB limit for models, buffers and images"
        );
        // What is too large for one kind may be fine for another.
        file.set_len(TEXT_LIMIT + 1).unwrap();
        assert_eq!(read(&f, Kind::Model).unwrap().len() as u64, TEXT_LIMIT + 1);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_reader_stops_one_byte_past_the_limit() {
        // A file that grows while read stands in as a longer one read through the limit.
        let dir = temp_dir("grow");
        let f = dir.join("a.toml");
        std::fs::write(&f, "abc").unwrap();
        let (mut r, _) = reader(&f, Kind::Text).unwrap();
        r.read = TEXT_LIMIT - 1;
        let mut out = Vec::new();
        let e = r.read_to_end(&mut out).unwrap_err();
        assert!(matches!(refusal(&e), Some(Refused::TooLarge { .. })), "{e}");
        assert_eq!(size(3), "3 bytes");
        assert_eq!(size(1536), "1.5 KiB");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
