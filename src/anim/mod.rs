//! The animation core: pure CPU math, no I/O, no glTF or GPU types.
//!
//! - [`transform`]: TRS local transforms and shortest-arc slerp.
//! - [`skeleton`]: joints ordered parents-first, rest pose, inverse binds, subtree masks.
//! - [`clip`]: keyframe channels with glTF's STEP, LINEAR and CUBICSPLINE interpolation.
//! - [`sample`](mod@sample): sampling a clip into a local pose (binary search or a per-instance cursor).
//! - [`pose`]: forward kinematics and skinning matrices.
//! - `wide` (private): the per-joint formulas four joints at a time, and the AVX copies of the
//!   pose's loops; the same bits as the scalar formulas.
//! - [`skinning`]: CPU linear blend skinning of positions and normals.
//! - [`blend`]: mixing, masked layers and additive poses on local transforms.
//! - [`graph`]: blend trees (clip, Blend1D with phase sync, layer, additive), allocation-free.
//! - [`state_machine`]: parameters, states, transitions, crossfades and interruptions.
//! - [`root_motion`]: the root's horizontal travel and yaw extracted into a motion track.
//! - [`events`]: timed clip markers and the crossings of a playback step.
//! - [`gait`]: ground speed from the feet: foot joints, planted phases, slide speed and slip.
//! - [`foot_lock`]: planted feet pinned to an agent's ground by a leg solve on skinning matrices.
//! - [`ik`]: inverse kinematics after FK as jobs (validated once, run per frame): two-bone with
//!   pole, CCD, FABRIK, aim.

pub mod blend;
pub mod clip;
pub mod error;
pub mod events;
pub mod foot_lock;
pub mod gait;
pub mod graph;
pub mod ik;
pub mod pose;
pub mod root_motion;
pub mod sample;
pub mod skeleton;
pub mod skinning;
pub mod state_machine;
pub mod transform;
mod wide;

pub use clip::{Channel, Clip, Interpolation, Property, RawChannel, RawClip};
pub use error::AnimError;
pub use pose::{local_to_model, skinning_matrices};
pub use sample::{ClipCursor, Wrap, sample, sample_with_cursor};
pub use skeleton::{MAX_SKELETON_JOINTS, RawSkeleton, Skeleton};
pub use skinning::{skin_normals, skin_positions};
pub use transform::Transform;
