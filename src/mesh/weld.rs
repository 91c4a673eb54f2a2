//! Welding for LOD simplification: the copies of a vertex that a mesh splits at normal and UV
//! seams are joined into one, so the simplifier sees a connected surface, and each simplified
//! triangle is then given back source vertices ("wedges") whose attributes suit it.
//!
//! A flat-shaded mesh (Fox) or one with many UV islands has no two triangles sharing a vertex
//! index; meshoptimizer classifies a position with more than two such copies as locked, so
//! without welding nothing collapses. Copies are joined only when their skin is identical:
//! coincident vertices bound differently (two rigid parts touching, bound to different joints)
//! move apart under animation, and a triangle glued across them would stretch between the
//! parts. Those stay separate; the simplifier then sees the same position twice and treats it
//! as an attribute seam, keeping each side's triangles on their own vertices.

use std::collections::{HashMap, HashSet};

use glam::{Vec2, Vec3};

use super::skinned::SkinnedMesh;

/// Largest distance between positions that count as one, per axis, relative to the mesh's
/// extent (the largest side of its bounding box). 1e-5 is about a hundred f32 steps at the
/// extent, above the rounding noise of exporters that write each copy of a split vertex from
/// its own transformed face, and far below anything visible: 18 µm on a 1.8 m character.
pub(super) const POSITION_TOLERANCE: f32 = 1e-5;

/// Products of wedge counts up to this size are searched exhaustively for the best triple;
/// larger ones (a flat-shaded cone tip has a copy per face) choose corner by corner. 512 covers
/// three flat-shaded corners of valence 8.
const EXHAUSTIVE: usize = 512;

/// Which copies of a vertex are joined.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum WeldKey {
    /// Same position and skin: normal and UV seams disappear; the simplifier sees neither.
    PositionSkin,
    /// Same position, skin and UV: normal seams disappear, UV seams stay for the simplifier.
    PositionSkinUv,
}

/// A mesh's vertices grouped for simplification.
pub(super) struct Weld {
    /// Positions for the simplifier: every vertex at the first position of its cluster, so
    /// copies within [`POSITION_TOLERANCE`] compare equal bit for bit.
    pub positions: Vec<Vec3>,
    /// The source index buffer with every index replaced by its group's first vertex.
    pub indices: Vec<u32>,
    /// True for the vertices whose position another group with a different skin shares: the
    /// boundary between parts that move apart, which the sloppy simplifier must not merge.
    pub skin_seam: Vec<bool>,
    /// The group's first vertex, per vertex.
    first: Vec<u32>,
    /// Members of the group whose first vertex is `f`: `members[start[f]..start[f + 1]]`,
    /// ascending (empty unless `f` is a first vertex).
    start: Vec<u32>,
    members: Vec<u32>,
}

impl Weld {
    /// Groups `mesh`'s vertices by `key`. The mesh must be valid (array lengths agree, indices
    /// in range).
    pub fn new(mesh: &SkinnedMesh, key: WeldKey) -> Self {
        let n = mesh.vertex_count();
        let cluster = cluster_positions(&mesh.positions);
        let positions: Vec<Vec3> = cluster
            .iter()
            .map(|&c| mesh.positions[c as usize])
            .collect();
        // Zero weights may name any joint; give them one so such copies still match.
        let skin = |v: usize| {
            let (j, w) = (mesh.joints[v], mesh.weights[v]);
            let j = std::array::from_fn::<u16, 4, _>(|k| if w[k] == 0.0 { 0 } else { j[k] });
            // + 0.0 turns -0.0 into 0.0, so equal values compare equal as bits.
            (j, w.map(|x| (x + 0.0).to_bits()))
        };
        let uv_bits = |uv: Vec2| [(uv.x + 0.0).to_bits(), (uv.y + 0.0).to_bits()];
        // Groups of equal position and skin first; then, if asked, split by UV.
        let mut by_skin = HashMap::with_capacity(n);
        let skin_first: Vec<u32> = (0..n)
            .map(|v| *by_skin.entry((cluster[v], skin(v))).or_insert(v as u32))
            .collect();
        let first: Vec<u32> = match key {
            WeldKey::PositionSkin => skin_first.clone(),
            WeldKey::PositionSkinUv => {
                let mut by_uv = HashMap::with_capacity(n);
                (0..n)
                    .map(|v| {
                        *by_uv
                            .entry((skin_first[v], uv_bits(mesh.uvs[v])))
                            .or_insert(v as u32)
                    })
                    .collect()
            }
        };
        // A position cluster holding more than one skin is a seam between parts.
        let mut cluster_skin = vec![u32::MAX; n];
        let mut mixed = vec![false; n];
        for v in 0..n {
            let c = cluster[v] as usize;
            if cluster_skin[c] == u32::MAX {
                cluster_skin[c] = skin_first[v];
            } else if cluster_skin[c] != skin_first[v] {
                mixed[c] = true;
            }
        }
        let skin_seam = cluster.iter().map(|&c| mixed[c as usize]).collect();
        // Members of each group, counting sort by first vertex (ascending within a group).
        let mut start = vec![0u32; n + 1];
        for &f in &first {
            start[f as usize + 1] += 1;
        }
        for i in 0..n {
            start[i + 1] += start[i];
        }
        let mut fill = start.clone();
        let mut members = vec![0u32; n];
        for (v, &f) in first.iter().enumerate() {
            members[fill[f as usize] as usize] = v as u32;
            fill[f as usize] += 1;
        }
        // Triangles that welding collapses (smaller than the tolerance, or degenerate in the
        // source) are left out: the simplifier would lock their vertices, and they cover
        // nothing.
        let mut indices = Vec::with_capacity(mesh.indices.len());
        for t in mesh.indices.chunks_exact(3) {
            let [a, b, c] = [t[0], t[1], t[2]].map(|i| first[i as usize]);
            if a != b && b != c && c != a {
                indices.extend([a, b, c]);
            }
        }
        Self {
            positions,
            indices,
            skin_seam,
            first,
            start,
            members,
        }
    }

    /// The vertices on open edges of the welded mesh (an edge no triangle crosses back).
    pub fn border_vertices(&self) -> Vec<u32> {
        let edges: HashSet<(u32, u32)> = self
            .indices
            .chunks_exact(3)
            .flat_map(|t| [(t[0], t[1]), (t[1], t[2]), (t[2], t[0])])
            .collect();
        let mut out: Vec<u32> = edges
            .iter()
            .filter(|(a, b)| !edges.contains(&(*b, *a)))
            .flat_map(|&(a, b)| [a, b])
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// The copies of `first`'s group (just `first` for an ungrouped vertex).
    fn wedges(&self, first: u32) -> &[u32] {
        let f = first as usize;
        let group = &self.members[self.start[f] as usize..self.start[f + 1] as usize];
        if group.is_empty() {
            std::slice::from_ref(&self.first[f])
        } else {
            group
        }
    }

    /// Replaces each corner of the simplified `indices` (group first vertices) with the copy
    /// that suits its triangle best: the normal closest to the triangle's face normal, and UVs
    /// close to each other (copies across a UV seam lie far apart in the texture, so a triangle
    /// picking them would smear a strip of the atlas). Ties keep the lowest vertex index.
    pub fn unweld(&self, mesh: &SkinnedMesh, indices: &mut [u32]) {
        for tri in indices.chunks_exact_mut(3) {
            let [a, b, c] = [tri[0], tri[1], tri[2]].map(|i| self.wedges(i));
            let p = |i: u32| self.positions[i as usize];
            let face = (p(tri[1]) - p(tri[0]))
                .cross(p(tri[2]) - p(tri[0]))
                .normalize_or_zero();
            let turn = |w: u32| 1.0 - mesh.normals[w as usize].dot(face);
            let uv = |w: u32| mesh.uvs[w as usize];
            let apart = |x: u32, y: u32| uv(x).distance(uv(y));
            if a.len() * b.len() * c.len() <= EXHAUSTIVE {
                let mut best = (f32::INFINITY, [a[0], b[0], c[0]]);
                for &x in a {
                    for &y in b {
                        for &z in c {
                            let cost = turn(x)
                                + turn(y)
                                + turn(z)
                                + apart(x, y)
                                + apart(y, z)
                                + apart(z, x);
                            if cost < best.0 {
                                best = (cost, [x, y, z]);
                            }
                        }
                    }
                }
                tri.copy_from_slice(&best.1);
            } else {
                // Corner by corner: the first by its normal alone, later ones also by their
                // UV distance to the corners already chosen.
                let pick = |group: &[u32], chosen: &[u32]| {
                    let cost = |w: u32| turn(w) + chosen.iter().map(|&c| apart(w, c)).sum::<f32>();
                    group.iter().copied().fold(group[0], |best, w| {
                        if cost(w) < cost(best) { w } else { best }
                    })
                };
                let x = pick(a, &[]);
                let y = pick(b, &[x]);
                let z = pick(c, &[x, y]);
                tri.copy_from_slice(&[x, y, z]);
            }
        }
    }
}

/// For each vertex, an earlier cluster head within [`POSITION_TOLERANCE`] of it (per axis,
/// relative to the extent), or itself as a new head: a hash grid with cells as wide as the
/// tolerance holds at most one head per cell, so a lookup checks at most 27 cells.
fn cluster_positions(positions: &[Vec3]) -> Vec<u32> {
    let bounds = super::bounds::Aabb::from_points(positions);
    let extent = (bounds.max - bounds.min).max_element();
    let tolerance = if extent.is_finite() && extent > 0.0 {
        extent * POSITION_TOLERANCE
    } else {
        f32::MIN_POSITIVE
    };
    // Saturating float-to-int casts keep odd input (NaN, huge values) from panicking; such
    // vertices at worst share a cell and are then compared exactly.
    let cell = |p: Vec3| ((p - bounds.min) / tolerance).floor().as_ivec3().to_array();
    let mut heads: HashMap<[i32; 3], u32> = HashMap::with_capacity(positions.len());
    let mut out = Vec::with_capacity(positions.len());
    let near = |h: u32, p: Vec3| (positions[h as usize] - p).abs().max_element() <= tolerance;
    for (v, &p) in positions.iter().enumerate() {
        let here = cell(p);
        // Copies are usually bit-identical: their own cell answers in one lookup; only a
        // vertex with no head there searches the 26 around it (smallest index wins).
        let mut found = heads.get(&here).copied().filter(|&h| near(h, p));
        if found.is_none() {
            for d in 0..27 {
                let offset = [d % 3 - 1, d / 3 % 3 - 1, d / 9 - 1];
                let key = std::array::from_fn(|k| here[k].saturating_add(offset[k]));
                if let Some(&h) = heads.get(&key)
                    && near(h, p)
                    && found.is_none_or(|f| h < f)
                {
                    found = Some(h);
                }
            }
        }
        out.push(found.unwrap_or_else(|| {
            heads.insert(here, v as u32);
            v as u32
        }));
    }
    out
}
