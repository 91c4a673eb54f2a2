//! Animation clips: keyframed translation, rotation and scale channels per joint.
//!
//! A [`RawClip`] holds channels as an importer read them; [`RawClip::validate`] checks them
//! against a skeleton and produces an immutable [`Clip`]. Interpolation follows the glTF 2.0
//! specification (Appendix C): STEP, LINEAR (rotations by shortest-arc slerp) and CUBICSPLINE
//! (Hermite, tangents scaled by the key interval). Sampling lives in `sample`.

use std::collections::HashMap;

use glam::Vec4;

use super::error::AnimError;
use super::skeleton::Skeleton;

/// How values between two keys are computed (glTF `sampler.interpolation`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Interpolation {
    /// Hold the earlier key's value until the next key.
    Step,
    /// Linear for translation and scale, shortest-arc slerp for rotation.
    Linear,
    /// Cubic Hermite spline; each key stores in-tangent, value and out-tangent.
    CubicSpline,
}

impl Interpolation {
    /// glTF's spelling: `STEP`, `LINEAR`, `CUBICSPLINE`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Step => "STEP",
            Self::Linear => "LINEAR",
            Self::CubicSpline => "CUBICSPLINE",
        }
    }
}

/// Which part of a joint's local transform a channel drives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Property {
    /// Translation (x, y, z), metres.
    Translation,
    /// Rotation quaternion (x, y, z, w).
    Rotation,
    /// Scale (x, y, z).
    Scale,
}

impl Property {
    /// glTF's path name: `translation`, `rotation`, `scale`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Translation => "translation",
            Self::Rotation => "rotation",
            Self::Scale => "scale",
        }
    }
}

/// One channel as imported: key times and values for one property of one joint.
#[derive(Clone, Debug)]
pub struct RawChannel {
    /// Target joint index in the skeleton.
    pub joint: usize,
    /// Driven property.
    pub property: Property,
    /// Interpolation between keys.
    pub interpolation: Interpolation,
    /// Key times in seconds, strictly increasing.
    pub times: Vec<f32>,
    /// Values: one per key (xyz in `x,y,z`; quaternions as `x,y,z,w`), or for CUBICSPLINE
    /// three per key in the order in-tangent, value, out-tangent.
    pub values: Vec<Vec4>,
}

/// A clip as imported, before validation.
#[derive(Clone, Debug, Default)]
pub struct RawClip {
    /// Clip name (unique within a model).
    pub name: String,
    /// Channels; joints without a channel keep their rest pose.
    pub channels: Vec<RawChannel>,
}

/// A validated channel.
#[derive(Clone, Debug)]
pub struct Channel {
    pub(crate) joint: u16,
    pub(crate) property: Property,
    pub(crate) interpolation: Interpolation,
    pub(crate) times: Box<[f32]>,
    pub(crate) values: Box<[Vec4]>,
    /// Which of the clip's timelines (distinct key-time lists) this channel's times are: a run
    /// of channels keyed at the same times finds its keys once per pose.
    pub(crate) timeline: u32,
}

impl Channel {
    /// Target joint index.
    #[inline]
    pub fn joint(&self) -> usize {
        usize::from(self.joint)
    }
    /// Driven property.
    #[inline]
    pub fn property(&self) -> Property {
        self.property
    }
    /// Interpolation mode.
    #[inline]
    pub fn interpolation(&self) -> Interpolation {
        self.interpolation
    }
    /// Key times in seconds (strictly increasing, at least one).
    #[inline]
    pub fn times(&self) -> &[f32] {
        &self.times
    }
    /// Key values (three per key for CUBICSPLINE: in-tangent, value, out-tangent).
    #[inline]
    pub fn values(&self) -> &[Vec4] {
        &self.values
    }
}

/// An immutable, validated clip.
#[derive(Clone, Debug)]
pub struct Clip {
    name: String,
    duration: f32,
    channels: Box<[Channel]>,
    /// How many distinct key-time lists the channels have (exporters usually key every channel
    /// of a clip at the same times: then one).
    timelines: u32,
}

impl RawClip {
    /// Validates every channel against `skeleton`: joint in range, at least one key, finite
    /// strictly increasing times, the right number of finite values, non-zero quaternions.
    /// Rotation keys are kept as written, as glTF players use them: quantised files carry
    /// rotations a little off unit length (|q| = 0.9999), and renormalising them would move
    /// long chains measurably away from what three.js and others show. CUBICSPLINE results are
    /// normalised, as the specification says.
    ///
    /// # Errors
    /// [`AnimError::ChannelJoint`] or [`AnimError::BadChannel`] naming the channel and the key.
    pub fn validate(self, skeleton: &Skeleton) -> Result<Clip, AnimError> {
        let mut channels: Vec<Channel> = Vec::with_capacity(self.channels.len());
        let mut duration = 0.0f32;
        // Each distinct key-time list (as bits) and its timeline's index; hashed, so that
        // validating stays linear in the keys whatever the file holds.
        let mut timelines: HashMap<Box<[u32]>, u32> = HashMap::new();
        for (index, raw) in self.channels.into_iter().enumerate() {
            if raw.joint >= skeleton.len() {
                return Err(AnimError::ChannelJoint {
                    clip: self.name.clone(),
                    channel: index,
                    joint: raw.joint,
                    joint_count: skeleton.len(),
                });
            }
            let bad = |what: String| AnimError::BadChannel {
                clip: self.name.clone(),
                channel: index,
                target: format!(
                    "{} of joint '{}'",
                    raw.property.name(),
                    skeleton.names()[raw.joint]
                ),
                what,
            };
            check_times(&raw.times).map_err(&bad)?;
            let per_key = if raw.interpolation == Interpolation::CubicSpline {
                3
            } else {
                1
            };
            let expected = raw.times.len() * per_key;
            if raw.values.len() != expected {
                return Err(bad(format!(
                    "{} keys need {expected} {} values, found {}",
                    raw.times.len(),
                    raw.interpolation.name(),
                    raw.values.len()
                )));
            }
            let values = raw.values;
            for (i, v) in values.iter().enumerate() {
                if !v.is_finite() {
                    return Err(bad(format!(
                        "value {i} (key {}) is not finite",
                        i / per_key
                    )));
                }
                // Key values (not CUBICSPLINE tangents) must be rotations.
                if raw.property == Property::Rotation
                    && i % per_key == per_key / 2
                    && v.length() < 1e-6
                {
                    return Err(bad(format!(
                        "rotation key {} is a zero quaternion",
                        i / per_key
                    )));
                }
            }
            // The last key bounds the clip; times are validated as increasing, so it is the max.
            duration = duration.max(*raw.times.last().unwrap_or(&0.0));
            // Bit for bit the same times, so that a key found once is the key of each. Cannot
            // truncate: at most one timeline per channel, and glTF counts channels in u32.
            let next = timelines.len() as u32;
            let timeline = *timelines
                .entry(raw.times.iter().map(|t| t.to_bits()).collect())
                .or_insert(next);
            channels.push(Channel {
                // Cannot truncate: joint < skeleton.len() <= u16::MAX.
                joint: raw.joint as u16,
                property: raw.property,
                interpolation: raw.interpolation,
                times: raw.times.into_boxed_slice(),
                values: values.into_boxed_slice(),
                timeline,
            });
        }
        Ok(Clip {
            name: self.name,
            duration,
            channels: channels.into_boxed_slice(),
            timelines: timelines.len() as u32,
        })
    }
}

/// Checks key times: at least one, all finite, strictly increasing.
///
/// # Errors
/// A message saying which key is at fault ("key time 3 is not finite"), or "has no keys",
/// for the caller to put in its own error (e.g. [`AnimError::BadChannel`]'s `what`).
pub fn check_times(times: &[f32]) -> Result<(), String> {
    if times.is_empty() {
        return Err("has no keys".into());
    }
    for (i, t) in times.iter().enumerate() {
        if !t.is_finite() {
            return Err(format!("key time {i} is not finite"));
        }
        if i > 0 && *t <= times[i - 1] {
            return Err(format!(
                "input times are not increasing at key {i} ({} after {})",
                t,
                times[i - 1]
            ));
        }
    }
    Ok(())
}

impl Clip {
    /// The clip's name.
    #[inline]
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Length in seconds: the latest key time of any channel (clips start at time 0).
    #[inline]
    pub fn duration(&self) -> f32 {
        self.duration
    }

    /// The validated channels.
    #[inline]
    pub fn channels(&self) -> &[Channel] {
        &self.channels
    }

    /// How many distinct key-time lists its channels have: channels keyed at the same times
    /// share one, and sampling finds a time among its keys once for each run of channels on
    /// it (one search per pose when, as exporters write them, all channels share one).
    #[inline]
    pub fn timeline_count(&self) -> usize {
        self.timelines as usize
    }

    /// Key times of every channel merged, sorted and deduplicated, in seconds.
    pub fn key_times(&self) -> Vec<f32> {
        let mut all: Vec<f32> = self
            .channels
            .iter()
            .flat_map(|c| c.times.iter().copied())
            .collect();
        all.sort_by(f32::total_cmp);
        all.dedup();
        all
    }

    /// The distinct interpolation modes used, in STEP, LINEAR, CUBICSPLINE order.
    pub fn interpolations(&self) -> Vec<Interpolation> {
        [
            Interpolation::Step,
            Interpolation::Linear,
            Interpolation::CubicSpline,
        ]
        .into_iter()
        .filter(|mode| self.channels.iter().any(|c| c.interpolation == *mode))
        .collect()
    }

    /// The clip lasting at least `seconds` (its channels hold their last keys until then): an
    /// imported clip keeps the length of channels the importer dropped (morph weights, nodes
    /// that move nothing drawn), as players measure it.
    pub fn lasting_at_least(mut self, seconds: f32) -> Self {
        if seconds.is_finite() && seconds > self.duration {
            self.duration = seconds;
        }
        self
    }
}
