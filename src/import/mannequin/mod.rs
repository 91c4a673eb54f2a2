//! The built-in mannequin: a deterministic, procedurally generated low-poly humanoid with 19
//! joints, a smooth skinned body and four looping clips (idle, walk, run, wave), written as a
//! GLB by [`generate_glb`]. `assets/mannequin.glb` is this function's output, committed.
//!
//! Its node rest pose is its bind pose, so with no clip applied every skinning matrix is
//! identity. Walk and run play in place at [`WALK_SPEED`] and [`RUN_SPEED`]: during stance a
//! foot slides backwards at exactly that speed, so it stays planted when the character moves.

mod body;
mod glb;
mod motion;
mod rig;

use glam::{Mat4, Vec3};
use serde_json::{Value, json};

pub use motion::{RUN_SPEED, WALK_SPEED};

/// Names of the mannequin's clips, in file order.
pub const CLIP_NAMES: [&str; 4] = ["idle", "walk", "run", "wave"];

/// Quantises weights to normalised bytes that sum to exactly 255 (largest first, so the
/// rounding remainder goes to the dominant joint).
fn quantise(influences: &[(usize, f32)]) -> ([u8; 4], [u8; 4]) {
    let mut list: Vec<(usize, f32)> = influences.to_vec();
    list.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    list.truncate(4);
    let sum: f32 = list.iter().map(|x| x.1).sum();
    let mut joints = [0u8; 4];
    let mut weights = [0u8; 4];
    let mut used = 0u32;
    for (k, (j, w)) in list.iter().enumerate().skip(1) {
        let q = (w / sum * 255.0).round() as u32;
        joints[k] = *j as u8;
        weights[k] = q as u8;
        used += q;
    }
    joints[0] = list[0].0 as u8;
    weights[0] = (255 - used) as u8;
    // The validator wants unused slots to be joint 0 with weight 0.
    for k in 1..4 {
        if weights[k] == 0 {
            joints[k] = 0;
        }
    }
    (joints, weights)
}

/// Generates the mannequin as GLB bytes. Deterministic: the same bytes on every run.
pub fn generate_glb() -> Vec<u8> {
    let body = body::build();
    let mut b = glb::Builder::default();

    let positions: Vec<[f32; 3]> = body.positions.iter().map(|p| p.to_array()).collect();
    let normals: Vec<[f32; 3]> = body.normals.iter().map(|p| p.to_array()).collect();
    let uvs: Vec<[f32; 2]> = body.uvs.iter().map(|p| p.to_array()).collect();
    let (joints, weights): (Vec<[u8; 4]>, Vec<[u8; 4]>) =
        body.influences.iter().map(|i| quantise(i)).unzip();
    let indices: Vec<u16> = body.indices.iter().map(|&i| i as u16).collect();

    let a_pos = b.floats(&positions, "VEC3", Some(34962), true);
    let a_nrm = b.floats(&normals, "VEC3", Some(34962), false);
    let a_uv = b.floats(&uvs, "VEC2", Some(34962), false);
    let a_joints = b.bytes4(&joints, false);
    let a_weights = b.bytes4(&weights, true);
    let a_idx = b.indices(&indices);

    // Bind pose = rest pose: the inverse bind matrix undoes the joint's rest position.
    let ibms: Vec<[f32; 16]> = rig::JOINTS
        .iter()
        .map(|j| Mat4::from_translation(-j.position).to_cols_array())
        .collect();
    let a_ibm = b.floats(&ibms, "MAT4", None, false);

    // Node 0 holds the mesh; node 1 + j is joint j.
    let mut nodes = vec![json!({"name": "mannequin", "mesh": 0, "skin": 0})];
    for (j, def) in rig::JOINTS.iter().enumerate() {
        let children: Vec<usize> = (0..rig::JOINTS.len())
            .filter(|&c| rig::JOINTS[c].parent == Some(j))
            .map(|c| c + 1)
            .collect();
        let mut node = json!({"name": def.name, "translation": rig::local_offset(j).to_array()});
        if !children.is_empty() {
            node["children"] = json!(children);
        }
        nodes.push(node);
    }

    let mut animations = Vec::new();
    for clip in motion::clips() {
        let times: Vec<[f32; 1]> = clip.times.iter().map(|t| [*t]).collect();
        let input = b.floats(&times, "SCALAR", None, true);
        let mut samplers = Vec::new();
        let mut channels = Vec::new();
        let mut add = |b: &mut glb::Builder, node: usize, path: &str, output: usize| {
            samplers.push(json!({"input": input, "output": output, "interpolation": "LINEAR"}));
            channels.push(
                json!({"sampler": samplers.len() - 1, "target": {"node": node, "path": path}}),
            );
            let _ = b;
        };
        if let Some(t) = &clip.hips_translation {
            let values: Vec<[f32; 3]> = t.iter().map(|v: &Vec3| v.to_array()).collect();
            let out = b.floats(&values, "VEC3", None, false);
            add(&mut b, 1 + rig::idx::HIPS, "translation", out);
        }
        for (joint, rotations) in &clip.rotations {
            let values: Vec<[f32; 4]> = rotations.iter().map(|q| q.to_array()).collect();
            let out = b.floats(&values, "VEC4", None, false);
            add(&mut b, 1 + joint, "rotation", out);
        }
        animations.push(json!({"name": clip.name, "samplers": samplers, "channels": channels}));
    }

    let root: Value = json!({
        "asset": {"version": "2.0", "generator": concat!("throng ", env!("CARGO_PKG_VERSION"), " mannequin generator")},
        "scene": 0,
        "scenes": [{"name": "mannequin", "nodes": [0, 1]}],
        "nodes": nodes,
        "meshes": [{"name": "mannequin", "primitives": [{
            "attributes": {"POSITION": a_pos, "NORMAL": a_nrm, "TEXCOORD_0": a_uv, "JOINTS_0": a_joints, "WEIGHTS_0": a_weights},
            "indices": a_idx,
            "material": 0
        }]}],
        "materials": [{"name": "mannequin", "pbrMetallicRoughness": {"baseColorFactor": [0.72, 0.74, 0.78, 1.0], "metallicFactor": 0.0, "roughnessFactor": 0.7}}],
        "skins": [{"name": "mannequin", "joints": (1..=rig::JOINTS.len()).collect::<Vec<_>>(), "inverseBindMatrices": a_ibm, "skeleton": 1}],
        "animations": animations,
    });
    b.finish(root)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantised_weights_sum_to_255() {
        for inf in [
            vec![(3, 0.3), (4, 0.3), (5, 0.4)],
            vec![(1, 1.0)],
            vec![(0, 0.5), (2, 0.25), (7, 0.25)],
        ] {
            let (j, w) = quantise(&inf);
            assert_eq!(
                w.iter().map(|x| u32::from(*x)).sum::<u32>(),
                255,
                "{inf:?} -> {j:?} {w:?}"
            );
        }
        let (j, w) = quantise(&[(3, 0.3), (4, 0.3), (5, 0.4)]);
        assert_eq!(j, [5, 3, 4, 0]);
        // 0.3 * 255 = 76.5 rounds up for both; the dominant joint takes the remainder.
        assert_eq!(w, [101, 77, 77, 0]);
    }

    #[test]
    fn generation_is_deterministic() {
        assert_eq!(generate_glb(), generate_glb());
    }
}
