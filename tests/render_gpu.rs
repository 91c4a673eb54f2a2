//! GPU rendering on Vulkan (lavapipe) and GL (llvmpipe through EGL): the shader's skinning
//! function against the CPU path, numerically; the GPU path on both backends and the CPU
//! fallback against each other and against committed reference images (with the sun's shadow
//! map); shadows that darken the ground where they should and nowhere else.
//!
//! A missing backend skips with a printed reason, unless `THRONG_REQUIRE_BACKENDS` names it
//! (CI sets `vulkan,gl`), in which case the test fails.

mod common;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use throng::bake::{BakeOptions, Recipe, bake};
use throng::crowd::scene::{self, frame_pose};
use throng::format::ThrongFile;
use throng::render::cpu_skin::skin_vertex;
use throng::render::image_diff::compare;
use throng::render::parity::gpu_skin;
use throng::render::{
    BackendChoice, CrowdRenderer, Gpu, Light, PassFormat, SceneDraw, Shadows, SkinningPath, Stage,
    Target,
};

/// The default mannequin bake, baked once per test process into a temp folder.
fn mannequin_bake() -> &'static Path {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut recipe = Recipe::load(&root.join("bake/mannequin.toml")).unwrap();
        let dir = common::temp_dir("render-bake");
        recipe.output = dir.join("mannequin.throng");
        bake(&recipe, &BakeOptions::default())
            .unwrap()
            .builder
            .write(&recipe.output)
            .unwrap();
        recipe.output
    })
}

/// A device on `choice`, or `None` with the reason printed (a failure when required).
fn device(choice: BackendChoice) -> Option<Gpu> {
    let required = std::env::var("THRONG_REQUIRE_BACKENDS")
        .unwrap_or_default()
        .split(',')
        .any(|b| b.trim() == choice.name());
    match Gpu::new(choice) {
        Ok(gpu) => {
            println!("{}: {}", choice.name(), gpu.describe());
            Some(gpu)
        }
        Err(e) if required => panic!(
            "{}: {e} (THRONG_REQUIRE_BACKENDS requires it)",
            choice.name()
        ),
        Err(e) => {
            eprintln!("skipped on {}: {e}", choice.name());
            None
        }
    }
}

fn parity(choice: BackendChoice) {
    let Some(gpu) = device(choice) else { return };
    let file = ThrongFile::open(mannequin_bake()).unwrap();
    let renderer = CrowdRenderer::new(&gpu, &file, PassFormat::offscreen(1)).unwrap();
    // 24 agents: every animation, times between frames, a third of them cross-fading.
    let agents = scene::agents(&file, 24, 7, 0.37);
    assert!(agents.iter().any(|a| a.fade > 0.0));
    let poses: Vec<_> = agents.iter().map(|a| frame_pose(&file, a)).collect();
    assert!(poses.iter().any(|p| p.aw > 0.05 && p.aw < 0.95));
    let (vertices, _) = file.mesh_data(0);
    let gpu_out = gpu_skin(&gpu, &renderer, &poses, vertices).unwrap();
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
        "{}: largest position difference {worst:.3e} ({:.2e} of the height), normal {worst_n:.3e}",
        choice.name(),
        worst / height
    );
    // 1e-4 of the height (0.18 mm): the same f32 arithmetic in another order (fused
    // multiply-adds, the GPU's own f16 conversion) differs by a few ulps of values up to 2.
    assert!(worst <= 1e-4 * height, "positions differ by {worst}");
    // Unit normals: the same reasoning, on values of magnitude 1.
    assert!(worst_n <= 1e-4, "normals differ by {worst_n}");
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
    let file = ThrongFile::open(mannequin_bake()).unwrap();
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

/// Where world point `p` lands in a `w` × `h` picture seen through `view_proj`.
fn pixel(view_proj: glam::Mat4, p: glam::Vec3, (w, h): (u32, u32)) -> Option<(u32, u32)> {
    let c = view_proj.project_point3(p);
    let x = ((c.x * 0.5 + 0.5) * w as f32) as i64;
    let y = ((0.5 - c.y * 0.5) * h as f32) as i64;
    ((0..i64::from(w)).contains(&x) && (0..i64::from(h)).contains(&y))
        .then_some((x as u32, y as u32))
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
    let file = ThrongFile::open(mannequin_bake()).unwrap();
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

/// One frame of the motion test: records by slot, the dirty slots, the camera.
struct MotionFrame {
    records: Vec<throng::render::InstanceRecord>,
    dirty: std::ops::Range<u32>,
    view_proj: glam::Mat4,
}

/// Renders `frames` in turn into a target with a velocity attachment; returns, per frame, the
/// colour image and the motion per pixel.
fn render_motion(
    gpu: &Gpu,
    file: &ThrongFile,
    path: SkinningPath,
    frames: &[MotionFrame],
    (w, h): (u32, u32),
) -> Vec<(image::RgbaImage, Vec<[f32; 2]>)> {
    let format = PassFormat::offscreen(1).with_velocity();
    let mut renderer = CrowdRenderer::new(gpu, file, format).unwrap();
    renderer.set_shadows(Shadows::Off);
    let stage = Stage::new(gpu, &renderer).unwrap();
    let target = Target::with_velocity(gpu, w, h, 1);
    let count = frames[0].records.len() as u32;
    let draws = [throng::crowd::DrawRange {
        character: 0,
        level: 0,
        slots: 0..count,
    }];
    let slot_agent: Vec<u32> = (0..count).collect();
    let mut out = Vec::new();
    for f in frames {
        let frame = throng::render::CrowdFrame {
            records: &f.records,
            dirty: std::slice::from_ref(&f.dirty),
            draws: &draws,
            slot_agent: &slot_agent,
        };
        stage
            .render(
                gpu,
                &mut renderer,
                file,
                &target.views(),
                &frame,
                f.view_proj,
                path,
            )
            .unwrap();
        let velocity = target.velocity().unwrap().read(gpu).unwrap();
        out.push((target.read(gpu).unwrap(), velocity));
    }
    out
}

/// Motion vectors: a standing agent's pixels do not move; a walking agent's body moves on
/// screen by its ground speed × dt (the projected move of its hips); an agent the
/// update-rate LOD holds (its record not rewritten) shows no motion, then the whole
/// distance it caught up when it is updated; a camera move moves the ground by its
/// projection. On both backends, on the GPU path (the previous pose skinned again) and the
/// CPU path (the previous placement of this frame's pose).
#[test]
fn motion_vectors_show_what_moved_as_it_was_drawn() {
    let size = (320, 200);
    let file = ThrongFile::open(mannequin_bake()).unwrap();
    let walk = file
        .find_anim(0, "walk")
        .expect("the mannequin bake has a walk");
    let idle = file
        .find_anim(0, "idle")
        .expect("the mannequin bake has an idle");
    let speed = file.ground_speed(walk).expect("the walk's ground speed");
    let dt = 0.1;
    // Agents side by side across the view, 2.5 m apart; the walkers walk to the right (+x:
    // heading a quarter turn).
    let quarter = std::f32::consts::FRAC_PI_2;
    let agent = |x: f32, anim: u32, time: f32, tint: [f32; 4]| scene::Placement {
        character: 0,
        position: glam::Vec3::new(x, 0.0, 0.0),
        heading: if anim == idle as u32 { 0.0 } else { quarter },
        scale: 1.0,
        tint,
        anim_a: anim,
        time_a: time,
        anim_b: anim,
        time_b: time,
        fade: 0.0,
    };
    let (standing_x, walking_x, held_x) = (-2.5, -0.3, 2.2);
    let red = [1.0, 0.15, 0.15, 1.0];
    // Frame k: the walker has walked k steps of dt; the held agent is drawn at step 0 in
    // frames 0 and 1 (not rewritten in frame 1), then catches up to step 2.
    let records = |walker_step: f32, held_step: f32| {
        let walked =
            |x0: f32, step: f32| agent(x0 + speed * dt * step, walk as u32, 0.3 + dt * step, red);
        [
            agent(standing_x, idle as u32, 0.5, red),
            walked(walking_x, walker_step),
            walked(held_x, held_step),
        ]
        .iter()
        .map(|a| scene::record(a, &frame_pose(&file, a)))
        .collect::<Vec<_>>()
    };
    let aspect = size.0 as f32 / size.1 as f32;
    let camera = |x: f32| {
        glam::camera::rh::proj::directx::perspective(0.8, aspect, 0.1, 100.0)
            * glam::camera::rh::view::look_at_mat4(
                glam::Vec3::new(x, 1.2, 6.0),
                glam::Vec3::new(x, 0.9, 0.0),
                glam::Vec3::Y,
            )
    };
    let frames = [
        MotionFrame {
            records: records(0.0, 0.0),
            dirty: 0..3,
            view_proj: camera(0.0),
        },
        // The held agent's slot (2) is not rewritten.
        MotionFrame {
            records: records(1.0, 0.0),
            dirty: 0..2,
            view_proj: camera(0.0),
        },
        MotionFrame {
            records: records(2.0, 2.0),
            dirty: 0..3,
            view_proj: camera(0.0),
        },
        // Nothing rewritten; the camera moves 0.3 m to the right.
        MotionFrame {
            records: records(2.0, 2.0),
            dirty: 0..0,
            view_proj: camera(0.3),
        },
    ];
    let hips = 0.9 * file.characters()[0].height / 1.8;
    // The screen move (uv units, y down) of a point moving from `a` to `b` seen through
    // `before` then `now`.
    let moved = |before: glam::Mat4, a: glam::Vec3, now: glam::Mat4, b: glam::Vec3| {
        let (p, q) = (before.project_point3(a), now.project_point3(b));
        glam::Vec2::new((q.x - p.x) * 0.5, (p.y - q.y) * 0.5)
    };
    let step = |k: f32| glam::Vec3::new(speed * dt * k, hips, 0.0);
    for choice in [BackendChoice::Vulkan, BackendChoice::Gl] {
        let Some(gpu) = device(choice) else { continue };
        for path in [SkinningPath::Gpu, SkinningPath::Cpu] {
            let pictures = render_motion(&gpu, &file, path, &frames, size);
            // The motion of the red pixels (an agent's) in the column of the picture around
            // world x `x` (1.1 m either side), as seen in frame `f`.
            let motion_of = |f: usize, x: f32| {
                let (image, velocity) = &pictures[f];
                let mut found = Vec::new();
                for (i, p) in image.pixels().enumerate() {
                    let (px, py) = (i as u32 % size.0, i as u32 / size.0);
                    let Some((lo, _)) = pixel(
                        frames[f].view_proj,
                        glam::Vec3::new(x - 1.1, hips, 0.0),
                        size,
                    ) else {
                        continue;
                    };
                    let Some((hi, _)) = pixel(
                        frames[f].view_proj,
                        glam::Vec3::new(x + 1.1, hips, 0.0),
                        size,
                    ) else {
                        continue;
                    };
                    let red = i32::from(p.0[0]) - i32::from(p.0[1]) > 40;
                    if red && (lo..hi).contains(&px) && py < size.1 {
                        found.push(glam::Vec2::from(velocity[i]));
                    }
                }
                assert!(
                    found.len() > 200,
                    "{}: only {} pixels of the agent at x = {x}",
                    choice.name(),
                    found.len()
                );
                found
            };
            let median = |v: &[glam::Vec2]| {
                let mut xs: Vec<f32> = v.iter().map(|m| m.x).collect();
                let mut ys: Vec<f32> = v.iter().map(|m| m.y).collect();
                xs.sort_by(f32::total_cmp);
                ys.sort_by(f32::total_cmp);
                glam::Vec2::new(xs[xs.len() / 2], ys[ys.len() / 2])
            };
            let largest = |v: &[glam::Vec2]| v.iter().map(|m| m.length()).fold(0.0, f32::max);
            let name = format!("{} {}", choice.name(), path.name());
            let vp = camera(0.0);
            // Frame 0 has no previous frame: nothing moves.
            let first = largest(&motion_of(0, walking_x));
            // Frame 1: the standing agent and the held one do not move, exactly (the same
            // record skinned and projected twice: the same arithmetic).
            let standing = largest(&motion_of(1, standing_x));
            let held = largest(&motion_of(1, held_x));
            let walker = median(&motion_of(1, walking_x + speed * dt));
            let walker_expected = moved(
                vp,
                step(0.0) + glam::Vec3::X * walking_x,
                vp,
                step(1.0) + glam::Vec3::X * walking_x,
            );
            // Frame 2: the held agent catches up two steps at once.
            let caught_up = median(&motion_of(2, held_x + 2.0 * speed * dt));
            let caught_expected = moved(
                vp,
                step(0.0) + glam::Vec3::X * held_x,
                vp,
                step(2.0) + glam::Vec3::X * held_x,
            );
            println!(
                "{name}: first frame {first:.2e}; standing {standing:.2e}; held {held:.2e}; walker {walker:?} (expected {walker_expected:?}); caught up {caught_up:?} (expected {caught_expected:?})"
            );
            assert!(
                first == 0.0 && standing == 0.0 && held == 0.0,
                "{name}: still agents moved"
            );
            // The median pixel of a walking body moves with its hips, within 15% (the
            // torso and head dominate its pixels; arms and legs swing about the hips both
            // ways), and up or down by no more than the hips bob in a walk (5 cm).
            let bob = moved(vp, step(0.0), vp, step(0.0) + glam::Vec3::Y * 0.05)
                .y
                .abs();
            for (got, want) in [(walker, walker_expected), (caught_up, caught_expected)] {
                // At least 3 pixels: a move the test can tell from rounding.
                assert!(
                    want.x * size.0 as f32 >= 3.0,
                    "{name}: the test's move is too small to judge: {want:?}"
                );
                assert!(
                    (got.x - want.x).abs() <= 0.15 * want.x,
                    "{name}: moved {got:?}, expected {want:?}"
                );
                assert!(
                    got.y.abs() <= bob,
                    "{name}: moved {got:?} (more than {bob} up or down), expected {want:?}"
                );
            }
            // Frame 3: only the camera moves; the ground just in front of the agents moves by
            // the camera's projection of it, within 0.1 pixel (f16 has 11 bits).
            let ground = glam::Vec3::new(0.0, 0.0, 1.5);
            let (gx, gy) = pixel(frames[3].view_proj, ground, size).unwrap();
            let got = glam::Vec2::from(pictures[3].1[(gy * size.0 + gx) as usize]);
            let want = moved(camera(0.0), ground, camera(0.3), ground);
            println!("{name}: ground moved {got:?} with the camera (expected {want:?})");
            assert!(
                (got - want).length() * size.0 as f32 <= 0.1,
                "{name}: ground moved {got:?}, expected {want:?}"
            );
        }
    }
}

/// A 1 m square facing +z, bound to the child of a two-joint skeleton, with a material of
/// base-colour `factor` and a 2 × 2 texture of sRGB-encoded grey `texel`; written as a .gltf
/// (with its buffers and image as data URIs) in a fresh folder. Returns its path.
fn grey_square(tag: &str, texel: u8, factor: f32) -> PathBuf {
    use base64::Engine as _;
    use serde_json::json;
    let mut g = common::TestGltf::default();
    let corners = [[-0.5, 0.5], [0.5, 0.5], [0.5, 1.5], [-0.5, 1.5]];
    let positions: Vec<f32> = corners.iter().flat_map(|c| [c[0], c[1], 0.0]).collect();
    let pos = g.floats(&positions, "VEC3");
    let normals = g.floats(&[0.0, 0.0, 1.0].repeat(4), "VEC3");
    let uvs = g.floats(&[0.5, 0.5].repeat(4), "VEC2");
    let indices = g.raw(
        &[0u16, 1, 2, 0, 2, 3]
            .iter()
            .flat_map(|i| i.to_le_bytes())
            .collect::<Vec<_>>(),
        5123,
        6,
        "SCALAR",
        false,
    );
    let joints = g.joints_u8(&[[1, 0, 0, 0]; 4]);
    let weights = g.floats(&[1.0, 0.0, 0.0, 0.0].repeat(4), "VEC4");
    let mut ibm = glam::Mat4::IDENTITY.to_cols_array().to_vec();
    ibm.extend(glam::Mat4::from_translation(-glam::Vec3::Y).to_cols_array());
    let ibm = g.floats(&ibm, "MAT4");
    let input = g.floats(&[0.0, 1.0], "SCALAR");
    let output = g.floats(&[0.0, 1.0, 0.0, 0.0, 1.0, 0.0], "VEC3");
    let mut png = Vec::new();
    image::RgbaImage::from_pixel(2, 2, image::Rgba([texel, texel, texel, 255]))
        .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
        .unwrap();
    let png = base64::engine::general_purpose::STANDARD.encode(png);
    let json = g.finish(json!({
        "scene": 0,
        "scenes": [{"nodes": [0, 1]}],
        "nodes": [
            {"name": "body", "mesh": 0, "skin": 0},
            {"name": "root", "children": [2]},
            {"name": "child", "translation": [0.0, 1.0, 0.0]}
        ],
        "meshes": [{"primitives": [{"attributes": {"POSITION": pos, "NORMAL": normals,
            "TEXCOORD_0": uvs, "JOINTS_0": joints, "WEIGHTS_0": weights},
            "indices": indices, "material": 0}]}],
        "materials": [{"pbrMetallicRoughness": {"baseColorFactor": [factor, factor, factor, 1.0],
            "baseColorTexture": {"index": 0}}}],
        "textures": [{"source": 0}],
        "images": [{"uri": format!("data:image/png;base64,{png}")}],
        "skins": [{"joints": [1, 2], "inverseBindMatrices": ibm}],
        "animations": [{"name": "still", "samplers": [{"input": input, "output": output}],
            "channels": [{"sampler": 0, "target": {"node": 2, "path": "translation"}}]}]
    }));
    common::write_gltf(tag, "square.gltf", &json)
}

/// The middle pixel of `model` (a [`grey_square`]) baked and drawn straight on.
fn draw_square(gpu: &Gpu, model: &Path) -> [u8; 4] {
    let recipe = Recipe::new(
        model.with_file_name("square.throng"),
        vec![throng::bake::CharacterSpec::model(model)],
    )
    .checked()
    .unwrap();
    throng::bake::bake_to_file(&recipe, &BakeOptions::default()).unwrap();
    let file = ThrongFile::open(&recipe.output).unwrap();
    let mut renderer = CrowdRenderer::new(gpu, &file, PassFormat::offscreen(1)).unwrap();
    renderer.set_shadows(Shadows::Off);
    let mut stage = Stage::new(gpu, &renderer).unwrap();
    let size = (64, 64);
    let target = Target::new(gpu, size.0, size.1, 1);
    let placement = scene::Placement {
        character: 0,
        position: glam::Vec3::ZERO,
        heading: 0.0,
        scale: 1.0,
        tint: [1.0; 4],
        anim_a: 0,
        time_a: 0.0,
        anim_b: 0,
        time_b: 0.0,
        fade: 0.0,
    };
    let view_proj = glam::camera::rh::proj::directx::perspective(0.8, 1.0, 0.1, 100.0)
        * glam::camera::rh::view::look_at_mat4(
            glam::Vec3::new(0.0, 1.0, 3.0),
            glam::Vec3::Y,
            glam::Vec3::Y,
        );
    let scene = SceneDraw {
        agents: std::slice::from_ref(&placement),
        view_proj,
        lod: 0,
    };
    stage
        .draw_scene(
            gpu,
            &mut renderer,
            &file,
            &target,
            &scene,
            SkinningPath::Gpu,
        )
        .unwrap();
    target
        .read(gpu)
        .unwrap()
        .get_pixel(size.0 / 2, size.1 / 2)
        .0
}

/// Base-colour textures are read as sRGB (decoded to linear before shading), the factor is
/// linear, and the output is sRGB-encoded: a texture of sRGB grey 128 draws exactly as a
/// white texture with the factor 128 decodes to (0.2159), and visibly darker than a factor of
/// 128/255 (what reading the texture as linear would give). On both backends.
#[test]
fn base_colour_textures_are_read_as_srgb() {
    let decoded = ((128.0f32 / 255.0 + 0.055) / 1.055).powf(2.4);
    let textured = grey_square("srgb-textured", 128, 1.0);
    let factored = grey_square("srgb-factor", 255, decoded);
    let misread = grey_square("srgb-misread", 255, 128.0 / 255.0);
    for choice in [BackendChoice::Vulkan, BackendChoice::Gl] {
        let Some(gpu) = device(choice) else { continue };
        let [t, f, m] = [&textured, &factored, &misread].map(|p| draw_square(&gpu, p));
        println!(
            "{}: textured {t:?}, by factor {f:?}, misread {m:?}",
            choice.name()
        );
        for c in 0..3 {
            // One level: the decode table and the encode round differently by up to half a
            // level each.
            assert!(
                t[c].abs_diff(f[c]) <= 1,
                "{}: textured {t:?}, by factor {f:?}",
                choice.name()
            );
            // Linear 0.502 against 0.216 lit alike: about 50 levels apart once encoded.
            assert!(m[c] >= t[c] + 30, "{}: {m:?} vs {t:?}", choice.name());
        }
    }
}
