//! Errors raised when raw animation data is validated into runtime types.

use thiserror::Error;

/// What is wrong with a raw skeleton or clip. Importers add the file name around these.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum AnimError {
    /// The skeleton has no joints at all.
    #[error("skeleton has no joints")]
    EmptySkeleton,
    /// More joints than the 16-bit joint indices used throughout can address.
    #[error("skeleton has {count} joints; at most {max} are supported")]
    TooManyJoints { count: usize, max: usize },
    /// The per-joint arrays of a raw skeleton disagree in length.
    #[error(
        "skeleton arrays disagree: {names} names, {parents} parents, {rest} rest transforms, {inverse_bind} inverse bind matrices, {root_bases} root bases"
    )]
    SkeletonLengths {
        names: usize,
        parents: usize,
        rest: usize,
        inverse_bind: usize,
        root_bases: usize,
    },
    /// A joint's parent does not come before it (joints must be ordered parents-first).
    #[error(
        "joint {joint} ('{name}') has parent {parent}, which does not come before it (joints must be ordered parents-first)"
    )]
    ParentOrder {
        joint: usize,
        name: String,
        parent: usize,
    },
    /// A rest transform, inverse bind or root base contains NaN or infinity, or is singular.
    #[error("joint {joint} ('{name}'): {what}")]
    BadJointData {
        joint: usize,
        name: String,
        what: &'static str,
    },
    /// A channel targets a joint the skeleton does not have.
    #[error(
        "clip '{clip}', channel {channel}: targets joint {joint}, but the skeleton has {joint_count} joints"
    )]
    ChannelJoint {
        clip: String,
        channel: usize,
        joint: usize,
        joint_count: usize,
    },
    /// A channel's key times or values are malformed.
    #[error("clip '{clip}', channel {channel} ({target}): {what}")]
    BadChannel {
        clip: String,
        channel: usize,
        target: String,
        what: String,
    },
}
