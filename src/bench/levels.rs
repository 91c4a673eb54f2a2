//! Where each LOD level may start: every mesh level a preset reaches, of each character, drawn
//! alone at the distance the preset starts it (for that character's size), against LOD 0
//! drawn there, compared by ΔE over the pixels either drawing covers. A level that differs
//! little from full detail where it begins could begin sooner; one that differs much begins
//! too soon. The crowd-wide ΔE of each preset (the table's "ΔE vs LOD off") mixes every
//! level, distance and overlap; this isolates one level at its own boundary. Beside it, the
//! frame time the level saves: [`TIMED_AGENTS`] agents drawn there at the level and at LOD 0.

use std::sync::Arc;

use super::error::BenchError;
use super::quality::delta_e_where;
use super::results::LevelQuality;
use crate::crowd::scene::Placement;
use crate::crowd::{LodPolicy, size_factor};
use crate::format::ThrongFile;
use crate::render::{CrowdRenderer, Gpu, SceneDraw, Shadows, SkinningPath, Stage, Target};

/// Vertical field of view of the level pictures, radians: the bench camera's.
const FOV_Y: f32 = std::f32::consts::FRAC_PI_3;

/// Where the animation shown is, as a share of its length: a pose part-way through, not the
/// first key.
const PHASE: f32 = 0.37;

/// Agents drawn at once to time a level against LOD 0 (in a square block centred where the
/// compared agent stands, [`TIMED_SPACING`] apart): enough that the draw, not the submission
/// and readback, decides the time.
pub const TIMED_AGENTS: usize = 1000;

/// The `lod` [`measure`]'s drawings take for the impostor tier.
const IMPOSTOR: u32 = u32::MAX;

/// Spacing of the timed block, metres for a character of the reference height (scaled by
/// the character's size factor): close, so that the block (16 m deep for 1,000 mannequins)
/// stays near the level's distance even where it starts at 20 m; the agents overlap on the
/// screen, as a dense crowd's do.
const TIMED_SPACING: f32 = 0.5;

/// What [`measure`] draws with: the bench's device for one backend.
pub struct Tools<'a> {
    /// The device.
    pub gpu: &'a Gpu,
    /// A renderer of `file`.
    pub renderer: &'a mut CrowdRenderer,
    /// Its stage (ground and sky).
    pub stage: &'a mut Stage,
    /// The picture's target.
    pub target: &'a Target,
    /// Its size, pixels.
    pub size: (u32, u32),
}

/// Every mesh level (1 and up) of every character of `file` that a preset of `presets` (by
/// name; `off` and presets without distances reach none) reaches, and its impostor tier where
/// the preset has one and the bake the character's impostors, drawn at its starting
/// distance against LOD 0 there ([`LevelQuality`]), in preset, character and level order.
/// The agent stands alone on the ground, facing the camera at eye height, playing its first
/// animation at [`PHASE`] of its length; shadows off.
///
/// # Errors
/// A rendering failure.
pub fn measure(
    tools: Tools<'_>,
    file: &Arc<ThrongFile>,
    presets: &[(String, LodPolicy)],
) -> Result<Vec<LevelQuality>, BenchError> {
    let Tools {
        gpu,
        renderer,
        stage,
        target,
        size,
    } = tools;
    renderer.set_shadows(Shadows::Off);
    // `lod` past the character's mesh levels: the impostor tier.
    let mut draw = |agents: &[Placement], view_proj, lod| -> Result<image::RgbaImage, BenchError> {
        let impostor = lod == IMPOSTOR;
        let scene = SceneDraw {
            agents,
            view_proj,
            lod: if impostor { 0 } else { lod },
            impostor,
        };
        stage.draw_scene(gpu, renderer, file, target, &scene, SkinningPath::Gpu)?;
        Ok(target.read(gpu)?)
    };
    let aspect = size.0 as f32 / size.1.max(1) as f32;
    let mut out = Vec::new();
    for (name, policy) in presets {
        for (ci, c) in file.characters().iter().enumerate() {
            let Some(anim) = (c.anim_count > 0).then_some(c.first_anim) else {
                continue;
            };
            let triangles = |lod: u32| match lod {
                IMPOSTOR => 2,
                lod => level_triangles(file, ci, lod),
            };
            let levels = c.lod_count.min(policy.distances.len() as u32 + 1);
            // Each mesh level where it starts, then the impostor tier where it starts.
            let mut tiers: Vec<(u32, f32)> = (1..levels)
                .map(|level| (level, policy.distances[level as usize - 1]))
                .collect();
            if policy.impostor_distance > 0.0 && file.impostor(ci).is_some() {
                tiers.push((IMPOSTOR, policy.impostor_distance));
            }
            for (level, start) in tiers {
                let distance = start * size_factor(c.height);
                let height = c.height;
                let eye = glam::Vec3::new(0.0, 0.6 * height, distance);
                let view_proj = glam::camera::rh::proj::directx::perspective(
                    FOV_Y,
                    aspect,
                    0.1,
                    distance * 2.0 + 10.0,
                ) * glam::camera::rh::view::look_at_mat4(
                    eye,
                    glam::Vec3::new(0.0, 0.5 * height, 0.0),
                    glam::Vec3::Y,
                );
                let time = PHASE * file.anims()[anim as usize].duration;
                let agent = Placement {
                    character: ci as u32,
                    position: glam::Vec3::ZERO,
                    heading: 0.0,
                    scale: 1.0,
                    tint: [1.0; 4],
                    anim_a: anim,
                    time_a: time,
                    anim_b: anim,
                    time_b: time,
                    fade: 0.0,
                };
                let empty = draw(&[], view_proj, 0)?;
                let full = draw(std::slice::from_ref(&agent), view_proj, 0)?;
                let coarse = draw(std::slice::from_ref(&agent), view_proj, level)?;
                let covered = |x: u32, y: u32| {
                    let e = empty.get_pixel(x, y);
                    full.get_pixel(x, y) != e || coarse.get_pixel(x, y) != e
                };
                let (quality, pixels) = delta_e_where(&full, &coarse, covered);
                let block = block(&agent, size_factor(c.height));
                let mut best_ms = |lod: u32| -> Result<f64, BenchError> {
                    let mut best = f64::INFINITY;
                    for _ in 0..2 {
                        let start = std::time::Instant::now();
                        draw(&block, view_proj, lod)?;
                        best = best.min(start.elapsed().as_secs_f64() * 1e3);
                    }
                    Ok(best)
                };
                let full_ms = best_ms(0)?;
                let level_ms = best_ms(level)?;
                out.push(LevelQuality {
                    lod: name.clone(),
                    character: file.str(c.name).to_string(),
                    impostor: level == IMPOSTOR,
                    level: level.min(c.lod_count),
                    distance,
                    triangles: triangles(level),
                    full_triangles: triangles(0),
                    pixels,
                    quality,
                    level_ms,
                    full_ms,
                });
            }
        }
    }
    Ok(out)
}

/// [`TIMED_AGENTS`] copies of `agent` in a square block on the ground centred on its place,
/// spaced by [`TIMED_SPACING`] times `size`.
fn block(agent: &Placement, size: f32) -> Vec<Placement> {
    let side = (TIMED_AGENTS as f32).sqrt().ceil() as usize;
    let step = TIMED_SPACING * size;
    let half = (side - 1) as f32 * step / 2.0;
    (0..TIMED_AGENTS)
        .map(|i| Placement {
            position: glam::Vec3::new(
                agent.position.x + (i % side) as f32 * step - half,
                agent.position.y,
                agent.position.z + (i / side) as f32 * step - half,
            ),
            ..*agent
        })
        .collect()
}

/// Triangles of LOD `lod` of character `ci`, all parts.
fn level_triangles(file: &ThrongFile, ci: usize, lod: u32) -> u32 {
    let c = &file.characters()[ci];
    let meshes = &file.meshes()[c.first_mesh as usize..][..(c.part_count * c.lod_count) as usize];
    meshes
        .iter()
        .filter(|m| m.lod == lod)
        .map(|m| m.index_count / 3)
        .sum()
}

/// The levels' table, as the bench prints it after its cases: one line per level.
pub fn table(levels: &[LevelQuality]) -> String {
    use std::fmt::Write as _;
    if levels.is_empty() {
        return String::new();
    }
    let mut s = format!(
        "\nLOD levels where each preset starts them (one agent facing the camera, against LOD 0 there; ΔE over the pixels either covers; ms: {TIMED_AGENTS} agents drawn there at the level vs at LOD 0, best of two, readback included):\n",
    );
    let _ = writeln!(
        s,
        "  {:<12} {:<16} {:>5} {:>10} {:>16} {:>7} {:>8} {:>8} {:>22}",
        "lod",
        "character",
        "level",
        "distance",
        "triangles",
        "pixels",
        "ΔE mean",
        "ΔE p99",
        format!("ms, {TIMED_AGENTS} agents"),
    );
    for l in levels {
        let _ = writeln!(
            s,
            "  {:<12} {:<16} {:>5} {:>8.1} m {:>7} of {:<6} {:>7} {:>8.2} {:>8.2} {:>9.0} vs {:<9.0}",
            l.lod,
            l.character,
            if l.impostor {
                "imp".to_string()
            } else {
                l.level.to_string()
            },
            l.distance,
            l.triangles,
            l.full_triangles,
            l.pixels,
            l.quality.mean,
            l.quality.p99,
            l.level_ms,
            l.full_ms
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::results::Quality;

    #[test]
    fn the_table_has_a_line_per_level_and_nothing_without_levels() {
        assert_eq!(table(&[]), "");
        let level = LevelQuality {
            lod: "balanced".into(),
            character: "mannequin".into(),
            level: 2,
            impostor: false,
            distance: 45.0,
            triangles: 1064,
            full_triangles: 5320,
            pixels: 83,
            quality: Quality {
                mean: 0.79,
                p99: 4.42,
                changed: 0.0,
            },
            level_ms: 212.0,
            full_ms: 1040.0,
        };
        let t = table(std::slice::from_ref(&level));
        let line = t.lines().last().unwrap();
        for part in [
            "balanced",
            "mannequin",
            "45.0 m",
            "1064 of 5320",
            "83",
            "0.79",
            "4.42",
            "212 vs 1040",
        ] {
            assert!(line.contains(part), "{part:?} in {line:?}");
        }
        let imp = table(&[LevelQuality {
            impostor: true,
            level: 5,
            triangles: 2,
            ..level
        }]);
        assert!(imp.lines().last().unwrap().contains(" imp "), "{imp}");
    }
}
