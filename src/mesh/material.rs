//! Materials: what the renderer needs to colour a character.

use glam::Vec4;

/// A decoded RGBA8 texture (sRGB colour, row-major, top row first).
#[derive(Clone, Debug, PartialEq)]
pub struct Texture {
    /// Width in texels (> 0).
    pub width: u32,
    /// Height in texels (> 0).
    pub height: u32,
    /// `width * height * 4` bytes.
    pub rgba: Vec<u8>,
}

/// A metallic-roughness material reduced to its base colour.
#[derive(Clone, Debug, PartialEq)]
pub struct Material {
    /// Name from the source file (may be empty).
    pub name: String,
    /// Linear RGBA multiplier, each in [0, 1]. Default white.
    pub base_color_factor: Vec4,
    /// Base-colour texture, multiplied by the factor; `None` for a plain colour.
    pub base_color_texture: Option<Texture>,
}

impl Default for Material {
    fn default() -> Self {
        Self {
            name: String::new(),
            base_color_factor: Vec4::ONE,
            base_color_texture: None,
        }
    }
}
