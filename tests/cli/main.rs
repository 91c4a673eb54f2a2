//! The `throng` binary as users run it: its commands (bake, render, inspect, bench, demo), the
//! demo with a model, from any folder, with a quiet stderr, writing files atomically, and the
//! windowed embedding example.
//!
//! One binary per area (Cargo.toml's `[[test]]` entries say why); `cargo test --test cli
//! MODULE::` runs one module.

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
