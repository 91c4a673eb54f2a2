//! Small synthetic bakes for the crowd's unit tests: characters of one joint whose animations
//! have the names, flags, speeds, durations and per-frame bounds a test asks for, with one
//! triangle per LOD level. Built with [`Builder`] and read back through the validating reader.
//! Also what the tests of [`Crowd`] share: their bake, policy, settings and cameras.

use crate::format::records::{
    AnimRecord, BoundsRecord, CharacterRecord, JointRecord, MeshRecord, MotionRecord, NONE,
    VertexRecord, anim_flags, anim_kind,
};
use glam::Vec3;

use super::plaza::rng::Rng;
use std::sync::Arc;

use super::{Agent, CrowdSettings, LodPolicy, LodPresets, Plaza, PlazaSettings, View, Wander};
use crate::format::{AnimFacts, Builder, TexelFormat, ThrongFile};

/// One animation of a synthetic character.
#[derive(Clone, Debug)]
pub struct SynthAnim {
    pub name: String,
    pub looping: bool,
    /// Baked at parameter `speed` = this value.
    pub speed: Option<f32>,
    /// Root motion over a cycle (x, z).
    pub root_motion: Option<[f32; 2]>,
    /// Ground speed to record (format 1.1) when neither root motion nor `speed` gives one, as
    /// a bake records the speed measured from a bare model's feet.
    pub ground_speed: Option<f32>,
    pub duration: f32,
}

impl SynthAnim {
    /// A clip without parameter, 1 s long.
    pub fn clip(name: &str, looping: bool) -> Self {
        Self {
            name: name.into(),
            looping,
            speed: None,
            root_motion: None,
            ground_speed: None,
            duration: 1.0,
        }
    }

    /// A looping state baked at `speed`, as the mannequin's move and greet: slower gaits have
    /// longer cycles.
    pub fn state(name: &str, speed: f32) -> Self {
        Self {
            name: name.into(),
            looping: true,
            speed: Some(speed),
            root_motion: None,
            ground_speed: None,
            // The mannequin's: waving lasts 2 s, two walking steps or three running ones.
            duration: match (name, speed > 2.0, speed > 0.0) {
                ("greet", _, true) => 2.0,
                (_, true, _) => 2.0 / 3.0,
                (_, _, true) => 1.0,
                _ => 4.0,
            },
        }
    }
}

/// The mannequin's states: move and greet at 0, 1.2 and 3.0 m/s, and halt.
pub fn standard_anims() -> Vec<SynthAnim> {
    let mut v = Vec::new();
    for name in ["move", "greet"] {
        for s in [0.0, 1.2, 3.0] {
            v.push(SynthAnim::state(name, s));
        }
    }
    v.push(SynthAnim::state("halt", 0.0));
    v
}

/// A bake named `synthetic.throng` with one character per entry of `characters` (named c0,
/// c1...), each with `levels` LOD levels.
pub fn synthetic_file(characters: &[Vec<SynthAnim>], levels: u32) -> ThrongFile {
    let mut b = Builder::new(TexelFormat::Rgba32F);
    for (ci, anims) in characters.iter().enumerate() {
        let name = b.string(&format!("c{ci}"));
        b.characters.push(CharacterRecord {
            name,
            first_joint: b.joints.len() as u32,
            joint_count: 1,
            first_anim: b.anims.len() as u32,
            anim_count: anims.len() as u32,
            first_mesh: b.meshes.len() as u32,
            part_count: 1,
            lod_count: levels,
            height: 1.8,
            reserved: [0; 2],
        });
        let jname = b.string("root");
        b.joints.push(JointRecord {
            name: jname,
            parent: -1,
            reserved: 0,
            inverse_bind: glam::Mat4::IDENTITY.to_cols_array(),
        });
        for a in anims {
            let frame_count = ((a.duration * 30.0).round() as u32).max(1);
            let identity = [
                [1.0, 0.0, 0.0, 0.0],
                [0.0, 1.0, 0.0, 0.0],
                [0.0, 0.0, 1.0, 0.0],
            ];
            let texels: Vec<[f32; 4]> = (0..frame_count).flat_map(|_| identity).collect();
            let first_texel = b.push_texels(&texels);
            let first_bounds = b.bounds.len() as u32;
            for k in 0..frame_count {
                let grow = 0.01 * k as f32;
                b.bounds.push(BoundsRecord {
                    min: [-0.3 - grow, 0.0, -0.25],
                    max: [0.3, 1.8 + grow, 0.25 + grow],
                });
            }
            let first_motion = b.motion.len() as u32;
            let mut flags = if a.looping { anim_flags::LOOPING } else { 0 };
            let mut cycle_motion = [0.0; 3];
            if let Some([x, z]) = a.root_motion {
                flags |= anim_flags::ROOT_MOTION;
                cycle_motion = [x, z, 0.0];
                for k in 0..frame_count {
                    let t = k as f32 / frame_count as f32;
                    b.motion.push(MotionRecord {
                        x: x * t,
                        z: z * t,
                        yaw: 0.0,
                    });
                }
            }
            let name = b.string(&a.name);
            let param = if a.speed.is_some() {
                b.string("speed")
            } else {
                b.string("")
            };
            let fps = if a.looping {
                frame_count as f32 / a.duration
            } else {
                (frame_count.max(2) - 1) as f32 / a.duration
            };
            b.anims.push(AnimRecord {
                name,
                character: ci as u32,
                kind: if a.speed.is_some() {
                    anim_kind::STATE
                } else {
                    anim_kind::CLIP
                },
                flags,
                frame_count,
                first_texel,
                duration: a.duration,
                fps,
                param,
                param_value: a.speed.unwrap_or(0.0),
                first_event: b.events.len() as u32,
                event_count: 0,
                first_motion,
                cycle_motion,
                first_bounds,
                interpolation_error: 0.0,
                precision_error: 0.0,
                reserved: [0; 2],
            });
            // The one speed a bake records for a looping animation: root motion, else the
            // `speed` parameter, else the measured one.
            let root = a
                .root_motion
                .map(|[x, z]| (x * x + z * z).sqrt() / a.duration);
            b.push_anim_facts(&AnimFacts {
                ground_speed: root.or(a.speed).or(a.ground_speed).filter(|_| a.looping),
                ..AnimFacts::default()
            });
        }
        for lod in 0..levels {
            let name = b.string("body");
            let first_vertex = b.vertices.len() as u32;
            for p in [[0.0, 0.0, 0.0], [0.1, 0.0, 0.0], [0.0, 1.0, 0.0]] {
                b.vertices.push(VertexRecord {
                    position: p,
                    normal: [0.0, 0.0, 1.0],
                    uv: [0.0, 0.0],
                    joints: [0; 4],
                    weights: [1.0, 0.0, 0.0, 0.0],
                });
            }
            let first_index = b.indices.len() as u32;
            b.indices.extend([0, 1, 2]);
            b.meshes.push(MeshRecord {
                name,
                character: ci as u32,
                part: 0,
                lod,
                flags: 0,
                ratio: 1.0 / (lod + 1) as f32,
                error: 0.0,
                first_vertex,
                vertex_count: 3,
                first_index,
                index_count: 3,
                base_color: [1.0; 4],
                image: NONE,
                reserved: [0; 3],
            });
        }
    }
    let bytes = b.to_bytes().expect("synthetic bake");
    ThrongFile::from_bytes(&bytes, "synthetic.throng").expect("synthetic bake reads back")
}

/// The default bake of the built-in mannequin (bake/mannequin.toml), baked in memory.
#[cfg(feature = "bake")]
pub fn mannequin_bake() -> ThrongFile {
    use crate::bake::{BakeOptions, Recipe, bake};
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let recipe = Recipe::load(&root.join("bake/mannequin.toml")).expect("default recipe");
    let options = BakeOptions {
        force: true,
        progress: None,
        ..Default::default()
    };
    let baked = bake(&recipe, &options).expect("bake");
    let bytes = baked.builder.to_bytes().expect("bytes");
    ThrongFile::from_bytes(&bytes, "mannequin.throng").expect("read back")
}

/// The one range `0..n` (what `dirty()` is when everything changed).
pub fn whole(n: u32) -> Vec<std::ops::Range<u32>> {
    std::iter::once(0..n).collect()
}

/// [`CrowdSettings::parallel_min`] of the test crowds: small enough that their few thousand
/// agents (and a few hundred due a frame) run every parallel path.
pub const TEST_PARALLEL_MIN: usize = 256;

/// Two characters of the standard animations with 5 LOD levels each (as the default bake).
pub fn file() -> Arc<ThrongFile> {
    Arc::new(synthetic_file(&[standard_anims(), standard_anims()], 5))
}

/// The built-in `balanced` LOD preset without its live tier (every agent baked).
pub fn balanced() -> LodPolicy {
    LodPresets::builtin()
        .get("balanced")
        .unwrap()
        .without_live()
}

/// A camera `k` frames into an orbit around a plaza of half-size `half`, above it and
/// looking across it.
pub fn orbit(half: f32, k: u32) -> View {
    let angle = k as f32 * 0.02;
    let eye = Vec3::new(angle.cos() * half * 0.6, 12.0, angle.sin() * half * 0.6);
    let target = Vec3::new(0.0, 0.0, 0.0);
    let view = glam::camera::rh::view::look_at_mat4(eye, target, Vec3::Y);
    let proj = glam::camera::rh::proj::directx::perspective(1.0, 16.0 / 9.0, 0.1, 500.0);
    View {
        view_proj: proj * view,
        eye,
    }
}

pub fn random_view(rng: &mut Rng, half: f32) -> View {
    let eye = Vec3::new(
        rng.range(-half, half),
        rng.range(1.0, 30.0),
        rng.range(-half, half),
    );
    let target = Vec3::new(rng.range(-half, half), 0.0, rng.range(-half, half));
    let view = glam::camera::rh::view::look_at_mat4(eye, target + Vec3::X * 0.01, Vec3::Y);
    let proj = glam::camera::rh::proj::directx::perspective(
        rng.range(0.3, 1.6),
        rng.range(0.5, 2.0),
        rng.range(0.05, 2.0),
        rng.range(10.0, 120.0),
    );
    View {
        view_proj: proj * view,
        eye,
    }
}

/// The plaza's agents and their wander states in plaza order.
pub fn by_index(p: &Plaza) -> Vec<(Agent, Wander)> {
    (0..p.len())
        .map(|i| {
            let id = p.id(i).unwrap();
            let c = p.crowd();
            let slot = c.schedule().agent_slot()[id.index() as usize] as usize;
            (*c.agent(id).unwrap(), c.data()[slot])
        })
        .collect()
}

/// Settings of a test plaza: `count` agents from `seed`, parallel from [`TEST_PARALLEL_MIN`].
pub fn settings(count: usize, seed: u64) -> PlazaSettings {
    PlazaSettings {
        count,
        seed,
        crowd: CrowdSettings {
            parallel_min: TEST_PARALLEL_MIN,
            ..CrowdSettings::default()
        },
        ..PlazaSettings::default()
    }
}
