//! `throng gen-mannequin` and the no-argument summary of the built-in mannequin.

use std::path::PathBuf;

use anyhow::Result;

use crate::import::mannequin;

/// Arguments of `throng gen-mannequin`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Output path of the GLB file.
    #[arg(long, short, default_value = "assets/mannequin.glb")]
    out: PathBuf,
}

pub(super) fn run(args: &Args) -> Result<()> {
    // As every writer: a folder, device or FIFO is not replaced, and a missing folder is made.
    crate::atomic::check_target(&args.out, true)?;
    let bytes = mannequin::generate_glb();
    crate::atomic::write_bytes(&args.out, &bytes)?;
    println!("wrote {} ({} bytes)", args.out.display(), bytes.len());
    Ok(())
}
