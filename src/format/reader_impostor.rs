//! [`ThrongFile`]'s accessors of format 1.4's impostors (docs/FORMAT.md "Impostors"): each
//! character's atlas record (`IMPO`), each animation's impostor frames (`IMPA`) and the
//! pixels of each character frame (`IMPX`, in place). The tables were read and validated with
//! the rest of the file (rules 44-47); a file older than 1.4 has no impostors.

use super::impostor::frame_bytes;
use super::reader::ThrongFile;
use super::records::{ImpostorAnimRecord, ImpostorRecord, kinds};

impl ThrongFile {
    /// Character `character`'s impostor atlas (format 1.4, `IMPO`): its views, cell size,
    /// frames, LOD level, centre and radius (model units) and where its pixels start. `None`
    /// past the characters, for a character without impostors (`views` 0) and for a file
    /// older than 1.4.
    pub fn impostor(&self, character: usize) -> Option<&ImpostorRecord> {
        self.impostors
            .records
            .get(character)
            .filter(|r| r.views != 0)
    }

    /// Animation `anim`'s impostor frames (format 1.4, `IMPA`): `frame_count` of its
    /// character's impostor frames from `first_frame`. The default (0 frames) past the
    /// animations, where its character has no impostors and for a file older than 1.4.
    pub fn impostor_anim(&self, anim: usize) -> ImpostorAnimRecord {
        self.impostors.anims.get(anim).copied().unwrap_or_default()
    }

    /// The pixels of impostor frame `frame` (among all of its character's, `0..frame_count`)
    /// of character `character`, in place: [`frame_bytes`]`(views, cell)` bytes, the RGBA8
    /// colour plane of `(views·cell)²` pixels (rows top first), then the normal-depth plane
    /// laid out alike. `None` past the characters or its frames, or where it has no
    /// impostors.
    pub fn impostor_frame_pixels(&self, character: usize, frame: u32) -> Option<&[u8]> {
        let r = self.impostor(character)?;
        if frame >= r.frame_count {
            return None;
        }
        let size = frame_bytes(r.views, r.cell);
        let start = u64::from(frame)
            .checked_mul(size)?
            .checked_add(r.first_pixel)?;
        let end = start.checked_add(size)?;
        let pixels = self.container().section(kinds::IMPX)?;
        pixels.get(usize::try_from(start).ok()?..usize::try_from(end).ok()?)
    }

    /// Size of the impostor pixels (`IMPX`) of all characters, bytes; 0 for a file older than
    /// 1.4.
    pub fn impostor_bytes(&self) -> u64 {
        self.impostors.pixels
    }
}
