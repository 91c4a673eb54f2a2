//! The `throng` binary as users run it: its commands (bake, render, inspect, bench, demo), the
//! demo with a model, from any folder, with a quiet stderr, writing files atomically, and the
//! windowed embedding example.
//!
//! One test binary per area: each binary links throng with wgpu, naga and egui, and linking
//! forty-odd of them was a large part of a CI build. Modules are the former one-file binaries;
//! `cargo test --test AREA MODULE::` runs one of them. Helpers shared by every area live in
//! `tests/common`.

#[path = "../common/mod.rs"]
mod common;

mod any_folder;
mod atomic_write;
mod bench;
mod cli;
mod cli_bake;
mod cli_render;
mod demo;
mod demo_model;
mod embed_example;
mod quiet_stderr;
