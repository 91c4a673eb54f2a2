//! The cost of animation on the GPU: the same mesh and instance count drawn GPU-skinned (bone
//! texels fetched and blended in the vertex shader) and static (bind pose, no skinning), on
//! Vulkan (lavapipe on a machine without a GPU), at 1,000 and 10,000 instances; and the CPU
//! fallback's skinning rate in vertices per second.
//!
//! Frame time is wall time from submit until the device finishes (lavapipe has no separate
//! GPU clock worth trusting), the median of several frames after a warm-up frame. The scene is
//! `throng render`'s at its default size: the mannequin bake, 960x540, 4x MSAA, at LOD 0
//! (2,678 vertices, 5,320 triangles) and LOD 2 (550 vertices, 1,064 triangles).
//! THRONG_BENCH_COUNTS (e.g. `1000`) limits the instance counts; THRONG_BENCH_PRECISION=f32
//! bakes f32 texels instead of the default bake's f16.
//!
//! Run: `cargo bench --bench render` (THRONG_BENCH_BACKEND=gl for GL). Figures go to
//! docs/PERFORMANCE.md.

use std::path::Path;
use std::time::Instant;

use throng::bake::{BakeOptions, Recipe, bake};
use throng::crowd::scene::{self, frame_pose};
use throng::format::ThrongFile;
use throng::render::draw::cpu_skin::skin_instances;
use throng::render::{
    BackendChoice, CrowdRenderer, Gpu, PassFormat, SceneDraw, SkinningPath, Stage, Target,
};

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = std::env::temp_dir().join(format!("throng-bench-render-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let mut recipe = Recipe::load(&root.join("bake/mannequin.toml")).expect("recipe");
    recipe.output = dir.join("mannequin.throng");
    // THRONG_BENCH_PRECISION=f32 measures f32 texels (the default bake chooses f16).
    if std::env::var("THRONG_BENCH_PRECISION").is_ok_and(|p| p == "f32") {
        recipe.precision = throng::bake::PrecisionChoice::F32;
    }
    bake(&recipe, &BakeOptions::default())
        .expect("bake")
        .builder
        .write(&recipe.output)
        .expect("write");
    let file = std::sync::Arc::new(ThrongFile::open(&recipe.output).expect("open"));
    let backend = match std::env::var("THRONG_BENCH_BACKEND").as_deref() {
        Ok("gl") => BackendChoice::Gl,
        _ => BackendChoice::Vulkan,
    };
    let gpu = match Gpu::new(backend) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("skipped: {e}");
            return;
        }
    };
    println!("adapter: {}", gpu.describe());
    let samples = Target::best_samples(&gpu);
    let format = PassFormat::offscreen(samples);
    let mut renderer = CrowdRenderer::new(&gpu, &file, format).expect("renderer");
    let mut stage = Stage::new(&gpu, &renderer).expect("stage");
    let (w, h) = (960, 540);
    let target = Target::new(&gpu, w, h, samples);
    println!(
        "{:>4}  {:>9}  {:>14}  {:>14}  {:>7}",
        "LOD", "instances", "skinned (ms)", "static (ms)", "ratio"
    );
    let counts: Vec<usize> = std::env::var("THRONG_BENCH_COUNTS")
        .ok()
        .map(|v| v.split(',').filter_map(|c| c.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![1_000, 10_000]);
    for (lod, &count) in [0u32, 2]
        .iter()
        .flat_map(|l| counts.iter().map(move |c| (*l, c)))
    {
        let agents = scene::agents(&file, count, 11, 0.0);
        let view_proj = scene::camera(count, w as f32 / h as f32);
        let frames = if count > 5_000 { 5 } else { 9 };
        let shot = SceneDraw {
            agents: &agents,
            view_proj,
            lod,
            impostor: false,
        };
        let mut time = |path: SkinningPath| {
            let mut t = Vec::new();
            for k in 0..=frames {
                let s = stage
                    .draw_scene(&gpu, &mut renderer, &file, &target, &shot, path)
                    .expect("draw");
                if k > 0 {
                    t.push(s.submit_seconds * 1e3);
                }
            }
            median(t)
        };
        // Interleaved, static first, so neither gets a warmer cache.
        let stat = time(SkinningPath::Static);
        let skinned = time(SkinningPath::Gpu);
        println!(
            "{lod:>4}  {count:>9}  {skinned:>14.1}  {stat:>14.1}  {:>6.2}x",
            skinned / stat
        );
    }
    // The CPU fallback's skinning: LOD 0 of 1,000 agents, rayon over agents.
    let agents = scene::agents(&file, 1_000, 11, 0.0);
    let poses: Vec<_> = agents.iter().map(|a| frame_pose(&file, a)).collect();
    let (vertices, _) = file.mesh_data(0);
    let texels = file.texels();
    let mut out = vec![Default::default(); poses.len() * vertices.len()];
    let mut runs = Vec::new();
    for _ in 0..6 {
        let start = Instant::now();
        skin_instances(&texels, &poses, vertices, &mut out);
        runs.push(start.elapsed().as_secs_f64());
    }
    let s = median(runs[1..].to_vec());
    println!(
        "cpu fallback: {} vertices skinned in {:.1} ms: {:.1} million vertices/s ({} threads)",
        out.len(),
        s * 1e3,
        out.len() as f64 / s / 1e6,
        rayon::current_num_threads()
    );
    let _ = std::fs::remove_dir_all(&dir);
}
