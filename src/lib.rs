//! # throng
//!
//! Bake skeletal animation of glTF characters into bone-matrix textures and render crowds of
//! thousands of instanced, individually animated characters with wgpu.
//!
//! ## The three jobs
//! - **Run the crowd demo**: `cargo run --release` (or `throng demo MODEL.glb`) opens a window
//!   with a crowd and a panel of live statistics and settings (the binary's own `app`
//!   module; your program embeds the renderer instead, below).
//! - **Bake textures for large scenes**: `throng bake RECIPE.toml` (or `throng bake
//!   MODEL.glb`) samples every clip and blend state of your characters into one `.throng`
//!   file ([`bake`], [`format`](mod@format); from code: `examples/bake_in_code.rs`).
//! - **Compare LOD performance settings**: `throng bench` measures frame time and picture
//!   quality per LOD preset, skinning path and backend ([`bench`]).
//!
//! ## Embedding: a crowd your game drives, in your own wgpu program
//! Your program keeps its device, targets, passes and camera, and decides where each agent
//! is and what it plays. throng adds a crowd ([`crowd::Crowd`], CPU only: culling, LOD levels,
//! update rates, instance records) and a renderer ([`render::CrowdRenderer`]) that draws it
//! into *your* render pass: [`prepare`](render::CrowdRenderer::prepare) writes the frame's
//! changes on the queue, [`draw`](render::CrowdRenderer::draw) records the draws into the
//! pass. throng re-exports the [`wgpu`] and [`glam`] it is built with. Whole programs:
//! `examples/march.rs` (1,200 agents marching, offscreen) and `examples/embed.rs` (a window,
//! an orbit camera and meshes of its own, with throng's wandering plaza crowd).
//!
//! ```no_run
//! use std::sync::Arc;
//! use throng::prelude::*;
//!
//! # fn frame(instance: wgpu::Instance, adapter: wgpu::Adapter, device: wgpu::Device,
//! #     queue: wgpu::Queue, color: wgpu::TextureView, depth: wgpu::TextureView,
//! #     view_proj: glam::Mat4, eye: glam::Vec3) -> Result<(), Box<dyn std::error::Error>> {
//! // Once: a bake, a crowd of it under a LOD preset, the skinning path the device can run,
//! // and a renderer for your pass's formats on your device.
//! let file = Arc::new(ThrongFile::open(std::path::Path::new("crowd.throng"))?);
//! let policy = LodPresets::builtin().get("balanced").cloned().unwrap_or_default();
//! let mut crowd: Crowd = Crowd::new(file.clone(), &CrowdSettings::default(), policy)?;
//! let walk = crowd.anim_named(0, "walk")?;
//! let guard = crowd.spawn(&Spawn::new(0, walk, glam::Vec3::new(2.0, 0.0, -5.0)), ())?;
//! let gpu = Gpu::from_device(&instance, &adapter, &device, &queue);
//! let path = choose_path(&PathLimits::of(&gpu, &file), PathRequest::Auto)?.path;
//! let format = PassFormat::new(
//!     wgpu::TextureFormat::Bgra8UnormSrgb, // your colour target
//!     wgpu::TextureFormat::Depth32Float,  // your depth buffer
//!     1,                                  // samples per pixel
//! );
//! let mut renderer = CrowdRenderer::new(&gpu, &file, format)?;
//!
//! // Every frame: your code moves its agents, the crowd culls and picks LOD levels for
//! // your camera, the renderer writes what changed and draws into your pass among your
//! // own draws.
//! crowd.set_transform(guard, glam::Vec3::new(2.0, 0.0, -4.9), 0.0)?;
//! crowd.update(1.0 / 60.0, &View { view_proj, eye });
//! let shown = CrowdFrame::of(&crowd);
//! renderer.prepare(&gpu, &file, &shown, view_proj, path)?;
//! let mut encoder = device.create_command_encoder(&Default::default());
//! {
//!     let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
//!         color_attachments: &[Some(wgpu::RenderPassColorAttachment {
//!             view: &color,
//!             depth_slice: None,
//!             resolve_target: None,
//!             ops: wgpu::Operations::default(),
//!         })],
//!         depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
//!             view: &depth,
//!             depth_ops: Some(wgpu::Operations::default()),
//!             stencil_ops: None,
//!         }),
//!         ..Default::default()
//!     });
//!     // ... your own draws ...
//!     renderer.draw(&mut pass, &shown, path);
//! }
//! queue.submit([encoder.finish()]);
//! # Ok(()) }
//! ```
//!
//! What an agent not due this frame shows, what a program reads back (LOD level, events,
//! root motion, ground speed) and how a behaviour steps agents from inside the update:
//! [`crowd`] and docs/CROWD.md.
//!
//! For temporal anti-aliasing or motion blur, build the renderer for
//! `format.with_velocity()` and give the pass a second colour attachment of
//! [`render::VELOCITY_FORMAT`]: each pixel's screen motion since the previous frame, the
//! crowd's and the camera's (docs/RENDERING.md, "Motion vectors").
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
// Only with the baker: the example poses the mannequin (`anim`, `import`).
#![cfg_attr(
    feature = "bake",
    doc = r#"
## Example: the pose of a character at a time of a clip

```
use glam::Mat4;
use throng::anim::{Wrap, Transform, local_to_model, sample, skinning_matrices};
use throng::import::{ImportOptions, load_bytes, mannequin};

// The built-in mannequin; `throng::import::load(path, ..)` reads a .glb or .gltf file.
let model = load_bytes(&mannequin::generate_glb(), "mannequin.glb", &ImportOptions::default())?;
let walk = &model.clips[model.find_clip("walk").expect("the mannequin walks")];
let n = model.skeleton.len();
let (mut local, mut world, mut skin) = (vec![Transform::IDENTITY; n], vec![Mat4::IDENTITY; n], vec![Mat4::IDENTITY; n]);
sample(walk, &model.skeleton, walk.local_time(1.25, Wrap::Loop), &mut local);
local_to_model(&model.skeleton, &local, &mut world);
skinning_matrices(&model.skeleton, &world, &mut skin);
let head = model.skeleton.find("head").unwrap();
assert!(world[head].w_axis.y > 1.4, "the head is above 1.4 m");
# Ok::<(), throng::import::ImportError>(())
```
"#
)]
//! ## Cargo features
//! The runtime ([`atomic`], [`input`], [`format`](mod@format), [`crowd`], [`render`]: reading
//! `.throng` files, the agents, the renderer) is always built; a game depends on it alone
//! with `default-features = false`. Each feature adds a layer:
//! - `image`: frames read back as `image::RgbaImage` (`render::Target::read`,
//!   `render::target::read_texture`) and compared (`render::pictures::image_diff`); no codec.
//! - `bake` (with `image`): the baker and what it stands on: [`anim`], [`mesh`], [`import`],
//!   [`character`], [`bake`], and the live tier [`hybrid`].
//! - `app` (with `bake`; the default): the demo, `bench`, `cli` and the `throng` binary.
//!
//! ## Modules
//! - [`prelude`]: the names an embedding program needs.
//! - [`atomic`]: the one atomic file writer every command uses (temporary file beside the
//!   target, removed on error, stale ones of killed runs cleaned by the next write); std only.
//! - [`input`]: the one way every input file is read: what is not a regular file (a FIFO,
//!   a device, a folder) is refused unopened, and each kind of file has a size limit.
//! - [`anim`]: pure-CPU animation core (transforms, skeleton, clips, sampling, FK, skinning).
//! - [`mesh`]: skinned meshes, materials, bounds.
//! - [`import`]: glTF import and the procedural mannequin.
//! - [`character`]: character files (TOML): blend trees, state machine, IK, events, root motion.
//! - [`bake`]: recipes and the baker: clips and states sampled into bone-matrix texels (f32
//!   bit-exact, f16 under a measured budget), with events, root motion, bounds and LOD meshes.
//! - [`format`](mod@format): the `.throng` file: container (header, sections, checksums, atomic writer),
//!   record tables, the builder, and the validating memory-mapped reader.
//! - [`crowd`]: the agents a program drives (pure CPU); who is drawn and updated when in
//!   `crowd::frame` (LOD levels and update rates, culling, instance records); the plaza's
//!   wandering agents in `crowd::plaza` (behaviour, avoidance, terrain).
//! - [`hybrid`]: the hybrid path's live tier: the nearest agents posed on the CPU each frame
//!   from the bake's pose with foot IK on the ground, seamless handoffs, their measures.
//! - [`render`]: wgpu rendering of baked crowds (Vulkan, GL): the crowd renderer, devices,
//!   skinning paths and targets at the top; its insides in `render::draw`; helpers for
//!   throng's own pictures (stage, ground, image comparison) in `render::pictures`.
//! - Internal to the `throng` binary (not API; `throng --help` documents their commands):
//!   `app`, the crowd demo of `throng demo` (a winit window with an egui panel, or a headless
//!   picture); `bench`, the headless benchmark harness of `throng bench` and its report;
//!   `cli`, the command line (glue only).
//!
// Links to the modules of a feature that is off lead to the list of features (above).
#![cfg_attr(
    not(feature = "bake"),
    doc = "[`anim`]: #cargo-features\n[`mesh`]: #cargo-features\n[`import`]: #cargo-features\n\
           [`character`]: #cargo-features\n[`bake`]: #cargo-features\n[`hybrid`]: #cargo-features"
)]
#![warn(missing_docs)]

#[cfg(feature = "bake")]
pub mod anim;
#[cfg(feature = "app")]
pub(crate) mod app;
pub mod atomic;
#[cfg(feature = "bake")]
pub mod bake;
#[cfg(feature = "app")]
pub(crate) mod bench;
#[cfg(feature = "bake")]
pub mod character;
#[cfg(feature = "app")]
pub(crate) mod cli;
pub mod crowd;
pub mod format;
#[cfg(feature = "bake")]
pub mod hybrid;
#[cfg(feature = "bake")]
pub mod import;
pub mod input;
#[cfg(feature = "bake")]
pub mod mesh;
pub mod prelude;
pub mod render;

/// What the `throng` binary and throng's own tests reach of the internal modules: not API,
/// hidden from the docs, free to change.
#[cfg(feature = "app")]
#[doc(hidden)]
pub mod internal {
    pub use crate::bench::Report;
    pub use crate::bench::quality::delta_e_where;
    pub use crate::bench::run::camera as bench_camera;

    /// Runs the `throng` command line on the process's arguments; the error it ended with,
    /// as printed.
    pub fn run_command_line() -> Result<(), String> {
        crate::cli::run().map_err(|e| crate::cli::error_report(&e))
    }
}

/// The wgpu throng draws with: an embedding program uses this one (the same version) for the
/// device, passes and formats it hands to [`render`].
pub use wgpu;

/// The math library of throng's public types (`Mat4`, `Vec3`, `Quat`).
pub use glam;
