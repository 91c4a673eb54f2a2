//! The `.throng` file format (docs/FORMAT.md). The container layer (`container`): header,
//! section table, alignment, checksums, writing (through the crate's one atomic writer,
//! `crate::atomic`) and a validating memory-mapped reader. The baked layer on top: fixed-size
//! record tables (`records`), bake metadata (`metadata`), a [`Builder`] the baker fills, and
//! [`ThrongFile`] (`reader`), which checks every table (`validate`) before handing out typed,
//! in-place views ([`Texels`]). This build writes format 1.4 ([`VERSION_MINOR`]): 1.1 adds
//! each joint's glTF node and each animation's ground speed, foot slide and source
//! ([`AnimFacts`]) in four new sections, 1.2 each character's facing turn (`CEXT`,
//! [`ThrongFile::facing_turns`]), 1.3 the joints each LOD level skins with (`JLOD`,
//! [`ThrongFile::lod_joints`]), 1.4 animated impostors (`IMPO`, `IMPA`, `IMPX`,
//! [`ThrongFile::impostor`], geometry in [`impostor`]); it reads 1.0 to 1.3 files too. The shared constants
//! [`TEXELS_PER_MATRIX`] and [`MAX_JOINTS`] and the one quarter turn
//! ([`records::turn_matrix`]) live in `records`.

mod builder;
mod container;
mod error;
pub mod impostor;
mod metadata;
mod reader;
mod reader_impostor;
pub mod records;
mod texels;
mod validate;

pub use builder::{AnimFacts, AnimSource, Builder};
pub use container::{
    Container, ENTRY_SIZE, HEADER_SIZE, MAGIC, MAX_ALIGN, Section, SectionKind, VERSION_MAJOR,
    VERSION_MINOR, Writer,
};
pub use error::FormatError;
pub use metadata::{InputFile, Metadata, NoGroundSpeed};
pub use reader::ThrongFile;
pub use records::{MAX_JOINTS, TEXELS_PER_MATRIX, TexelFormat};
pub use texels::Texels;
