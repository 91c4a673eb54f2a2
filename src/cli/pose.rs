//! `throng pose`: evaluate clips (or a character's state) at given times and print world and
//! skinning matrices, and optionally skinned vertices, as JSON, for checking against other glTF
//! implementations.

use std::io::Write as _;
use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use glam::Vec3;
use serde::Serialize;

use super::{MergeArg, load_model};
use crate::anim::Wrap;
use crate::anim::state_machine::ParamKind;
use crate::character::number::{parse_f32, to_f32};
use crate::character::{Character, Poser};
use crate::import::Model;

/// Arguments of `throng pose`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The glTF model (.glb, or .gltf with its files beside it). Omit with --character.
    #[arg(required_unless_present = "character", conflicts_with = "character")]
    model: Option<PathBuf>,
    /// A character file (TOML): evaluate one of its states (see --state) through blend trees,
    /// layers and IK instead of a bare clip.
    #[arg(long, value_name = "FILE")]
    character: Option<PathBuf>,
    /// State to evaluate (with --character; default: the initial state).
    #[arg(long, requires = "character", conflicts_with = "clip")]
    state: Option<String>,
    /// Parameter value for the state, NAME=VALUE (bools: true/false); repeatable.
    #[arg(long = "param", value_name = "NAME=VALUE", requires = "character")]
    params: Vec<String>,
    /// Merge animations that drive disjoint joints into one clip. Bare flag means 'always'.
    #[arg(long, value_enum, default_value = "auto", num_args = 0..=1, default_missing_value = "always", value_name = "WHEN", conflicts_with = "character")]
    merge_animations: MergeArg,
    /// Clip name or index (default: every clip).
    #[arg(long, value_name = "NAME|INDEX")]
    clip: Option<String>,
    /// Time in seconds; repeatable. Clips: clamped to [0, duration], never wrapped. States: the
    /// state plays from its start for this long with the given parameters.
    /// Default: 0 and the midpoint of each clip (states: 0 and half a cycle).
    /// Read at f64 so that a value beyond f32 is reported as out of range rather than as inf.
    #[arg(long = "time", value_name = "T", allow_negative_numbers = true)]
    times: Vec<f64>,
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
    /// `None` for a state, or the rest pose of a model without clips.
    clip: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    state: Option<String>,
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

/// Reusable buffers for one model.
struct Buffers {
    printed: Vec<usize>,
    poser: Poser,
    pos: Vec<Vec3>,
    nrm: Vec<Vec3>,
}

impl Buffers {
    fn new(model: &Model) -> Self {
        let n = model.skeleton.len();
        let skin_joints: Vec<usize> = (0..n).filter(|&j| model.joint_in_skin[j]).collect();
        Self {
            printed: if skin_joints.is_empty() {
                (0..n).collect()
            } else {
                skin_joints
            },
            poser: Poser::new(model),
            pos: Vec::new(),
            nrm: Vec::new(),
        }
    }

    fn sample(
        &mut self,
        model: &Model,
        clip: Option<String>,
        state: Option<String>,
        time: f32,
        positions: bool,
    ) -> SampleOut {
        let (world, skin) = (self.poser.world(), self.poser.skin());
        let primitives = positions.then(|| {
            model
                .meshes
                .iter()
                .map(|m| {
                    m.mesh.skin(skin, &mut self.pos, &mut self.nrm);
                    PrimitiveOut {
                        node: m.source.node,
                        mesh: m.source.mesh,
                        primitive: m.source.primitive,
                        positions: self.pos.iter().map(|p| p.to_array()).collect(),
                    }
                })
                .collect()
        });
        SampleOut {
            clip,
            state,
            time,
            world: self
                .printed
                .iter()
                .map(|&j| world[j].to_cols_array())
                .collect(),
            skin: self
                .printed
                .iter()
                .map(|&j| skin[j].to_cols_array())
                .collect(),
            primitives,
        }
    }
}

fn clip_samples(
    model: &Model,
    args: &Args,
    given: &[f32],
    b: &mut Buffers,
) -> Result<Vec<SampleOut>> {
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
    let mut samples = Vec::new();
    for clip in clips {
        let times = if !given.is_empty() {
            given.to_vec()
        } else {
            let d = clip.map_or(0.0, |c| model.clips[c].duration());
            if d > 0.0 {
                vec![0.0, d * 0.5]
            } else {
                vec![0.0]
            }
        };
        for time in times {
            b.poser.clip(model, clip, time, Wrap::Clamp);
            samples.push(b.sample(
                model,
                clip.map(|c| model.clips[c].name().to_string()),
                None,
                time,
                args.positions,
            ));
        }
    }
    Ok(samples)
}

/// Parses `NAME=VALUE` into the character's parameter values.
pub(super) fn apply_params(
    character: &Character,
    params: &mut [f32],
    assignments: &[String],
) -> Result<()> {
    let machine = &character.machine;
    for a in assignments {
        let Some((name, value)) = a.split_once('=') else {
            bail!("--param {a}: expected NAME=VALUE");
        };
        let Some(i) = machine.param(name.trim()) else {
            let names: Vec<&str> = machine.params().iter().map(|p| p.name.as_str()).collect();
            bail!(
                "--param {a}: {} has no parameter '{}'; parameters are: {}",
                character.path.display(),
                name.trim(),
                names.join(", ")
            );
        };
        let float = machine.params()[i].kind == ParamKind::Float;
        let v = match (value.trim(), float) {
            ("true", false) => 1.0,
            ("false", false) => 0.0,
            (v, true) => parse_f32(v).map_err(|e| anyhow::anyhow!("--param {a}: {e}"))?,
            (v, false) => bail!(
                "--param {a}: '{}' is a bool or trigger parameter: give true or false, not '{v}'",
                name.trim()
            ),
        };
        params[i] = v;
    }
    Ok(())
}

fn state_samples(
    character: &Character,
    args: &Args,
    given: &[f32],
    b: &mut Buffers,
) -> Result<Vec<SampleOut>> {
    let machine = &character.machine;
    let model = &character.model;
    let state = match &args.state {
        Some(name) => machine.state(name).with_context(|| {
            let names: Vec<&str> = machine.states().iter().map(|s| s.name.as_str()).collect();
            format!(
                "{}: no state '{name}'; states are: {}",
                character.path.display(),
                names.join(", ")
            )
        })?,
        None => machine.instantiate(&model.skeleton).current(),
    };
    let mut params: Vec<f32> = machine.params().iter().map(|p| p.default).collect();
    apply_params(character, &mut params, &args.params)?;
    let tree = &machine.states()[state].tree;
    let times = if given.is_empty() {
        // Half a cycle: one second of play tells how long a cycle is at these parameters.
        let mut probe = tree.new_state();
        tree.advance(&model.clips, &[], &mut probe, &params, 1.0, |_| {});
        let cycles_per_second = tree.elapsed_cycles(&probe);
        vec![
            0.0,
            if cycles_per_second > 0.0 {
                0.5 / cycles_per_second
            } else {
                0.0
            },
        ]
    } else {
        given.to_vec()
    };
    let mut samples = Vec::new();
    for time in times {
        b.poser.state(character, state, &params, time);
        samples.push(b.sample(
            model,
            None,
            Some(machine.states()[state].name.clone()),
            time,
            args.positions,
        ));
    }
    Ok(samples)
}

pub(super) fn run(args: &Args, external: crate::import::ExternalFiles) -> Result<()> {
    let times = args
        .times
        .iter()
        .map(|t| to_f32(*t).map_err(|e| anyhow::anyhow!("--time: {e}")))
        .collect::<Result<Vec<f32>>>()?;
    let character = match &args.character {
        Some(path) => Some(Character::load(path)?),
        None => None,
    };
    let loaded;
    let model = match (&character, &args.model) {
        (Some(c), _) => &c.model,
        (None, Some(path)) => {
            // Images are read as `bake` and `inspect` read them, so a missing or broken one is
            // the same warning here as there (one path in import).
            loaded = load_model(path, args.merge_animations, external)?;
            &loaded
        }
        (None, None) => bail!("give a MODEL or --character FILE"),
    };
    for w in &model.warnings {
        eprintln!("warning: {w}");
    }
    for n in &model.notes {
        eprintln!("note: {n}");
    }
    if character.is_some() && args.clip.is_some() && !args.params.is_empty() {
        bail!("--param sets state parameters; a bare --clip has none");
    }
    if character.is_some() && args.clip.is_none() && times.iter().any(|t| *t < 0.0) {
        bail!("--time: a state plays forward from its start; give times >= 0");
    }
    let mut buffers = Buffers::new(model);
    let samples = match &character {
        Some(c) if args.clip.is_none() => state_samples(c, args, &times, &mut buffers)?,
        _ => clip_samples(model, args, &times, &mut buffers)?,
    };
    // Parents are given among the printed joints: the nearest printed ancestor.
    let mut printed_index = vec![None; model.skeleton.len()];
    for (i, &j) in buffers.printed.iter().enumerate() {
        printed_index[j] = Some(i);
    }
    let printed_parent = |mut j: usize| {
        while let Some(p) = model.skeleton.parent(j) {
            if printed_index[p].is_some() {
                return printed_index[p];
            }
            j = p;
        }
        None
    };
    let out = Output {
        joints: buffers
            .printed
            .iter()
            .map(|&j| JointOut {
                name: model.skeleton.names()[j].clone(),
                node: model.joint_nodes[j],
                parent: printed_parent(j),
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
