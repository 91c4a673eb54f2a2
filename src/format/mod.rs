//! The `.throng` file format. So far the container layer: header, section table, alignment,
//! checksums, an atomic writer and a validating memory-mapped reader (docs/FORMAT.md). The
//! baked sections (skeletons, clips, meshes, the bone-matrix texture) come with the baker.

mod container;
mod error;

pub use container::{
    Container, ENTRY_SIZE, HEADER_SIZE, Kind, MAGIC, MAX_ALIGN, Section, VERSION_MAJOR,
    VERSION_MINOR, Writer,
};
pub use error::FormatError;
