//! The `throng` command line: argument parsing and glue between the library modules.

mod args;
mod bake;
mod baking;
mod bench;
mod demo;
mod export_texture;
mod inspect;
mod inspect_throng;
mod mannequin;
mod play;
mod pose;
mod render;

use std::path::Path;

use anyhow::Result;
use clap::{Parser, Subcommand, ValueEnum};

use crate::import::{ExternalFiles, Images, ImportOptions, MergeAnimations, Model};

/// Bake skeletal animation of glTF characters and render crowds of them.
#[derive(Debug, Parser)]
#[command(
    name = "throng",
    version,
    about,
    long_about = None,
    after_help = "With no command, runs the crowd demo (throng demo) with the built-in mannequin.\nDocs: README.md, docs/IMPORT.md (glTF import), docs/CHARACTER.md (character files)."
)]
pub(crate) struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// Let a model's buffer and image URIs name files outside its folder: absolute paths,
    /// file: URIs, '..' that climbs out, symbolic links that lead out. Only for models you
    /// trust (e.g. models/ sharing ../textures/): by default a model makes throng read only
    /// files in its own folder (docs/IMPORT.md). Models named by character files stay held to
    /// their folder.
    #[arg(long, global = true)]
    allow_outside_uris: bool,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// The crowd demo: a window with the baked crowd and a panel of live statistics and
    /// settings (the default command); one headless picture where there is no display.
    Demo(demo::Args),
    /// Bake a recipe (or a bare glTF model) into a .throng file: bone-matrix texture, clips and
    /// states, events, bounds, LOD meshes.
    Bake(bake::Args),
    /// Measure frame time and picture quality per LOD preset, skinning path (baked GPU, CPU,
    /// live evaluation, static), instance count and backend, headless; table, CSV, JSON, plots.
    Bench(bench::Args),
    /// Write the bone-matrix texels of a .throng file as an image (.exr floats or .png preview).
    ExportTexture(export_texture::Args),
    /// Print a model's joint tree, clips, meshes and import warnings, or what a .throng file
    /// holds (sections, characters, animations, events, LODs, errors measured at bake time).
    Inspect(inspect::Args),
    /// Evaluate clips at given times and print joint matrices (and skinned vertices) as JSON.
    Pose(pose::Args),
    /// Render one deterministic frame of a baked crowd offscreen to a PNG (Vulkan or GL, GPU or
    /// CPU skinning).
    Render(render::Args),
    /// Write the built-in procedural mannequin, or a Mixamo-style variant of it, as a GLB file.
    GenMannequin(mannequin::Args),
    /// Run a character's state machine through a scripted sequence of parameter changes and
    /// print active states, transition weights and events per step as JSON lines.
    Play(play::Args),
}

/// `--merge-animations` values.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum MergeArg {
    /// Merge only unnamed animations that drive disjoint joints (files split per joint).
    Auto,
    /// Merge every animation into one clip named 'merged' (they must drive disjoint joints).
    Always,
    /// Keep each animation as its own clip.
    Never,
}

/// Imports `path` with its images, so that every command reports a missing or broken image
/// the same way (a warning; see [`crate::import::Images::Load`]); its URIs may name the files
/// `external` allows (`--allow-outside-uris`).
fn load_model(path: &Path, merge: MergeArg, external: ExternalFiles) -> Result<Model> {
    let options = ImportOptions {
        merge_animations: match merge {
            MergeArg::Auto => MergeAnimations::Auto,
            MergeArg::Always => MergeAnimations::Always,
            MergeArg::Never => MergeAnimations::Never,
        },
        images: Images::Load,
        external_files: external,
    };
    let model = crate::import::load(path, &options)?;
    Ok(model)
}

/// The text `main` prints for `err`: its message, then each cause in the chain whose text is
/// not already in what came before, joined by ": ".
///
/// Library errors say their cause in their own message (so that `{}` alone is complete, for
/// embedders and panels), and also return it as `source()`; printing the whole chain would say
/// each cause twice ("No such file or directory (os error 2): No such file or directory (os
/// error 2)"). Contexts the commands add (`anyhow::Context`) do not include their cause, so
/// the chain is still needed for them.
pub fn error_report(err: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in err.chain() {
        let said = cause.to_string();
        if text.contains(&said) {
            continue;
        }
        if !text.is_empty() {
            text.push_str(": ");
        }
        text.push_str(&said);
    }
    text
}

/// Parses the process arguments and runs the chosen command.
///
/// # Errors
/// Whatever the command reports; `main` prints it and exits with status 1.
pub fn run() -> Result<()> {
    let cli = Cli::parse();
    let external = if cli.allow_outside_uris {
        ExternalFiles::Anywhere
    } else {
        ExternalFiles::ModelFolder
    };
    match cli.command {
        Some(Command::Bake(args)) => bake::run(&args, external),
        Some(Command::ExportTexture(args)) => export_texture::run(&args),
        Some(Command::Inspect(args)) => inspect::run(&args, external),
        Some(Command::Pose(args)) => pose::run(&args, external),
        Some(Command::GenMannequin(args)) => mannequin::run(&args),
        Some(Command::Render(args)) => render::run(&args),
        Some(Command::Play(args)) => play::run(&args),
        Some(Command::Demo(args)) => demo::run(&args, external),
        Some(Command::Bench(args)) => bench::run(&args),
        None => demo::run(&demo::Args::default(), external),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, thiserror::Error)]
    #[error("model.glb: cannot read: {source}")]
    struct Embeds {
        source: std::io::Error,
    }

    #[test]
    fn a_cause_the_message_already_says_is_printed_once() {
        let io = std::io::Error::new(std::io::ErrorKind::NotFound, "no such file");
        let err = anyhow::Error::new(Embeds { source: io }).context("baking the crowd");
        assert_eq!(
            error_report(&err),
            "baking the crowd: model.glb: cannot read: no such file"
        );
    }

    #[test]
    fn a_cause_the_message_does_not_say_is_printed() {
        let io = std::io::Error::new(std::io::ErrorKind::NotFound, "no such file");
        let err = anyhow::Error::new(io).context("creating cache/");
        assert_eq!(error_report(&err), "creating cache/: no such file");
    }
}
