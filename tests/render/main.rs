//! Pictures and skinning: the GPU paths against the CPU, fidelity of lighting and textures,
//! the reference images, the shaders under naga, models with missing images, and the hybrid
//! (live) tier.
//!
//! One binary per area (Cargo.toml's `[[test]]` entries say why); `cargo test --test render
//! MODULE::` runs one module.

#[path = "../common/mod.rs"]
mod common;

mod facing;
mod hybrid;
mod impostor;
mod missing_images;
mod render_cpu;
mod render_fidelity;
mod render_gpu;
mod shaders;
