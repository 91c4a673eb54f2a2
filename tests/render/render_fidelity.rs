//! Rendering fidelity on Vulkan (lavapipe) and GL (llvmpipe through EGL): motion vectors
//! (standing, walking, held agents and a moving camera, on the GPU and the CPU path), colour
//! (base-colour textures read as sRGB) and the ground (the relief's terrace at its height, and
//! a ground that reaches under a plaza wider than the default one). Shadows and the pictures' parity are in
//! tests/render/render_gpu.rs.
//!
//! A missing backend skips with a printed reason, unless `THRONG_REQUIRE_BACKENDS` names it
//! (CI sets `vulkan,gl`), in which case the test fails.

use crate::common;

use std::path::{Path, PathBuf};

use common::gpu::{device, mannequin_bake, pixel};
use throng::bake::{BakeOptions, Recipe};
use throng::crowd::scene::{self, frame_pose};
use throng::format::ThrongFile;
use throng::render::{
    BackendChoice, CrowdRenderer, Gpu, PassFormat, SceneDraw, Shadows, SkinningPath, Stage, Target,
};

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
        live: false,
        impostor: false,
    }];
    let slot_agent: Vec<u32> = (0..count).collect();
    let mut out = Vec::new();
    for f in frames {
        let frame = throng::render::CrowdFrame {
            records: &f.records,
            dirty: std::slice::from_ref(&f.dirty),
            draws: &draws,
            slot_agent: &slot_agent,
            prepared: None,
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

/// The motion test's scene: three agents side by side across the view (a standing one, a
/// walker, and a walker the update-rate LOD holds), seen by a fixed camera in frames 0 to 2
/// and a camera moved 0.3 m to the right in frame 3.
struct MotionScene {
    frames: [MotionFrame; 4],
    /// The walk's ground speed, m/s, and the time between frames, s.
    speed: f32,
    dt: f32,
    /// Height of the hips, metres.
    hips: f32,
    /// Where the standing agent, the walker and the held walker start, world x.
    xs: [f32; 3],
}

/// The camera of [`MotionScene`], at world x `x`.
fn motion_camera(x: f32, (w, h): (u32, u32)) -> glam::Mat4 {
    glam::camera::rh::proj::directx::perspective(0.8, w as f32 / h as f32, 0.1, 100.0)
        * glam::camera::rh::view::look_at_mat4(
            glam::Vec3::new(x, 1.2, 6.0),
            glam::Vec3::new(x, 0.9, 0.0),
            glam::Vec3::Y,
        )
}

fn motion_scene(file: &ThrongFile, size: (u32, u32)) -> MotionScene {
    let walk = file.find_anim(0, "walk").expect("a walk") as u32;
    let idle = file.find_anim(0, "idle").expect("an idle") as u32;
    let speed = file
        .ground_speed(walk as usize)
        .expect("the walk's ground speed");
    let dt = 0.1;
    let xs = [-2.5, -0.3, 2.2];
    // Red, to tell the agents' pixels from the ground's.
    let agent = |x: f32, anim: u32, time: f32| scene::Placement {
        character: 0,
        position: glam::Vec3::new(x, 0.0, 0.0),
        // Walkers face +x (a quarter turn), the way they walk.
        heading: if anim == idle {
            0.0
        } else {
            std::f32::consts::FRAC_PI_2
        },
        scale: 1.0,
        tint: [1.0, 0.15, 0.15, 1.0],
        anim_a: anim,
        time_a: time,
        anim_b: anim,
        time_b: time,
        fade: 0.0,
    };
    // The walker `walker_step` steps of dt along; the held agent `held_step`.
    let records = |walker_step: f32, held_step: f32| {
        let walked = |x0: f32, step: f32| agent(x0 + speed * dt * step, walk, 0.3 + dt * step);
        [
            agent(xs[0], idle, 0.5),
            walked(xs[1], walker_step),
            walked(xs[2], held_step),
        ]
        .iter()
        .map(|a| {
            // The record as a crowd writes it (the motion scene places agents frame by frame
            // and keeps no crowd).
            let tint = throng::crowd::rgba8(a.tint);
            throng::crowd::InstanceRecord::new(
                a.position,
                a.heading,
                a.scale,
                tint,
                &frame_pose(file, a),
            )
        })
        .collect::<Vec<_>>()
    };
    let still = motion_camera(0.0, size);
    let frame = |records, dirty, view_proj| MotionFrame {
        records,
        dirty,
        view_proj,
    };
    MotionScene {
        frames: [
            frame(records(0.0, 0.0), 0..3, still),
            // The held agent's slot (2) is not rewritten.
            frame(records(1.0, 0.0), 0..2, still),
            // It catches up two steps.
            frame(records(2.0, 2.0), 0..3, still),
            // Nothing rewritten; the camera moves.
            frame(records(2.0, 2.0), 0..0, motion_camera(0.3, size)),
        ],
        speed,
        dt,
        hips: 0.9 * file.characters()[0].height / 1.8,
        xs,
    }
}

/// The screen move (uv units, y down) of a point moving from `a` to `b`, seen through `before`
/// then `now`.
fn screen_move(before: glam::Mat4, a: glam::Vec3, now: glam::Mat4, b: glam::Vec3) -> glam::Vec2 {
    let (p, q) = (before.project_point3(a), now.project_point3(b));
    glam::Vec2::new((q.x - p.x) * 0.5, (p.y - q.y) * 0.5)
}

/// The motion of the red pixels (an agent's) of picture `f` in the column around world x `x`
/// (1.1 m either side).
fn agent_motion(
    m: &MotionScene,
    pictures: &[(image::RgbaImage, Vec<[f32; 2]>)],
    f: usize,
    x: f32,
    size: (u32, u32),
) -> Vec<glam::Vec2> {
    let (image, velocity) = &pictures[f];
    let at = |dx: f32| {
        pixel(
            m.frames[f].view_proj,
            glam::Vec3::new(x + dx, m.hips, 0.0),
            size,
        )
    };
    let (Some((lo, _)), Some((hi, _))) = (at(-1.1), at(1.1)) else {
        panic!("the column around x = {x} is out of view");
    };
    let found: Vec<glam::Vec2> = image
        .pixels()
        .enumerate()
        .filter(|(i, p)| {
            let red = i32::from(p.0[0]) - i32::from(p.0[1]) > 40;
            red && (lo..hi).contains(&(*i as u32 % size.0))
        })
        .map(|(i, _)| glam::Vec2::from(velocity[i]))
        .collect();
    assert!(
        found.len() > 200,
        "only {} pixels of the agent at x = {x}",
        found.len()
    );
    found
}

/// Checks the pictures of [`MotionScene`] (see the test).
fn check_motion(
    name: &str,
    m: &MotionScene,
    pictures: &[(image::RgbaImage, Vec<[f32; 2]>)],
    size: (u32, u32),
) {
    let median = |v: &[glam::Vec2]| {
        let mut xs: Vec<f32> = v.iter().map(|m| m.x).collect();
        let mut ys: Vec<f32> = v.iter().map(|m| m.y).collect();
        xs.sort_by(f32::total_cmp);
        ys.sort_by(f32::total_cmp);
        glam::Vec2::new(xs[xs.len() / 2], ys[ys.len() / 2])
    };
    let largest = |v: &[glam::Vec2]| v.iter().map(|m| m.length()).fold(0.0, f32::max);
    let [standing_x, walking_x, held_x] = m.xs;
    let step = |x: f32, k: f32| glam::Vec3::new(x + m.speed * m.dt * k, m.hips, 0.0);
    let vp = m.frames[0].view_proj;
    // Frame 0 has no previous frame: nothing moves. Frame 1: the standing agent and the held
    // one do not move, exactly (the same record skinned and projected twice: the same
    // arithmetic).
    let first = largest(&agent_motion(m, pictures, 0, walking_x, size));
    let standing = largest(&agent_motion(m, pictures, 1, standing_x, size));
    let held = largest(&agent_motion(m, pictures, 1, held_x, size));
    let walker = median(&agent_motion(m, pictures, 1, step(walking_x, 1.0).x, size));
    let walker_expected = screen_move(vp, step(walking_x, 0.0), vp, step(walking_x, 1.0));
    // Frame 2: the held agent catches up two steps at once.
    let caught_up = median(&agent_motion(m, pictures, 2, step(held_x, 2.0).x, size));
    let caught_expected = screen_move(vp, step(held_x, 0.0), vp, step(held_x, 2.0));
    println!(
        "{name}: first frame {first:.2e}; standing {standing:.2e}; held {held:.2e}; walker {walker:?} (expected {walker_expected:?}); caught up {caught_up:?} (expected {caught_expected:?})"
    );
    assert!(
        first == 0.0 && standing == 0.0 && held == 0.0,
        "{name}: still agents moved"
    );
    // The median pixel of a walking body moves with its hips, within 15% (the torso and head
    // dominate its pixels; arms and legs swing about the hips both ways), and up or down by
    // no more than the hips bob in a walk (5 cm).
    let bob = screen_move(
        vp,
        step(0.0, 0.0),
        vp,
        step(0.0, 0.0) + glam::Vec3::Y * 0.05,
    )
    .y
    .abs();
    for (got, want) in [(walker, walker_expected), (caught_up, caught_expected)] {
        // At least 3 pixels: a move the test can tell from rounding.
        assert!(
            want.x * size.0 as f32 >= 3.0,
            "{name}: the test's move is too small: {want:?}"
        );
        assert!(
            (got.x - want.x).abs() <= 0.15 * want.x,
            "{name}: moved {got:?}, expected {want:?}"
        );
        assert!(
            got.y.abs() <= bob,
            "{name}: moved {got:?} (more than {bob} up or down)"
        );
    }
    // Frame 3: only the camera moves; the ground just in front of the agents moves by the
    // camera's projection of it, within 0.1 pixel (f16 has 11 bits).
    let ground = glam::Vec3::new(0.0, 0.0, 1.5);
    let (gx, gy) = pixel(m.frames[3].view_proj, ground, size).unwrap();
    let got = glam::Vec2::from(pictures[3].1[(gy * size.0 + gx) as usize]);
    let want = screen_move(vp, ground, m.frames[3].view_proj, ground);
    println!("{name}: ground moved {got:?} with the camera (expected {want:?})");
    assert!(
        (got - want).length() * size.0 as f32 <= 0.1,
        "{name}: ground moved {got:?}, expected {want:?}"
    );
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
    let file = std::sync::Arc::new(ThrongFile::open(mannequin_bake()).unwrap());
    let scene = motion_scene(&file, size);
    for choice in [BackendChoice::Vulkan, BackendChoice::Gl] {
        let Some(gpu) = device(choice) else { continue };
        for path in [SkinningPath::Gpu, SkinningPath::Cpu] {
            let pictures = render_motion(&gpu, &file, path, &scene.frames, size);
            check_motion(
                &format!("{} {}", choice.name(), path.name()),
                &scene,
                &pictures,
                size,
            );
        }
    }
}

/// A 1 m square facing +z, bound to the child of a two-joint skeleton, with a material of
/// base-colour `factor` and a 2 × 2 texture of sRGB-encoded grey `texel`; written as a .gltf
/// (with its buffers and image as data URIs) in a fresh folder. Returns its path.
fn grey_square(tag: &str, texel: u8, factor: f32) -> PathBuf {
    colour_square(tag, [texel; 3], factor)
}

/// As [`grey_square`], with a texture of the sRGB-encoded colour `texel`.
fn colour_square(tag: &str, texel: [u8; 3], factor: f32) -> PathBuf {
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
    image::RgbaImage::from_pixel(2, 2, image::Rgba([texel[0], texel[1], texel[2], 255]))
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

/// The middle pixel of `model` (a [`grey_square`]) baked and drawn straight on, white.
fn draw_square(gpu: &Gpu, model: &Path) -> [u8; 4] {
    draw_tinted(gpu, model, [1.0; 4])
}

/// The middle pixel of `model` (a [`colour_square`]) baked and drawn straight on, tinted
/// `tint` (linear RGBA, 0 to 1).
fn draw_tinted(gpu: &Gpu, model: &Path, tint: [f32; 4]) -> [u8; 4] {
    let recipe = Recipe::new(
        model.with_file_name("square.throng"),
        vec![throng::bake::CharacterSpec::model(model)],
    )
    .checked()
    .unwrap();
    throng::bake::bake_to_file(&recipe, &BakeOptions::default()).unwrap();
    let file = std::sync::Arc::new(ThrongFile::open(&recipe.output).unwrap());
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
        tint,
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
        impostor: false,
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

/// The LOD-colours view paints over an agent's colour: on an orange texture (a fox's fur,
/// sRGB (230, 120, 30)) each LOD colour and the live tier's violet keep their hue, i.e. the
/// pixel is the one they draw on a white texture scaled by one factor, 0.5 + 0.5 √L for the
/// orange's luminance L (`tinted` in shaders/crowd.wgsl). Multiplied (alpha 255), the violet
/// comes out red over blue: what the view showed before. On both backends.
#[test]
fn lod_colours_keep_their_hue_on_an_orange_texture() {
    use throng::crowd::{LIVE_COLOUR, LOD_COLOURS};
    let decode = |c: u8| {
        let c = f32::from(c) / 255.0;
        if c <= 0.04045 {
            c / 12.92
        } else {
            ((c + 0.055) / 1.055).powf(2.4)
        }
    };
    let encode = |l: f32| {
        let c = if l <= 0.003_130_8 {
            l * 12.92
        } else {
            1.055 * l.powf(1.0 / 2.4) - 0.055
        };
        c * 255.0
    };
    let orange = [230, 120, 30];
    let lightness =
        0.2126 * decode(orange[0]) + 0.7152 * decode(orange[1]) + 0.0722 * decode(orange[2]);
    let factor = 0.5 + 0.5 * lightness.sqrt();
    let orange_model = colour_square("paint-orange", orange, 1.0);
    let white_model = grey_square("paint-white", 255, 1.0);
    let tint = |c: [u8; 4]| c.map(|v| f32::from(v) / 255.0);
    for choice in [BackendChoice::Vulkan, BackendChoice::Gl] {
        let Some(gpu) = device(choice) else { continue };
        for colour in LOD_COLOURS[..4].iter().chain([&LIVE_COLOUR]) {
            let on_orange = draw_tinted(&gpu, &orange_model, tint(*colour));
            let on_white = draw_tinted(&gpu, &white_model, tint(*colour));
            println!(
                "{}: {colour:?} on orange {on_orange:?}, on white {on_white:?}",
                choice.name()
            );
            for c in 0..3 {
                // The orange square's pixel is the white one's light scaled by `factor`;
                // 2.5 levels: each pixel is rounded once (half a level), the fog's constant
                // (mixed in at 3 m, kept ~1) is not scaled, and the decode of a rounded
                // level is itself off by up to half a level.
                let expected = encode(factor * decode(on_white[c]));
                assert!(
                    (f32::from(on_orange[c]) - expected).abs() <= 2.5,
                    "{}: {colour:?} channel {c}: {on_orange:?}, expected {expected:.1} from {on_white:?} × {factor:.3}",
                    choice.name()
                );
            }
        }
        let mut violet = LIVE_COLOUR;
        violet[3] = 255;
        let multiplied = draw_tinted(&gpu, &orange_model, tint(violet));
        assert!(
            multiplied[0] > multiplied[2],
            "{}: violet multiplied into orange {multiplied:?}",
            choice.name()
        );
    }
}

/// The ground of `terrain` alone (no agents), drawn by a stage of `file`'s renderer into an
/// image of `size` seen through `view_proj`; made to reach under a plaza of half-size
/// `reach` metres when one is given ([`Stage::reach`]).
fn ground_picture(
    gpu: &Gpu,
    file: &std::sync::Arc<ThrongFile>,
    size: (u32, u32),
    view_proj: glam::Mat4,
    terrain: throng::crowd::Terrain,
    reach: Option<f32>,
) -> image::RgbaImage {
    let mut renderer = CrowdRenderer::new(gpu, file, PassFormat::offscreen(1)).unwrap();
    let mut stage = Stage::with_terrain(gpu, &renderer, terrain).unwrap();
    if let Some(half) = reach {
        stage.reach(gpu, half);
    }
    let target = Target::new(gpu, size.0, size.1, 1);
    let scene = SceneDraw {
        agents: &[],
        view_proj,
        lod: 0,
        impostor: false,
    };
    stage
        .draw_scene(gpu, &mut renderer, file, &target, &scene, SkinningPath::Gpu)
        .unwrap();
    target.read(gpu).unwrap()
}

/// The relief ground is drawn where the height field says: the terrace's top in stone at its
/// height, the plaza beside it in the plaza's grey; on the flat ground the same place is grey.
/// On both backends.
#[test]
fn the_relief_ground_draws_its_terrace_in_stone_at_its_height() {
    use throng::crowd::Terrain;
    let file = std::sync::Arc::new(ThrongFile::open(mannequin_bake()).unwrap());
    let size = (320, 200);
    let view_proj = glam::camera::rh::proj::directx::perspective(0.8, 1.6, 0.1, 200.0)
        * glam::camera::rh::view::look_at_mat4(
            glam::Vec3::new(2.0, 6.0, 14.0),
            glam::Vec3::new(4.0, 0.0, 0.0),
            glam::Vec3::Y,
        );
    let relief = Terrain::Relief;
    let on = |x: f32, z: f32| glam::Vec3::new(x, relief.height(x, z), z);
    let (top, plaza) = (on(8.0, 0.0), on(-4.0, 0.0));
    for choice in [BackendChoice::Vulkan, BackendChoice::Gl] {
        let Some(gpu) = device(choice) else { continue };
        let draw = |terrain| ground_picture(&gpu, &file, size, view_proj, terrain, None);
        let (relief_image, flat_image) = (draw(Terrain::Relief), draw(Terrain::Flat));
        // Warmth: red over blue, in levels (the plaza's greys are within a few levels).
        let warmth = |image: &image::RgbaImage, p: glam::Vec3| {
            let (x, y) = pixel(view_proj, p, size).unwrap();
            let c = image.get_pixel(x, y).0;
            i32::from(c[0]) - i32::from(c[2])
        };
        let (stone, grey, flat) = (
            warmth(&relief_image, top),
            warmth(&relief_image, plaza),
            warmth(&flat_image, top),
        );
        println!(
            "{}: warmth of the terrace {stone}, the plaza {grey}, flat ground there {flat}",
            choice.name()
        );
        // Sandstone (0.56, 0.45, 0.33 linear) lit and encoded: about 32 levels warmer; the
        // plaza's greys within a few levels.
        assert!(
            stone > 20,
            "{}: the terrace is not stone: {stone}",
            choice.name()
        );
        assert!(
            grey.abs() < 10 && flat.abs() < 10,
            "{}: {grey} {flat}",
            choice.name()
        );
        // At its height: the plaza just past the steps on the far side (z = −6.3 m) is hidden
        // behind the terrace's raised edge (0.6 m up at z = −5 m, seen from 6 m up and 19 m
        // away: the line of sight clears it only 2 m further), so stone shows there; on the
        // flat ground, the plaza.
        let behind = on(8.0, -6.3);
        let (hidden, open) = (warmth(&relief_image, behind), warmth(&flat_image, behind));
        println!(
            "{}: behind the terrace {hidden}, flat {open}",
            choice.name()
        );
        assert!(
            hidden > 20 && open.abs() < 10,
            "{}: {hidden} {open}",
            choice.name()
        );
    }
}

/// A plaza wider than the default ground (100,000 agents stand on one 775 m across) gets a
/// ground that reaches under the camera's nearest agents: seen as `throng bench` sees that
/// plaza, the ground in front of the camera is the sky's colour without `Stage::reach` (what
/// the bench drew before), and ground with it. On both backends.
#[test]
fn the_ground_reaches_under_a_wide_plaza() {
    use throng::crowd::Terrain;
    let file = std::sync::Arc::new(ThrongFile::open(mannequin_bake()).unwrap());
    let size = (320, 180);
    let half = 387.3; // the plaza of 100,000 agents at 6 m² each
    let view_proj =
        throng::internal::bench_camera(half, 0, size.0 as f32 / size.1 as f32).view_proj;
    // On the ground 80 m in front of the camera (0, 48.5, 348.6; the nearest ground in view is
    // about 60 m in front): past the old ground's edge at 200 m, low in the picture.
    let near = glam::Vec3::new(0.0, 0.0, 0.9 * half - 80.0);
    for choice in [BackendChoice::Vulkan, BackendChoice::Gl] {
        let Some(gpu) = device(choice) else { continue };
        let flat = Terrain::Flat;
        let (before, after) = (
            ground_picture(&gpu, &file, size, view_proj, flat, None),
            ground_picture(&gpu, &file, size, view_proj, flat, Some(half)),
        );
        let (x, y) = pixel(view_proj, near, size).unwrap();
        let sky = before.get_pixel(size.0 / 2, 0).0;
        let (old, new) = (before.get_pixel(x, y).0, after.get_pixel(x, y).0);
        // Levels apart, summed over the channels: the checker's greys (linear 0.40 to 0.48,
        // lit) are far from the pale blue sky; the same colour is within rounding.
        let apart = |a: [u8; 4], b: [u8; 4]| -> i32 {
            (0..3)
                .map(|i| (i32::from(a[i]) - i32::from(b[i])).abs())
                .sum()
        };
        println!(
            "{}: at ({x}, {y}) without reach {old:?}, with {new:?}, sky {sky:?}",
            choice.name()
        );
        assert!(
            apart(old, sky) <= 3,
            "{}: {old:?} is not the sky",
            choice.name()
        );
        assert!(
            apart(new, sky) > 30,
            "{}: {new:?} is the sky",
            choice.name()
        );
    }
}
