//! The `.throng` format: the container, the reader against damaged and hostile baked files,
//! and an independent reader written from docs/FORMAT.md.
//!
//! One test binary per area: each binary links throng with wgpu, naga and egui, and linking
//! forty-odd of them was a large part of a CI build. Modules are the former one-file binaries;
//! `cargo test --test AREA MODULE::` runs one of them. Helpers shared by every area live in
//! `tests/common`.

#[path = "../common/mod.rs"]
mod common;

mod format_baked;
mod format_container;
mod independent_reader;
