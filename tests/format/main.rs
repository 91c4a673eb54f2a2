//! The `.throng` format: the container, the reader against damaged and hostile baked files,
//! and an independent reader written from docs/FORMAT.md.
//!
//! One binary per area (Cargo.toml's `[[test]]` entries say why); `cargo test --test format
//! MODULE::` runs one module.

#[path = "../common/mod.rs"]
mod common;

mod format_1_3;
mod format_1_4;
mod format_baked;
mod format_container;
mod independent_reader;
