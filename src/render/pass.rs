//! What the crowd is drawn into and how it is lit, both the caller's: the formats of the
//! render pass ([`PassFormat`]), fixed when a renderer is built, and the sun ([`Light`]).

use glam::Vec3;

use super::target::{DEPTH_FORMAT, TARGET_FORMAT};

/// The render pass a crowd is drawn into, as its pipelines must know it: colour and depth
/// formats, samples per pixel and the depth test. A [`CrowdRenderer`](super::CrowdRenderer)
/// is built for one pass format; drawing it into a pass of another fails wgpu's validation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PassFormat {
    /// Format of the pass's (single) colour attachment. An sRGB format gets sRGB output;
    /// the shaders write linear colour.
    pub color: wgpu::TextureFormat,
    /// Format of its depth attachment (a depth format; a stencil aspect is left alone).
    pub depth: wgpu::TextureFormat,
    /// Samples per pixel of both attachments (1, or 4 where the device supports it).
    pub samples: u32,
    /// The depth test: [`wgpu::CompareFunction::Less`] for depth cleared to 1.0 (the
    /// default), [`wgpu::CompareFunction::Greater`] for a reversed-Z projection cleared to
    /// 0.0. Characters write depth.
    pub depth_compare: wgpu::CompareFunction,
}

impl PassFormat {
    /// A pass of `color` and `depth` with `samples` samples per pixel and the standard depth
    /// test (`Less`, depth cleared to 1.0).
    pub fn new(color: wgpu::TextureFormat, depth: wgpu::TextureFormat, samples: u32) -> Self {
        Self {
            color,
            depth,
            samples,
            depth_compare: wgpu::CompareFunction::Less,
        }
    }

    /// The pass of throng's own offscreen [`Target`](super::Target)s: [`TARGET_FORMAT`]
    /// colour, 32-bit float depth, `samples` samples per pixel.
    pub fn offscreen(samples: u32) -> Self {
        Self::new(TARGET_FORMAT, DEPTH_FORMAT, samples)
    }

    /// The pass of a [`SurfaceTarget`](super::SurfaceTarget) for a window's surface of
    /// `color`: 32-bit float depth, `samples` samples per pixel.
    pub fn surface(color: wgpu::TextureFormat, samples: u32) -> Self {
        Self::new(color, DEPTH_FORMAT, samples)
    }
}

/// The sun: one directional light and an ambient level.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Light {
    /// Direction towards the light, world space (need not be normalised; a zero vector
    /// leaves only the ambient term).
    pub direction: Vec3,
    /// Ambient level, 0 to 1: the fraction of the base colour a surface facing away from the
    /// light keeps.
    pub ambient: f32,
}

impl Default for Light {
    /// Light from above, a little to the side and the front of the default cameras, so that
    /// characters' faces and the ground are lit and shapes read in the reference images
    /// (changing it changes them).
    fn default() -> Self {
        Self {
            direction: Vec3::new(0.4, 0.8, 0.45),
            ambient: 0.35,
        }
    }
}

impl Light {
    /// The uniform's form: the unit direction and the ambient level clamped to 0..=1.
    pub(super) fn uniform(&self) -> [f32; 4] {
        let l = self.direction.normalize_or_zero();
        [l.x, l.y, l.z, self.ambient.clamp(0.0, 1.0)]
    }
}
