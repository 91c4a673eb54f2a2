//! The container layer of `.throng` files: a fixed header, a table of typed sections, each
//! aligned so that its bytes can be used in place, and CRC-32 checksums over everything.
//! docs/FORMAT.md describes the bytes. What the sections hold is defined by their users.
//!
//! The writer streams the file into [`crate::atomic`]'s writer (temporary file in the same
//! folder, then rename), so an interrupted write never leaves half a file; that module knows
//! only std, so `format` stays a leaf. The reader
//! maps the file and validates every count, offset and size before any use; it never panics
//! and never allocates from an unchecked count.

use std::borrow::Cow;
use std::io::Write as _;
use std::ops::Range;
use std::path::Path;

use super::error::FormatError;
use crate::input::{self, Refused};

/// The first 8 bytes of every `.throng` file.
pub const MAGIC: [u8; 8] = *b"THRONG\0\x1a";
/// Major version this build writes and reads; files of another major version are refused.
pub const VERSION_MAJOR: u16 = 1;
/// Minor version this build writes; newer minor versions only add sections and stay readable.
pub const VERSION_MINOR: u16 = 4;
/// Size of the header, bytes.
pub const HEADER_SIZE: usize = 64;
/// Size of one section table entry, bytes.
pub const ENTRY_SIZE: usize = 32;
/// Largest section alignment, bytes (a memory page).
pub const MAX_ALIGN: u32 = 4096;

/// A section kind: four ASCII bytes, e.g. `*b"TEXL"`.
pub type SectionKind = [u8; 4];

fn kind_name(kind: &SectionKind) -> String {
    kind.iter()
        .map(|b| {
            if b.is_ascii_graphic() {
                char::from(*b)
            } else {
                '?'
            }
        })
        .collect()
}

/// Builds a container: add sections, then [`Writer::write`] or [`Writer::to_bytes`]. Section
/// data is borrowed where it can be, and made of chunks, so that large texel and mesh arrays go
/// to disk without being copied together first.
#[derive(Debug, Default)]
pub struct Writer<'a> {
    sections: Vec<PendingSection<'a>>,
}

/// A section to write: kind, alignment and its data in chunks.
type PendingSection<'a> = (SectionKind, u32, Vec<Cow<'a, [u8]>>);

/// Where each section goes: (offset, size), and the file size.
struct Layout {
    places: Vec<(u64, u64)>,
    size: u64,
}

impl<'a> Writer<'a> {
    /// An empty container.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a section of `kind` whose data starts at a multiple of `align` bytes (a power of
    /// two from 1 to [`MAX_ALIGN`]).
    ///
    /// # Errors
    /// [`FormatError::BadSection`] for a kind used twice, a kind that is not printable ASCII,
    /// or a bad alignment.
    pub fn add(
        &mut self,
        kind: SectionKind,
        align: u32,
        data: impl Into<Cow<'a, [u8]>>,
    ) -> Result<&mut Self, FormatError> {
        self.add_chunks(kind, align, vec![data.into()])
    }

    /// Adds a section whose data is `chunks` one after the other; see [`Writer::add`].
    ///
    /// # Errors
    /// As [`Writer::add`].
    pub fn add_chunks(
        &mut self,
        kind: SectionKind,
        align: u32,
        chunks: Vec<Cow<'a, [u8]>>,
    ) -> Result<&mut Self, FormatError> {
        let bad = |what: String| FormatError::BadSection {
            kind: kind_name(&kind),
            what,
        };
        if !kind.iter().all(u8::is_ascii_graphic) {
            return Err(bad("the kind must be 4 printable ASCII characters".into()));
        }
        if !align.is_power_of_two() || align > MAX_ALIGN {
            return Err(bad(format!(
                "alignment {align} is not a power of two up to {MAX_ALIGN}"
            )));
        }
        if self.sections.iter().any(|(k, _, _)| *k == kind) {
            return Err(bad("added twice".into()));
        }
        self.sections.push((kind, align, chunks));
        Ok(self)
    }

    fn layout(&self) -> Layout {
        let mut at = (HEADER_SIZE + ENTRY_SIZE * self.sections.len()) as u64;
        let places = self
            .sections
            .iter()
            .map(|(_, align, chunks)| {
                at = at.next_multiple_of(u64::from(*align));
                let size: u64 = chunks.iter().map(|c| c.len() as u64).sum();
                let place = (at, size);
                at += size;
                place
            })
            .collect();
        Layout { places, size: at }
    }

    /// The section table, and the header once the content CRC is known.
    fn table(&self, layout: &Layout) -> Vec<u8> {
        let mut t = vec![0u8; ENTRY_SIZE * self.sections.len()];
        for (i, ((kind, align, _), (offset, size))) in
            self.sections.iter().zip(&layout.places).enumerate()
        {
            let e = &mut t[i * ENTRY_SIZE..(i + 1) * ENTRY_SIZE];
            e[0..4].copy_from_slice(kind);
            e[8..16].copy_from_slice(&offset.to_le_bytes());
            e[16..24].copy_from_slice(&size.to_le_bytes());
            e[24..28].copy_from_slice(&align.to_le_bytes());
        }
        t
    }

    fn header(&self, layout: &Layout, content_crc: u32) -> [u8; HEADER_SIZE] {
        let mut h = [0u8; HEADER_SIZE];
        h[0..8].copy_from_slice(&MAGIC);
        h[8..10].copy_from_slice(&VERSION_MAJOR.to_le_bytes());
        h[10..12].copy_from_slice(&VERSION_MINOR.to_le_bytes());
        h[16..24].copy_from_slice(&layout.size.to_le_bytes());
        h[24..28].copy_from_slice(&content_crc.to_le_bytes());
        h[28..32].copy_from_slice(&(self.sections.len() as u32).to_le_bytes());
        h[32..40].copy_from_slice(&(HEADER_SIZE as u64).to_le_bytes());
        h[40..44].copy_from_slice(&(HEADER_SIZE as u32).to_le_bytes());
        let header_crc = crc32fast::hash(&h[..60]);
        h[60..64].copy_from_slice(&header_crc.to_le_bytes());
        h
    }

    /// Feeds the content (everything after the header) to `sink` in order, padding included.
    fn content(
        &self,
        layout: &Layout,
        table: &[u8],
        mut sink: impl FnMut(&[u8]) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        sink(table)?;
        let mut at = (HEADER_SIZE + table.len()) as u64;
        let zeros = [0u8; MAX_ALIGN as usize];
        for ((_, _, chunks), (offset, size)) in self.sections.iter().zip(&layout.places) {
            sink(&zeros[..(offset - at) as usize])?;
            for c in chunks {
                sink(c)?;
            }
            at = offset + size;
        }
        Ok(())
    }

    fn content_crc(&self, layout: &Layout, table: &[u8]) -> u32 {
        let mut h = crc32fast::Hasher::new();
        // Hashing cannot fail.
        let _ = self.content(layout, table, |b| {
            h.update(b);
            Ok(())
        });
        h.finalize()
    }

    /// The file's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let layout = self.layout();
        let table = self.table(&layout);
        let crc = self.content_crc(&layout, &table);
        let mut out = Vec::with_capacity(layout.size as usize);
        out.extend_from_slice(&self.header(&layout, crc));
        let _ = self.content(&layout, &table, |b| {
            out.extend_from_slice(b);
            Ok(())
        });
        out
    }

    /// Writes the container to `path` atomically, through [`crate::atomic`]: into a temporary
    /// file beside it, flushed to disk, then renamed over `path`. On any error the temporary
    /// file is removed and `path` is untouched.
    ///
    /// # Errors
    /// [`FormatError::Io`] naming the step that failed.
    pub fn write(&self, path: &Path) -> Result<(), FormatError> {
        let layout = self.layout();
        let table = self.table(&layout);
        let header = self.header(&layout, self.content_crc(&layout, &table));
        crate::atomic::write_with(path, |w| {
            w.write_all(&header)?;
            self.content(&layout, &table, |b| w.write_all(b))
        })
        .map_err(|e| FormatError::Io {
            file: path.display().to_string(),
            what: e.what,
            error: e.error,
        })
    }
}

/// One validated section table entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Section {
    /// Its kind.
    pub kind: SectionKind,
    /// Byte range in the file.
    pub range: Range<usize>,
    /// Alignment of its start, bytes.
    pub align: u32,
}

/// Where a container's bytes live.
enum Bytes {
    Mapped(memmap2::Mmap),
    /// Copied into 16-byte blocks, so that sections keep the alignment they have in a mapped
    /// file (up to 16) and can be viewed as typed slices.
    Owned(Vec<Block>, usize),
}

#[repr(C, align(16))]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct Block([u8; 16]);

impl Bytes {
    fn get(&self) -> &[u8] {
        match self {
            Bytes::Mapped(m) => m,
            Bytes::Owned(blocks, len) => {
                let all: &[u8] = bytemuck::cast_slice(blocks);
                all.get(..*len).unwrap_or(all)
            }
        }
    }
}

/// A validated container, memory-mapped or in memory. Section data is borrowed in place.
pub struct Container {
    file: String,
    bytes: Bytes,
    minor: u16,
    sections: Vec<Section>,
}

fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}
fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}
fn u64_at(b: &[u8], at: usize) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(a)
}

impl Container {
    /// Maps and validates the file at `path`.
    ///
    /// # Errors
    /// [`FormatError`] saying what is wrong; never panics on any file content:
    /// [`FormatError::NotAFile`] for a folder, device, FIFO or socket; [`FormatError::TooLarge`]
    /// over the size limit of `.throng` files ([`crate::input`]); [`FormatError::Io`] when
    /// it cannot be opened or mapped; [`FormatError::NotThrong`] for another kind of file;
    /// [`FormatError::Version`] for another major version; [`FormatError::Checksum`] for changed
    /// bytes; [`FormatError::Size`] for a file cut off or appended to; [`FormatError::Malformed`]
    /// for an empty file or an inconsistent header or section table.
    pub fn open(path: &Path) -> Result<Self, FormatError> {
        let file = path.display().to_string();
        // Checked before mapping: mapping a folder fails with words that do not say what is
        // wrong ("No such device"), opening a FIFO waits for a writer forever, and a file
        // over the limit is refused before its checksums are read.
        let (f, _) =
            input::open(path, input::Kind::Throng).map_err(|error| {
                match input::refusal(&error) {
                    Some(Refused::NotAFile(what)) => FormatError::NotAFile {
                        file: file.clone(),
                        what,
                    },
                    Some(why @ Refused::TooLarge { .. }) => FormatError::TooLarge {
                        file: file.clone(),
                        why,
                    },
                    None => FormatError::Io {
                        file: file.clone(),
                        what: "opening",
                        error,
                    },
                }
            })?;
        // SAFETY: the map is read-only. Another process truncating the file while it is mapped
        // could fault; throng writes files atomically (rename), which never truncates in place.
        let map = unsafe { memmap2::Mmap::map(&f) }.map_err(|error| FormatError::Io {
            file: file.clone(),
            what: "mapping",
            error,
        })?;
        Self::validate(file, Bytes::Mapped(map))
    }

    /// Validates a container held in memory; `name` is used in messages.
    ///
    /// # Errors
    /// As [`Container::open`].
    pub fn from_bytes(bytes: &[u8], name: &str) -> Result<Self, FormatError> {
        let mut blocks = vec![Block([0; 16]); bytes.len().div_ceil(16)];
        bytemuck::cast_slice_mut::<Block, u8>(&mut blocks)[..bytes.len()].copy_from_slice(bytes);
        Self::validate(name.to_string(), Bytes::Owned(blocks, bytes.len()))
    }

    fn validate(file: String, bytes: Bytes) -> Result<Self, FormatError> {
        let b: &[u8] = bytes.get();
        let malformed = |what: String| FormatError::Malformed {
            file: file.clone(),
            what,
        };
        if b.is_empty() {
            return Err(malformed("the file is empty (0 bytes)".to_string()));
        }
        if b.len() < 8 || b[..8] != MAGIC {
            return Err(FormatError::NotThrong { file });
        }
        if b.len() < HEADER_SIZE {
            return Err(FormatError::Malformed {
                what: format!(
                    "the file is {} bytes, shorter than the {HEADER_SIZE}-byte header (truncated)",
                    b.len()
                ),
                file,
            });
        }
        let (major, minor) = (u16_at(b, 8), u16_at(b, 10));
        if major != VERSION_MAJOR {
            let who = if major > VERSION_MAJOR {
                "a newer"
            } else {
                "an older"
            };
            return Err(FormatError::Version {
                file,
                what: format!(
                    "made by {who} throng (format {major}.{minor}); this build reads {VERSION_MAJOR}.x"
                ),
            });
        }
        let header_crc = crc32fast::hash(&b[..60]);
        if header_crc != u32_at(b, 60) {
            return Err(FormatError::Checksum {
                file,
                part: "header",
                found: header_crc,
                expected: u32_at(b, 60),
            });
        }
        let declared = u64_at(b, 16);
        if declared != b.len() as u64 {
            return Err(FormatError::Size {
                file,
                declared,
                actual: b.len() as u64,
            });
        }
        let body_crc = crc32fast::hash(&b[HEADER_SIZE..]);
        if body_crc != u32_at(b, 24) {
            return Err(FormatError::Checksum {
                file,
                part: "content",
                found: body_crc,
                expected: u32_at(b, 24),
            });
        }
        if u32_at(b, 40) as usize != HEADER_SIZE {
            return Err(malformed(format!(
                "header size is {}, expected {HEADER_SIZE}",
                u32_at(b, 40)
            )));
        }
        let count = u32_at(b, 28) as usize;
        let table = u64_at(b, 32);
        let table_end = count
            .checked_mul(ENTRY_SIZE)
            .and_then(|n| usize::try_from(table).ok()?.checked_add(n))
            .filter(|end| *end <= b.len() && table as usize >= HEADER_SIZE)
            .ok_or_else(|| malformed(format!("section table of {count} entries at byte {table} does not fit in the file ({} bytes)", b.len())))?;
        let mut sections: Vec<Section> = Vec::with_capacity(count);
        for i in 0..count {
            let e = &b[table as usize + i * ENTRY_SIZE..table as usize + (i + 1) * ENTRY_SIZE];
            let kind: SectionKind = [e[0], e[1], e[2], e[3]];
            let name = kind_name(&kind);
            let (offset, size, align) = (u64_at(e, 8), u64_at(e, 16), u32_at(e, 24));
            if !kind.iter().all(u8::is_ascii_graphic) {
                return Err(malformed(format!(
                    "section {i}: kind is not 4 printable ASCII characters"
                )));
            }
            if !align.is_power_of_two() || align > MAX_ALIGN {
                return Err(malformed(format!(
                    "section {i} ('{name}'): alignment {align} is not a power of two up to {MAX_ALIGN}"
                )));
            }
            let range = usize::try_from(offset)
                .ok()
                .zip(usize::try_from(size).ok())
                .and_then(|(o, s)| Some(o..o.checked_add(s)?))
                .filter(|r| r.end <= b.len())
                .ok_or_else(|| malformed(format!("section {i} ('{name}'): bytes {offset}..+{size} lie outside the file ({} bytes)", b.len())))?;
            if range.start < table_end {
                return Err(malformed(format!(
                    "section {i} ('{name}'): starts at byte {offset}, inside the header or section table"
                )));
            }
            if range.start % align as usize != 0 {
                return Err(malformed(format!(
                    "section {i} ('{name}'): offset {offset} is not a multiple of its alignment {align}"
                )));
            }
            if let Some(prev) = sections.last()
                && range.start < prev.range.end
            {
                return Err(malformed(format!(
                    "section {i} ('{name}'): overlaps or precedes section '{}' (sections must be in file order)",
                    kind_name(&prev.kind)
                )));
            }
            if sections.iter().any(|s| s.kind == kind) {
                return Err(malformed(format!(
                    "section {i} ('{name}'): the kind appears twice"
                )));
            }
            sections.push(Section { kind, range, align });
        }
        Ok(Self {
            file,
            bytes,
            minor,
            sections,
        })
    }

    /// The file name used in messages.
    pub fn name(&self) -> &str {
        &self.file
    }

    /// The format version of the file (major is always [`VERSION_MAJOR`]).
    pub fn version(&self) -> (u16, u16) {
        (VERSION_MAJOR, self.minor)
    }

    /// The whole file.
    pub fn bytes(&self) -> &[u8] {
        self.bytes.get()
    }

    /// The sections, in file order.
    pub fn sections(&self) -> &[Section] {
        &self.sections
    }

    /// The data of the section of `kind`, in place, if the file has one.
    pub fn section(&self, kind: SectionKind) -> Option<&[u8]> {
        let s = self.sections.iter().find(|s| s.kind == kind)?;
        self.bytes().get(s.range.clone())
    }
}
