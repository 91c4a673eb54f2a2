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
    crate::atomic::write_bytes(&args.out, &bytes)?;
    println!("wrote {} ({} bytes)", args.out.display(), bytes.len());
    Ok(())
}
