//! The `.throng` file format (docs/FORMAT.md). The container layer (`container`): header,
//! section table, alignment, checksums, an atomic writer and a validating memory-mapped
//! reader. The baked layer on top: fixed-size record tables (`records`), bake metadata
//! (`metadata`), a [`Builder`] the baker fills, and [`ThrongFile`], which validates every
//! table before handing out typed, in-place views.

mod builder;
mod container;
mod error;
mod metadata;
mod reader;
pub mod records;

pub use builder::Builder;
pub use container::{
    Container, ENTRY_SIZE, HEADER_SIZE, Kind, MAGIC, MAX_ALIGN, Section, VERSION_MAJOR,
    VERSION_MINOR, Writer,
};
pub use error::FormatError;
pub use metadata::{InputFile, Metadata};
pub use reader::{MAX_JOINTS, Texels, ThrongFile};
pub use records::TexelFormat;

/// Texels per joint matrix in the bone-matrix texture: the three rows of the affine 3×4
/// matrix, one RGBA texel each (docs/FORMAT.md). Every texel offset of a matrix is a
/// multiple of it; reader, baker, renderer and bench all count with this one constant.
pub const TEXELS_PER_MATRIX: u32 = 3;
