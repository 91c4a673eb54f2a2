//! Hostile and broken input: bad glTF, hostile character files, the hostile corpus, imports
//! and output paths, and the fuzzer over every parser a user's file reaches.
//!
//! One test binary per area: each binary links throng with wgpu, naga and egui, and linking
//! forty-odd of them was a large part of a CI build. Modules are the former one-file binaries;
//! `cargo test --test AREA MODULE::` runs one of them. Helpers shared by every area live in
//! `tests/common`.

#[path = "../common/mod.rs"]
mod common;

mod bad_input;
mod fuzz;
mod hostile_character;
mod hostile_corpus;
mod hostile_import;
mod hostile_output;
