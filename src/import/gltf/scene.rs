//! The node hierarchy and the choice of joints: which glTF nodes become skeleton joints, in
//! parents-first order, with static non-joint ancestors folded into root bases.

use glam::{Mat4, Quat, Vec3};
use gltf::accessor::Dimensions;

use crate::anim::{RawSkeleton, Transform};

use super::Source;

/// The scene's nodes: parents, pre-order and rest matrices.
pub(super) struct Hierarchy {
    /// Parent node per document node (`None` for roots and nodes outside the scene).
    pub parent: Vec<Option<usize>>,
    /// Scene nodes in pre-order (parents before children).
    pub order: Vec<usize>,
    /// Local rest matrix per document node.
    pub local: Vec<Mat4>,
    /// Local rest TRS per document node.
    pub local_trs: Vec<Transform>,
    /// World rest matrix per node (identity for nodes outside the scene).
    pub world: Vec<Mat4>,
}

/// A readable name for node `index`: `node 3 ('Hips')`.
pub(super) fn node_label(doc: &gltf::Document, index: usize) -> String {
    label_of(index, doc.nodes().nth(index).and_then(|n| n.name()))
}

/// The label of [`node_label`], from the node's index and name.
fn label_of(index: usize, name: Option<&str>) -> String {
    match name {
        Some(name) => format!("node {index} ('{name}')"),
        None => format!("node {index}"),
    }
}

/// The largest absolute element of `m`, at least 1: the scale that relative tolerances on
/// matrices are taken against.
fn magnitude(m: &Mat4) -> f32 {
    m.abs()
        .to_cols_array()
        .iter()
        .fold(1.0f32, |a, b| a.max(*b))
}

/// A node's local rest matrix and TRS, and whether the TRS represents the matrix exactly.
fn local_transform(node: &gltf::Node) -> Result<(Mat4, Transform, bool), String> {
    let label = || label_of(node.index(), node.name());
    match node.transform() {
        gltf::scene::Transform::Matrix { matrix } => {
            let m = Mat4::from_cols_array_2d(&matrix);
            if !m.is_finite() {
                return Err(format!("{}: matrix contains NaN or infinity", label()));
            }
            let trs = Transform::from_mat4(&m);
            // A matrix with shear has no exact TRS; it is still exact in the folded root base
            // and in rigid parts, and only approximated if it is a joint's rest transform.
            let exact = trs.to_mat4().abs_diff_eq(m, 1e-4 * magnitude(&m));
            Ok((m, trs, exact))
        }
        gltf::scene::Transform::Decomposed {
            translation,
            rotation,
            scale,
        } => {
            let t = Vec3::from(translation);
            let r = Quat::from_array(rotation);
            let s = Vec3::from(scale);
            if !(t.is_finite() && r.is_finite() && s.is_finite()) {
                return Err(format!("{}: transform contains NaN or infinity", label()));
            }
            if r.length() < 1e-6 {
                return Err(format!("{}: rotation is a zero quaternion", label()));
            }
            let trs = Transform {
                translation: t,
                // As written (players use node rotations as they are); zero was refused above.
                rotation: r,
                scale: s,
            };
            Ok((trs.to_mat4(), trs, true))
        }
    }
}

/// Builds the hierarchy of `scene`, rejecting cycles and nodes with two parents.
pub(super) fn hierarchy(
    doc: &gltf::Document,
    scene: &gltf::Scene,
    warnings: &mut Vec<String>,
) -> Result<Hierarchy, String> {
    let n = doc.nodes().count();
    let mut parent = vec![None; n];
    let mut local = vec![Mat4::IDENTITY; n];
    let mut local_trs = vec![Transform::IDENTITY; n];
    for node in doc.nodes() {
        for child in node.children() {
            if let Some(p) = parent[child.index()] {
                return Err(format!(
                    "{} is a child of both node {p} and node {}",
                    node_label(doc, child.index()),
                    node.index()
                ));
            }
            parent[child.index()] = Some(node.index());
        }
        let (m, trs, exact) = local_transform(&node)?;
        if !exact {
            warnings.push(format!(
                "{}: its matrix has shear, which a joint's translation/rotation/scale cannot represent exactly",
                node_label(doc, node.index())
            ));
        }
        local[node.index()] = m;
        local_trs[node.index()] = trs;
    }
    let mut order = Vec::new();
    let mut seen = vec![false; n];
    let mut world = vec![Mat4::IDENTITY; n];
    let mut stack: Vec<usize> = scene.nodes().map(|r| r.index()).collect();
    stack.reverse();
    for root in scene.nodes() {
        if parent[root.index()].is_some() {
            return Err(format!(
                "scene {}: root {} is also the child of another node",
                scene.index(),
                node_label(doc, root.index())
            ));
        }
    }
    while let Some(i) = stack.pop() {
        if seen[i] {
            return Err(format!(
                "{} is reached twice from the scene (a cycle in the node hierarchy)",
                node_label(doc, i)
            ));
        }
        seen[i] = true;
        order.push(i);
        world[i] = match parent[i] {
            Some(p) => world[p] * local[i],
            None => local[i],
        };
        // `nth` is safe: the index came from validated children lists.
        if let Some(node) = doc.nodes().nth(i) {
            let children: Vec<usize> = node.children().map(|c| c.index()).collect();
            stack.extend(children.into_iter().rev());
        }
    }
    Ok(Hierarchy {
        parent,
        order,
        local,
        local_trs,
        world,
    })
}

/// The joints chosen from the scene and how glTF nodes map onto them.
pub(super) struct Joints {
    /// glTF node of each joint, in joint (parents-first) order.
    pub nodes: Vec<usize>,
    /// Joint index of each document node, if it is a joint.
    pub of_node: Vec<Option<usize>>,
    /// The skeleton, before validation.
    pub raw: RawSkeleton,
    /// Per skin (by glTF index; empty for skins outside the scene): the skeleton joint of
    /// each of its joints.
    pub skin_maps: Vec<Vec<usize>>,
    /// Per joint: whether it is a joint of a glTF skin (rather than an animated ancestor, a node
    /// between joints, a static prop or a per-skin alias, which throng adds).
    pub in_skin: Vec<bool>,
}

/// Chooses the joints: every joint of every skin used in the scene; every animated node above a
/// joint or a mesh; every node between two joints; and each mesh node that has no joint above
/// it (so static props still hang from a joint). Other ancestors are static and fold into the
/// root bases.
pub(super) fn choose_joints(
    src: &Source,
    h: &Hierarchy,
    animated: &[bool],
) -> Result<Joints, String> {
    let doc = src.doc;
    let n = h.parent.len();
    let mut in_scene = vec![false; n];
    for &i in &h.order {
        in_scene[i] = true;
    }
    let skins_used = skins_used(doc, h, &in_scene);
    let is_joint = mark_joints(doc, h, animated, &in_scene, &skins_used)?;

    let nodes: Vec<usize> = h.order.iter().copied().filter(|i| is_joint[*i]).collect();
    let mut of_node = vec![None; n];
    for (j, &node) in nodes.iter().enumerate() {
        of_node[node] = Some(j);
    }
    let raw = skeleton_of(doc, h, &nodes, &of_node);
    let binds = bind_skins(src, &skins_used, &of_node, raw)?;
    let mut nodes = nodes;
    nodes.extend(binds.nodes_of_aliases);
    Ok(Joints {
        nodes,
        of_node,
        raw: binds.raw,
        skin_maps: binds.skin_maps,
        in_skin: binds.in_skin,
    })
}

/// Which skins count, by glTF index. Skins used by a mesh of the scene must lie in it; unused
/// skins count when they do (their joints are posed like any player would), and are ignored
/// otherwise. A step of its own because both the joint choice and the inverse binds follow it.
fn skins_used(doc: &gltf::Document, h: &Hierarchy, in_scene: &[bool]) -> Vec<bool> {
    let mut skins_used = vec![false; doc.skins().count()];
    for &i in &h.order {
        let Some(node) = doc.nodes().nth(i) else {
            continue;
        };
        if let (Some(skin), Some(_)) = (node.skin(), node.mesh()) {
            skins_used[skin.index()] = true;
        }
    }
    for skin in doc.skins() {
        if !skins_used[skin.index()] && skin.joints().all(|j| in_scene[j.index()]) {
            skins_used[skin.index()] = true;
        }
    }
    skins_used
}

/// Marks, per document node, whether it becomes a joint, by the rules of [`choose_joints`]
/// applied in order (each rule sees the joints the earlier ones chose).
///
/// # Errors
/// A joint of a used skin that is not part of the scene.
fn mark_joints(
    doc: &gltf::Document,
    h: &Hierarchy,
    animated: &[bool],
    in_scene: &[bool],
    skins_used: &[bool],
) -> Result<Vec<bool>, String> {
    let mut is_joint = vec![false; h.parent.len()];
    for skin in doc.skins().filter(|s| skins_used[s.index()]) {
        for joint in skin.joints() {
            if !in_scene[joint.index()] {
                return Err(format!(
                    "skin {}: joint {} is not part of the scene",
                    skin.index(),
                    node_label(doc, joint.index())
                ));
            }
            is_joint[joint.index()] = true;
        }
    }
    let has_mesh = |i: usize| doc.nodes().nth(i).is_some_and(|nd| nd.mesh().is_some());
    // Each rule is one pass over the scene's nodes (parents first, or children first in
    // reverse), never a walk up every node's ancestors: that is quadratic in the depth, and a
    // hostile chain of 200,000 nodes took minutes.
    //
    // Animated nodes above (or at) a joint or a mesh move what is drawn: they must be joints.
    // `carries[i]`: node `i` or a node below it is a joint (of a skin) or has a mesh.
    let mut carries: Vec<bool> = (0..is_joint.len())
        .map(|i| is_joint[i] || has_mesh(i))
        .collect();
    for &i in h.order.iter().rev() {
        if let (true, Some(p)) = (carries[i], h.parent[i]) {
            carries[p] = true;
        }
    }
    for &i in &h.order {
        if carries[i] && animated[i] {
            is_joint[i] = true;
        }
    }
    // Nodes between two joints carry transforms down the chain: make them joints too. A node
    // is between two joints when a joint lies above it and another below it.
    let mut below = vec![false; is_joint.len()];
    for &i in h.order.iter().rev() {
        if let (true, Some(p)) = (below[i] || is_joint[i], h.parent[i]) {
            below[p] = true;
        }
    }
    let mut above = vec![false; is_joint.len()];
    for &i in &h.order {
        above[i] = h.parent[i].is_some_and(|p| above[p] || is_joint[p]);
    }
    for &i in &h.order {
        if above[i] && below[i] {
            is_joint[i] = true;
        }
    }
    // A mesh without a skin and without a joint above it becomes its own (static) joint; a
    // mesh below it then has one.
    for &i in &h.order {
        above[i] = h.parent[i].is_some_and(|p| above[p] || is_joint[p]);
        let unskinned = doc
            .nodes()
            .nth(i)
            .is_some_and(|nd| nd.mesh().is_some() && nd.skin().is_none());
        if unskinned && !is_joint[i] && !above[i] {
            is_joint[i] = true;
        }
    }
    Ok(is_joint)
}

/// The raw skeleton of the chosen joint `nodes` (parents-first): names, parents, rest
/// transforms and root bases. Inverse binds are left empty for [`bind_skins`], which may also
/// add alias joints.
fn skeleton_of(
    doc: &gltf::Document,
    h: &Hierarchy,
    nodes: &[usize],
    of_node: &[Option<usize>],
) -> RawSkeleton {
    let mut raw = RawSkeleton::default();
    // The nearest joint above each node, parents first (one pass rather than a walk up from
    // every joint).
    let mut joint_above: Vec<Option<usize>> = vec![None; h.parent.len()];
    for &i in &h.order {
        joint_above[i] = h.parent[i].and_then(|p| of_node[p].or(joint_above[p]));
    }
    for &node in nodes {
        raw.names.push(
            doc.nodes()
                .nth(node)
                .and_then(|nd| nd.name().map(str::to_string))
                .unwrap_or_else(|| format!("node_{node}")),
        );
        let parent_joint = joint_above[node];
        raw.parents.push(parent_joint);
        raw.rest.push(h.local_trs[node]);
        raw.root_bases.push(match (parent_joint, h.parent[node]) {
            (None, Some(p)) => h.world[p],
            _ => Mat4::IDENTITY,
        });
    }
    raw
}

/// What [`bind_skins`] adds to the skeleton.
struct SkinBinds {
    /// The skeleton with inverse binds and any alias joints.
    raw: RawSkeleton,
    /// The glTF node of each alias joint, in alias order.
    nodes_of_aliases: Vec<usize>,
    /// As [`Joints::skin_maps`].
    skin_maps: Vec<Vec<usize>>,
    /// As [`Joints::in_skin`], aliases included.
    in_skin: Vec<bool>,
}

/// Inverse binds: the first skin that lists a joint defines it. A later skin whose inverse
/// bind for that joint differs (meshes bound in different bind poses) gets an alias joint: a
/// child of the joint with an identity transform, so it moves exactly with it, carrying that
/// skin's inverse bind. Joints in no skin have an identity inverse bind: rigid parts then
/// keep their node-to-joint offset in the vertices, even for a joint scaled to zero at rest.
///
/// # Errors
/// An unreadable, too short or non-finite inverse-bind accessor.
fn bind_skins(
    src: &Source,
    skins_used: &[bool],
    of_node: &[Option<usize>],
    mut raw: RawSkeleton,
) -> Result<SkinBinds, String> {
    let doc = src.doc;
    let mut nodes_of_aliases = Vec::new();
    let mut ibm: Vec<Option<Mat4>> = vec![None; raw.names.len()];
    let mut in_skin = vec![false; raw.names.len()];
    let mut skin_maps = vec![Vec::new(); doc.skins().count()];
    for skin in doc.skins().filter(|s| skins_used[s.index()]) {
        let joints: Vec<usize> = skin.joints().map(|j| j.index()).collect();
        let mats = inverse_binds(src, &skin, joints.len())?;
        let mut map = Vec::with_capacity(joints.len());
        for (k, (&node, m)) in joints.iter().zip(&mats).enumerate() {
            if !m.is_finite() {
                return Err(format!(
                    "skin {}, joint {k} ({}): inverse bind matrix is not finite",
                    skin.index(),
                    node_label(doc, node)
                ));
            }
            // Joints are chosen from the skins above, so every skin joint has an index.
            let Some(j) = of_node[node] else { continue };
            in_skin[j] = true;
            match ibm[j] {
                None => {
                    ibm[j] = Some(*m);
                    map.push(j);
                }
                // Same bind within f32 noise, relative to the matrix's magnitude.
                Some(existing) if existing.abs_diff_eq(*m, 1e-5 * magnitude(&existing)) => {
                    map.push(j)
                }
                Some(_) => {
                    let alias = raw.names.len();
                    raw.names
                        .push(format!("{}@skin{}", raw.names[j], skin.index()));
                    raw.parents.push(Some(j));
                    raw.rest.push(Transform::IDENTITY);
                    raw.root_bases.push(Mat4::IDENTITY);
                    ibm.push(Some(*m));
                    in_skin.push(false);
                    nodes_of_aliases.push(node);
                    map.push(alias);
                }
            }
        }
        skin_maps[skin.index()] = map;
    }
    raw.inverse_bind = ibm
        .into_iter()
        .map(|m| m.unwrap_or(Mat4::IDENTITY))
        .collect();
    Ok(SkinBinds {
        raw,
        nodes_of_aliases,
        skin_maps,
        in_skin,
    })
}

/// The inverse bind matrices of `skin` (`joint_count` of them; identities when the skin has
/// none), read and checked for length but not yet for finiteness.
fn inverse_binds(src: &Source, skin: &gltf::Skin, joint_count: usize) -> Result<Vec<Mat4>, String> {
    Ok(match skin.inverse_bind_matrices() {
        Some(acc) => {
            let what = format!("inverse bind matrices of skin {}", skin.index());
            let d = src.floats(&acc, &what, &[Dimensions::Mat4])?;
            if d.count() < joint_count {
                return Err(format!(
                    "accessor {} ({what}) has {} matrices, the skin has {} joints",
                    acc.index(),
                    d.count(),
                    joint_count
                ));
            }
            d.values
                .chunks_exact(16)
                .map(Mat4::from_cols_slice)
                .collect()
        }
        None => vec![Mat4::IDENTITY; joint_count],
    })
}
