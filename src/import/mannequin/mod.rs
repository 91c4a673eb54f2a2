//! The built-in mannequin: a deterministic, procedurally generated low-poly humanoid with 19
//! joints, a smooth skinned body and four looping clips (idle, walk, run, wave), written as a
//! GLB by [`generate_glb`]. `assets/mannequin.glb` is this function's output, committed.
//!
//! Its node rest pose is its bind pose, so with no clip applied every skinning matrix is
//! identity. Walk and run play in place at [`WALK_SPEED`] and [`RUN_SPEED`]: during stance a
//! foot slides backwards at exactly that speed, so it stays planted when the character moves.
//!
//! [`generate_variant`] writes variants of it made the way Mixamo-style tools export characters
//! ([`Variant`]: Mixamo's names, centimetres, end joints, a seam, drift, root motion, facing −z,
//! other speeds and strides), as test characters for what users bring.

mod body;
mod glb;
mod motion;
mod rig;
mod variant;

use glam::Mat4;
use serde_json::{Value, json};

pub use variant::{
    DRIFT, LARGE_SEAM, LOW_STEP, MIXAMO_NAMES, MIXAMO_PREFIX, Naming, RUN_ARM_SWING, RUN_SPEED,
    SEAM_ARM_SWING, SMALL_SEAM, VARIANTS, Variant, VariantError, WALK_SPEED, WALK_STEP_HEIGHT,
};

use variant::Rig;

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
    write(&Variant::default())
}

/// Generates `variant` of the mannequin as GLB bytes (see [`Variant`]). Deterministic: the same
/// bytes for the same variant on every run; [`Variant::default`] gives [`generate_glb`]'s.
///
/// # Errors
/// [`VariantError::OutOfRange`] when a number of `variant` is outside its range
/// ([`Variant::check`]).
pub fn generate_variant(variant: &Variant) -> Result<Vec<u8>, VariantError> {
    variant.check()?;
    Ok(write(variant))
}

/// The GLB of `v`, whose numbers are in range.
fn write(v: &Variant) -> Vec<u8> {
    let rig = Rig::new(v);
    let body = body::build();
    let mut b = glb::Builder::default();

    let positions: Vec<[f32; 3]> = body
        .positions
        .iter()
        .map(|p| v.place(*p).to_array())
        .collect();
    let normals: Vec<[f32; 3]> = body.normals.iter().map(|n| v.turn(*n).to_array()).collect();
    let uvs: Vec<[f32; 2]> = body.uvs.iter().map(|p| p.to_array()).collect();
    let (joints, weights): (Vec<[u8; 4]>, Vec<[u8; 4]>) = body
        .influences
        .iter()
        .zip(&body.positions)
        .map(|(i, p)| quantise(&rig.influences(*p, i)))
        .unzip();
    let indices: Vec<u16> = body.indices.iter().map(|&i| i as u16).collect();

    let a_pos = b.floats(&positions, "VEC3", Some(34962), true);
    let a_nrm = b.floats(&normals, "VEC3", Some(34962), false);
    let a_uv = b.floats(&uvs, "VEC2", Some(34962), false);
    let a_joints = b.bytes4(&joints, false);
    let a_weights = b.bytes4(&weights, true);
    let a_idx = b.indices(&indices);

    // Bind pose = rest pose: the inverse bind matrix undoes the joint's rest position.
    let ibms: Vec<[f32; 16]> = rig
        .joints
        .iter()
        .map(|j| Mat4::from_translation(-v.place(j.position)).to_cols_array())
        .collect();
    let a_ibm = b.floats(&ibms, "MAT4", None, false);

    // Node 0 holds the mesh; node 1 + j is joint j of the rig; an Armature node comes last.
    let mut nodes = vec![json!({"name": "mannequin", "mesh": 0, "skin": 0})];
    for (j, joint) in rig.joints.iter().enumerate() {
        let children: Vec<usize> = (0..rig.joints.len())
            .filter(|&c| rig.joints[c].parent == Some(j))
            .map(|c| c + 1)
            .collect();
        let mut node =
            json!({"name": joint.name, "translation": v.place(rig.local_offset(j)).to_array()});
        if !children.is_empty() {
            node["children"] = json!(children);
        }
        nodes.push(node);
    }
    let mut scene_nodes = vec![0, 1];
    if v.centimetres {
        // Lengths are in centimetres; the root scales them to metres, as Mixamo exports do.
        nodes.push(json!({"name": "Armature", "children": [0, 1], "scale": [0.01, 0.01, 0.01]}));
        scene_nodes = vec![nodes.len() - 1];
    }

    let mut animations = Vec::new();
    for clip in motion::clips(v) {
        let times: Vec<[f32; 1]> = clip.times.iter().map(|t| [*t]).collect();
        let input = b.floats(&times, "SCALAR", None, true);
        let mut samplers = Vec::new();
        let mut channels = Vec::new();
        let mut add = |node: usize, path: &str, output: usize| {
            samplers.push(json!({"input": input, "output": output, "interpolation": "LINEAR"}));
            channels.push(
                json!({"sampler": samplers.len() - 1, "target": {"node": node, "path": path}}),
            );
        };
        if let Some(t) = &clip.hips_translation {
            let values: Vec<[f32; 3]> = t.iter().map(|p| v.place(*p).to_array()).collect();
            let out = b.floats(&values, "VEC3", None, false);
            add(1 + rig.of[rig::idx::HIPS], "translation", out);
        }
        for (joint, rotations) in &clip.rotations {
            let values: Vec<[f32; 4]> = rotations
                .iter()
                .map(|q| v.turn_rotation(*q).to_array())
                .collect();
            let out = b.floats(&values, "VEC4", None, false);
            add(1 + rig.of[*joint], "rotation", out);
        }
        animations.push(json!({"name": clip.name, "samplers": samplers, "channels": channels}));
    }

    let root: Value = json!({
        "asset": {"version": "2.0", "generator": concat!("throng ", env!("CARGO_PKG_VERSION"), " mannequin generator")},
        "scene": 0,
        "scenes": [{"name": "mannequin", "nodes": scene_nodes}],
        "nodes": nodes,
        "meshes": [{"name": "mannequin", "primitives": [{
            "attributes": {"POSITION": a_pos, "NORMAL": a_nrm, "TEXCOORD_0": a_uv, "JOINTS_0": a_joints, "WEIGHTS_0": a_weights},
            "indices": a_idx,
            "material": 0
        }]}],
        "materials": [{"name": "mannequin", "pbrMetallicRoughness": {"baseColorFactor": [0.72, 0.74, 0.78, 1.0], "metallicFactor": 0.0, "roughnessFactor": 0.7}}],
        "skins": [{"name": "mannequin", "joints": (1..=rig.joints.len()).collect::<Vec<_>>(), "inverseBindMatrices": a_ibm, "skeleton": 1}],
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
