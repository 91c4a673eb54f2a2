//! glTF animations to clips: channels read and checked per sampler, unnamed animations named,
//! and animations that drive disjoint joints merged on request (or by default for files like
//! CesiumMan that split one clip into one animation per joint).

use glam::Vec4;
use gltf::accessor::Dimensions;
use gltf::animation::{Interpolation as GltfInterpolation, Property as GltfProperty};

use crate::anim::clip::check_times;
use crate::anim::{Interpolation, Property, RawChannel, RawClip};

use super::Source;
use super::scene::Joints;

/// Whether imported animations are merged into one clip.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MergeAnimations {
    /// Merge only when every animation is unnamed and they drive disjoint joints with one
    /// duration (a clip split per joint, as in CesiumMan); otherwise keep them apart.
    #[default]
    Auto,
    /// Merge all animations into one clip; an error if they overlap or differ in duration.
    Always,
    /// Keep every animation as its own clip.
    Never,
}

/// Name given to the clip made by merging animations.
pub const MERGED_CLIP_NAME: &str = "merged";

/// Checks what the `gltf` crate's schema validation leaves out for animation channels (target
/// node in range, known target path), so that reading them later cannot panic.
pub(super) fn check_channels(doc: &gltf::Document) -> Result<(), String> {
    let root = doc.as_json();
    for (a, anim) in root.animations.iter().enumerate() {
        for (c, channel) in anim.channels.iter().enumerate() {
            if channel.target.node.value() >= root.nodes.len() {
                return Err(format!(
                    "animation {a}, channel {c}: target node {} does not exist ({} nodes)",
                    channel.target.node.value(),
                    root.nodes.len()
                ));
            }
            if !matches!(
                channel.target.path,
                gltf::json::validation::Checked::Valid(_)
            ) {
                return Err(format!(
                    "animation {a}, channel {c}: target path is not translation, rotation, scale or weights"
                ));
            }
        }
    }
    Ok(())
}

/// One glTF animation, read.
pub(super) struct Animation {
    /// The channels throng plays.
    pub clip: RawClip,
    /// Whether the file names it.
    pub named: bool,
    /// Its latest key time over every channel, including those throng drops (morph weights,
    /// nodes that move nothing drawn): players measure a clip's length that way.
    pub end: f32,
    /// Its index in the glTF file's `animations`.
    pub index: usize,
}

/// A clip ready for validation: its channels, its length (see [`Animation::end`]) and the
/// glTF animations it came from (one, or several when merged).
pub(super) struct MergedClip {
    /// The channels.
    pub clip: RawClip,
    /// Its length, seconds.
    pub end: f32,
    /// Indices into the file's `animations`, ascending.
    pub sources: Vec<usize>,
}

/// Reads every animation into a raw clip, checking sampler data as it goes.
pub(super) fn read_animations(
    src: &Source,
    joints: &Joints,
    warnings: &mut Vec<String>,
) -> Result<Vec<Animation>, String> {
    let mut clips = Vec::new();
    let mut used_names = std::collections::HashSet::new();
    let mut morph_animations = Vec::new();
    for anim in src.doc.animations() {
        let label = match anim.name() {
            Some(n) => format!("animation {} ({n})", anim.index()),
            None => format!("animation {}", anim.index()),
        };
        let named = anim.name().is_some_and(|n| !n.is_empty());
        let mut name = match anim.name() {
            Some(n) if !n.is_empty() => n.to_string(),
            _ => format!("animation_{}", anim.index()),
        };
        if !used_names.insert(name.clone()) {
            let renamed = format!("{name}_{}", anim.index());
            warnings.push(format!(
                "{label}: another animation is also called '{name}'; this one is named '{renamed}'"
            ));
            name = renamed;
            used_names.insert(name.clone());
        }
        let mut channels = Vec::new();
        let mut morph = false;
        let mut skipped = 0;
        let mut end = 0.0f32;
        for channel in anim.channels() {
            let sampler = channel.sampler();
            let slabel = format!("{label}, sampler {}", sampler.index());
            let input = sampler.input();
            let times = src
                .floats(&input, "sampler input", &[Dimensions::Scalar])
                .map_err(|e| format!("{slabel}: {e}"))?
                .values;
            check_times(&times).map_err(|e| format!("{slabel}: {e}"))?;
            end = end.max(times.last().copied().unwrap_or(0.0));
            let property = match channel.target().property() {
                GltfProperty::Translation => Property::Translation,
                GltfProperty::Rotation => Property::Rotation,
                GltfProperty::Scale => Property::Scale,
                GltfProperty::MorphTargetWeights => {
                    morph = true;
                    continue;
                }
            };
            let Some(joint) = joints.of_node[channel.target().node().index()] else {
                // The node moves nothing that is drawn.
                skipped += 1;
                continue;
            };
            let interpolation = match sampler.interpolation() {
                GltfInterpolation::Step => Interpolation::Step,
                GltfInterpolation::Linear => Interpolation::Linear,
                GltfInterpolation::CubicSpline => Interpolation::CubicSpline,
            };
            let output = sampler.output();
            let dims = if property == Property::Rotation {
                Dimensions::Vec4
            } else {
                Dimensions::Vec3
            };
            let out = src
                .floats(&output, "sampler output", &[dims])
                .map_err(|e| format!("{slabel}: {e}"))?;
            let per_key = if interpolation == Interpolation::CubicSpline {
                3
            } else {
                1
            };
            if out.count() != times.len() * per_key {
                return Err(format!(
                    "{slabel}: {} input times need {} {} output values, found {}",
                    times.len(),
                    times.len() * per_key,
                    interpolation.name(),
                    out.count()
                ));
            }
            let values: Vec<Vec4> = out
                .values
                .chunks_exact(out.components)
                .map(|c| Vec4::new(c[0], c[1], c[2], c.get(3).copied().unwrap_or(0.0)))
                .collect();
            if let Some(i) = values.iter().position(|v| !v.is_finite()) {
                return Err(format!("{slabel}: output value {i} is not finite"));
            }
            channels.push(RawChannel {
                joint,
                property,
                interpolation,
                times,
                values,
            });
        }
        if morph {
            morph_animations.push(name.clone());
        }
        if skipped > 0 {
            warnings.push(format!(
                "{label}: {skipped} channel(s) drive nodes that move no mesh; ignored"
            ));
        }
        clips.push(Animation {
            clip: RawClip { name, channels },
            named,
            end,
            index: anim.index(),
        });
    }
    if !morph_animations.is_empty() {
        warnings.push(format!(
            "morph target weight channels are ignored in {} animation(s): {}",
            morph_animations.len(),
            morph_animations.join(", ")
        ));
    }
    Ok(clips)
}

fn duration(clip: &RawClip) -> f32 {
    clip.channels
        .iter()
        .filter_map(|c| c.times.last().copied())
        .fold(0.0, f32::max)
}

/// Why a set of clips cannot be merged, or `None` when it can.
fn merge_obstacle(clips: &[Animation], joint_names: &[String]) -> Option<String> {
    let mut owner: std::collections::HashMap<usize, usize> = std::collections::HashMap::new();
    for (i, Animation { clip, .. }) in clips.iter().enumerate() {
        for c in &clip.channels {
            if let Some(&other) = owner.get(&c.joint)
                && other != i
            {
                return Some(format!(
                    "'{}' and '{}' both drive joint '{}'",
                    clips[other].clip.name, clip.name, joint_names[c.joint]
                ));
            }
            owner.insert(c.joint, i);
        }
    }
    let durations: Vec<f32> = clips.iter().map(|a| duration(&a.clip).max(a.end)).collect();
    let (lo, hi) = durations
        .iter()
        .fold((f32::INFINITY, 0.0f32), |(lo, hi), d| {
            (lo.min(*d), hi.max(*d))
        });
    // A millisecond: exporters round key times, but a real length difference is far larger.
    if hi - lo > 1e-3 {
        return Some(format!("their durations differ ({lo} s to {hi} s)"));
    }
    None
}

/// What `merge` tells the user when it merged on its own accord.
pub(super) type MergeNote = Option<String>;

/// Applies the merge policy. Returns the clips to keep, each with its latest key time over all
/// its channels (see [`Animation::end`]), and an optional note for the user.
pub(super) fn merge(
    clips: Vec<Animation>,
    policy: MergeAnimations,
    joint_names: &[String],
) -> Result<(Vec<MergedClip>, MergeNote), String> {
    let all_unnamed = clips.iter().all(|a| !a.named);
    let wanted = match policy {
        MergeAnimations::Never => false,
        _ if clips.len() < 2 => false,
        MergeAnimations::Always => {
            if let Some(why) = merge_obstacle(&clips, joint_names) {
                return Err(format!(
                    "cannot merge the {} animations into one clip: {why}",
                    clips.len()
                ));
            }
            true
        }
        MergeAnimations::Auto => all_unnamed && merge_obstacle(&clips, joint_names).is_none(),
    };
    if !wanted {
        let kept = clips.into_iter().map(|a| MergedClip {
            clip: a.clip,
            end: a.end,
            sources: vec![a.index],
        });
        return Ok((kept.collect(), None));
    }
    let count = clips.len();
    let end = clips.iter().map(|a| a.end).fold(0.0, f32::max);
    let sources = clips.iter().map(|a| a.index).collect();
    let channels = clips.into_iter().flat_map(|a| a.clip.channels).collect();
    let note = format!(
        "merged {count} {}animations that drive disjoint joints into one clip '{MERGED_CLIP_NAME}'{}",
        if all_unnamed { "unnamed " } else { "" },
        if policy == MergeAnimations::Auto {
            " (--merge-animations never keeps them apart)"
        } else {
            ""
        }
    );
    Ok((
        vec![MergedClip {
            clip: RawClip {
                name: MERGED_CLIP_NAME.to_string(),
                channels,
            },
            end,
            sources,
        }],
        Some(note),
    ))
}
