//! `throng gen-mannequin` and the no-argument summary of the built-in mannequin.

use std::path::PathBuf;

use anyhow::Result;
use clap::builder::{PossibleValue, PossibleValuesParser};
use glam::Vec2;

use crate::import::mannequin::{self, VARIANTS, Variant};

/// Arguments of `throng gen-mannequin`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Output path of the GLB file.
    #[arg(long, short, default_value = "assets/mannequin.glb")]
    out: PathBuf,
    /// Which variant to write: the mannequin itself, or one made the way Mixamo-style tools
    /// export characters (docs/IMPORT.md, "The mannequin and its variants").
    #[arg(long, value_name = "NAME", default_value = "mannequin", value_parser = variants())]
    variant: String,
    /// The run's seam: how far its last key leaves the left hand from its first, in frames of
    /// that hand's motion (0 to 10; 0 is seamless). Replaces the variant's.
    #[arg(long, value_name = "FRAMES")]
    seam: Option<f32>,
    /// How far the hips (and the whole body) drift over each walk and run cycle, metres along
    /// the character's x and z (its forward), each within ±1. Replaces the variant's.
    #[arg(long, value_name = "X,Z", value_parser = drift, allow_hyphen_values = true)]
    hips_drift: Option<Vec2>,
    /// The walk's authored speed, m/s (0.8 to 1.6; the mannequin's is 1.2).
    #[arg(long, value_name = "M/S")]
    walk_speed: Option<f32>,
    /// The run's authored speed, m/s (2 to 4; the mannequin's is 3).
    #[arg(long, value_name = "M/S")]
    run_speed: Option<f32>,
    /// How high the walk's swing lifts the ankle, metres (0 to 0.15; the mannequin's is 0.1).
    #[arg(long, value_name = "METRES")]
    walk_step_height: Option<f32>,
    /// How far the run swings each upper arm, radians (0.2 to 1.5; the mannequin's is 0.55).
    #[arg(long, value_name = "RADIANS")]
    run_arm_swing: Option<f32>,
}

/// The variant names, each with what it is, for `--help`.
fn variants() -> PossibleValuesParser {
    PossibleValuesParser::new(VARIANTS.map(|(name, what)| PossibleValue::new(name).help(what)))
}

/// Parses `--hips-drift X,Z`: two numbers, metres.
fn drift(text: &str) -> Result<Vec2, String> {
    let numbers: Vec<Result<f32, _>> = text.split(',').map(|x| x.trim().parse::<f32>()).collect();
    match numbers.as_slice() {
        [Ok(x), Ok(z)] => Ok(Vec2::new(*x, *z)),
        _ => Err(format!("'{text}' is not two numbers X,Z (metres)")),
    }
}

/// The variant the arguments ask for: the named one with the numbers given replaced.
fn variant(args: &Args) -> Result<Variant> {
    let mut v = Variant::named(&args.variant)?;
    v.hips_drift = args.hips_drift.unwrap_or(v.hips_drift);
    for (given, field) in [
        (args.seam, &mut v.run_seam),
        (args.walk_speed, &mut v.walk_speed),
        (args.run_speed, &mut v.run_speed),
        (args.walk_step_height, &mut v.walk_step_height),
        (args.run_arm_swing, &mut v.run_arm_swing),
    ] {
        *field = given.unwrap_or(*field);
    }
    Ok(v)
}

pub(super) fn run(args: &Args) -> Result<()> {
    let bytes = mannequin::generate_variant(&variant(args)?)?;
    // As every writer: a folder, device or FIFO is not replaced, and a missing folder is made.
    crate::atomic::check_target(&args.out, true)?;
    crate::atomic::write_bytes(&args.out, &bytes)?;
    println!("wrote {} ({} bytes)", args.out.display(), bytes.len());
    Ok(())
}
