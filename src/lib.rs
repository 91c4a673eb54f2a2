//! # throng
//!
//! Bake skeletal animation of glTF characters into bone-matrix textures and render crowds of
//! instanced characters.
//!
//! ## Conventions
//! - Math: [`glam`]; right-handed, +Y up, metres, seconds, radians, column vectors, column-major
//!   storage (glTF's conventions).
//! - Joints are stored parents-first (`parent < joint`), so forward kinematics is one loop.
//! - Words: "joint" (glTF's word), "clip", "state", "instance", "agent", "LOD level".
//! - Importers build raw types and validate them into immutable runtime types; hot functions
//!   take borrowed slices and allocate nothing.
//! - Each module has its own error enum; messages name the file and what is wrong.
//!
//! ## Example: the pose of a character at a time of a clip
//!
//! ```
//! use glam::Mat4;
//! use throng::anim::{Playback, Transform, local_to_model, sample, skinning_matrices};
//! use throng::import::{ImportOptions, load_bytes, mannequin};
//!
//! // The built-in mannequin; `throng::import::load(path, ..)` reads a .glb or .gltf file.
//! let model = load_bytes(&mannequin::generate_glb(), "mannequin.glb", &ImportOptions::default())?;
//! let walk = &model.clips[model.find_clip("walk").expect("the mannequin walks")];
//! let n = model.skeleton.len();
//! let (mut local, mut world, mut skin) = (vec![Transform::IDENTITY; n], vec![Mat4::IDENTITY; n], vec![Mat4::IDENTITY; n]);
//! sample(walk, &model.skeleton, walk.local_time(1.25, Playback::Loop), &mut local);
//! local_to_model(&model.skeleton, &local, &mut world);
//! skinning_matrices(&model.skeleton, &world, &mut skin);
//! let head = model.skeleton.find("head").unwrap();
//! assert!(world[head].w_axis.y > 1.4, "the head is above 1.4 m");
//! # Ok::<(), throng::import::ImportError>(())
//! ```
//!
//! ## Modules
//! - [`atomic`]: the one atomic file writer every command uses (temporary file beside the
//!   target, removed on error, stale ones of killed runs cleaned by the next write); std only.
//! - [`anim`]: pure-CPU animation core (transforms, skeleton, clips, sampling, FK, skinning).
//! - [`mesh`]: skinned meshes, materials, bounds.
//! - [`import`]: glTF import and the procedural mannequin.
//! - [`character`]: character files (TOML): blend trees, state machine, IK, events, root motion.
//! - [`bake`]: recipes and the baker: clips and states sampled into bone-matrix texels (f32
//!   bit-exact, f16 under a measured budget), with events, root motion, bounds and LOD meshes.
//! - [`format`](mod@format): the `.throng` file: container (header, sections, checksums, atomic writer),
//!   record tables, the builder, and the validating memory-mapped reader.
//! - [`crowd`]: agents, behaviour, LOD levels and update rates, culling, instance records
//!   (pure CPU).
//! - [`render`]: wgpu rendering of baked crowds (Vulkan, GL), GPU and CPU skinning paths.
//! - [`app`]: the crowd demo: a winit window with an egui panel, or a headless picture.
//! - [`bench`](mod@bench): the headless benchmark harness of `throng bench` and its report (table,
//!   CSV/JSON, PNG plots).
//! - [`cli`]: the `throng` command line (glue only).

pub mod anim;
pub mod app;
pub mod atomic;
pub mod bake;
pub mod bench;
pub mod character;
pub mod cli;
pub mod crowd;
pub mod format;
pub mod import;
pub mod mesh;
pub mod render;
