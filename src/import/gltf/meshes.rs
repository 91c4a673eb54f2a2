//! Mesh primitives to [`SkinnedMesh`]es: attributes, influences remapped onto the skeleton,
//! rigid parts bound to their joint, generated normals.

use glam::{Mat3, Mat4, Vec2, Vec3};
use gltf::Semantic;
use gltf::accessor::Dimensions;
use gltf::mesh::Mode;

use crate::mesh::SkinnedMesh;

use super::scene::{Hierarchy, Joints, node_label};
use super::{PrimitiveRef, Source};

/// Everything read from one primitive.
pub(super) struct Primitive {
    pub source: PrimitiveRef,
    pub mesh: SkinnedMesh,
    pub material: Option<usize>,
}

/// Reads every triangle primitive of every mesh node in the scene, in scene order.
pub(super) fn read_meshes(
    src: &Source,
    h: &Hierarchy,
    joints: &Joints,
    warnings: &mut Vec<String>,
) -> Result<Vec<Primitive>, String> {
    let mut out = Vec::new();
    for &node_index in &h.order {
        let Some(node) = src.doc.nodes().nth(node_index) else {
            continue;
        };
        let Some(mesh) = node.mesh() else { continue };
        let binding = Binding::of(src, h, joints, &node)?;
        for prim in mesh.primitives() {
            let label = format!(
                "{}, mesh {}{}, primitive {}",
                node_label(src.doc, node_index),
                mesh.index(),
                mesh.name().map(|n| format!(" ('{n}')")).unwrap_or_default(),
                prim.index()
            );
            if !matches!(
                prim.mode(),
                Mode::Triangles | Mode::TriangleStrip | Mode::TriangleFan
            ) {
                warnings.push(format!(
                    "{label}: mode {:?} draws no triangles; skipped",
                    prim.mode()
                ));
                continue;
            }
            if prim.morph_targets().next().is_some() {
                warnings.push(format!("{label}: morph targets are ignored"));
            }
            let mut m = read_primitive(src, &prim, &binding, &label, warnings)
                .map_err(|e| format!("{label}: {e}"))?;
            m.name = match (node.name(), mesh.name()) {
                (Some(n), _) | (None, Some(n)) => format!("{n}#{}", prim.index()),
                (None, None) => format!("mesh_{}#{}", mesh.index(), prim.index()),
            };
            out.push(Primitive {
                source: PrimitiveRef {
                    node: node_index,
                    mesh: mesh.index(),
                    primitive: prim.index(),
                },
                mesh: m,
                material: prim.material().index(),
            });
        }
    }
    Ok(out)
}

/// How a mesh node's vertices attach to the skeleton.
enum Binding {
    /// Skinned: skin joint `k` is skeleton joint `map[k]` (an alias joint where this skin's
    /// inverse bind differs from the first skin's).
    Skin { map: Vec<u16> },
    /// Rigid: every vertex follows `joint`; vertices are pre-multiplied by `to_bind`.
    Rigid { joint: u16, to_bind: Mat4 },
}

impl Binding {
    fn of(src: &Source, h: &Hierarchy, joints: &Joints, node: &gltf::Node) -> Result<Self, String> {
        if let Some(skin) = node.skin() {
            let map: Vec<u16> = joints
                .skin_maps
                .get(skin.index())
                .map(|m| m.iter().map(|&j| j as u16).collect())
                .unwrap_or_default();
            if map.len() != skin.joints().count() {
                return Err(format!(
                    "skin {}: a joint is missing from the skeleton",
                    skin.index()
                ));
            }
            return Ok(Self::Skin { map });
        }
        // The nearest joint at or above the node; the nodes between are static (animated ones
        // would have become joints), so their product is a fixed offset.
        let mut chain = Mat4::IDENTITY;
        let mut i = node.index();
        loop {
            if let Some(j) = joints.of_node[i] {
                // Bind space of joint j: inverse(IBM_j) maps it to model space at bind time.
                // The skinning matrix is world_j(t) * IBM_j and the part must land at
                // world_j(t) * chain * v, so its bind-space vertices are IBM_j^-1 * chain * v.
                return Ok(Self::Rigid {
                    joint: j as u16,
                    to_bind: joints.raw.inverse_bind[j].inverse() * chain,
                });
            }
            chain = h.local[i] * chain;
            match h.parent[i] {
                Some(p) => i = p,
                None => {
                    return Err(format!(
                        "{}: no joint found to attach the mesh to",
                        node_label(src.doc, node.index())
                    ));
                }
            }
        }
    }
}

/// Keeps the four largest of up to eight influences and renormalises them to sum to 1.
fn top_four(mut inf: Vec<(u16, f32)>) -> Result<([u16; 4], [f32; 4]), String> {
    if let Some((_, w)) = inf.iter().find(|(_, w)| !w.is_finite() || *w < 0.0) {
        return Err(format!("weight {w} is negative or not finite"));
    }
    inf.retain(|(_, w)| *w > 0.0);
    // Stable sort: equal weights keep attribute order, so results are deterministic.
    inf.sort_by(|a, b| b.1.total_cmp(&a.1));
    inf.truncate(4);
    let sum: f32 = inf.iter().map(|(_, w)| w).sum();
    if sum <= 0.0 {
        return Err("weights sum to zero".into());
    }
    let mut j = [0u16; 4];
    let mut w = [0f32; 4];
    for (k, (joint, weight)) in inf.into_iter().enumerate() {
        j[k] = joint;
        w[k] = weight / sum;
    }
    Ok((j, w))
}

fn attribute<'a>(prim: &gltf::Primitive<'a>, s: Semantic) -> Option<gltf::Accessor<'a>> {
    prim.get(&s)
}

/// Turns a primitive's index list (or vertex order) into a triangle list: strips and fans are
/// unrolled as three.js and the specification do, and a trailing partial triangle is dropped
/// with a warning (players draw the whole ones).
fn triangle_list(mode: Mode, order: Vec<u32>, label: &str, warnings: &mut Vec<String>) -> Vec<u32> {
    match mode {
        Mode::TriangleStrip => (0..order.len().saturating_sub(2))
            .flat_map(|i| {
                if i % 2 == 0 {
                    [order[i], order[i + 1], order[i + 2]]
                } else {
                    [order[i + 2], order[i + 1], order[i]]
                }
            })
            .collect(),
        Mode::TriangleFan => (1..order.len().saturating_sub(1))
            .flat_map(|i| [order[0], order[i], order[i + 1]])
            .collect(),
        _ => {
            let mut list = order;
            if !list.len().is_multiple_of(3) {
                warnings.push(format!("{label}: {} indices is not a whole number of triangles; the last {} are ignored", list.len(), list.len() % 3));
                list.truncate(list.len() / 3 * 3);
            }
            list
        }
    }
}

/// Checks that attribute accessor `acc` (`what`, for the message) has one element per vertex
/// of a mesh with `n` vertices.
fn check_count(acc: &gltf::Accessor, what: &str, count: usize, n: usize) -> Result<(), String> {
    if count == n {
        Ok(())
    } else {
        Err(format!(
            "accessor {} ({what}) has {count} elements, mesh has {n} vertices",
            acc.index()
        ))
    }
}

/// Per vertex: four skeleton joints, and their weights (summing to 1; unused slots 0).
type Influences = (Vec<[u16; 4]>, Vec<[f32; 4]>);

/// The influences of a skinned primitive's `n` vertices: JOINTS_0/WEIGHTS_0 and, if present,
/// JOINTS_1/WEIGHTS_1, mapped through the skin's joint `map` onto the skeleton and cut to the
/// four largest. A step of its own because rigid parts have no such attributes at all.
fn skin_influences(
    src: &Source,
    prim: &gltf::Primitive,
    map: &[u16],
    n: usize,
) -> Result<Influences, String> {
    let mut sets = Vec::new();
    for set in 0..2u32 {
        let (Some(ja), Some(wa)) = (
            attribute(prim, Semantic::Joints(set)),
            attribute(prim, Semantic::Weights(set)),
        ) else {
            if set == 0 {
                return Err("is skinned but has no JOINTS_0/WEIGHTS_0 attributes".into());
            }
            break;
        };
        let jn = format!("JOINTS_{set}");
        let wn = format!("WEIGHTS_{set}");
        let j = src.integers(&ja, &jn, &[Dimensions::Vec4])?;
        check_count(&ja, &jn, j.count(), n)?;
        let w = src.floats(&wa, &wn, &[Dimensions::Vec4])?;
        check_count(&wa, &wn, w.count(), n)?;
        sets.push((j.values, w.values, ja.index()));
    }
    let mut joints = Vec::with_capacity(n);
    let mut weights = Vec::with_capacity(n);
    for v in 0..n {
        let mut inf = Vec::with_capacity(8);
        for (j, w, acc) in &sets {
            for k in 0..4 {
                let (skin_joint, weight) = (j[v * 4 + k] as usize, w[v * 4 + k]);
                if weight == 0.0 {
                    continue;
                }
                let joint = *map.get(skin_joint).ok_or_else(|| {
                    format!("accessor {acc} (JOINTS): vertex {v} uses joint {skin_joint}, but the skin has {} joints", map.len())
                })?;
                inf.push((joint, weight));
            }
        }
        let (jj, ww) = top_four(inf).map_err(|e| format!("vertex {v}: {e}"))?;
        joints.push(jj);
        weights.push(ww);
    }
    Ok((joints, weights))
}

/// Reads one triangle primitive into a mesh bound as `binding` says; `label` names it in
/// warnings.
fn read_primitive(
    src: &Source,
    prim: &gltf::Primitive,
    binding: &Binding,
    label: &str,
    warnings: &mut Vec<String>,
) -> Result<SkinnedMesh, String> {
    let pos_acc = attribute(prim, Semantic::Positions).ok_or("has no POSITION attribute")?;
    let positions: Vec<Vec3> = src
        .floats(&pos_acc, "POSITION", &[Dimensions::Vec3])?
        .arrays::<3>()
        .into_iter()
        .map(Vec3::from)
        .collect();
    let n = positions.len();
    if let Some(i) = positions.iter().position(|p| !p.is_finite()) {
        return Err(format!(
            "accessor {} (POSITION): vertex {i} is not finite",
            pos_acc.index()
        ));
    }
    let indices: Vec<u32> = match prim.indices() {
        Some(acc) => {
            let d = src.integers(&acc, "indices", &[Dimensions::Scalar])?;
            if let Some((i, v)) = d.values.iter().enumerate().find(|(_, v)| **v as usize >= n) {
                return Err(format!(
                    "accessor {} (indices): index {i} is {v}, but the mesh has {n} vertices",
                    acc.index()
                ));
            }
            triangle_list(prim.mode(), d.values, label, warnings)
        }
        None => triangle_list(prim.mode(), (0..n as u32).collect(), label, warnings),
    };

    let uvs: Vec<Vec2> = match attribute(prim, Semantic::TexCoords(0)) {
        Some(acc) => {
            let d = src.floats(&acc, "TEXCOORD_0", &[Dimensions::Vec2])?;
            check_count(&acc, "TEXCOORD_0", d.count(), n)?;
            d.arrays::<2>().into_iter().map(Vec2::from).collect()
        }
        None => vec![Vec2::ZERO; n],
    };

    let normals: Vec<Vec3> = match attribute(prim, Semantic::Normals) {
        Some(acc) => {
            let d = src.floats(&acc, "NORMAL", &[Dimensions::Vec3])?;
            check_count(&acc, "NORMAL", d.count(), n)?;
            let mut v: Vec<Vec3> = d.arrays::<3>().into_iter().map(Vec3::from).collect();
            if let Some(i) = v.iter().position(|x| !x.is_finite()) {
                return Err(format!(
                    "accessor {} (NORMAL): vertex {i} is not finite",
                    acc.index()
                ));
            }
            for x in &mut v {
                *x = x.normalize_or_zero();
            }
            v
        }
        None => crate::mesh::smooth_normals(&positions, &indices),
    };

    let (joints, weights, pre) = match binding {
        Binding::Rigid { joint, to_bind } => (
            vec![[*joint, 0, 0, 0]; n],
            vec![[1.0, 0.0, 0.0, 0.0]; n],
            *to_bind,
        ),
        Binding::Skin { map } => {
            let (joints, weights) = skin_influences(src, prim, map, n)?;
            (joints, weights, Mat4::IDENTITY)
        }
    };

    let (positions, normals) = if pre == Mat4::IDENTITY {
        (positions, normals)
    } else {
        let nm = Mat3::from_mat4(pre).inverse().transpose();
        (
            positions.iter().map(|p| pre.transform_point3(*p)).collect(),
            normals
                .iter()
                .map(|x| (nm * *x).normalize_or_zero())
                .collect(),
        )
    };

    Ok(SkinnedMesh {
        name: String::new(),
        positions,
        normals,
        uvs,
        joints,
        weights,
        indices,
        material: 0,
        rigid: matches!(binding, Binding::Rigid { .. }),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_and_fans_unroll_like_three_js() {
        let mut w = Vec::new();
        assert_eq!(
            triangle_list(Mode::TriangleStrip, vec![0, 1, 2, 3, 4], "p", &mut w),
            vec![0, 1, 2, 3, 2, 1, 2, 3, 4]
        );
        assert_eq!(
            triangle_list(Mode::TriangleFan, vec![0, 1, 2, 3], "p", &mut w),
            vec![0, 1, 2, 0, 2, 3]
        );
        assert!(w.is_empty());
        assert_eq!(
            triangle_list(Mode::Triangles, vec![0, 1, 2, 3], "p", &mut w),
            vec![0, 1, 2]
        );
        assert_eq!(
            w,
            vec!["p: 4 indices is not a whole number of triangles; the last 1 are ignored"]
        );
    }

    #[test]
    fn keeps_the_four_largest_influences() {
        let (j, w) = top_four(vec![
            (1, 0.1),
            (2, 0.4),
            (3, 0.05),
            (4, 0.2),
            (5, 0.15),
            (6, 0.1),
        ])
        .unwrap();
        assert_eq!(j, [2, 4, 5, 1]);
        let sum = 0.4 + 0.2 + 0.15 + 0.1;
        assert!((w[0] - 0.4 / sum).abs() < 1e-6);
        assert!((w.iter().sum::<f32>() - 1.0).abs() < 1e-6);
        assert!(
            top_four(vec![(0, 0.0), (1, 0.0)])
                .unwrap_err()
                .contains("zero")
        );
        assert!(top_four(vec![(0, f32::NAN)]).is_err());
    }
}
