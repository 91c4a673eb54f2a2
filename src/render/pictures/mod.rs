//! Helpers outside the renderer, for throng's own pictures (the demo, `throng render`,
//! `throng bench`, the tests) and for embedders who want them. They are built on the
//! renderer's public API (and its shaders' pipeline helpers), the way an embedding program
//! uses it; the renderer needs none of them.
//!
//! - `stage`: the pass of throng's pictures ([`Stage`]): cleared to the sky, the `ground`
//!   drawn first (its triangles from `ground_mesh`, flat or the relief), timed by `timer`
//!   where the device has timestamps; submitting and waiting; test scenes ([`SceneDraw`]);
//! - `motion_view`: a velocity attachment drawn as colours ([`MotionView`]);
//! - `parity`: a compute pass running the shader's skinning function, for tests;
//! - `image_diff`: comparing rendered images (feature `image`).

mod ground;
mod ground_mesh;
#[cfg(feature = "image")]
pub mod image_diff;
mod motion_view;
pub mod parity;
mod stage;
mod timer;

pub use ground::{GROUND_HALF_SIZE, Ground, ground_half_size};
pub use ground_mesh::{GroundVertex, ground_mesh};
pub use motion_view::{FULL_PIXELS, MOTION_VIEW_WGSL, MotionView};
pub use stage::{SceneDraw, Stage};
