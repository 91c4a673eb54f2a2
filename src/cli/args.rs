//! Options several commands take, each read one way with one message: `--backend`,
//! `--skinning`, an image size (`--size`) and an agent count (`--count`, `--instances`).

use anyhow::Result;

use crate::render::BackendChoice;

/// `--backend` values.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub(super) enum BackendArg {
    /// Vulkan (lavapipe without a GPU).
    Vulkan,
    /// OpenGL through EGL (llvmpipe without a GPU).
    Gl,
    /// Vulkan if available, else GL.
    Auto,
}

impl From<BackendArg> for BackendChoice {
    fn from(b: BackendArg) -> Self {
        match b {
            BackendArg::Vulkan => Self::Vulkan,
            BackendArg::Gl => Self::Gl,
            BackendArg::Auto => Self::Auto,
        }
    }
}

/// `--skinning` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(super) enum SkinningArg {
    /// In the vertex shader, from the bone texture.
    Gpu,
    /// On the CPU, drawn unskinned (the fallback).
    Cpu,
    /// The GPU path unless the device cannot run it.
    Auto,
    /// The GPU path plus a live tier (`throng demo` only): the LOD preset's nearest agents
    /// evaluated on the CPU each frame with foot IK on the ground.
    Hybrid,
}

/// A `WIDTHxHEIGHT` image size, each side 16 to 8192 pixels.
pub(super) fn parse_size(s: &str) -> Result<(u32, u32), String> {
    let (w, h) = s
        .split_once(['x', 'X'])
        .ok_or_else(|| format!("'{s}': give WIDTHxHEIGHT, e.g. 960x540"))?;
    let parse = |v: &str| {
        v.trim()
            .parse::<u32>()
            .ok()
            .filter(|n| (16..=8192).contains(n))
    };
    match (parse(w), parse(h)) {
        (Some(w), Some(h)) => Ok((w, h)),
        _ => Err(format!(
            "'{s}': width and height must be whole numbers from 16 to 8192"
        )),
    }
}

/// Checks an agent count given as option `flag` (`--count`, `--instances`): 1 to
/// [`MAX_AGENTS`](crate::app::MAX_AGENTS), with one message for every command.
///
/// # Errors
/// Naming the option and the range.
pub(super) fn check_count(flag: &str, count: usize) -> Result<()> {
    let max = crate::app::MAX_AGENTS;
    if count == 0 || count > max {
        anyhow::bail!("{flag} {count}: between 1 and {max} agents");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_counts_are_read_with_one_message() {
        assert_eq!(parse_size("320x200"), Ok((320, 200)));
        assert!(parse_size("320").unwrap_err().contains("WIDTHxHEIGHT"));
        assert!(parse_size("0x10").unwrap_err().contains("16 to 8192"));
        assert!(check_count("--count", 1).is_ok());
        let max = crate::app::MAX_AGENTS;
        assert!(check_count("--count", max).is_ok());
        let e = check_count("--instances", 0).unwrap_err().to_string();
        assert_eq!(e, format!("--instances 0: between 1 and {max} agents"));
        assert!(check_count("--count", max + 1).is_err());
    }
}
