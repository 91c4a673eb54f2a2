//! Pose a character on the CPU: load a character file (which loads its glTF model), sample one
//! of its states at a time with given parameters (blend tree, forward kinematics, IK), and
//! print where a joint is.
//!
//! ```text
//! cargo run --example pose [-- --character FILE.toml --state NAME --param NAME=VALUE --time S --joint NAME]
//! ```
//!
//! With no arguments: the built-in mannequin (this repository's assets/mannequin.toml), its
//! state `move` (idle, walk and run blended on `speed`) at 1.2 m/s, 0.25 s in, joint `head`.
//! The state is played from its start for that long, as the baker samples it.

use std::path::{Path, PathBuf};

use anyhow::{Context, bail, ensure};
use clap::Parser;
use throng::anim::state_machine::ParamKind;
use throng::character::{Character, Poser};
use throng::import::mannequin::WALK_SPEED;

#[derive(Parser)]
struct Args {
    /// Character file (TOML, docs/CHARACTER.md) [default: the mannequin's]
    #[arg(long, value_name = "FILE")]
    character: Option<PathBuf>,
    /// State to sample [default: the mannequin's `move`, else the file's initial state]
    #[arg(long)]
    state: Option<String>,
    /// A parameter's value, NAME=VALUE (bools: true or false); repeatable
    /// [default: the file's defaults, but the mannequin walks: speed=1.2]
    #[arg(long = "param", value_name = "NAME=VALUE")]
    params: Vec<String>,
    /// Seconds since the state started (>= 0)
    #[arg(long, default_value_t = 0.25, allow_negative_numbers = true)]
    time: f32,
    /// Joint to print
    #[arg(long, default_value = "head")]
    joint: String,
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let mannequin = args.character.is_none();
    // The repository's path is built into the example, so the default works from any folder.
    let path = args
        .character
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/mannequin.toml"));
    ensure!(
        args.time >= 0.0 && args.time.is_finite(),
        "--time {}: give seconds >= 0",
        args.time
    );

    // The character file and the model it names, checked once here: errors name the file,
    // the line and what is wrong.
    let character = Character::load(&path)?;
    let (machine, skeleton) = (&character.machine, &character.model.skeleton);

    let state = match args.state.or(mannequin.then(|| "move".to_string())) {
        Some(name) => machine.state(&name).with_context(|| {
            let names: Vec<&str> = machine.states().iter().map(|s| s.name.as_str()).collect();
            format!(
                "{}: no state '{name}'; states are: {}",
                path.display(),
                names.join(", ")
            )
        })?,
        None => machine.instantiate(skeleton).current(),
    };

    // Parameters start at the file's defaults; `--param` sets some.
    let mut params: Vec<f32> = machine.params().iter().map(|p| p.default).collect();
    // The mannequin walks unless told otherwise (its `speed` default is 0: standing).
    let walk = mannequin.then(|| format!("speed={WALK_SPEED}"));
    for a in walk.iter().chain(&args.params) {
        let (name, value) = a
            .split_once('=')
            .with_context(|| format!("--param {a}: give NAME=VALUE"))?;
        let i = machine.param(name.trim()).with_context(|| {
            let names: Vec<&str> = machine.params().iter().map(|p| p.name.as_str()).collect();
            format!(
                "--param {a}: no parameter '{name}'; parameters are: {}",
                names.join(", ")
            )
        })?;
        params[i] = match (machine.params()[i].kind, value.trim()) {
            (ParamKind::Float, v) => v
                .parse::<f32>()
                .ok()
                .filter(|v| v.is_finite())
                .with_context(|| format!("--param {a}: '{v}' is not a finite number"))?,
            (_, "true") => 1.0,
            (_, "false") => 0.0,
            (_, v) => {
                bail!("--param {a}: '{name}' is a bool or trigger: give true or false, not '{v}'")
            }
        };
    }

    let joint = skeleton.find(&args.joint).with_context(|| {
        format!(
            "{}: no joint '{}'; joints are: {}",
            path.display(),
            args.joint,
            skeleton.names().join(", ")
        )
    })?;

    // Poser holds the scratch buffers; reuse one to pose many times without allocating.
    let mut poser = Poser::new(&character.model);
    poser.state(&character, state, &params, args.time);
    // World (model-space) matrices: a joint's position is its matrix's translation. The units
    // are the model's: glTF's are metres (the baker may scale a bake; posing does not).
    let position = poser.world()[joint].w_axis.truncate();

    let values: Vec<String> = machine
        .params()
        .iter()
        .zip(&params)
        .map(|(p, v)| match p.kind {
            ParamKind::Float => format!("{} = {v}", p.name),
            _ => format!("{} = {}", p.name, *v != 0.0),
        })
        .collect();
    println!(
        "{}: state '{}' ({}) at {} s: joint '{}' at x {:.3}, y {:.3}, z {:.3}",
        path.display(),
        machine.states()[state].name,
        values.join(", "),
        args.time,
        args.joint,
        position.x,
        position.y,
        position.z
    );

    // The mannequin stands 1.7 m tall whatever it does: a run of the example fails loudly if
    // posing breaks.
    if mannequin && args.joint == "head" {
        ensure!(
            position.y > 1.4 && position.y < 1.8,
            "the mannequin's head is at {:.3} m, not between 1.4 and 1.8 m",
            position.y
        );
    }
    Ok(())
}
