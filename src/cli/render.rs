//! `throng render`: one deterministic frame of a baked crowd, rendered offscreen, to a PNG.

use std::path::PathBuf;

use anyhow::{Result, bail};

use super::args::{BackendArg, SkinningArg, check_count, parse_size};
use super::baking::default_bake;
use crate::app::save_png;
use crate::atomic::{check_not_input, check_target};
use crate::crowd::Terrain;
use crate::crowd::scene;
use crate::format::ThrongFile;
use crate::render::{
    BackendChoice, CrowdRenderer, Gpu, PassFormat, PathLimits, PathReason, PathRequest, SceneDraw,
    Shadows, SkinningPath, Stage, Target, choose_path as choose, shadows_choice,
};

/// Arguments of `throng render`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "The scene is deterministic: agents on a jittered grid, with headings, tints, animations,\n\
times and cross-fades drawn from --seed, seen by a fixed camera that frames them all.\n\
Example: throng render --instances 400 --backend gl --out crowd-gl.png"
)]
pub struct Args {
    /// The baked file (default: the default bake, baked first if missing or out of date:
    /// bake/mannequin.throng in the repository root, else the built-in mannequin crowd's in
    /// the cache, ~/.cache/throng/mannequin.throng; see throng bake --help).
    #[arg(long, value_name = "FILE")]
    bake: Option<PathBuf>,
    /// Number of characters (1 to 200000, as the demo).
    #[arg(long, default_value_t = 100)]
    instances: usize,
    /// Seed of placement, headings, tints, animations and times.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Seconds added to every agent's animation times.
    #[arg(long, default_value_t = 0.0, allow_negative_numbers = true)]
    time: f32,
    /// Graphics backend.
    #[arg(long, value_enum, default_value = "auto")]
    backend: BackendArg,
    /// Skinning path.
    #[arg(long, value_enum, default_value = "auto")]
    skinning: SkinningArg,
    /// LOD level to draw (0 = full detail).
    #[arg(long, default_value_t = 0)]
    lod: u32,
    /// Shadows: off, blob (a soft contact shadow under each agent) or map (a sun shadow map
    /// for near agents, blobs beyond). Default: map on a GPU, blob on a software renderer
    /// (lavapipe, llvmpipe).
    #[arg(long, value_name = "off|blob|map")]
    shadows: Option<Shadows>,
    /// The ground: relief (slopes, a terrace with steps and a ramp; agents stand on it) or
    /// flat.
    #[arg(long, value_name = "relief|flat", default_value = "relief")]
    ground: Terrain,
    /// Image size, WIDTHxHEIGHT pixels.
    #[arg(long, default_value = "960x540", value_parser = parse_size)]
    size: (u32, u32),
    /// The PNG to write.
    #[arg(long)]
    out: PathBuf,
}

/// The skinning path for what was asked and why the GPU path cannot run (if it cannot), with
/// the reason to report; an error when the GPU path was demanded but cannot run. The CPU
/// path's own limit is the renderer's to report when it draws.
fn choose_path(
    asked: SkinningArg,
    unavailable: Option<String>,
    file: &str,
    adapter: &str,
) -> Result<(SkinningPath, String)> {
    let request = match asked {
        SkinningArg::Gpu => PathRequest::Only(SkinningPath::Gpu),
        SkinningArg::Cpu => PathRequest::Only(SkinningPath::Cpu),
        SkinningArg::Auto => PathRequest::Auto,
        SkinningArg::Hybrid => anyhow::bail!(
            "--skinning hybrid: `throng render` draws a still scene with no crowd to pick a live \
             tier from; use throng demo --skinning hybrid (or throng bench --skinning hybrid)"
        ),
    };
    let limits = PathLimits {
        gpu: unavailable,
        ..PathLimits::default()
    };
    let choice = match choose(&limits, request) {
        Ok(c) => c,
        Err(e) => bail!(
            "{file}: the GPU skinning path cannot run on {adapter}: {}; use --skinning cpu",
            e.why
        ),
    };
    let why = match choice.reason {
        PathReason::Asked => format!("asked for (--skinning {})", choice.path.name()),
        PathReason::Default => "the device fetches bone texels in the vertex shader".to_string(),
        PathReason::Fallback { why, .. } => format!("fallback: {why}"),
    };
    Ok((choice.path, why))
}

/// Opens the device and chooses the skinning path, saying why.
pub(super) fn open(
    backend: BackendChoice,
    skinning: SkinningArg,
    file: &ThrongFile,
) -> Result<(Gpu, SkinningPath, String)> {
    let gpu = Gpu::new(backend)?;
    let (path, why) = choose_path(
        skinning,
        PathLimits::of(&gpu, file).gpu,
        file.name(),
        &gpu.info.name,
    )?;
    Ok((gpu, path, why))
}

pub(super) fn run(args: &Args) -> Result<()> {
    if !args
        .out
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("png"))
    {
        bail!("{}: --out must end in .png", args.out.display());
    }
    if !args.time.is_finite() {
        bail!("--time {}: not a number of seconds", args.time);
    }
    check_count("--instances", args.instances)?;
    // Before the bake and the device: a picture that cannot be saved fails now, not after.
    check_target(&args.out, true)?;
    if let Some(b) = &args.bake {
        check_not_input(&args.out, [(b.as_path(), "the baked file")])?;
    }
    let bake = match &args.bake {
        Some(b) => b.clone(),
        None => default_bake(false)?,
    };
    let file = std::sync::Arc::new(ThrongFile::open(&bake)?);
    if file.characters().is_empty() || file.anims().is_empty() {
        bail!(
            "{}: the bake has no characters or animations to draw",
            bake.display()
        );
    }
    let lods = file
        .characters()
        .iter()
        .map(|c| c.lod_count)
        .min()
        .unwrap_or(0);
    if args.lod >= lods.max(1) {
        bail!(
            "--lod {}: the bake has LOD levels 0 to {}",
            args.lod,
            lods.saturating_sub(1)
        );
    }
    let (gpu, path, why) = open(args.backend.into(), args.skinning, &file)?;
    println!("adapter: {}", gpu.describe());
    println!("skinning: {} ({why})", path.name());
    let (shadows, why) = shadows_choice(args.shadows, &gpu);
    println!("shadows: {shadows} ({why})");
    let samples = Target::best_samples(&gpu);
    let format = PassFormat::offscreen(samples);
    let mut renderer = CrowdRenderer::new(&gpu, &file, format)?;
    renderer.set_shadows(shadows);
    let mut stage = Stage::with_terrain(&gpu, &renderer, args.ground)?;
    stage.reach(&gpu, scene::half_size(args.instances));
    let layout = renderer.layout();
    println!(
        "texels: {} {} in {}x{}x{} (width x height x layers)",
        file.info().texel_count,
        file.format().name(),
        layout.width,
        layout.height,
        layout.layers
    );
    let (w, h) = args.size;
    let target = Target::new(&gpu, w, h, samples);
    let mut agents = scene::agents(&file, args.instances, args.seed, args.time);
    for a in &mut agents {
        a.position.y = args.ground.height(a.position.x, a.position.z);
    }
    let view_proj = scene::camera(args.instances, w as f32 / h as f32);
    let shot = SceneDraw {
        agents: &agents,
        view_proj,
        lod: args.lod,
        impostor: false,
    };
    let stats = stage.draw_scene(&gpu, &mut renderer, &file, &target, &shot, path)?;
    let image = target.read(&gpu)?;
    save_png(&image, &args.out)?;
    println!(
        "drew {} instances in {} draw calls, {samples}x MSAA; frame {:.2} ms (submit to finish){}{}",
        stats.instances,
        stats.draws,
        stats.submit_seconds * 1e3,
        stats
            .gpu_seconds
            .map_or(String::new(), |g| format!(", GPU pass {:.2} ms", g * 1e3)),
        if stats.cpu_skinned_vertices > 0 {
            format!(
                ", {} vertices skinned on the CPU in {:.2} ms",
                stats.cpu_skinned_vertices,
                stats.cpu_skin_seconds * 1e3
            )
        } else {
            String::new()
        }
    );
    println!("wrote {} ({w}x{h})", args.out.display());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_path_follows_the_request_and_the_device() {
        let p = |a, u: Option<&str>| choose_path(a, u.map(str::to_string), "m.throng", "llvmpipe");
        assert_eq!(p(SkinningArg::Auto, None).unwrap().0, SkinningPath::Gpu);
        let (path, why) = p(SkinningArg::Auto, Some("its 9 texels do not fit")).unwrap();
        assert_eq!(path, SkinningPath::Cpu);
        assert_eq!(why, "fallback: its 9 texels do not fit");
        assert_eq!(p(SkinningArg::Cpu, None).unwrap().0, SkinningPath::Cpu);
        let e = p(SkinningArg::Gpu, Some("too small"))
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "m.throng: the GPU skinning path cannot run on llvmpipe: too small; use --skinning cpu"
        );
    }
}
