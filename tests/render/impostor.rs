//! The impostor tier against the meshes it stands in for: one agent drawn at full detail and
//! as an impostor, same animation frame, same camera, on Vulkan and GL, compared by ΔE over
//! the pixels either drawing covers.
//! - At the tier's start (the default bake, a row of agents at 150 m, ~5 px tall, drawn
//!   blended), between views and frames.
//! - Up close, from a sharp bake (48 px cells, the walk alone) at a grid view and an impostor
//!   frame: the pictures are mapped the right way round. A negative control (the impostor
//!   turned a quarter turn) must fail the same limit, so the test can fail.
//!
//! `THRONG_IMPOSTOR_PICTURES=DIR` saves each case's two pictures there to look at.

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use throng::bake::{BakeOptions, Recipe, bake};
use throng::crowd::scene::Placement;
use throng::format::ThrongFile;
use throng::internal::delta_e_where;
use throng::render::{
    BackendChoice, CrowdRenderer, Gpu, PassFormat, SceneDraw, Shadows, SkinningPath, Stage, Target,
};

use crate::common::gpu::{device, mannequin_bake};

/// Where the built-in `impostors` preset starts the impostor tier, metres (assets/lod.toml).
const TIER_START: f32 = 150.0;

/// The picture: the bench's size.
const SIZE: (u32, u32) = (960, 540);

/// The mannequin's walk, baked with impostors of 48 px cells (three times the default's) and
/// no coarser mesh level: pictures sharp enough to compare up close.
fn sharp_bake() -> &'static PathBuf {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| {
        let dir = crate::common::temp_dir("impostor-sharp");
        let model = crate::common::mannequin_path();
        let text = format!(
            "output = \"walk.throng\"\nfps = 30\nlods = [1.0]\n\
             [impostors]\ncell = 48\n\
             [[characters]]\nname = \"mannequin\"\nmodel = {:?}\nclips = [\"walk\"]\n",
            model.display().to_string()
        );
        let recipe_path = dir.join("walk.toml");
        std::fs::write(&recipe_path, &text).unwrap();
        let recipe = Recipe::load(&recipe_path).unwrap();
        bake(&recipe, &BakeOptions::default())
            .unwrap()
            .builder
            .write(&recipe.output)
            .unwrap();
        recipe.output
    })
}

/// One camera and pose to compare.
struct Case {
    name: &'static str,
    /// Distance from the agent, metres.
    distance: f32,
    /// Height of the eye above the ground, metres; `None`: the height of the pictures'
    /// centre (looking straight at a view on the horizon ring).
    eye_height: Option<f32>,
    /// Vertical field of view, degrees.
    fov: f32,
    /// The agent's heading, radians, and the share of its animation's length.
    heading: f32,
    phase: f32,
    /// Agents side by side (1: one, at the middle): a row 2.5 m apart, each turned 0.7 rad
    /// and 0.13 of the animation on from the one before, so that their pixels sample the
    /// figure at many offsets and the row's ink is the figure's average.
    row: u32,
    /// The largest mean ΔE allowed.
    limit: f64,
    /// The impostors' ink over the meshes' (ΔE from the empty picture, summed) within this
    /// range, where it means coverage: where every pixel a figure covers is darker than
    /// what is behind it.
    ink_within: Option<(f64, f64)>,
}

/// Mesh and impostor pictures of `case` (the impostor drawn with `turn` radians more
/// heading): ΔE mean over the pixels either covers, and the ink of each (ΔE from the
/// empty picture, summed).
fn compare(gpu: &Gpu, file: &Arc<ThrongFile>, case: &Case, turn: f32) -> (f64, f64, f64) {
    let mut renderer = CrowdRenderer::new(gpu, file, PassFormat::offscreen(1)).unwrap();
    assert_eq!(renderer.impostors_unavailable(), None, "{}", file.name());
    renderer.set_shadows(Shadows::Off);
    let mut stage = Stage::new(gpu, &renderer).unwrap();
    let target = Target::new(gpu, SIZE.0, SIZE.1, 1);
    let c = &file.characters()[0];
    let walk = file.find_anim(0, "walk").expect("a walk");
    let time = case.phase * file.anims()[walk].duration;
    let centre = file.impostor(0).expect("impostors").centre[1];
    let eye = glam::Vec3::new(0.0, case.eye_height.unwrap_or(centre), case.distance);
    let look_at = glam::Vec3::new(0.0, case.eye_height.map_or(centre, |_| 0.5 * c.height), 0.0);
    let view_proj = glam::camera::rh::proj::directx::perspective(
        case.fov.to_radians(),
        SIZE.0 as f32 / SIZE.1 as f32,
        0.1,
        case.distance * 2.0,
    ) * glam::camera::rh::view::look_at_mat4(eye, look_at, glam::Vec3::Y);
    let duration = file.anims()[walk].duration;
    let row = |turn: f32| -> Vec<Placement> {
        (0..case.row)
            .map(|k| {
                let time = (time + 0.13 * k as f32 * duration) % duration;
                Placement {
                    character: 0,
                    position: glam::Vec3::new(
                        2.5 * (k as f32 - 0.5 * (case.row - 1) as f32),
                        0.0,
                        0.0,
                    ),
                    heading: case.heading + 0.7 * k as f32 + turn,
                    scale: 1.0,
                    tint: [1.0; 4],
                    anim_a: walk as u32,
                    time_a: time,
                    anim_b: walk as u32,
                    time_b: time,
                    fade: 0.0,
                }
            })
            .collect()
    };
    let mut draw = |agents: &[Placement], impostor: bool| {
        let scene = SceneDraw {
            agents,
            view_proj,
            lod: 0,
            impostor,
        };
        stage
            .draw_scene(gpu, &mut renderer, file, &target, &scene, SkinningPath::Gpu)
            .unwrap();
        target.read(gpu).unwrap()
    };
    let empty = draw(&[], false);
    let mesh = draw(&row(0.0), false);
    let imp = draw(&row(turn), true);
    if let Ok(dir) = std::env::var("THRONG_IMPOSTOR_PICTURES") {
        let tag = format!("{}-{turn:.2}", case.name.replace(' ', "-"));
        mesh.save(format!("{dir}/{tag}-mesh.png")).unwrap();
        imp.save(format!("{dir}/{tag}-impostor.png")).unwrap();
    }
    let covers = |p: &image::RgbaImage, x, y| p.get_pixel(x, y) != empty.get_pixel(x, y);
    // A drawing's ink: ΔE from the empty picture summed over its pixels, so that a pixel
    // half covered (a blended far impostor's) counts about half.
    let ink = |p: &image::RgbaImage| {
        let (q, n) = delta_e_where(&empty, p, |x, y| covers(p, x, y));
        q.mean * f64::from(n)
    };
    let (q, _) = delta_e_where(&mesh, &imp, |x, y| {
        covers(&mesh, x, y) || covers(&imp, x, y)
    });
    (q.mean, ink(&mesh), ink(&imp))
}

/// Checks `case` on `file` with `gpu`; returns its ΔE.
fn check(gpu: &Gpu, backend: &str, file: &Arc<ThrongFile>, case: &Case) -> f64 {
    let (mean, mesh_ink, imp_ink) = compare(gpu, file, case, 0.0);
    println!(
        "{backend}: {}: ΔE mean {mean:.2} (limit {}), ink {mesh_ink:.0} mesh, {imp_ink:.0} impostor",
        case.name, case.limit
    );
    assert!(
        mesh_ink > 0.0 && imp_ink > 0.0,
        "{}: nothing drawn",
        case.name
    );
    assert!(
        mean <= case.limit,
        "{backend}: {}: ΔE {mean:.2} > {}",
        case.name,
        case.limit
    );
    if let Some((lo, hi)) = case.ink_within {
        let ratio = imp_ink / mesh_ink;
        assert!(
            (lo..=hi).contains(&ratio),
            "{backend}: {}: impostor ink {imp_ink:.0}, mesh {mesh_ink:.0}: {ratio:.2} not in {lo}..{hi}",
            case.name
        );
    }
    mean
}

/// An agent at the tier's start matches its mesh within the stated ΔE, from eye height and
/// from above; up close the pictures are the right way round, and the same agent turned a
/// quarter turn fails that limit.
#[test]
fn an_impostor_matches_the_mesh_it_stands_in_for() {
    let default = Arc::new(ThrongFile::open(mannequin_bake()).unwrap());
    let h = default.characters()[0].height;
    // Limits, mean ΔE over the pixels either drawing covers (measured on lavapipe and
    // llvmpipe: see the printout; each limit is about 1.5 times the larger):
    // - A row of 24 agents at 150 m, where the `impostors` preset starts the tier: each is
    //   ~5 px tall, a 16 px picture minified about 2.5 times, so the impostors are drawn
    //   blended, each pixel carrying the share of it the figure covers. The meshes are
    //   rasterised at pixel centres: crisp, with limbs that appear or vanish with the
    //   agent's offset. They differ pixel by pixel (ΔE 1.6 at eye height) though the row's
    //   ink agrees (1.25 times the meshes' at eye height, where every covered pixel is
    //   darker than the sky; from above, figure and ground are alike in tone, some pixels
    //   lighter and some darker, and ink does not measure coverage: not checked there).
    let far = [
        Case {
            name: "a row at 150 m at eye height, between views and frames",
            distance: TIER_START,
            eye_height: Some(0.6 * h),
            fov: 60.0,
            heading: 0.3,
            phase: 0.37,
            row: 24,
            limit: 2.5,
            ink_within: Some((0.75, 1.5)),
        },
        Case {
            name: "a row at 150 m from 30 degrees above",
            distance: TIER_START,
            eye_height: Some(TIER_START * 30f32.to_radians().tan()),
            fov: 60.0,
            heading: 1.1,
            phase: 0.61,
            row: 24,
            limit: 2.5,
            ink_within: None,
        },
    ];
    // - Up close (~130 px tall) on the sharp bake, at a grid view and an impostor frame: what
    //   remains is the outline resampled from 48 px (softer than the mesh's, ~1 px of ΔE
    //   10-20 around the figure) and the lighting of 8-bit normals.
    let sharp = Arc::new(ThrongFile::open(sharp_bake()).unwrap());
    let close = [0.0, std::f32::consts::FRAC_PI_4].map(|heading| Case {
        name: if heading == 0.0 {
            "close-up, front view"
        } else {
            "close-up, 45 degrees"
        },
        distance: 20.0,
        eye_height: None,
        fov: 10.0,
        heading,
        // Impostor frame 2 of the walk's 8.
        phase: 0.25,
        row: 1,
        limit: 3.0,
        // The outline is where they may differ: within a third.
        ink_within: Some((0.67, 1.5)),
    });
    for choice in [BackendChoice::Vulkan, BackendChoice::Gl] {
        let Some(gpu) = device(choice) else { continue };
        for case in &far {
            check(&gpu, choice.name(), &default, case);
        }
        for case in &close {
            check(&gpu, choice.name(), &sharp, case);
        }
        // The negative control: the close-up's impostor turned a quarter turn must fail its
        // limit (a view mapped the wrong way round would pass the 150 m cases unseen).
        let (turned, ..) = compare(&gpu, &sharp, &close[0], std::f32::consts::FRAC_PI_2);
        println!("{}: turned a quarter: ΔE mean {turned:.2}", choice.name());
        assert!(
            turned > close[0].limit,
            "{}: a turned impostor scores {turned:.2}, within the limit {}: the test \
             cannot tell a wrong view",
            choice.name(),
            close[0].limit
        );
    }
}

/// A crowd frame with agents in mesh levels and in the impostor tier draws both, on every
/// path: the impostors come after the meshes in the pass (a pipeline switch from the
/// skinned ones once lost every impostor draw), and the CPU path skins only the meshes.
#[test]
fn impostors_draw_after_meshes_in_one_crowd() {
    use throng::crowd::{Crowd, CrowdSettings, LodPolicy, Spawn, View};
    let file = Arc::new(ThrongFile::open(mannequin_bake()).unwrap());
    let policy = LodPolicy {
        distances: vec![20.0],
        rates: vec![1],
        impostor_distance: 60.0,
        ..LodPolicy::default()
    };
    let mut crowd = Crowd::new(file.clone(), &CrowdSettings::default(), policy).unwrap();
    // A row of near agents (LOD 0 and 1) and a row far away (impostors), side by side.
    let spawns: Vec<(Spawn, ())> = (0..8)
        .map(|i| {
            let z = if i < 4 {
                -10.0 - 4.0 * i as f32
            } else {
                -70.0 - 2.0 * i as f32
            };
            (
                Spawn::new(0, 1, glam::Vec3::new(3.0 * (i % 4) as f32 - 4.5, 0.0, z)),
                (),
            )
        })
        .collect();
    crowd.spawn_many(&spawns).unwrap();
    let eye = glam::Vec3::new(0.0, 1.6, 0.0);
    let view_proj = glam::camera::rh::proj::directx::perspective(
        30f32.to_radians(),
        SIZE.0 as f32 / SIZE.1 as f32,
        0.1,
        300.0,
    ) * glam::camera::rh::view::look_at_mat4(
        eye,
        glam::Vec3::new(0.0, 1.0, -60.0),
        glam::Vec3::Y,
    );
    let stats = crowd.update(0.0, &View { view_proj, eye });
    assert_eq!(stats.impostors, 4, "{stats:?}");
    for choice in [BackendChoice::Vulkan, BackendChoice::Gl] {
        let Some(gpu) = device(choice) else { continue };
        for path in [SkinningPath::Gpu, SkinningPath::Cpu] {
            let mut renderer = CrowdRenderer::new(&gpu, &file, PassFormat::offscreen(1)).unwrap();
            renderer.set_shadows(Shadows::Off);
            let stage = Stage::new(&gpu, &renderer).unwrap();
            let target = Target::new(&gpu, SIZE.0, SIZE.1, 1);
            let frame = throng::render::CrowdFrame::of(&crowd);
            let mut draw = |frame: &throng::render::CrowdFrame| {
                renderer.invalidate();
                stage
                    .render(
                        &gpu,
                        &mut renderer,
                        &file,
                        &target.views(),
                        frame,
                        view_proj,
                        path,
                    )
                    .unwrap();
                target.read(&gpu).unwrap()
            };
            let empty = draw(&throng::render::CrowdFrame {
                draws: &[],
                ..frame
            });
            let picture = draw(&frame);
            // Each far agent covers pixels around where its middle lands.
            for (i, (spawn, ())) in spawns.iter().enumerate().skip(4) {
                let middle = spawn.position + glam::Vec3::Y * 0.9;
                let (x, y) = crate::common::gpu::pixel(view_proj, middle, SIZE).unwrap();
                let covered = (x.saturating_sub(2)..=x + 2)
                    .flat_map(|x| (y.saturating_sub(4)..=y + 4).map(move |y| (x, y)))
                    .filter(|&(x, y)| picture.get_pixel(x, y) != empty.get_pixel(x, y))
                    .count();
                assert!(
                    covered > 0,
                    "{} {path:?}: far agent {i} (an impostor) not drawn at ({x}, {y})",
                    choice.name()
                );
            }
        }
    }
}
