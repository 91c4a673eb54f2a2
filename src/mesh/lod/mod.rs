//! LOD meshes: simplified copies of a [`SkinnedMesh`] made with the meshoptimizer simplifier.
//!
//! Each level keeps a subset of the source vertices, untouched and in their source order, so a
//! kept vertex skins exactly as it does at full detail; only the triangle list is rebuilt.
//! Methods are tried from the most faithful to the coarsest until one reaches the requested
//! ratio ([`LodMethod`]): the simplifier on the source vertices, which keeps every normal and
//! UV seam; then on vertices welded across normal seams, then across UV seams too (see
//! `weld`: flat-shaded and many-island meshes share no vertex between triangles and would not
//! simplify otherwise); then the sloppy simplifier. All weigh the geometric error against
//! [`LodOptions::max_error`] and report it, which [`LodLevel::error`] records in the units of
//! the mesh's positions (the baker carries it into metres).

use glam::Vec3;
use meshopt::{SimplifyOptions, VertexDataAdapter};
use thiserror::Error;

use super::skinned::{MeshError, SkinnedMesh};
use super::weld::{Weld, WeldKey};

/// What stops a LOD level from being made.
#[derive(Debug, Error)]
pub enum LodError {
    /// A requested triangle ratio is not in (0, 1] (or is NaN).
    #[error("LOD ratio {ratio} is outside (0, 1]")]
    BadRatio {
        /// The offending ratio.
        ratio: f32,
    },
    /// Ratios given to [`generate`] are not strictly decreasing.
    #[error("LOD ratios must decrease: {ratio} follows {previous}")]
    NotDecreasing {
        /// The offending ratio.
        ratio: f32,
        /// The ratio before it.
        previous: f32,
    },
    /// [`generate`] was given no ratios.
    #[error("no LOD ratios given")]
    NoRatios,
    /// [`LodOptions::max_error`] is not in [0, 1] (or is NaN).
    #[error("LOD max_error {max_error} is outside [0, 1]")]
    BadMaxError {
        /// The offending value.
        max_error: f32,
    },
    /// The source mesh has nothing to simplify.
    #[error("mesh '{mesh}' has no triangles")]
    NoTriangles {
        /// Name of the mesh.
        mesh: String,
    },
    /// The simplifier removed every triangle (it should not without pruning; checked so a bake
    /// never stores an invisible level).
    #[error("simplifying mesh '{mesh}' to ratio {ratio} left no triangles")]
    Emptied {
        /// Name of the mesh.
        mesh: String,
        /// The requested ratio.
        ratio: f32,
    },
    /// The source mesh's arrays are inconsistent (checked before they reach the C++ simplifier,
    /// which would read out of bounds on a bad index).
    #[error(transparent)]
    Mesh(#[from] MeshError),
    /// meshopt rejected the vertex data.
    #[error("mesh '{mesh}': meshopt: {what}")]
    Meshopt {
        /// Name of the mesh.
        mesh: String,
        /// meshopt's message.
        what: String,
    },
}

/// How hard the simplifier may work.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LodOptions {
    /// Largest geometric error the simplifier may introduce, relative to the mesh's extent
    /// (meshopt's metric: the error divided by [`meshopt::simplify_scale`], the largest side of
    /// the bounding box). Range [0, 1]; default 0.05, about 9 cm on a 1.8 m character: a
    /// backstop against gross damage rather than the usual limit, since the ratio is reached
    /// well before it on smooth meshes (the mannequin's 0.5 and 0.2 levels measure about 3 mm
    /// and 10 mm). It is the budget at ratio 1; a level of ratio `r` may reach `max_error / √r`
    /// ([`level_budget`]: 0.11 at 0.2, 0.29 at 0.03). Every [`LodMethod`] keeps within the
    /// level's budget; a level whose ratio none can reach within it stops short of it (more
    /// triangles).
    pub max_error: f32,
    /// Keep the vertices on open borders of the mesh where they are. Useful when a character is
    /// made of several meshes that meet at open edges (no cracks between separately simplified
    /// parts), at the price of fewer collapses. The borders are those of the mesh after
    /// welding (see [`LodMethod`]): a flat-shaded part is not all border. Default false:
    /// meshopt already only slides border vertices along the border, and the mannequin is one
    /// closed mesh.
    pub lock_border: bool,
}

impl Default for LodOptions {
    fn default() -> Self {
        Self {
            max_error: 0.05,
            lock_border: false,
        }
    }
}

/// One level of detail of a mesh.
#[derive(Clone, Debug)]
pub struct LodLevel {
    /// The requested fraction of the source triangles, in (0, 1]. The achieved count is
    /// `mesh.triangle_count()`, which may be higher when [`LodOptions::max_error`] or the mesh's
    /// topology stopped the simplifier first.
    pub ratio: f32,
    /// The simplified mesh: a subset of the source vertices with every attribute unchanged.
    pub mesh: SkinnedMesh,
    /// Geometric error of this level, in the units of the mesh's positions (bind space, as
    /// authored), >= 0: meshopt's relative error scaled back by the mesh's extent. 0 for
    /// ratio 1.
    pub error: f32,
    /// How the level was made.
    pub method: LodMethod,
}

/// How a LOD level was simplified. [`simplify`] tries these in order and keeps the first that
/// reaches the requested ratio (or, if none does, the one with the fewest triangles), so each
/// mesh gets the most faithful method that works for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LodMethod {
    /// Ratio 1: the source mesh itself.
    Source,
    /// meshoptimizer's simplifier on the source vertices: every normal and UV seam stays
    /// exactly where it was. Smooth meshes (the mannequin, CesiumMan) get this.
    Seams,
    /// Copies of a vertex with equal position, skin and UV welded first (a flat-shaded mesh's
    /// normal splits vanish); UV seams stay exact, and each corner takes the copy whose normal
    /// is closest to its simplified triangle's.
    WeldedNormals,
    /// Copies with equal position and skin welded whatever their normal and UV; each corner
    /// then takes the copy that fits its triangle (closest normal, UVs of one texture island),
    /// so UV seams survive where a seam vertex is kept, and may shift where one was collapsed.
    Welded,
    /// meshoptimizer's sloppy simplifier on the [`LodMethod::Welded`] mesh, within
    /// [`LodOptions::max_error`]: merges nearby vertices regardless of topology (separate
    /// small parts too), with vertices between differently skinned parts locked.
    Sloppy,
}

/// Weight of each normal component in the simplifier's error metric, relative to position
/// error (which is measured relative to the mesh extent). Normals are unit vectors, so a
/// 90 degree turn (a distance of 1.4) weighs roughly like a displacement of 70% of the extent:
/// enough to keep shading creases, small enough not to block collapses on smooth areas, where
/// neighbouring normals differ little.
const NORMAL_WEIGHT: f32 = 0.5;
/// Weight of each UV component. UVs span about [0, 1] over a texture, so the same reasoning
/// as for normals applies; seams themselves are protected by meshopt regardless of weights.
const UV_WEIGHT: f32 = 0.5;
/// Floats per vertex in the attribute stream: normal (3) and UV (2).
const ATTRIBUTES: usize = 5;

/// Simplifies `mesh` to about `ratio` of its triangles.
///
/// `ratio` 1 returns the mesh unchanged (same name, error 0). Otherwise the target is
/// `ratio × index count`, rounded down to whole triangles, at least one triangle. The
/// methods of [`LodMethod`] are tried in order until one reaches the target (within 2%, a
/// collapse or two); if none does, because [`LodOptions::max_error`] or locked borders stop
/// all of them, the level with the fewest triangles is kept. The achieved count is the
/// returned mesh's [`SkinnedMesh::triangle_count`]. The result keeps the vertices its triangles use, in source
/// order, with all attributes (positions, normals, UVs, joints, weights) copied unchanged, and
/// the source's `material` and `rigid`; it is named `"{name} LOD{ratio}"`.
///
/// # Errors
/// [`LodError::BadRatio`], [`LodError::BadMaxError`], [`LodError::NoTriangles`],
/// [`LodError::Mesh`] when the mesh's arrays disagree or an index is out of range, and
/// [`LodError::Emptied`] if nothing is left.
pub fn simplify(
    mesh: &SkinnedMesh,
    ratio: f32,
    options: &LodOptions,
) -> Result<LodLevel, LodError> {
    simplify_with_remap(mesh, ratio, options, &mut Welds::default()).map(|(level, _)| level)
}

/// Simplifies `mesh` once per ratio; see [`simplify`]. Each level is made from the source
/// mesh (not from the previous level), so errors do not compound.
///
/// # Errors
/// [`LodError::NoRatios`] for an empty list, [`LodError::BadRatio`] for a ratio outside
/// (0, 1], [`LodError::NotDecreasing`] when a ratio is not smaller than the one before it, and
/// the errors of [`simplify`].
pub fn generate(
    mesh: &SkinnedMesh,
    ratios: &[f32],
    options: &LodOptions,
) -> Result<Vec<LodLevel>, LodError> {
    if ratios.is_empty() {
        return Err(LodError::NoRatios);
    }
    // Check the whole list before doing any work, so a typo fails fast.
    for (i, &ratio) in ratios.iter().enumerate() {
        check_ratio(ratio)?;
        if let Some(&previous) = i.checked_sub(1).and_then(|p| ratios.get(p))
            && ratio >= previous
        {
            return Err(LodError::NotDecreasing { ratio, previous });
        }
    }
    // The weldings depend on the mesh only: made once, on first need, for every level.
    let mut welds = Welds::default();
    ratios
        .iter()
        .map(|&ratio| simplify_with_remap(mesh, ratio, options, &mut welds).map(|(l, _)| l))
        .collect()
}

/// The error budget of a level of `ratio`: `max_error / √ratio`, at most 1 (relative to the
/// mesh's extent).
///
/// Why the square root: a level is drawn where the character covers about `ratio` of the
/// screen area it covers where LOD 0 is drawn (the triangles per pixel stay even), so it is
/// drawn about `1/√ratio` times as far away, where an error `1/√ratio` times as large covers
/// the same pixels. A fixed budget stopped the far levels of meshes that reach it early
/// (RobotExpressive kept about 1,016 triangles at every ratio from 0.2 down).
pub fn level_budget(max_error: f32, ratio: f32) -> f32 {
    (max_error / ratio.sqrt()).min(1.0)
}

fn check_ratio(ratio: f32) -> Result<(), LodError> {
    // Written so that NaN fails too.
    if ratio > 0.0 && ratio <= 1.0 {
        Ok(())
    } else {
        Err(LodError::BadRatio { ratio })
    }
}

/// [`simplify`], also returning for each output vertex the source vertex it was copied from.
fn simplify_with_remap(
    mesh: &SkinnedMesh,
    ratio: f32,
    options: &LodOptions,
    welds: &mut Welds,
) -> Result<(LodLevel, Vec<u32>), LodError> {
    check_ratio(ratio)?;
    let max_error = options.max_error;
    if !(0.0..=1.0).contains(&max_error) {
        return Err(LodError::BadMaxError { max_error });
    }
    let options = &LodOptions {
        max_error: level_budget(max_error, ratio),
        ..*options
    };
    // Any joint index passes: only the arrays, indices and weights matter here, and they must
    // be sound before meshopt reads them through raw pointers.
    mesh.validate(usize::MAX)?;
    if mesh.indices.is_empty() {
        return Err(LodError::NoTriangles {
            mesh: mesh.name.clone(),
        });
    }
    if ratio == 1.0 {
        let identity = (0..mesh.vertex_count() as u32).collect();
        return Ok((
            LodLevel {
                ratio,
                mesh: mesh.clone(),
                error: 0.0,
                method: LodMethod::Source,
            },
            identity,
        ));
    }
    let triangles = (mesh.indices.len() as f64 * f64::from(ratio) / 3.0).floor() as usize;
    let target = triangles.max(1);
    // meshopt stops at or just below the target; its last pass may stop a collapse or two
    // early, which is not a reason to try a coarser method.
    let reached = |indices: &[u32]| indices.len() / 3 <= target + target / 50;
    let mut best: Option<Attempt> = None;
    for method in [
        LodMethod::Seams,
        LodMethod::WeldedNormals,
        LodMethod::Welded,
        LodMethod::Sloppy,
    ] {
        let attempt = attempt(mesh, method, target * 3, options, welds)?;
        let done = !attempt.indices.is_empty() && reached(&attempt.indices);
        if !attempt.indices.is_empty()
            && best
                .as_ref()
                .is_none_or(|b| attempt.indices.len() < b.indices.len())
        {
            best = Some(attempt);
        }
        if done {
            break;
        }
    }
    let Some(best) = best else {
        return Err(LodError::Emptied {
            mesh: mesh.name.clone(),
            ratio,
        });
    };
    let (lod, kept) = compact(mesh, &best.indices);
    let lod = SkinnedMesh {
        name: format!("{} LOD{ratio}", mesh.name),
        ..lod
    };
    Ok((
        LodLevel {
            ratio,
            mesh: lod,
            error: best.error,
            method: best.method,
        },
        kept,
    ))
}

/// The two weldings of one mesh, made on first need and shared by its levels.
#[derive(Default)]
struct Welds {
    /// [`WeldKey::PositionSkinUv`], for [`LodMethod::WeldedNormals`].
    uv: Option<Weld>,
    /// [`WeldKey::PositionSkin`], for [`LodMethod::Welded`] and [`LodMethod::Sloppy`].
    any_uv: Option<Weld>,
}

/// One simplification of a mesh: source vertex indices, error in the mesh's units, and how.
struct Attempt {
    indices: Vec<u32>,
    error: f32,
    method: LodMethod,
}

/// Simplifies `mesh` towards `target` indices with `method` (not [`LodMethod::Source`]).
/// The returned indices name source vertices; they may be empty.
fn attempt(
    mesh: &SkinnedMesh,
    method: LodMethod,
    target: usize,
    options: &LodOptions,
    welds: &mut Welds,
) -> Result<Attempt, LodError> {
    let meshopt_error = |e: meshopt::Error| LodError::Meshopt {
        mesh: mesh.name.clone(),
        what: e.to_string(),
    };
    let n = mesh.vertex_count();
    let weld = match method {
        LodMethod::Source | LodMethod::Seams => None,
        LodMethod::WeldedNormals => Some(
            &*welds
                .uv
                .get_or_insert_with(|| Weld::new(mesh, WeldKey::PositionSkinUv)),
        ),
        LodMethod::Welded | LodMethod::Sloppy => Some(
            &*welds
                .any_uv
                .get_or_insert_with(|| Weld::new(mesh, WeldKey::PositionSkin)),
        ),
    };
    let (positions, indices) = match weld {
        Some(w) => (&w.positions, &w.indices),
        None => (&mesh.positions, &mesh.indices),
    };
    let position_bytes: &[u8] = bytemuck::cast_slice(positions);
    let vertices =
        VertexDataAdapter::new(position_bytes, size_of::<Vec3>(), 0).map_err(meshopt_error)?;
    let scale = meshopt::simplify_scale(&vertices);
    let mut relative_error = 0.0f32;
    let mut out = if method == LodMethod::Sloppy {
        let locks = weld.map_or_else(|| vec![false; n], |w| sloppy_locks(w, options));
        meshopt::simplify_sloppy_with_locks(
            indices,
            &vertices,
            &locks,
            target,
            options.max_error,
            Some(&mut relative_error),
        )
    } else {
        let attributes: Vec<f32> = mesh
            .normals
            .iter()
            .zip(&mesh.uvs)
            .flat_map(|(n, uv)| [n.x, n.y, n.z, uv.x, uv.y])
            .collect();
        // A welded group's normal and (across UV seams) UV are one copy's among several, so
        // they measure nothing: the geometry alone decides there. A flat-shaded mesh's copies
        // differ by tens of degrees from vertex to vertex, and weighing them spent Fox's error
        // budget on normals (its 0.2 level stopped at 130 triangles instead of 114); its
        // creases are held by the position error, and each corner gets a fitting copy back.
        let (normal_weight, uv_weight) = match method {
            LodMethod::WeldedNormals => (0.0, UV_WEIGHT),
            LodMethod::Welded => (0.0, 0.0),
            _ => (NORMAL_WEIGHT, UV_WEIGHT),
        };
        let weights = [
            normal_weight,
            normal_weight,
            normal_weight,
            uv_weight,
            uv_weight,
        ];
        // The wrapper passes this slice's pointer straight to C, which reads one entry per
        // vertex; an empty slice would be a dangling pointer, so give every vertex a "free".
        let locks = vec![false; n];
        let mut flags = SimplifyOptions::None;
        if options.lock_border {
            flags |= SimplifyOptions::LockBorder;
        }
        // A welded index buffer names only each group's first vertex; without Sparse, meshopt
        // would count the unnamed copies at the same position as attribute seams and lock
        // every vertex again.
        if weld.is_some() {
            flags |= SimplifyOptions::Sparse;
        }
        meshopt::simplify_with_attributes_and_locks(
            indices,
            &vertices,
            &attributes,
            &weights,
            ATTRIBUTES * size_of::<f32>(),
            &locks,
            target,
            options.max_error,
            flags,
            Some(&mut relative_error),
        )
    };
    if let Some(w) = weld {
        w.unweld(mesh, &mut out);
    }
    Ok(Attempt {
        indices: out,
        error: relative_error * scale,
        method,
    })
}

/// Vertices the sloppy simplifier must not move: boundaries between differently skinned
/// parts (merging across them would glue parts that move apart), and open borders when
/// [`LodOptions::lock_border`] asks.
fn sloppy_locks(weld: &Weld, options: &LodOptions) -> Vec<bool> {
    let mut locks = weld.skin_seam.clone();
    if options.lock_border {
        for v in weld.border_vertices() {
            locks[v as usize] = true;
        }
    }
    locks
}

/// A mesh holding only the vertices `indices` uses, in source order, with `indices` remapped;
/// and for each new vertex, its source index. `indices` must be in range for `mesh`.
fn compact(mesh: &SkinnedMesh, indices: &[u32]) -> (SkinnedMesh, Vec<u32>) {
    const UNUSED: u32 = u32::MAX;
    let mut remap = vec![UNUSED; mesh.vertex_count()];
    for &i in indices {
        remap[i as usize] = 0;
    }
    // Number the used vertices in source order, so the LOD's vertex order (and its cache
    // behaviour) follows the source's.
    let mut kept = Vec::new();
    for (i, slot) in remap.iter_mut().enumerate() {
        if *slot != UNUSED {
            *slot = kept.len() as u32;
            kept.push(i as u32);
        }
    }
    let pick = |k: &u32| *k as usize;
    let out = SkinnedMesh {
        name: mesh.name.clone(),
        positions: kept.iter().map(|k| mesh.positions[pick(k)]).collect(),
        normals: kept.iter().map(|k| mesh.normals[pick(k)]).collect(),
        uvs: kept.iter().map(|k| mesh.uvs[pick(k)]).collect(),
        joints: kept.iter().map(|k| mesh.joints[pick(k)]).collect(),
        weights: kept.iter().map(|k| mesh.weights[pick(k)]).collect(),
        indices: indices.iter().map(|&i| remap[i as usize]).collect(),
        material: mesh.material,
        rigid: mesh.rigid,
    };
    (out, kept)
}

#[cfg(test)]
mod tests;
