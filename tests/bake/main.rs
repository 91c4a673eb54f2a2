//! From a model to a bake: import (glTF features, interpolation, the mannequin, the shared
//! third-party models), the animation core (blend trees, state machines, loops, ground speed,
//! allocation-free evaluation), character files, recipes, and the baked file's contents
//! (identical bakes, LOD of any mesh, shared poses, the three.js reference).
//!
//! One binary per area (Cargo.toml's `[[test]]` entries say why); `cargo test --test bake
//! MODULE::` runs one module.
//!
//! `no_alloc` brings a counting `#[global_allocator]` into this whole binary: it counts only
//! on the thread of the test that asked (a thread-local count), so the other modules run beside
//! it unaffected.

#[path = "../common/mod.rs"]
mod common;

mod bake_file;
mod bake_identical;
mod blend_pipeline;
mod character_file;
mod facing;
mod feet;
mod ground_speed;
mod import_features;
mod interpolation;
mod lod_any_mesh;
mod loops;
mod mannequin;
mod mannequin_variants;
mod no_alloc;
mod recipe_units;
mod reference;
mod shared_models;
mod shared_poses;
mod skeleton_lod;
mod state_machine;
