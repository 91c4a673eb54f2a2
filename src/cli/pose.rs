//! `throng pose`: evaluate clips at given times and print world and skinning matrices (and
//! optionally skinned vertices) as JSON, for checking against other glTF implementations.

use std::io::Write as _;

use anyhow::{Context, Result, bail};
use glam::{Mat4, Vec3};
use serde::Serialize;

use super::ModelArgs;
use crate::anim::{Playback, Transform, local_to_model, sample, skinning_matrices};
use crate::import::Model;

/// Arguments of `throng pose`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    model: ModelArgs,
    /// Clip name or index (default: every clip).
    #[arg(long, value_name = "NAME|INDEX")]
    clip: Option<String>,
    /// Time in seconds, clamped to [0, duration] (never wrapped); repeatable.
    /// Default: 0 and the midpoint of each clip.
    #[arg(long = "time", value_name = "T", allow_negative_numbers = true)]
    times: Vec<f32>,
    /// Also print the skinned world-space vertices of every primitive.
    #[arg(long)]
    positions: bool,
}

#[derive(Serialize)]
struct Output {
    joints: Vec<JointOut>,
    clips: Vec<ClipOut>,
    samples: Vec<SampleOut>,
}

#[derive(Serialize)]
struct JointOut {
    name: String,
    node: usize,
    parent: Option<usize>,
}

#[derive(Serialize)]
struct ClipOut {
    name: String,
    duration: f32,
}

#[derive(Serialize)]
struct SampleOut {
    /// `None` for the rest pose of a model without clips.
    clip: Option<String>,
    time: f32,
    world: Vec<[f32; 16]>,
    skin: Vec<[f32; 16]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    primitives: Option<Vec<PrimitiveOut>>,
}

#[derive(Serialize)]
struct PrimitiveOut {
    node: usize,
    mesh: usize,
    primitive: usize,
    positions: Vec<[f32; 3]>,
}

/// Evaluates `model` at `time` of clip `clip` (or the rest pose) into world and skin matrices.
fn evaluate(
    model: &Model,
    clip: Option<usize>,
    time: f32,
    local: &mut [Transform],
    world: &mut [Mat4],
    skin: &mut [Mat4],
) {
    let skeleton = &model.skeleton;
    match clip {
        Some(c) => {
            let clip = &model.clips[c];
            sample(
                clip,
                skeleton,
                clip.local_time(time, Playback::Clamp),
                local,
            );
        }
        None => local.copy_from_slice(skeleton.rest()),
    }
    local_to_model(skeleton, local, world);
    skinning_matrices(skeleton, world, skin);
}

pub(super) fn run(args: &Args) -> Result<()> {
    let model = args.model.load()?;
    for w in &model.warnings {
        eprintln!("warning: {w}");
    }
    for n in &model.notes {
        eprintln!("note: {n}");
    }
    let clips: Vec<Option<usize>> = match &args.clip {
        Some(key) => match model.find_clip(key) {
            Some(i) => vec![Some(i)],
            None => {
                let names: Vec<&str> = model.clips.iter().map(|c| c.name()).collect();
                bail!(
                    "{}: no clip '{key}'; clips are: {}",
                    model.name,
                    if names.is_empty() {
                        "(none)".to_string()
                    } else {
                        names.join(", ")
                    }
                );
            }
        },
        None if model.clips.is_empty() => vec![None],
        None => (0..model.clips.len()).map(Some).collect(),
    };
    if let Some(t) = args.times.iter().find(|t| !t.is_finite()) {
        bail!("--time {t}: not a finite number of seconds");
    }

    let n = model.skeleton.len();
    let mut local = vec![Transform::IDENTITY; n];
    let mut world = vec![Mat4::IDENTITY; n];
    let mut skin = vec![Mat4::IDENTITY; n];
    let (mut pos, mut nrm) = (Vec::new(), Vec::new());
    let mut samples = Vec::new();
    for clip in clips {
        let times = if !args.times.is_empty() {
            args.times.clone()
        } else {
            let d = clip.map_or(0.0, |c| model.clips[c].duration());
            if d > 0.0 {
                vec![0.0, d * 0.5]
            } else {
                vec![0.0]
            }
        };
        for time in times {
            evaluate(&model, clip, time, &mut local, &mut world, &mut skin);
            let primitives = args.positions.then(|| {
                model
                    .meshes
                    .iter()
                    .map(|m| {
                        m.mesh.skin(&skin, &mut pos, &mut nrm);
                        PrimitiveOut {
                            node: m.source.node,
                            mesh: m.source.mesh,
                            primitive: m.source.primitive,
                            positions: pos.iter().map(|p: &Vec3| p.to_array()).collect(),
                        }
                    })
                    .collect()
            });
            samples.push(SampleOut {
                clip: clip.map(|c| model.clips[c].name().to_string()),
                time,
                world: world.iter().map(Mat4::to_cols_array).collect(),
                skin: skin.iter().map(Mat4::to_cols_array).collect(),
                primitives,
            });
        }
    }
    let out = Output {
        joints: (0..n)
            .map(|j| JointOut {
                name: model.skeleton.names()[j].clone(),
                node: model.joint_nodes[j],
                parent: model.skeleton.parent(j),
            })
            .collect(),
        clips: model
            .clips
            .iter()
            .map(|c| ClipOut {
                name: c.name().to_string(),
                duration: c.duration(),
            })
            .collect(),
        samples,
    };
    let stdout = std::io::stdout();
    let mut w = std::io::BufWriter::new(stdout.lock());
    serde_json::to_writer(&mut w, &out).context("writing JSON")?;
    writeln!(w).context("writing JSON")?;
    w.flush().context("writing JSON")?;
    Ok(())
}
