//! `throng play`: drive a character's state machine through a scripted sequence of parameter
//! changes at a fixed time step and print, per step, one JSON line with the active states and
//! their weights, the transition that fired and the events crossed. For tests, and for
//! debugging a state machine without a renderer.

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use serde::{Deserialize, Serialize};
use toml::Spanned;

use crate::anim::state_machine::ParamKind;
use crate::character::Character;
use crate::character::number::{Number, short, to_f32};
use crate::character::toml_error::{line_of, located};

/// Arguments of `throng play`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The character file (TOML).
    character: PathBuf,
    /// The script (TOML): `dt` (seconds per step, default 1/60), `steps`, and `[[set]]` tables
    /// with `step = N` and parameter values to set before that step, e.g. `speed = 3.0`,
    /// `wave = true`.
    #[arg(long, value_name = "FILE")]
    script: PathBuf,
}

/// Most steps a script may ask for: each prints a JSON line of 100 bytes or more, so a million
/// is over 100 MB of output and 4.6 hours of play at 60 steps per second; more is a typo, and
/// would keep the command busy for hours.
const MAX_STEPS: i64 = 1_000_000;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Script {
    dt: Option<Spanned<Number>>,
    /// Read as any value, so that a huge or fractional one gets the range message rather than
    /// serde's.
    steps: Spanned<toml::Value>,
    #[serde(default)]
    set: Vec<Spanned<BTreeMap<String, Spanned<toml::Value>>>>,
}

#[derive(Serialize)]
struct StepOut<'a> {
    step: u32,
    time: f64,
    state: &'a str,
    active: Vec<ActiveOut<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    fade: Option<f32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    fired: Option<FiredOut<'a>>,
    events: Vec<EventOut<'a>>,
    /// Root motion of the step, for characters with root-motion clips: [x, z] metres in the
    /// heading frame at the start of the step, and the yaw change in radians.
    #[serde(skip_serializing_if = "Option::is_none")]
    motion: Option<([f32; 2], f32)>,
}

#[derive(Serialize)]
struct ActiveOut<'a> {
    state: &'a str,
    weight: f32,
}

#[derive(Serialize)]
struct FiredOut<'a> {
    transition: usize,
    to: &'a str,
}

#[derive(Serialize)]
struct EventOut<'a> {
    state: &'a str,
    clip: &'a str,
    event: &'a str,
    count: u32,
    weight: f32,
}

/// A TOML value for a message: floats as [`short`] writes them (`1e39`, not forty digits).
fn shown(v: &toml::Value) -> String {
    match v {
        toml::Value::Float(f) => short(*f),
        other => other.to_string(),
    }
}

pub(super) fn run(args: &Args) -> Result<()> {
    let character = Character::load(&args.character)?;
    let name = args.script.display().to_string();
    let text =
        crate::input::read_text(&args.script).with_context(|| format!("{name}: cannot read"))?;
    let script: Script = toml::from_str(&text).map_err(|e| {
        let (line, message) = located(&text, &e);
        anyhow::anyhow!("{name}:{line}: {message}")
    })?;
    let dt = match &script.dt {
        Some(d) if d.get_ref().get() <= 0.0 => bail!(
            "{name}:{}: dt {} must be a positive number of seconds",
            line_of(&text, d.span().start),
            d.get_ref().get()
        ),
        Some(d) => d.get_ref().get(),
        None => 1.0 / 60.0,
    };
    let steps_line = line_of(&text, script.steps.span().start);
    let steps = match script.steps.get_ref() {
        toml::Value::Integer(n) => match u32::try_from(*n) {
            Ok(s) if i64::from(s) <= MAX_STEPS => s,
            _ => bail!("{name}:{steps_line}: steps {n} is out of range: give 0 to {MAX_STEPS}"),
        },
        other => bail!(
            "{name}:{steps_line}: steps = {}: give a whole number of steps, 0 to {MAX_STEPS}",
            shown(other)
        ),
    };
    let machine = &character.machine;
    let model = &character.model;
    let params: BTreeMap<&str, usize> = machine
        .params()
        .iter()
        .enumerate()
        .map(|(i, p)| (p.name.as_str(), i))
        .collect();
    // Resolve the script's changes up front so that a typo fails before any output.
    let mut changes: Vec<(u32, usize, f32)> = Vec::new();
    for set in &script.set {
        let line = line_of(&text, set.span().start);
        let table = set.get_ref();
        let step = match table.get("step").map(|v| v.get_ref()) {
            Some(toml::Value::Integer(s)) if (0..i64::from(steps)).contains(s) => *s as u32,
            Some(toml::Value::Integer(s)) => {
                bail!("{name}:{line}: step {s} is outside the script's {steps} steps")
            }
            Some(other) => bail!(
                "{name}:{line}: step = {}: give a whole step number below the script's {steps} steps",
                shown(other)
            ),
            _ => bail!("{name}:{line}: [[set]] needs 'step = N' (a step number >= 0)"),
        };
        for (key, value) in table.iter().filter(|(k, _)| k.as_str() != "step") {
            let line = line_of(&text, value.span().start);
            let Some(&p) = params.get(key.as_str()) else {
                let names: Vec<&str> = machine.params().iter().map(|p| p.name.as_str()).collect();
                bail!(
                    "{name}:{line}: {} has no parameter '{key}'; parameters are: {}",
                    character.path.display(),
                    names.join(", ")
                );
            };
            let float = machine.params()[p].kind == ParamKind::Float;
            let v = match value.get_ref() {
                toml::Value::Boolean(b) if !float => f32::from(u8::from(*b)),
                toml::Value::Integer(i) if float => *i as f32,
                toml::Value::Float(f) if float => {
                    to_f32(*f).map_err(|e| anyhow::anyhow!("{name}:{line}: {key}: {e}"))?
                }
                _ if float => {
                    bail!("{name}:{line}: '{key}' is a float parameter: give a number")
                }
                _ => bail!(
                    "{name}:{line}: '{key}' is a bool or trigger parameter: give true or false"
                ),
            };
            changes.push((step, p, v));
        }
    }
    changes.sort_by_key(|c| c.0);

    let mut inst = machine.instantiate(&model.skeleton);
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let state_name = |s: usize| machine.states()[s].name.as_str();
    let mut next_change = 0;
    let has_motion = character.motion.iter().any(Option::is_some);
    for step in 0..steps {
        while let Some(&(at, p, v)) = changes.get(next_change)
            && at <= step
        {
            inst.set_param(p, v);
            next_change += 1;
        }
        let mut events = Vec::new();
        let fired = machine.step(
            &model.clips,
            &character.events,
            &mut inst,
            dt,
            |state, hit| {
                events.push(EventOut {
                    state: state_name(state),
                    clip: model.clips[hit.clip].name(),
                    event: character.events[hit.clip].events()[hit.event].name.as_str(),
                    count: hit.count,
                    weight: hit.weight,
                })
            },
        );
        let line = StepOut {
            step,
            // Rounded to the microsecond: the f32 step sum is not more precise than that.
            time: (f64::from(step + 1) * f64::from(dt) * 1e6).round() / 1e6,
            state: state_name(inst.current()),
            active: inst
                .active()
                .map(|(s, w)| ActiveOut {
                    state: state_name(s),
                    weight: w,
                })
                .collect(),
            fade: inst.fade_progress(),
            fired: fired.map(|f| FiredOut {
                transition: f.transition,
                to: state_name(f.to),
            }),
            events,
            motion: has_motion.then(|| {
                let (m, yaw) = machine.motion(&model.clips, &character.motion, &inst);
                (m.to_array(), yaw)
            }),
        };
        serde_json::to_writer(&mut out, &line).context("writing JSON")?;
        writeln!(out).context("writing JSON")?;
    }
    out.flush().context("writing JSON")?;
    Ok(())
}
