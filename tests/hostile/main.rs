//! Hostile and broken input: bad glTF, hostile character files, the hostile corpus, imports
//! and output paths, and the fuzzer over every parser a user's file reaches.
//!
//! One binary per area (Cargo.toml's `[[test]]` entries say why); `cargo test --test hostile
//! MODULE::` runs one module.

#[path = "../common/mod.rs"]
mod common;

mod bad_input;
mod fuzz;
mod hostile_character;
mod hostile_corpus;
mod hostile_import;
mod hostile_output;
