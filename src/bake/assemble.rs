//! Assembly: the baked animations and the LOD meshes of each character written into the
//! file's [`Builder`] — its joints, animation records (texels, events, bounds, root motion),
//! LOD-major mesh parts with their vertices, indices and base-colour images, and its record —
//! with the report of what was written. The order of every push is the file's layout: a
//! change here changes the bytes of every bake.

use glam::{Mat4, Vec4};
use rayon::prelude::*;

use super::error::BakeError;
use super::load::Loaded;
use super::plan::{Job, JobSource};
use super::precision::stored_error;
use super::recipe::{PrecisionChoice, Rate, Recipe, Source};
use super::report::{AnimReport, CharacterReport};
use super::root_motion::declared_speed;
use super::sample::Sampled;
use super::skeleton_lod::{self, Influenced};
use super::texels::from_rows;
use crate::anim::Skeleton;
use crate::format::records::{
    AnimRecord, CharacterRecord, EventRecord, JointRecord, MeshRecord, MotionRecord, NONE,
    VertexRecord, anim_flags, anim_kind, mesh_flags,
};
use crate::format::{AnimFacts, AnimSource, Builder, TexelFormat};
use crate::mesh::{LodLevel, LodOptions, SkinnedMesh};

/// [`crate::format::TEXELS_PER_MATRIX`] as an index.
const ROWS: usize = crate::format::TEXELS_PER_MATRIX as usize;

// Every skeleton the animation core accepts fits a file: the baker writes joint counts as
// they are, and the reader refuses more than `format::MAX_JOINTS`.
const _: () = assert!(crate::anim::MAX_SKELETON_JOINTS as u64 <= crate::format::MAX_JOINTS as u64);

/// A baked animation before it goes into the file.
pub(super) struct Done {
    pub sampled: Sampled,
    /// Root motion per frame and over the cycle, if the animation has it.
    pub motion: Option<(Vec<MotionRecord>, [f32; 3])>,
    /// Event markers, (name, seconds), sorted by time.
    pub events: Vec<(String, f32)>,
    /// Ground speed and foot slide measured from the feet.
    pub measured: super::gait::Measured,
    /// For a clip: the glTF animations it was made from (empty when unknown or procedural).
    pub gltf_animations: Vec<u32>,
}

/// The file being assembled, character by character.
pub(super) struct Assembly<'a> {
    /// The file's contents so far.
    pub builder: Builder,
    recipe: &'a Recipe,
    format: TexelFormat,
    /// LOD levels per mesh part, by the source they were made from: characters made from the
    /// same file (variants in scale and tint) share their LODs.
    lod_cache: Vec<(&'a Source, Vec<Vec<LodLevel>>)>,
}

impl<'a> Assembly<'a> {
    /// An empty file of `recipe`'s bake with texels in `format`.
    pub fn new(recipe: &'a Recipe, format: TexelFormat) -> Self {
        Self {
            builder: Builder::new(format),
            recipe,
            format,
            lod_cache: Vec::new(),
        }
    }

    /// Makes the LOD levels of every character of `loaded` (once per source; `made_one` is
    /// called after each character), then reserves the builder's tables for everything
    /// [`Assembly::character`] will write of them and of `done`, so that each table is
    /// allocated once at its size: a file of many characters holds megabytes of bounds and
    /// vertices, and growing a table by doubling touches fresh memory again and again.
    ///
    /// # Errors
    /// [`BakeError::Lod`] when a mesh part cannot be simplified (the first character's).
    pub fn prepare(
        &mut self,
        loaded: &[Loaded],
        done: &[Done],
        mut made_one: impl FnMut(),
    ) -> Result<(), BakeError> {
        let (mut vertices, mut indices, mut meshes) = (0, 0, 0);
        for (ci, l) in loaded.iter().enumerate() {
            let at = self.lod_levels(ci, l)?;
            for level in self.lod_cache[at].1.iter().flatten() {
                vertices += level.mesh.vertex_count();
                indices += level.mesh.indices.len();
                meshes += 1;
            }
            made_one();
        }
        let b = &mut self.builder;
        b.vertices.reserve_exact(vertices);
        b.indices.reserve_exact(indices);
        b.meshes.reserve_exact(meshes);
        b.anims.reserve_exact(done.len());
        b.bounds
            .reserve_exact(done.iter().map(|d| d.sampled.bounds.len()).sum());
        b.events
            .reserve_exact(done.iter().map(|d| d.events.len()).sum());
        b.motion.reserve_exact(
            done.iter()
                .map(|d| d.motion.as_ref().map_or(0, |(m, _)| m.len()))
                .sum(),
        );
        Ok(())
    }

    /// Writes character `ci` (loaded as `l`): its joints, its animations (those of `jobs`
    /// that are its, whose texels are moved out of `done`), its meshes, then its record.
    ///
    /// # Errors
    /// [`BakeError::Lod`] when a mesh part cannot be simplified.
    pub fn character(
        &mut self,
        ci: usize,
        l: &Loaded,
        jobs: &[Job],
        done: &mut [Done],
    ) -> Result<CharacterReport, BakeError> {
        let model = &l.model;
        let skeleton = &model.skeleton;
        let name = self.builder.string(&l.name);
        let first_joint = joints(&mut self.builder, skeleton, &model.joint_nodes);
        // Before the animations take their texels: skeleton LOD is chosen on them.
        let lod_joints = self.skeleton_lods(ci, l, jobs, done)?;
        let first_anim = self.builder.anims.len() as u32;
        let anims: Vec<AnimReport> = jobs
            .iter()
            .zip(done.iter_mut())
            .filter(|(j, _)| j.character == ci)
            .map(|(j, d)| self.anim(ci, l, j, d))
            .collect();
        let first_mesh = self.builder.meshes.len() as u32;
        let (lod_triangles, lod_errors) = self.meshes(ci, l, &lod_joints)?;
        let b = &mut self.builder;
        b.lod_joints.resize(ci, Vec::new());
        b.lod_joints.push(lod_joints.concat());
        b.characters.push(CharacterRecord {
            name,
            first_joint,
            joint_count: skeleton.len() as u32,
            first_anim,
            anim_count: b.anims.len() as u32 - first_anim,
            first_mesh,
            part_count: model.meshes.len() as u32,
            lod_count: lod_triangles.len() as u32,
            height: l.height,
            reserved: [0; 2],
        });
        let mut warnings: Vec<String> = l
            .notes(ci, self.recipe)
            .into_iter()
            .chain(model.warnings.iter().chain(&model.notes).cloned())
            .collect();
        warnings.extend(lod_shortfalls(&self.recipe.lods, &lod_triangles));
        warnings.extend(levels_dropped(&self.recipe.lods, &lod_triangles));
        Ok(CharacterReport {
            name: l.name.clone(),
            joints: skeleton.len(),
            height: l.height,
            lod_triangles,
            lod_errors,
            lod_joints: lod_joints.iter().map(|m| skeleton_lod::kept(m)).collect(),
            anims,
            feet: super::gait::feet(l)
                .joints
                .iter()
                .filter_map(|&j| skeleton.names().get(j).cloned())
                .collect(),
            warnings,
            quarter_turns: 0,
            impostors: None,
        })
    }

    /// Writes animation `j` of character `ci` (loaded as `l`; baked as `d`, whose texels are
    /// moved out) with its events, bounds, root motion, speeds and source.
    fn anim(&mut self, ci: usize, l: &Loaded, j: &Job, d: &mut Done) -> AnimReport {
        let b = &mut self.builder;
        let first_texel = b.push_texel_vec(std::mem::take(&mut d.sampled.texels));
        let ai = b.anims.len() as u32;
        let first_event = b.events.len() as u32;
        for (en, t) in &d.events {
            let en = b.string(en);
            b.events.push(EventRecord {
                anim: ai,
                name: en,
                time: *t,
            });
        }
        let first_bounds = b.bounds.len() as u32;
        b.bounds.extend_from_slice(&d.sampled.bounds);
        let first_motion = b.motion.len() as u32;
        let mut cycle_motion = [0.0; 3];
        if let Some((m, c)) = &d.motion {
            b.motion.extend_from_slice(m);
            cycle_motion = *c;
        }
        let anim_name = b.string(&j.name);
        let (param, param_value) = match &j.param {
            Some((p, v)) => (b.string(p), *v),
            None => (b.string(""), 0.0),
        };
        let s = d.sampled.schedule;
        let declared_speed = declared_speed(l, j, d.motion.as_ref().map(|m| m.1), s.duration);
        let intervals = if s.looping { s.count } else { s.count - 1 };
        // In f64, so that 30 frames over 1 s store 30 rather than 1 / (1 / 30).
        let fps = if s.duration > 0.0 && intervals > 0 {
            (f64::from(intervals) / f64::from(s.duration)) as f32
        } else {
            0.0
        };
        b.anims.push(AnimRecord {
            name: anim_name,
            character: ci as u32,
            kind: match j.source {
                JobSource::Clip(_) => anim_kind::CLIP,
                JobSource::State { .. } => anim_kind::STATE,
            },
            flags: if s.looping { anim_flags::LOOPING } else { 0 }
                | if d.motion.is_some() {
                    anim_flags::ROOT_MOTION
                } else {
                    0
                },
            frame_count: s.count,
            first_texel,
            duration: s.duration,
            fps,
            param,
            param_value,
            first_event,
            event_count: d.events.len() as u32,
            first_motion: if d.motion.is_some() { first_motion } else { 0 },
            cycle_motion,
            first_bounds,
            interpolation_error: d.sampled.interpolation_error,
            precision_error: stored_error(self.format, d.sampled.f16_error),
            reserved: [0; 2],
        });
        let source = match &j.source {
            JobSource::Clip(_) => AnimSource::Clip(d.gltf_animations.clone()),
            JobSource::State { state, params } => AnimSource::State {
                state: *state as u32,
                params: l.character.as_ref().map_or_else(Vec::new, |c| {
                    c.machine
                        .params()
                        .iter()
                        .zip(params)
                        .map(|(p, v)| (p.name.clone(), *v))
                        .collect()
                }),
            },
        };
        // Only a looping animation has a ground speed: agents walk with it cycle after cycle;
        // a one-shot's travel is its root motion.
        let ground_speed = declared_speed.or(d.measured.speed).filter(|_| s.looping);
        b.push_anim_facts(&AnimFacts {
            ground_speed,
            foot_slide: d.measured.foot_slide,
            feet_locked: j.lock.is_some(),
            source,
        });
        AnimReport {
            name: j.name.clone(),
            kind: match j.source {
                JobSource::Clip(_) => "clip",
                JobSource::State { .. } => "state",
            },
            param: j.param.clone(),
            duration: s.duration,
            frames: s.count,
            fps,
            auto_rate: j.rate == Rate::Auto,
            looping: s.looping,
            interpolation_error: d.sampled.interpolation_error,
            f16_error: (self.recipe.precision != PrecisionChoice::F32)
                .then_some(d.sampled.f16_error),
            events: d.events.len(),
            root_motion: d.motion.is_some(),
            declared_speed,
            note: j.note.clone(),
            measured_speed: d.measured.speed,
            foot_slide: d.measured.foot_slide,
            no_ground_speed: d
                .measured
                .why_not
                .filter(|_| s.looping && ground_speed.is_none())
                .map(|e| e.to_string()),
            loop_seam: j.seam,
            loop_seam_frames: j.seam_frames,
            root_drift: j.drift.as_ref().map(|d| d.travel.length()),
            foot_lock: j.lock.as_ref().map(|l| l.largest),
        }
    }

    /// Where in the LOD cache the levels of every mesh part of character `ci` are: made once
    /// per source file (the characters of one file share them, not copies).
    fn lod_levels(&mut self, ci: usize, l: &Loaded) -> Result<usize, BakeError> {
        let model = &l.model;
        let recipe = self.recipe;
        let source = &recipe.characters[ci].source;
        if let Some(i) = self.lod_cache.iter().position(|(s, _)| *s == source) {
            return Ok(i);
        }
        let lod_options = LodOptions {
            max_error: self.recipe.lod_max_error,
            // Parts that meet at open edges must not crack apart when simplified separately.
            lock_border: model.meshes.len() > 1,
        };
        let mut levels: Vec<Vec<LodLevel>> = Vec::new();
        for part in &model.meshes {
            levels.push(
                crate::mesh::generate(&part.mesh, &self.recipe.lods, &lod_options).map_err(
                    |error| BakeError::Lod {
                        character: l.name.clone(),
                        mesh: part.mesh.name.clone(),
                        error,
                    },
                )?,
            );
        }
        let count = levels.first().map_or(0, Vec::len);
        let triangles: Vec<usize> = (0..count)
            .map(|l| levels.iter().map(|p| p[l].mesh.triangle_count()).sum())
            .collect();
        let kept = levels_that_save(&triangles);
        for parts in &mut levels {
            parts.truncate(kept);
        }
        self.lod_cache.push((source, levels));
        Ok(self.lod_cache.len() - 1)
    }

    /// Writes the meshes of character `ci`, LOD-major, with their vertices, indices and
    /// images; returns the triangles and largest simplification error (metres) per LOD level.
    fn meshes(
        &mut self,
        ci: usize,
        l: &Loaded,
        lod_joints: &[Vec<u32>],
    ) -> Result<(Vec<usize>, Vec<f32>), BakeError> {
        let model = &l.model;
        let at = self.lod_levels(ci, l)?;
        let levels = &self.lod_cache[at].1;
        let b = &mut self.builder;
        let mut images: Vec<Option<u32>> = vec![None; model.materials.len()];
        let (mut lod_triangles, mut lod_errors) = (Vec::new(), Vec::new());
        for lod in 0..levels.first().map_or(0, Vec::len) {
            let (mut tris, mut err) = (0, 0.0f32);
            for (part, parts) in levels.iter().enumerate() {
                let level = &parts[lod];
                let error = level_error(l, part, level);
                tris += level.mesh.triangle_count();
                err = err.max(error);
                let material = model.materials.get(level.mesh.material);
                let image = match material.and_then(|m| m.base_color_texture.as_ref()) {
                    Some(t) => *images[level.mesh.material]
                        .get_or_insert_with(|| b.push_image(t.width, t.height, &t.rgba)),
                    None => NONE,
                };
                let mesh_name = b.string(&model.meshes[part].mesh.name);
                let first_vertex = b.vertices.len() as u32;
                push_vertices(&mut b.vertices, &level.mesh);
                // LOD 0 keeps its influences as the source has them, byte for byte.
                if let Some(map) = lod_joints.get(lod).filter(|_| lod > 0) {
                    for v in &mut b.vertices[first_vertex as usize..] {
                        (v.joints, v.weights) = skeleton_lod::remap(map, v.joints, v.weights);
                    }
                }
                let first_index = b.indices.len() as u32;
                b.indices.extend_from_slice(&level.mesh.indices);
                b.meshes.push(MeshRecord {
                    name: mesh_name,
                    character: ci as u32,
                    part: part as u32,
                    lod: lod as u32,
                    flags: if level.mesh.rigid {
                        mesh_flags::RIGID
                    } else {
                        0
                    },
                    ratio: level.ratio,
                    error,
                    first_vertex,
                    vertex_count: level.mesh.vertex_count() as u32,
                    first_index,
                    index_count: level.mesh.indices.len() as u32,
                    base_color: material
                        .map_or(Vec4::ONE, |m| m.base_color_factor)
                        .to_array(),
                    image,
                    reserved: [0; 3],
                });
            }
            lod_triangles.push(tris);
            lod_errors.push(err);
        }
        Ok((lod_triangles, lod_errors))
    }
}

impl Assembly<'_> {
    /// The joint each joint of character `ci` (loaded as `l`) is drawn with at each of its
    /// LOD levels (docs/BAKING.md, "Skeleton LOD"): every joint kept at LOD 0, and at every
    /// level when its recipe says `skeleton_lod = false`; else chosen on the skinning
    /// matrices of every frame of its animations (those of `jobs` in `done`) within each
    /// level's simplification error. Empty for a character without meshes.
    fn skeleton_lods(
        &mut self,
        ci: usize,
        l: &Loaded,
        jobs: &[Job],
        done: &[Done],
    ) -> Result<Vec<Vec<u32>>, BakeError> {
        let skeleton = &l.model.skeleton;
        if l.model.meshes.is_empty() {
            return Ok(Vec::new());
        }
        let at = self.lod_levels(ci, l)?;
        let levels = &self.lod_cache[at].1;
        let n = skeleton.len();
        let all: Vec<u32> = (0..n as u32).collect();
        // The levels stored: the chain may stop before the recipe's last ratio.
        let lods = levels.first().map_or(0, Vec::len);
        if !self.recipe.characters[ci].skeleton_lod || lods < 2 {
            return Ok(vec![all; lods]);
        }
        let parents: Vec<Option<usize>> = (0..n).map(|j| skeleton.parent(j)).collect();
        // The texels' matrices: world × inverse bind, scaled into metres, as drawn.
        let frames: Vec<Mat4> = jobs
            .iter()
            .zip(done)
            .filter(|(j, _)| j.character == ci)
            .flat_map(|(_, d)| d.sampled.texels.chunks_exact(ROWS))
            .map(|r| from_rows(&[r[0], r[1], r[2]]))
            .collect();
        let mut maps: Vec<Vec<u32>> = (1..lods)
            .into_par_iter()
            .map(|lod| {
                let vertices: Vec<Influenced> = levels
                    .iter()
                    .flat_map(|parts| parts.get(lod))
                    .flat_map(|level| {
                        let m = &level.mesh;
                        (0..m.vertex_count()).map(|i| Influenced {
                            position: m.positions[i],
                            joints: m.joints[i],
                            weights: m.weights[i],
                        })
                    })
                    .collect();
                // The level's error as the file records it: the largest of its parts'.
                let budget = levels
                    .iter()
                    .enumerate()
                    .filter_map(|(part, parts)| Some(level_error(l, part, parts.get(lod)?)))
                    .fold(0.0f32, f32::max);
                skeleton_lod::choose(&parents, &vertices, &frames, budget)
            })
            .collect();
        maps.insert(0, all);
        Ok(maps)
    }
}

/// The simplification error of `level` of part `part` of `l`, metres: measured on the part's
/// vertices in its own units, carried into metres by its skinning matrices and the
/// character's scale.
fn level_error(l: &Loaded, part: usize, level: &LodLevel) -> f32 {
    let scale = l.part_scales.get(part).copied();
    level.error * scale.unwrap_or_else(|| l.factors.max_element())
}

/// Writes the joints of `skeleton`, each with its glTF node from `nodes` (none where `nodes`
/// has no entry or one past `u32`), and returns the index of the first.
fn joints(b: &mut Builder, skeleton: &Skeleton, nodes: &[usize]) -> u32 {
    let first_joint = b.joints.len() as u32;
    // Joints written before without nodes (none today) keep their places.
    b.joint_nodes.resize(b.joints.len(), NONE);
    for j in 0..skeleton.len() {
        let node = nodes.get(j).and_then(|n| u32::try_from(*n).ok());
        b.joint_nodes
            .push(node.filter(|n| *n != NONE).unwrap_or(NONE));
        let jn = b.string(&skeleton.names()[j]);
        b.joints.push(JointRecord {
            name: jn,
            parent: skeleton.parent(j).map_or(-1, |p| p as i32),
            reserved: 0,
            inverse_bind: skeleton.inverse_bind()[j].to_cols_array(),
        });
    }
    first_joint
}

/// A note for each LOD level that kept far more triangles than asked (half as many again):
/// the user should know that the level saves little.
fn lod_shortfalls(ratios: &[f32], triangles: &[usize]) -> Vec<String> {
    let full = triangles.first().copied().unwrap_or(0) as f32;
    ratios
        .iter()
        .zip(triangles)
        .enumerate()
        .skip(1)
        .filter(|(_, (r, t))| full > 0.0 && **t as f32 > **r * full * 1.5 + 3.0)
        .map(|(l, (r, t))| {
            format!(
                "LOD {l} asked for {r} of the triangles and kept {:.2}: every simplification method reached the level's error budget (lod_max_error / √{r}) first, or was held by the borders locked where the character's parts meet",
                *t as f32 / full
            )
        })
        .collect()
}

/// A level must have at most this share of the previous level's triangles to be stored: one
/// that removes fewer draws almost as much as the level before it, farther away, and costs
/// its vertices in the file.
const LEVEL_SAVING: f32 = 0.9;

/// How many of the levels whose triangles (all parts together) are `triangles` to store:
/// LOD 0, then each level while it has at most [`LEVEL_SAVING`] of the triangles of the one
/// before it. The chain stops at the first that saves too little: the ones after it were
/// made with a larger error budget and could be smaller, but a level's place in the chain is
/// the distance it is drawn at, and a gap would move them nearer.
fn levels_that_save(triangles: &[usize]) -> usize {
    (1..triangles.len())
        .find(|&l| triangles[l] as f32 > LEVEL_SAVING * triangles[l - 1] as f32)
        .unwrap_or(triangles.len())
}

/// A note when the chain stopped before the recipe's last ratio (see [`levels_that_save`]).
fn levels_dropped(ratios: &[f32], triangles: &[usize]) -> Option<String> {
    let stored = triangles.len();
    let last = ratios.len().checked_sub(1)?;
    (stored > 0 && stored <= last).then(|| {
        let which = if stored == last {
            format!("LOD {last}")
        } else {
            format!("LOD {stored} to {last}")
        };
        format!(
            "{which} not stored: LOD {stored} (ratio {}) removed under {:.0}% of LOD {}'s {} triangles (the simplifier reached its error budget), so the chain stops at LOD {}",
            ratios[stored],
            (1.0 - LEVEL_SAVING) * 100.0,
            stored - 1,
            triangles[stored - 1],
            stored - 1
        )
    })
}

/// Appends the vertices of `mesh` to `out` (in one reservation: a crowd file holds many
/// copies of a mesh).
fn push_vertices(out: &mut Vec<VertexRecord>, mesh: &SkinnedMesh) {
    out.extend((0..mesh.vertex_count()).map(|i| VertexRecord {
        position: mesh.positions[i].to_array(),
        normal: mesh.normals[i].to_array(),
        uv: mesh.uvs.get(i).map_or([0.0; 2], |u| u.to_array()),
        joints: mesh.joints[i],
        weights: mesh.weights[i],
    }));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_chain_stops_at_the_first_level_that_saves_under_a_tenth() {
        // The mannequin's chain: every level saves.
        assert_eq!(levels_that_save(&[5320, 2660, 1064, 424, 158]), 5);
        // A level that keeps more than 90% of the one before it ends the chain, whatever
        // the levels after it would have saved.
        assert_eq!(levels_that_save(&[3237, 1608, 1450, 454]), 2);
        // Exactly 90% still saves enough.
        assert_eq!(levels_that_save(&[1000, 900, 820]), 2);
        assert_eq!(levels_that_save(&[1000, 900, 810]), 3);
        assert_eq!(levels_that_save(&[576]), 1);
        assert_eq!(levels_that_save(&[]), 0);
    }

    #[test]
    fn levels_not_stored_get_one_note() {
        let ratios = [1.0, 0.5, 0.2, 0.08, 0.03];
        assert_eq!(levels_dropped(&ratios, &[5320, 2660, 1064, 424, 158]), None);
        assert_eq!(
            levels_dropped(&ratios, &[3237, 1608]).unwrap(),
            "LOD 2 to 4 not stored: LOD 2 (ratio 0.2) removed under 10% of LOD 1's 1608 triangles (the simplifier reached its error budget), so the chain stops at LOD 1"
        );
        assert!(
            levels_dropped(&ratios, &[5320, 2660, 1064, 424])
                .unwrap()
                .starts_with("LOD 4 not stored: LOD 4 (ratio 0.03)")
        );
        // A model without meshes has no levels to drop.
        assert_eq!(levels_dropped(&ratios, &[]), None);
    }
}
