//! What the crowd is drawn into and how it is lit, both the caller's: the formats of the
//! render pass ([`PassFormat`]), fixed when a renderer is built, with its optional velocity
//! attachment ([`VELOCITY_FORMAT`]), and the light ([`Light`]: the sun, the sky's and the
//! ground's ambient, distance fog).

use glam::Vec3;

use super::target::{DEPTH_FORMAT, TARGET_FORMAT, VELOCITY_FORMAT};

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
    /// Whether the pass has a second colour attachment, of [`VELOCITY_FORMAT`], that
    /// characters (and the [`Ground`](super::Ground)) write their motion into: the screen
    /// delta since the previous frame (see [`VELOCITY_FORMAT`]). It costs a second skinning
    /// of every vertex, with the previous frame's pose.
    pub velocity: bool,
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
            velocity: false,
        }
    }

    /// This pass with a velocity attachment (see [`PassFormat::velocity`]).
    pub fn with_velocity(self) -> Self {
        Self {
            velocity: true,
            ..self
        }
    }

    /// The colour targets of a pipeline drawing into this pass: the colour attachment as
    /// `color` says, and the velocity attachment where there is one, written (`motion`) or
    /// left as it is.
    pub(super) fn targets(
        &self,
        color: wgpu::ColorTargetState,
        motion: bool,
    ) -> Vec<Option<wgpu::ColorTargetState>> {
        let velocity = wgpu::ColorTargetState {
            format: VELOCITY_FORMAT,
            blend: None,
            write_mask: if motion {
                wgpu::ColorWrites::ALL
            } else {
                wgpu::ColorWrites::empty()
            },
        };
        std::iter::once(Some(color))
            .chain(self.velocity.then_some(Some(velocity)))
            .collect()
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

/// The sky: the colour the stage's pass is cleared to (linear values; an sRGB target stores
/// them encoded).
pub const SKY: wgpu::Color = wgpu::Color {
    r: 0.56,
    g: 0.68,
    b: 0.80,
    a: 1.0,
};

/// How the crowd (and the [`Ground`](super::Ground)) are lit: the sun, ambient light from
/// the sky above and the ground below (a hemisphere), and distance fog into the sky's
/// colour. All colours are linear RGB; the shaders work in linear space and an sRGB target
/// encodes their output.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Light {
    /// Direction towards the sun, world space (need not be normalised; a zero vector leaves
    /// only the ambient term).
    pub direction: Vec3,
    /// The sun's strength, 0 to 1: the fraction of the base colour a surface facing it,
    /// unshadowed, gains over the ambient term.
    pub sun: f32,
    /// Ambient light from the sky: the fraction of the base colour, per channel, that a
    /// surface facing straight up keeps in shadow (0 to 1 each).
    pub sky_ambient: Vec3,
    /// Ambient light bounced off the ground: the same for a surface facing straight down.
    /// Surfaces between blend the two by their normal's height.
    pub ground_ambient: Vec3,
    /// Distance fog.
    pub fog: Fog,
}

/// Distance fog: with distance from the camera, surfaces give way to `color` (that of the
/// sky the pass is cleared to, so that the far ground blends into it at the horizon and
/// nothing ends abruptly at the far plane). Measured against the camera's far plane (from the
/// view-projection each frame), so that it suits a camera at any scale; a projection without
/// a far plane (infinite reversed Z) gets none.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fog {
    /// The fog's colour, linear RGB (0 to 1 each).
    pub color: Vec3,
    /// Where the fog begins, as a fraction of the distance to the far plane (0 to 1).
    pub start: f32,
    /// The share of a surface's colour the fog leaves at the far plane (0 to 1; 1: no fog).
    /// Between `start` and the far plane the share falls exponentially.
    pub kept_at_far: f32,
}

impl Fog {
    /// No fog.
    pub const NONE: Fog = Fog {
        color: Vec3::ZERO,
        start: 1.0,
        kept_at_far: 1.0,
    };
}

impl Default for Light {
    /// The light of throng's own pictures: the sun from above, a little to the side and the
    /// front of the default cameras, so that characters' faces and the ground are lit and
    /// shapes read; a bluish sky and a warm ground bounce (averaging the former flat ambient
    /// level of 0.35); fog in the colour of the [`SKY`] from 40% of the way to
    /// the far plane, leaving 2% of a surface's colour there, so that the ground melts into
    /// the sky. Changing it changes the reference images.
    fn default() -> Self {
        let sky = SKY;
        Self {
            direction: Vec3::new(0.4, 0.8, 0.45),
            sun: 0.65,
            sky_ambient: Vec3::new(0.34, 0.37, 0.42),
            ground_ambient: Vec3::new(0.33, 0.30, 0.26),
            fog: Fog {
                color: Vec3::new(sky.r as f32, sky.g as f32, sky.b as f32),
                start: 0.4,
                kept_at_far: 0.02,
            },
        }
    }
}

impl Light {
    /// The uniform's form for a camera whose far plane is `far` metres away (`None`: none):
    /// the unit direction towards the sun and its strength; the sky's ambient (w unused); the
    /// ground's ambient and where fog starts, metres; the fog's colour and its rate, in
    /// halvings per metre (0: no fog).
    pub(super) fn uniform(&self, far: Option<f32>) -> [[f32; 4]; 4] {
        let l = self.direction.normalize_or_zero();
        let unit = |c: Vec3| c.clamp(Vec3::ZERO, Vec3::ONE);
        let (sky, ground, fog) = (
            unit(self.sky_ambient),
            unit(self.ground_ambient),
            unit(self.fog.color),
        );
        let start = self.fog.start.clamp(0.0, 1.0);
        let kept = self.fog.kept_at_far.clamp(1e-6, 1.0);
        let (start_m, per_metre) = match far {
            Some(far) if far.is_finite() && far > 0.0 && start < 1.0 => {
                (start * far, -kept.log2() / (far * (1.0 - start)))
            }
            _ => (0.0, 0.0),
        };
        [
            [l.x, l.y, l.z, self.sun.clamp(0.0, 1.0)],
            [sky.x, sky.y, sky.z, 0.0],
            [ground.x, ground.y, ground.z, start_m],
            [fog.x, fog.y, fog.z, per_metre],
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The share of colour the fog leaves at `distance` metres, as the shader computes it
    /// from the uniform (`fog_kept` in shaders/lighting.wgsl).
    fn kept(u: &[[f32; 4]; 4], distance: f32) -> f32 {
        (-(distance - u[2][3]).max(0.0) * u[3][3]).exp2()
    }

    #[test]
    fn fog_starts_where_asked_and_leaves_what_is_asked_at_the_far_plane() {
        let light = Light::default();
        let u = light.uniform(Some(250.0));
        // From 40% of the way (100 m) to 2% left at 250 m; f32 exp2 and log2: 1e-5.
        assert_eq!(kept(&u, 100.0), 1.0);
        assert!((kept(&u, 250.0) - 0.02).abs() < 1e-5, "{}", kept(&u, 250.0));
        assert!(kept(&u, 175.0) > 0.02 && kept(&u, 175.0) < 1.0);
        // No far plane, or no fog asked for: nothing fades.
        for u in [
            light.uniform(None),
            Light {
                fog: Fog::NONE,
                ..light
            }
            .uniform(Some(250.0)),
        ] {
            assert_eq!(kept(&u, 1e6), 1.0);
        }
    }

    #[test]
    fn a_velocity_attachment_follows_the_colour_and_only_motion_writes_it() {
        let plain = PassFormat::offscreen(1);
        let color = wgpu::ColorTargetState::from(plain.color);
        assert_eq!(plain.targets(color.clone(), true).len(), 1);
        let with = plain.with_velocity();
        let targets = with.targets(color.clone(), true);
        assert_eq!(targets.len(), 2);
        assert_eq!(targets[1].as_ref().unwrap().format, VELOCITY_FORMAT);
        assert_eq!(
            targets[1].as_ref().unwrap().write_mask,
            wgpu::ColorWrites::ALL
        );
        let blob = with.targets(color, false);
        assert_eq!(
            blob[1].as_ref().unwrap().write_mask,
            wgpu::ColorWrites::empty()
        );
    }
}
