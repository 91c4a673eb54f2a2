//! `throng gen-mannequin` and the no-argument summary of the built-in mannequin.

use std::path::PathBuf;

use anyhow::{Context, Result};

use crate::import::mannequin;

/// Arguments of `throng gen-mannequin`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Output path of the GLB file.
    #[arg(long, short, default_value = "assets/mannequin.glb")]
    out: PathBuf,
}

pub(super) fn run(args: &Args) -> Result<()> {
    let bytes = mannequin::generate_glb();
    let dir = args.out.parent().filter(|d| !d.as_os_str().is_empty());
    if let Some(dir) = dir {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    // Write beside the target and rename, so an interrupted run never leaves half a file.
    let tmp = args.out.with_extension("glb.tmp");
    std::fs::write(&tmp, &bytes).with_context(|| format!("writing {}", tmp.display()))?;
    std::fs::rename(&tmp, &args.out)
        .with_context(|| format!("replacing {}", args.out.display()))?;
    println!("wrote {} ({} bytes)", args.out.display(), bytes.len());
    Ok(())
}

/// What `cargo run --release` prints until the crowd demo exists.
pub(super) fn summary() -> Result<()> {
    let bytes = mannequin::generate_glb();
    let model = crate::import::load_bytes(&bytes, "mannequin.glb", &Default::default())?;
    let report = super::inspect::report(&model);
    println!("throng: bake glTF skeletal animation into textures and render instanced crowds.\n");
    println!("The built-in mannequin (assets/mannequin.glb, made by `throng gen-mannequin`):\n");
    print!("{}", super::inspect::text(&report));
    println!(
        "\nWalk speed {:.2} m/s, run speed {:.2} m/s (the clips play in place at these speeds).",
        mannequin::WALK_SPEED,
        mannequin::RUN_SPEED
    );
    println!(
        "\nCommands:\n  throng bake [RECIPE.toml|MODEL.glb] [-o FILE]   bake clips and states into a .throng file\n  throng render --out crowd.png [--backend B]     draw a baked crowd offscreen (Vulkan or GL)\n  throng inspect FILE.throng [--json]             what a bake holds, errors measured\n  throng inspect MODEL.glb [--json]               joints, clips, meshes, warnings\n  throng pose MODEL.glb [--clip C] [--time T]     joint matrices (and --positions) as JSON\n  throng pose --character FILE [--state S] [--param P=V]\n                                                  the same for a character's blended state\n  throng play FILE --script STEPS.toml            run a state machine, one JSON line per step\n  throng gen-mannequin [--out FILE]               write the mannequin GLB\n  throng --help                                   everything else\n\nCharacter files: assets/mannequin.toml, docs/CHARACTER.md."
    );
    Ok(())
}
