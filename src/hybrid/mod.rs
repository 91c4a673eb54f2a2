//! The hybrid path's live tier: the few agents nearest the camera (chosen by the crowd, see
//! [`crate::crowd::LodPolicy::live_max`]) posed on the CPU every frame with foot IK on the
//! ground, the thousands behind them drawn from the bake, with handoffs that show no jump.
//!
//! A live agent's animations are evaluated live, as the baker evaluated them (its state's
//! blend tree at the parameter values its behaviour plays, or its clip: [`crate::bake::Replay`]),
//! from the recipe and sources the bake was made from; a file whose sources are gone is posed
//! from its own matrices at the agent's phase. Foot IK follows, and the result is cross-faded
//! from the bake's pose by the crowd's handoff blend, so that its first live frame and its
//! first baked frame after the tier are the bake's. Works for every bake: the joints, feet and
//! legs come from the file.
//!
//! - `rig`: per character, feet, legs and contact boxes from the bake.
//! - `animate`: a live agent's pose before IK, and the pose it shows.
//! - `look`: the optional look-at, heads turned toward a point within limits.
//! - `pose`: bake matrices, pelvis drop and two-bone legs onto the ground.
//! - `tier`: [`LiveTier`], the frame's live agents in parallel, rows for the GPU.
//! - `measure`: foot-ground errors and handoff jumps.
//!
//! Knows no wgpu: the renderer draws the rows ([`crate::render::SkinningPath::Hybrid`]).

pub mod animate;
pub mod error;
pub mod look;
pub mod measure;
pub mod pose;
pub mod rig;
pub mod tier;

pub use animate::{Animate, Standing};
pub use error::HybridError;
pub use measure::{Measures, quantile_abs};
pub use rig::{LiveRig, MAX_FEET, MAX_LIVE_JOINTS};
pub use tier::{LiveStats, LiveTier};
