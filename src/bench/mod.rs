//! The headless benchmark harness of `throng bench` and its report.
//!
//! - `results`: what a run measured ([`Report`]: per case, per-frame times by phase as
//!   median/p95/p99, the picture's difference from the LOD-off render and from the shadowless
//!   one, machine and settings).
//! - `run`: running every case (backend × instances × skinning path × shadows × LOD preset)
//!   headless on the same seeded crowd and camera path, measuring each frame by phase.
//! - `live`: the live baseline: every visible agent evaluated through the animation pipeline
//!   each frame, its matrices uploaded and skinned by the same shader.
//! - `quality`: picture differences as CIE76 ΔE.
//! - `levels`: each preset's LOD levels drawn alone where it starts them, against LOD 0 there.
//! - `machine`: the CPU, OS, version and commit a report was measured on.
//! - `report`: writing a [`Report`] out: the stdout table with its comparison block, CSV,
//!   JSON and two PNG plots (frame time by instance count, LOD speed against quality).
//! - `error`: `BenchError`.

pub mod error;
pub mod levels;
pub mod live;
pub mod machine;
pub mod quality;
pub mod report;
pub mod results;
pub mod run;

pub use results::Report;
