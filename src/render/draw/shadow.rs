//! Shadows of the crowd: which kind ([`Shadows`]), chosen per frame on the renderer.
//!
//! - [`Shadows::Map`]: a sun shadow map. Agents drawn at LOD levels below
//!   [`MAP_LEVELS`] are rendered into it with the one skinning function (GPU path) or from
//!   their CPU-skinned vertices (CPU path); characters and the ground look it up with a
//!   filtered (percentage-closer) comparison. Agents at coarser levels, far away, get blobs.
//! - [`Shadows::Blob`]: an instanced contact shadow under every agent, drawn from the same
//!   instance records: a soft dark disc on the ground.
//! - [`Shadows::Off`]: no shadows.

use std::fmt;
use std::str::FromStr;

use glam::{Mat4, Vec2, Vec3, Vec3Swizzles as _, Vec4};
use wgpu::util::DeviceExt as _;

use super::pipelines::{Layouts, SHADOW_FORMAT, ShadowUniform};
use crate::format::ThrongFile;

/// Side of the square shadow map, texels: 2048 keeps a 100 m wide view's texels at 5 cm,
/// a tenth of a character's width, and costs 16 MiB.
pub const MAP_SIZE: u32 = 2048;

/// The farthest the shadow map reaches from the camera, metres: agents beyond it are drawn
/// at coarse LOD levels anyway and get blobs.
pub const MAP_REACH: f32 = 150.0;

/// The share of direct sunlight a shadow takes away: a little sky light stays in the shade,
/// as outdoors.
const STRENGTH: f32 = 0.8;

/// LOD levels that cast into the shadow map: agents at level 0 and 1; coarser (more distant)
/// ones get a blob instead, which costs a fraction and reads the same from afar.
pub const MAP_LEVELS: u32 = 2;

/// Which shadows the crowd gets.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Shadows {
    /// No shadows.
    Off,
    /// A soft contact shadow (blob) under each agent (the default of a renderer: it draws
    /// in the pass the caller began, needing no pass of its own).
    #[default]
    Blob,
    /// A sun shadow map for near agents (LOD levels below [`MAP_LEVELS`]), blobs beyond.
    Map,
}

impl Shadows {
    /// Every kind, cheapest first.
    pub const ALL: [Self; 3] = [Self::Off, Self::Blob, Self::Map];

    /// Its name on the command line and in reports: `off`, `blob` or `map`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Off => "off",
            Self::Blob => "blob",
            Self::Map => "map",
        }
    }
}

impl Shadows {
    /// What reads best at the demo's speed on `gpu`: the shadow map on a real GPU, blobs on a
    /// software renderer (lavapipe, llvmpipe), where the map's extra pass costs a frame rate
    /// that is already low.
    pub fn default_for(gpu: &crate::render::Gpu) -> Self {
        if gpu.is_software() {
            Self::Blob
        } else {
            Self::Map
        }
    }
}

/// The shadows for `asked` on `gpu` (`None`: [`Shadows::default_for`] it), with why: `asked
/// for`, or the default and the kind of device it is the default on. The demo and
/// `throng render` choose here and word the reason their own way.
pub fn shadows_choice(asked: Option<Shadows>, gpu: &crate::render::Gpu) -> (Shadows, &'static str) {
    match asked {
        Some(s) => (s, "asked for"),
        None if gpu.is_software() => (
            Shadows::default_for(gpu),
            "the default on a software renderer",
        ),
        None => (Shadows::default_for(gpu), "the default on a GPU"),
    }
}

impl fmt::Display for Shadows {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A shadow kind that is not `off`, `blob` or `map`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown shadows '{0}': use off, blob or map")]
pub struct UnknownShadows(pub String);

impl FromStr for Shadows {
    type Err = UnknownShadows;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|k| k.name() == s)
            .ok_or_else(|| UnknownShadows(s.to_string()))
    }
}

/// The sun's view of what the camera sees, for the shadow map: world to the map's clip space
/// (x and y in -1..1, z in 0..1), the size of one texel (metres) and its depth range.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(in crate::render) struct Fit {
    pub view_proj: Mat4,
    /// One texel of the map, metres.
    pub texel: f32,
    /// Metres from the map's near plane to its far plane.
    pub depth: f32,
}

/// Fits the shadow map to its casters: the ground the camera (`view_proj`, wgpu clip space)
/// sees within `reach` metres, narrowed to the box `casters` (world x and z, min and max) the
/// casting agents stand in, and what stands there between heights `low` and `top` (world y,
/// metres: the lowest ground a caster stands on, the top of the highest), seen from the sun
/// (`towards`, the direction towards it). Their shadows fall inside: in the sun's view a
/// shadow lies behind its caster. The map's texels are snapped to a grid fixed in the sun's
/// view, so that its edges do not crawl as the camera moves. `None` when the casters are out
/// of that ground.
pub(in crate::render) fn fit(
    view_proj: Mat4,
    towards: Vec3,
    reach: f32,
    (low, top): (f32, f32),
    casters: (Vec2, Vec2),
) -> Option<Fit> {
    let height = (top - low).max(0.0);
    let inverse = view_proj.inverse();
    let unproject = |x: f32, y: f32, z: f32| {
        let p = inverse * Vec4::new(x, y, z, 1.0);
        p.truncate() / p.w
    };
    // The ground the camera sees: where its rays meet y = 0, or their reach.
    let (mut seen_lo, mut seen_hi) = (Vec2::splat(f32::MAX), Vec2::splat(f32::MIN));
    let steps = [-1.0, -0.5, 0.0, 0.5, 1.0];
    for &x in &steps {
        for &y in &steps {
            let near = unproject(x, y, 0.0);
            let far = unproject(x, y, 1.0);
            let dir = (far - near).normalize_or_zero();
            let mut t = (far - near).length().min(reach);
            if dir.y < -1e-4 {
                t = t.min(-near.y / dir.y);
            }
            for p in [near, near + dir * t.max(0.0)] {
                seen_lo = seen_lo.min(p.xz());
                seen_hi = seen_hi.max(p.xz());
            }
        }
    }
    // A character's width of room around the casters' feet.
    let room = Vec2::splat(0.5 * height);
    let lo = seen_lo.max(casters.0 - room);
    let hi = seen_hi.min(casters.1 + room);
    if lo.x > hi.x || lo.y > hi.y {
        return None;
    }
    let sun = towards.try_normalize().unwrap_or(Vec3::Y);
    let up = if sun.y.abs() > 0.99 { Vec3::Z } else { Vec3::Y };
    let view = glam::camera::rh::view::look_to_mat4(Vec3::ZERO, -sun, up);
    let (mut a, mut b) = (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN));
    for x in [lo.x, hi.x] {
        for z in [lo.y, hi.y] {
            for y in [low, top] {
                let q = view.transform_point3(Vec3::new(x, y, z));
                a = a.min(q);
                b = b.max(q);
            }
        }
    }
    let side = (b.x - a.x).max(b.y - a.y).max(1e-3);
    let texel = side / MAP_SIZE as f32;
    let snap = |v: f32| (v / texel).floor() * texel;
    let (x0, y0) = (snap(a.x), snap(a.y));
    let (x1, y1) = (x0 + side + texel, y0 + side + texel);
    // Right-handed view: the sun looks down -z. Depth runs from the nearest point (b.z) to
    // the farthest (a.z), and on to where the tallest caster's shadow reaches the ground.
    let (near, far) = (-b.z - 1.0, -a.z + height / sun.y.max(0.2) + 1.0);
    let proj = glam::camera::rh::proj::directx::orthographic(x0, x1, y0, y1, near, far);
    Some(Fit {
        view_proj: proj * view,
        texel: (x1 - x0) / MAP_SIZE as f32,
        depth: far - near,
    })
}

impl Fit {
    /// The uniform's form, the map in use: a depth bias of one and a half texels' depth (the
    /// slope-scaled bias of the shadow pipelines does the rest).
    pub(in crate::render) fn uniform(&self) -> ShadowUniform {
        ShadowUniform {
            view_proj: self.view_proj,
            enabled: true,
            texel_uv: 1.0 / MAP_SIZE as f32,
            bias: 1.5 * self.texel / self.depth.max(1e-3),
            strength: STRENGTH,
        }
    }
}

/// The shaders' shadow uniform with the map out of use.
pub(in crate::render) fn unused() -> ShadowUniform {
    ShadowUniform {
        view_proj: Mat4::IDENTITY,
        enabled: false,
        texel_uv: 0.0,
        bias: 0.0,
        strength: 0.0,
    }
}

/// The shadow map on the GPU: its depth texture and the bind group the lit shaders read it
/// through (group 3: the map and a comparison sampler with bilinear filtering).
pub(in crate::render) struct ShadowMap {
    pub view: wgpu::TextureView,
    pub group: wgpu::BindGroup,
}

impl ShadowMap {
    /// A [`MAP_SIZE`]² map on `device`.
    pub fn new(device: &wgpu::Device, layouts: &Layouts) -> Self {
        let texture = device.create_texture(&wgpu::TextureDescriptor {
            label: Some("shadow map"),
            size: wgpu::Extent3d {
                width: MAP_SIZE,
                height: MAP_SIZE,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: SHADOW_FORMAT,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::TEXTURE_BINDING,
            view_formats: &[],
        });
        let view = texture.create_view(&Default::default());
        let sampler = device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some("shadow map"),
            mag_filter: wgpu::FilterMode::Linear,
            min_filter: wgpu::FilterMode::Linear,
            compare: Some(wgpu::CompareFunction::LessEqual),
            ..Default::default()
        });
        let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("shadow map"),
            layout: &layouts.shadow,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: wgpu::BindingResource::TextureView(&view),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: wgpu::BindingResource::Sampler(&sampler),
                },
            ],
        });
        Self { view, group }
    }
}

/// Each character's blob: the ellipse of its footprint (its first animation's first frame,
/// model space), as two triangles of corners.
pub(in crate::render) struct Blobs {
    pub quads: Vec<wgpu::Buffer>,
}

impl Blobs {
    /// One quad per character of `file`.
    pub fn new(device: &wgpu::Device, file: &ThrongFile) -> Self {
        let bounds = file.bounds();
        let quads = file
            .characters()
            .iter()
            .map(|c| {
                let first = file
                    .anims()
                    .get(c.first_anim as usize)
                    .and_then(|a| bounds.get(a.first_bounds as usize));
                // Half the footprint, with a little room: the shadow reaches past the feet.
                let (rx, rz) = first.map_or((0.3, 0.3), |b| {
                    let x = b.min[0].abs().max(b.max[0].abs());
                    let z = b.min[2].abs().max(b.max[2].abs());
                    (x.max(0.5 * z) * 1.2, z.max(0.5 * x) * 1.2)
                });
                let corner = |u: f32, v: f32| [u * rx, v * rz, u, v];
                let corners = [
                    corner(-1.0, -1.0),
                    corner(1.0, -1.0),
                    corner(1.0, 1.0),
                    corner(-1.0, -1.0),
                    corner(1.0, 1.0),
                    corner(-1.0, 1.0),
                ];
                device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some("blob"),
                    contents: bytemuck::cast_slice(&corners),
                    usage: wgpu::BufferUsages::VERTEX,
                })
            })
            .collect();
        Self { quads }
    }
}

/// Corners of a blob quad (two triangles).
pub(in crate::render) const BLOB_CORNERS: u32 = 6;

#[cfg(test)]
mod tests {
    use super::*;

    /// A camera 10 m up and 20 m back, looking at the origin.
    fn camera() -> Mat4 {
        let view =
            glam::camera::rh::view::look_at_mat4(Vec3::new(0.0, 10.0, 20.0), Vec3::ZERO, Vec3::Y);
        glam::camera::rh::proj::directx::perspective(0.8, 16.0 / 9.0, 0.1, 500.0) * view
    }

    #[test]
    fn the_fit_holds_what_the_camera_sees_near_the_ground() {
        let sun = Vec3::new(0.4, 0.8, 0.45);
        let everywhere = (Vec2::splat(-1e6), Vec2::splat(1e6));
        let f = fit(camera(), sun, MAP_REACH, (0.0, 2.0), everywhere).unwrap();
        // The ground the camera looks at, and a character's head there, are inside the map.
        for p in [
            Vec3::ZERO,
            Vec3::new(5.0, 1.8, 3.0),
            Vec3::new(-8.0, 0.0, 10.0),
        ] {
            let c = f.view_proj.project_point3(p);
            assert!(c.x.abs() <= 1.0 && c.y.abs() <= 1.0, "{p} -> {c}");
            assert!((0.0..=1.0).contains(&c.z), "{p} -> {c}");
        }
        // Towards the sun is nearer in the map.
        let low = f.view_proj.project_point3(Vec3::ZERO).z;
        let high = f.view_proj.project_point3(sun.normalize() * 2.0).z;
        assert!(high < low, "{high} {low}");
        // Texels of a few centimetres, not metres, for a view of some tens of metres.
        assert!(f.texel > 0.005 && f.texel < 0.2, "{}", f.texel);
    }

    #[test]
    fn the_fit_narrows_to_its_casters_and_is_none_without_them() {
        let sun = Vec3::new(0.4, 0.8, 0.45);
        let wide = fit(
            camera(),
            sun,
            MAP_REACH,
            (0.0, 2.0),
            (Vec2::splat(-1e6), Vec2::splat(1e6)),
        );
        let few = fit(
            camera(),
            sun,
            MAP_REACH,
            (0.0, 2.0),
            (Vec2::new(-2.0, -2.0), Vec2::new(2.0, 2.0)),
        );
        let (wide, few) = (wide.unwrap(), few.unwrap());
        assert!(few.texel < 0.5 * wide.texel, "{} {}", few.texel, wide.texel);
        // A caster's head there and its shadow's tip on the ground are in the map.
        let tip = Vec3::new(2.0, 1.8, 2.0) - sun.normalize() * (1.8 / sun.normalize().y);
        for p in [Vec3::new(2.0, 1.8, 2.0), tip] {
            let c = few.view_proj.project_point3(p);
            assert!(
                c.x.abs() <= 1.0 && c.y.abs() <= 1.0 && (0.0..=1.0).contains(&c.z),
                "{p} -> {c}"
            );
        }
        // Casters far behind the camera: nothing to shadow.
        let behind = (Vec2::new(-5.0, 400.0), Vec2::new(5.0, 410.0));
        assert!(fit(camera(), sun, MAP_REACH, (0.0, 2.0), behind).is_none());
    }

    #[test]
    fn the_fit_stays_within_its_reach_above_the_horizon() {
        // Looking at the horizon: the far plane is 500 m away, the map reaches 150 m.
        let view =
            glam::camera::rh::view::look_to_mat4(Vec3::new(0.0, 2.0, 0.0), -Vec3::Z, Vec3::Y);
        let vp = glam::camera::rh::proj::directx::perspective(0.8, 1.0, 0.1, 500.0) * view;
        let f = fit(
            vp,
            Vec3::Y,
            MAP_REACH,
            (0.0, 2.0),
            (Vec2::splat(-1e6), Vec2::splat(1e6)),
        )
        .unwrap();
        // Seen from straight above, the map spans at most the reach's cone: under 2 × 150 m.
        assert!(
            f.texel * MAP_SIZE as f32 <= 2.0 * MAP_REACH + 1.0,
            "{}",
            f.texel
        );
    }

    #[test]
    fn names_round_trip_and_unknown_ones_are_named() {
        for k in Shadows::ALL {
            assert_eq!(k.name().parse::<Shadows>(), Ok(k));
        }
        assert_eq!(
            "soft".parse::<Shadows>().unwrap_err().to_string(),
            "unknown shadows 'soft': use off, blob or map"
        );
    }
}
