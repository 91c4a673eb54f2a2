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
