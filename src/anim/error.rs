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
    TooManyJoints {
        /// The number of joints the raw skeleton has.
        count: usize,
        /// The most joints a skeleton may have ([`MAX_SKELETON_JOINTS`](super::MAX_SKELETON_JOINTS)).
        max: usize,
    },
    /// The per-joint arrays of a raw skeleton disagree in length.
    #[error(
        "skeleton arrays disagree: {names} names, {parents} parents, {rest} rest transforms, {inverse_bind} inverse bind matrices, {root_bases} root bases"
    )]
    SkeletonLengths {
        /// The length of `names`, which sets the joint count the others must match.
        names: usize,
        /// The length of `parents`.
        parents: usize,
        /// The length of `rest` (rest transforms).
        rest: usize,
        /// The length of `inverse_bind` (inverse bind matrices).
        inverse_bind: usize,
        /// The length of `root_bases` (the fixed transforms above root joints).
        root_bases: usize,
    },
    /// A joint's parent does not come before it (joints must be ordered parents-first).
    #[error(
        "joint {joint} ('{name}') has parent {parent}, which does not come before it (joints must be ordered parents-first)"
    )]
    ParentOrder {
        /// The joint's index in the skeleton.
        joint: usize,
        /// The joint's name.
        name: String,
        /// The parent index it names, which is not less than `joint`.
        parent: usize,
    },
    /// A rest transform, inverse bind or root base contains NaN or infinity, or is singular.
    #[error("joint {joint} ('{name}'): {what}")]
    BadJointData {
        /// The joint's index in the skeleton.
        joint: usize,
        /// The joint's name.
        name: String,
        /// Which of the joint's data is bad and how, e.g. "inverse bind matrix is singular".
        what: &'static str,
    },
    /// A channel targets a joint the skeleton does not have.
    #[error(
        "clip '{clip}', channel {channel}: targets joint {joint}, but the skeleton has {joint_count} joints"
    )]
    ChannelJoint {
        /// The clip's name.
        clip: String,
        /// The channel's index in the clip.
        channel: usize,
        /// The joint index the channel targets, which is `joint_count` or more.
        joint: usize,
        /// The number of joints in the skeleton.
        joint_count: usize,
    },
    /// A channel's key times or values are malformed.
    #[error("clip '{clip}', channel {channel} ({target}): {what}")]
    BadChannel {
        /// The clip's name.
        clip: String,
        /// The channel's index in the clip (0 for a problem with the clip's root motion).
        channel: usize,
        /// What the channel animates, e.g. "rotation of joint 'Hips'", or "root motion".
        target: String,
        /// What is wrong, naming the key where there is one, e.g. "value 7 (key 7) is not finite".
        what: String,
    },
}
