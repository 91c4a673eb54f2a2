//! Pictures and skinning: the GPU paths against the CPU, fidelity of lighting and textures,
//! the reference images, the shaders under naga, models with missing images, and the hybrid
//! (live) tier.
//!
//! One test binary per area: each binary links throng with wgpu, naga and egui, and linking
//! forty-odd of them was a large part of a CI build. Modules are the former one-file binaries;
//! `cargo test --test AREA MODULE::` runs one of them. Helpers shared by every area live in
//! `tests/common`.

#[path = "../common/mod.rs"]
mod common;

mod hybrid;
mod missing_images;
mod render_cpu;
mod render_fidelity;
mod render_gpu;
mod shaders;
