//! GPU rendering on Vulkan (lavapipe) and GL (llvmpipe through EGL): the shader's skinning
//! function against the CPU path, numerically (compiled for four influences, and for each of
//! the renderer's influence runs on a model that needs all four); the GPU path on both backends and the CPU
//! fallback against each other and against committed reference images (with the sun's shadow
//! map); shadows that darken the ground where they should and nowhere else.
//!
//! A missing backend skips with a printed reason, unless `THRONG_REQUIRE_BACKENDS` names it
//! (CI sets `vulkan,gl`), in which case the test fails.

use crate::common;

use std::path::{Path, PathBuf};

use common::gpu::{device, mannequin_bake, pixel};
use throng::bake::{BakeOptions, Recipe, bake};
use throng::crowd::scene::{self, frame_pose};
use throng::format::ThrongFile;
use throng::format::records::VertexRecord;
use throng::render::draw::cpu_skin::skin_vertex;
use throng::render::draw::influences::{MAX_INFLUENCES, influences};
use throng::render::pictures::image_diff::compare;
use throng::render::pictures::parity::gpu_skin_with;
use throng::render::{
    BackendChoice, CrowdRenderer, Gpu, Light, PassFormat, SceneDraw, Shadows, SkinningPath, Stage,
    Target,
};

fn parity(choice: BackendChoice) {
    let Some(gpu) = device(choice) else { return };
    let file = std::sync::Arc::new(ThrongFile::open(mannequin_bake()).unwrap());
    let (vertices, _) = file.mesh_data(0);
    parity_of(&gpu, choice, &file, vertices, 4);
}

/// The shader's skinning of `vertices` (all needing at most `influences`, the `INFLUENCES`
/// constant it is compiled with) against the CPU path's, for 24 agents of `file`.
fn parity_of(
    gpu: &Gpu,
    choice: BackendChoice,
    file: &ThrongFile,
    vertices: &[VertexRecord],
    influences: u32,
) {
    let renderer = CrowdRenderer::new(gpu, file, PassFormat::offscreen(1)).unwrap();
    // 24 agents: every animation, times between frames, a third of them cross-fading.
    let agents = scene::agents(file, 24, 7, 0.37);
    assert!(agents.iter().any(|a| a.fade > 0.0));
    let poses: Vec<_> = agents.iter().map(|a| frame_pose(file, a)).collect();
    assert!(poses.iter().any(|p| p.aw > 0.05 && p.aw < 0.95));
    let gpu_out = gpu_skin_with(gpu, &renderer, &poses, vertices, influences).unwrap();
    assert_eq!(gpu_out.len(), poses.len() * vertices.len());
    let texels = file.texels();
    let height = file.characters()[0].height;
    let (mut worst, mut worst_n) = (0.0f32, 0.0f32);
    for (p, pose) in poses.iter().enumerate() {
        for (v, vert) in vertices.iter().enumerate() {
            let (cp, cn) = skin_vertex(&texels, pose, vert);
            let (gp, gn) = gpu_out[p * vertices.len() + v];
            worst = worst.max(cp.distance(gp));
            worst_n = worst_n.max(cn.distance(gn));
        }
    }
    println!(
        "{} ({} vertices, {influences} influences): largest position difference {worst:.3e} ({:.2e} of the height), normal {worst_n:.3e}",
        choice.name(),
        vertices.len(),
        worst / height
    );
    // 1e-4 of the height (0.18 mm): the same f32 arithmetic in another order (fused
    // multiply-adds, the GPU's own f16 conversion) differs by a few ulps of values up to 2.
    assert!(worst <= 1e-4 * height, "positions differ by {worst}");
    // Unit normals: the same reasoning, on values of magnitude 1.
    assert!(worst_n <= 1e-4, "normals differ by {worst_n}");
}

/// The skinned pipelines compiled for one to four influences (the renderer's influence runs,
/// docs/RENDERING.md): each skins the vertices of its run as the CPU path does. CesiumMan's
/// vertices need all four counts (458, 1,678, 717 and 420 of its 3,273). A pipeline that
/// dropped an influence it should count moves that run's vertices by up to their weight.
fn influence_runs(choice: BackendChoice) {
    let Some(gpu) = device(choice) else { return };
    let Some(model) = common::shared_asset("CesiumMan.glb") else {
        return;
    };
    let dir = common::temp_dir(&format!("influence-runs-{}", choice.name()));
    let out = dir.join("CesiumMan.throng");
    let recipe = Recipe::for_model(&model, &out);
    bake(&recipe, &BakeOptions::default())
        .unwrap()
        .builder
        .write(&out)
        .unwrap();
    let file = std::sync::Arc::new(ThrongFile::open(&out).unwrap());
    let (vertices, _) = file.mesh_data(0);
    for k in 1..=MAX_INFLUENCES {
        let run: Vec<VertexRecord> = vertices
            .iter()
            .filter(|v| influences(v) == k)
            .copied()
            .collect();
        assert!(
            !run.is_empty(),
            "CesiumMan has vertices needing {k} influences"
        );
        parity_of(&gpu, choice, &file, &run, k as u32);
    }
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn each_influence_run_skins_as_the_cpu_path_on_vulkan() {
    influence_runs(BackendChoice::Vulkan);
}

#[test]
fn each_influence_run_skins_as_the_cpu_path_on_gl() {
    influence_runs(BackendChoice::Gl);
}

#[test]
fn shader_skinning_matches_the_cpu_path_on_vulkan() {
    parity(BackendChoice::Vulkan);
}

#[test]
fn shader_skinning_matches_the_cpu_path_on_gl() {
    parity(BackendChoice::Gl);
}

/// The test scene: 36 agents, seed 3, 0.25 s in, 320 × 200 pixels, full detail, the sun's
/// shadow map.
fn render_scene(gpu: &Gpu, path: SkinningPath) -> image::RgbaImage {
    render_scene_at(gpu, path, 0.25)
}

fn render_scene_at(gpu: &Gpu, path: SkinningPath, time: f32) -> image::RgbaImage {
    render_shadowed(gpu, path, time, Shadows::Map, (320, 200))
}

fn render_shadowed(
    gpu: &Gpu,
    path: SkinningPath,
    time: f32,
    shadows: Shadows,
    (w, h): (u32, u32),
) -> image::RgbaImage {
    let file = std::sync::Arc::new(ThrongFile::open(mannequin_bake()).unwrap());
    let samples = Target::best_samples(gpu);
    let format = PassFormat::offscreen(samples);
    let mut renderer = CrowdRenderer::new(gpu, &file, format).unwrap();
    renderer.set_shadows(shadows);
    let mut stage = Stage::new(gpu, &renderer).unwrap();
    let target = Target::new(gpu, w, h, samples);
    let agents = scene::agents(&file, 36, 3, time);
    let view_proj = scene::camera(agents.len(), w as f32 / h as f32);
    let scene = SceneDraw {
        agents: &agents,
        view_proj,
        lod: 0,
        impostor: false,
    };
    let stats = stage
        .draw_scene(gpu, &mut renderer, &file, &target, &scene, path)
        .unwrap();
    assert_eq!(stats.instances, 36);
    target.read(gpu).unwrap()
}

fn reference_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/reference")
}

/// Compares `actual` with `expected` under the limits; on failure writes NAME-actual.png and
/// NAME-difference.png into tests/reference (ignored by git) and panics with the figures.
fn assert_similar(
    name: &str,
    actual: &image::RgbaImage,
    expected: &image::RgbaImage,
    mean: f32,
    changed: f32,
) {
    let (d, picture) = compare(actual, expected);
    println!(
        "{name}: mean {:.2e}, p99 {:.3}, changed {:.2e}",
        d.mean, d.p99, d.changed
    );
    if d.mean > mean || d.changed > changed {
        let dir = reference_dir();
        let _ = actual.save(dir.join(format!("{name}-actual.png")));
        let _ = picture.save(dir.join(format!("{name}-difference.png")));
        panic!(
            "{name}: mean difference {:.2e} (limit {mean:.0e}), changed pixels {:.2e} (limit {changed:.0e}); wrote {name}-actual.png and {name}-difference.png in {}",
            d.mean,
            d.changed,
            dir.display()
        );
    }
}

/// The two GPU backends and the CPU fallback draw the same picture, and each backend matches
/// its committed reference image.
#[test]
fn vulkan_gl_and_cpu_skinning_draw_the_same_picture() {
    let mut images: Vec<(String, image::RgbaImage)> = Vec::new();
    for choice in [BackendChoice::Vulkan, BackendChoice::Gl] {
        let Some(gpu) = device(choice) else { continue };
        images.push((
            choice.name().to_string(),
            render_scene(&gpu, SkinningPath::Gpu),
        ));
        images.push((
            format!("{}-cpu", choice.name()),
            render_scene(&gpu, SkinningPath::Cpu),
        ));
    }
    // Pairwise. Limits: the same rasteriser family (Mesa's llvmpipe) on the same triangles; the
    // differences are float rounding in skinning (1e-7 of the height, above) and in edge
    // coverage. A mean of 1/255 and 0.2% of pixels changed by more than a quarter of the range
    // allow that, and catch a wrong pose, a missing character or a wrong light.
    for i in 0..images.len() {
        for j in i + 1..images.len() {
            let name = format!("{}-vs-{}", images[i].0, images[j].0);
            assert_similar(&name, &images[i].1, &images[j].1, 1.0 / 255.0, 0.002);
        }
    }
    // References: one per backend, made only when THRONG_BLESS=1; a missing one fails.
    let bless = std::env::var("THRONG_BLESS").is_ok_and(|v| v == "1");
    for (name, image) in images.iter().filter(|(n, _)| !n.ends_with("-cpu")) {
        let path = reference_dir().join(format!("crowd-{name}.png"));
        if bless {
            std::fs::create_dir_all(reference_dir()).unwrap();
            image.save(&path).unwrap();
            println!("blessed {}", path.display());
            continue;
        }
        let expected = image::open(&path)
            .unwrap_or_else(|e| {
                panic!(
                    "{}: {e} (reference images are made with THRONG_BLESS=1)",
                    path.display()
                )
            })
            .to_rgba8();
        // Against a reference made on another machine: Mesa versions may rasterise edges
        // differently; 2/255 on average and 1% of pixels still catch any real change.
        assert_similar(
            &format!("crowd-{name}"),
            image,
            &expected,
            2.0 / 255.0,
            0.01,
        );
    }
    // The comparison sees animation: the same scene a third of a second later differs.
    if let Some(gpu) = device(BackendChoice::Vulkan).or_else(|| device(BackendChoice::Gl)) {
        let later = render_scene_at(&gpu, SkinningPath::Gpu, 0.58);
        let (d, _) = compare(&later, &images[0].1);
        assert!(
            d.mean > 1.0 / 255.0 || d.changed > 0.002,
            "a later frame looks the same: {d:?}"
        );
    }
    // The picture shows a crowd: many distinct colours, not a blank frame.
    if let Some((_, image)) = images.first() {
        let colours: std::collections::HashSet<[u8; 4]> = image.pixels().map(|p| p.0).collect();
        assert!(
            colours.len() > 500,
            "only {} colours: is the crowd there?",
            colours.len()
        );
    }
}

/// Mean of a pixel's colour channels, 0 to 255 (sRGB-encoded).
fn brightness(image: &image::RgbaImage, (x, y): (u32, u32)) -> f32 {
    let p = image.get_pixel(x, y).0;
    (f32::from(p[0]) + f32::from(p[1]) + f32::from(p[2])) / 3.0
}

/// The shadow map darkens the ground just beside agents on the side away from the sun, and
/// leaves the ground on the sunny side as it is; blobs darken the ground at agents' feet. On
/// each backend, with pictures of the same scene without shadows as the reference.
#[test]
fn shadows_darken_the_ground_away_from_the_sun_and_only_there() {
    let size = (640, 400);
    let file = std::sync::Arc::new(ThrongFile::open(mannequin_bake()).unwrap());
    let agents = scene::agents(&file, 36, 3, 0.25);
    let view_proj = scene::camera(agents.len(), size.0 as f32 / size.1 as f32);
    let sun = Light::default().direction.normalize();
    // Along the ground, away from the sun.
    let away = -glam::Vec3::new(sun.x, 0.0, sun.z).normalize();
    for choice in [BackendChoice::Vulkan, BackendChoice::Gl] {
        let Some(gpu) = device(choice) else { continue };
        let off = render_shadowed(&gpu, SkinningPath::Gpu, 0.25, Shadows::Off, size);
        let map = render_shadowed(&gpu, SkinningPath::Gpu, 0.25, Shadows::Map, size);
        let blob = render_shadowed(&gpu, SkinningPath::Gpu, 0.25, Shadows::Blob, size);
        // Ground beside an agent: a point where the picture without shadows shows ground (its
        // channels within 8 levels of each other: the grey checker, not a tinted character).
        let ground = |image: &image::RgbaImage, p: glam::Vec3| {
            pixel(view_proj, p, size).filter(|&xy| {
                let c = image.get_pixel(xy.0, xy.1).0;
                c[..3].iter().max().unwrap() - c[..3].iter().min().unwrap() <= 8
            })
        };
        let (mut shaded, mut sunny, mut blobbed) = (Vec::new(), Vec::new(), Vec::new());
        for a in &agents {
            // 0.6 m away from the sun: in the shadow of a 1.8 m figure's legs and body
            // (its shadow is about 1.3 m long under a sun 53 degrees high).
            if let Some(xy) = ground(&off, a.position + away * 0.6) {
                shaded.push(brightness(&map, xy) / brightness(&off, xy));
            }
            // 1.2 m towards the sun: open ground, unless another agent's shadow reaches it.
            if let Some(xy) = ground(&off, a.position - away * 1.2) {
                sunny.push(brightness(&map, xy) / brightness(&off, xy));
            }
            // 0.15 m beside the feet, either side across the sun's direction: under the blob.
            let across = glam::Vec3::new(-away.z, 0.0, away.x);
            for side in [-0.15, 0.15] {
                if let Some(xy) = ground(&off, a.position + across * side) {
                    blobbed.push(brightness(&blob, xy) / brightness(&off, xy));
                }
            }
        }
        let median = |v: &mut Vec<f32>| {
            v.sort_by(f32::total_cmp);
            v[v.len() / 2]
        };
        println!(
            "{}: {} shaded points, median ratio {:.3}; {} sunny, median {:.3}; {} under blobs, median {:.3}",
            choice.name(),
            shaded.len(),
            median(&mut shaded),
            sunny.len(),
            median(&mut sunny),
            blobbed.len(),
            median(&mut blobbed)
        );
        // Enough points to mean something: most agents' sides are in view.
        assert!(shaded.len() >= 12 && sunny.len() >= 12 && blobbed.len() >= 12);
        // In shadow the ground keeps the sky's ambient light and a fifth of the sun's: 0.54
        // of its lit value in linear light, 0.75 once sRGB-encoded. Below 0.85 for most points (the
        // median): some points fall on the shadow's soft edge or between the legs.
        assert!(median(&mut shaded) < 0.85, "{shaded:?}");
        // Nearly every shaded point is darker (a point may fall past a crouching or turned
        // figure's shorter shadow): nine in ten at least.
        let darker = shaded.iter().filter(|&&r| r < 0.95).count();
        assert!(darker * 10 >= shaded.len() * 9, "{shaded:?}");
        // On the sunny side the ground stays as it was for most points (within 2%: rounding).
        assert!((median(&mut sunny) - 1.0).abs() < 0.02, "{sunny:?}");
        // Blobs darken by up to half at their centre, less towards the rim: 0.15 m out, the
        // ground keeps under 90% of its light (about 0.8 measured).
        assert!(median(&mut blobbed) < 0.9, "{blobbed:?}");
    }
}
