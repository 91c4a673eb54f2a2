//! glTF features the real test models do not exercise, on small files built here: sparse
//! accessors, normalised integer animation outputs, quantised positions (KHR_mesh_quantization),
//! eight influences reduced to four, rigid meshes under joints and folded scene-root transforms.

use crate::common;

use glam::{Mat4, Quat, Vec3};
use serde_json::json;
use throng::anim::{Transform, local_to_model, sample, skinning_matrices};
use throng::import::{ImportOptions, Model, load};

fn import(tag: &str, json: &serde_json::Value) -> Model {
    let path = common::write_gltf(tag, "model.gltf", json);
    load(&path, &ImportOptions::default()).unwrap_or_else(|e| panic!("{e}"))
}

/// Skinned positions of every mesh at time `t` of clip 0 (or at rest when there are no clips).
fn skinned(m: &Model, t: f32) -> Vec<Vec<Vec3>> {
    let n = m.skeleton.len();
    let mut local = m.skeleton.rest().to_vec();
    if let Some(clip) = m.clips.first() {
        sample(clip, &m.skeleton, t, &mut local);
    }
    let mut world = vec![Mat4::IDENTITY; n];
    let mut skin = vec![Mat4::IDENTITY; n];
    local_to_model(&m.skeleton, &local, &mut world);
    skinning_matrices(&m.skeleton, &world, &mut skin);
    m.meshes
        .iter()
        .map(|mm| {
            let (mut p, mut nr) = (Vec::new(), Vec::new());
            mm.mesh.skin(&skin, &mut p, &mut nr);
            p
        })
        .collect()
}

fn le<T: Copy, const N: usize>(values: &[T], f: impl Fn(T) -> [u8; N]) -> Vec<u8> {
    values.iter().flat_map(|v| f(*v)).collect()
}

/// Appends `data` to the data-URI buffer of a test model as a new buffer view; returns its index.
fn append_view(j: &mut serde_json::Value, data: &[u8]) -> usize {
    use base64::Engine;
    let engine = base64::engine::general_purpose::STANDARD;
    let uri = j["buffers"][0]["uri"].as_str().unwrap().to_string();
    let mut bytes = engine
        .decode(uri.split_once(";base64,").unwrap().1)
        .unwrap();
    while !bytes.len().is_multiple_of(4) {
        bytes.push(0);
    }
    let at = bytes.len();
    bytes.extend_from_slice(data);
    j["buffers"][0]["byteLength"] = json!(bytes.len());
    j["buffers"][0]["uri"] = json!(format!(
        "data:application/octet-stream;base64,{}",
        engine.encode(&bytes)
    ));
    let views = j["bufferViews"].as_array_mut().unwrap();
    views.push(json!({"buffer": 0, "byteOffset": at, "byteLength": data.len()}));
    views.len() - 1
}

/// Appends an accessor of `count` elements of `ty` over new data; returns its index.
fn append_accessor(
    j: &mut serde_json::Value,
    data: &[u8],
    component: u32,
    count: usize,
    ty: &str,
) -> usize {
    let view = append_view(j, data);
    let accessors = j["accessors"].as_array_mut().unwrap();
    accessors
        .push(json!({"bufferView": view, "componentType": component, "count": count, "type": ty}));
    accessors.len() - 1
}

#[test]
fn sparse_accessor_substitutes_values() {
    let mut j = common::one_channel_model(
        "translation",
        "LINEAR",
        &[0.0, 1.0],
        &[0.0, 1.0, 0.0, 0.0, 1.0, 0.0],
    );
    // Replace POSITION with a sparse accessor: zeros (no buffer view) except vertex 2 = (0, 5, 0).
    let indices_view = append_view(&mut j, &2u16.to_le_bytes());
    let values_view = append_view(&mut j, &le(&[0.0f32, 5.0, 0.0], f32::to_le_bytes));
    let pos_index = j["accessors"].as_array().unwrap().len();
    j["accessors"].as_array_mut().unwrap().push(json!({
        "componentType": 5126, "count": 3, "type": "VEC3", "min": [0.0, 0.0, 0.0], "max": [0.0, 5.0, 0.0],
        "sparse": {"count": 1, "indices": {"bufferView": indices_view, "componentType": 5123}, "values": {"bufferView": values_view}}
    }));
    j["meshes"][0]["primitives"][0]["attributes"]["POSITION"] = json!(pos_index);
    let m = import("sparse", &j);
    assert_eq!(
        m.meshes[0].mesh.positions,
        vec![Vec3::ZERO, Vec3::ZERO, Vec3::new(0.0, 5.0, 0.0)]
    );
}

#[test]
fn normalised_short_rotations_and_quantised_positions() {
    let mut g = common::TestGltf::default();
    // KHR_mesh_quantization: positions as plain (not normalised) i16, read by value.
    let pos = g.raw(
        &le(&[0i16, 1, 0, 0, 1, 0, 1, 1, 0], i16::to_le_bytes),
        5122,
        3,
        "VEC3",
        false,
    );
    let joints = g.joints_u8(&[[0, 0, 0, 0]; 3]);
    // Weights as normalised u8: 255 = 1.0.
    let weights = g.raw(
        &[255, 0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0],
        5121,
        3,
        "VEC4",
        true,
    );
    let input = g.floats(&[0.0, 1.0], "SCALAR");
    // Rotation keys as normalised i16: identity, then 90 degrees about Y (sin 45 = 0.7071).
    let s = (std::f32::consts::FRAC_1_SQRT_2 * 32767.0).round() as i16;
    let output = g.raw(
        &le(&[0i16, 0, 0, 32767, 0, s, 0, s], i16::to_le_bytes),
        5122,
        2,
        "VEC4",
        true,
    );
    let mut j = g.finish(json!({
        "extensionsUsed": ["KHR_mesh_quantization"],
        "extensionsRequired": ["KHR_mesh_quantization"],
        "scene": 0,
        "scenes": [{"nodes": [0, 1]}],
        "nodes": [{"mesh": 0, "skin": 0}, {"name": "root"}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": pos, "JOINTS_0": joints, "WEIGHTS_0": weights}}]}],
        "skins": [{"joints": [1]}],
        "animations": [{"samplers": [{"input": input, "output": output}], "channels": [{"sampler": 0, "target": {"node": 1, "path": "rotation"}}]}]
    }));
    j["accessors"][pos]["min"] = json!([0, 1, 0]);
    j["accessors"][pos]["max"] = json!([1, 1, 0]);
    let m = import("quantised", &j);
    assert_eq!(m.meshes[0].mesh.positions[2], Vec3::new(1.0, 1.0, 0.0));
    let p = &skinned(&m, 1.0)[0];
    // (1, 1, 0) rotated 90 degrees about Y -> (0, 1, -1). The i16 key is used as written, as
    // glTF players do: |q| = 1 - 1e-5 after quantisation scales the rotation matrix by |q|^2,
    // so positions of length 1.4 are off by up to 3e-5; 5e-5 leaves margin.
    assert!(
        p[2].abs_diff_eq(Vec3::new(0.0, 1.0, -1.0), 5e-5),
        "{}",
        p[2]
    );
}

#[test]
fn eight_influences_keep_the_four_largest() {
    let mut j = common::one_channel_model(
        "translation",
        "LINEAR",
        &[0.0, 1.0],
        &[0.0, 1.0, 0.0, 0.0, 1.0, 0.0],
    );
    // Set 0: joints (0, 1), weights (0.1, 0.2); set 1: joints (1, 0), weights (0.3, 0.4).
    let j0 = append_accessor(&mut j, &[0u8, 1, 0, 0].repeat(3), 5121, 3, "VEC4");
    let w0 = append_accessor(
        &mut j,
        &le(&[0.1f32, 0.2, 0.0, 0.0].repeat(3), f32::to_le_bytes),
        5126,
        3,
        "VEC4",
    );
    let j1 = append_accessor(&mut j, &[1u8, 0, 0, 0].repeat(3), 5121, 3, "VEC4");
    let w1 = append_accessor(
        &mut j,
        &le(&[0.3f32, 0.4, 0.0, 0.0].repeat(3), f32::to_le_bytes),
        5126,
        3,
        "VEC4",
    );
    let attrs = &mut j["meshes"][0]["primitives"][0]["attributes"];
    attrs["JOINTS_0"] = json!(j0);
    attrs["WEIGHTS_0"] = json!(w0);
    attrs["JOINTS_1"] = json!(j1);
    attrs["WEIGHTS_1"] = json!(w1);
    let m = import("eight", &j);
    let mesh = &m.meshes[0].mesh;
    let (root, child) = (
        m.skeleton.find("root").unwrap() as u16,
        m.skeleton.find("child").unwrap() as u16,
    );
    // Influences: root 0.1 + child 0.2 (set 0), child 0.3 + root 0.4 (set 1); kept largest first
    // and renormalised over their sum 1.0.
    assert_eq!(mesh.joints[0], [root, child, child, root]);
    let expected = [0.4, 0.3, 0.2, 0.1];
    for (a, b) in mesh.weights[0].iter().zip(expected) {
        assert!((a - b).abs() < 1e-6, "{:?}", mesh.weights[0]);
    }
}

#[test]
fn rigid_meshes_and_scene_root_transforms() {
    // scene root (non-joint, scaled x2, moved +10 in X) -> joint "arm" (animated rotation)
    //   -> static node "holder" (+1 in Y) -> mesh node "prop" (a triangle, no skin).
    let mut g = common::TestGltf::default();
    let pos = g.floats(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0], "VEC3");
    let input = g.floats(&[0.0, 1.0], "SCALAR");
    let q = Quat::from_rotation_z(std::f32::consts::FRAC_PI_2);
    let output = g.floats(&[0.0, 0.0, 0.0, 1.0, q.x, q.y, q.z, q.w], "VEC4");
    let j = g.finish(json!({
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": [
            {"name": "scene_root", "children": [1], "translation": [10.0, 0.0, 0.0], "scale": [2.0, 2.0, 2.0]},
            {"name": "arm", "children": [2]},
            {"name": "holder", "children": [3], "translation": [0.0, 1.0, 0.0]},
            {"name": "prop", "mesh": 0}
        ],
        "meshes": [{"primitives": [{"attributes": {"POSITION": pos}}]}],
        "animations": [{"name": "swing", "samplers": [{"input": input, "output": output}], "channels": [{"sampler": 0, "target": {"node": 1, "path": "rotation"}}]}]
    }));
    let m = import("rigid", &j);
    // "arm" is animated above a mesh: a joint; "scene_root" is static: folded into the base.
    let names: Vec<&str> = m.skeleton.names().iter().map(String::as_str).collect();
    assert_eq!(names, ["arm"]);
    assert!(m.meshes[0].mesh.rigid);
    // At rest: world = T(10,0,0) S(2) * T(0,1,0) * v -> vertex 1 (1,0,0) at (12, 2, 0).
    let rest = &skinned(&m, 0.0)[0];
    assert!(
        rest[1].abs_diff_eq(Vec3::new(12.0, 2.0, 0.0), 1e-5),
        "{}",
        rest[1]
    );
    // At t = 1 the arm is turned 90 degrees about Z: (1, 1, 0) in arm space -> (-1, 1, 0),
    // scaled by 2 and moved: (8, 2, 0).
    let turned = &skinned(&m, 1.0)[0];
    assert!(
        turned[1].abs_diff_eq(Vec3::new(8.0, 2.0, 0.0), 1e-5),
        "{}",
        turned[1]
    );
    // The arm's world matrix includes the folded scene-root transform.
    let mut world = vec![Mat4::IDENTITY; 1];
    local_to_model(&m.skeleton, &[Transform::IDENTITY], &mut world);
    assert!(world[0].abs_diff_eq(
        Mat4::from_scale_rotation_translation(Vec3::splat(2.0), Quat::IDENTITY, Vec3::X * 10.0),
        1e-6
    ));
}

#[test]
fn skins_bound_in_different_poses_get_alias_joints() {
    // Two meshes skinned to the same joint "arm" (1 m up from "root"), bound in different bind
    // poses: skin 0 at the rest pose (inverse bind = translate(0, -1, 0)), skin 1 with inverse
    // bind translate(-1, 0, 0). Each mesh must follow its own skin's matrix.
    let mut g = common::TestGltf::default();
    let tri = [0.0f32, 0.0, 0.0, 0.1, 0.0, 0.0, 0.0, 0.1, 0.0];
    let pos_a = g.floats(&tri, "VEC3");
    let pos_b = g.floats(&tri, "VEC3");
    let joints = g.joints_u8(&[[1, 0, 0, 0]; 3]);
    let joints_b = g.joints_u8(&[[0, 0, 0, 0]; 3]);
    let weights = g.floats(&[1.0, 0.0, 0.0, 0.0].repeat(3), "VEC4");
    let identity = [
        1.0f32, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0,
    ];
    let ibm_a = g.floats(
        &[
            &identity[..],
            &[0.0, 0.0, 0.0, 1.0],
            &identity[..],
            &[0.0, -1.0, 0.0, 1.0],
        ]
        .concat(),
        "MAT4",
    );
    let ibm_b = g.floats(&[&identity[..], &[-1.0, 0.0, 0.0, 1.0]].concat(), "MAT4");
    let j = g.finish(json!({
        "scene": 0,
        "scenes": [{"nodes": [0, 1, 2]}],
        "nodes": [
            {"name": "a", "mesh": 0, "skin": 0},
            {"name": "b", "mesh": 1, "skin": 1},
            {"name": "root", "children": [3]},
            {"name": "arm", "translation": [0.0, 1.0, 0.0]}
        ],
        "meshes": [
            {"primitives": [{"attributes": {"POSITION": pos_a, "JOINTS_0": joints, "WEIGHTS_0": weights}}]},
            {"primitives": [{"attributes": {"POSITION": pos_b, "JOINTS_0": joints_b, "WEIGHTS_0": weights}}]}
        ],
        "skins": [{"joints": [2, 3], "inverseBindMatrices": ibm_a}, {"joints": [3], "inverseBindMatrices": ibm_b}]
    }));
    let m = import("alias", &j);
    let names: Vec<&str> = m.skeleton.names().iter().map(String::as_str).collect();
    assert_eq!(names, ["root", "arm", "arm@skin1"]);
    assert_eq!(m.joint_in_skin, [true, true, false]);
    let rest = skinned(&m, 0.0);
    // Skin 0 at its bind pose: vertices stay put. Skin 1: arm's world (0, 1, 0) times its
    // inverse bind (-1, 0, 0) moves them by (-1, 1, 0).
    assert!(
        rest[0][1].abs_diff_eq(Vec3::new(0.1, 0.0, 0.0), 1e-6),
        "{}",
        rest[0][1]
    );
    assert!(
        rest[1][1].abs_diff_eq(Vec3::new(-0.9, 1.0, 0.0), 1e-6),
        "{}",
        rest[1][1]
    );
}

#[test]
fn triangle_strips_become_triangle_lists() {
    let mut j = common::one_channel_model(
        "translation",
        "LINEAR",
        &[0.0, 1.0],
        &[0.0, 1.0, 0.0, 0.0, 1.0, 0.0],
    );
    // Three vertices as a strip: one triangle; as a fan: one triangle too.
    for (mode, tag) in [(5, "strip"), (6, "fan")] {
        j["meshes"][0]["primitives"][0]["mode"] = json!(mode);
        let m = import(tag, &j);
        assert_eq!(m.meshes[0].mesh.indices, vec![0, 1, 2], "{tag}");
        assert!(m.warnings.is_empty(), "{:?}", m.warnings);
    }
}

#[test]
fn each_clip_names_the_gltf_animations_it_came_from() {
    use throng::import::MergeAnimations;
    // Two named animations: one clip each, in file order, each from its own animation.
    let mut j = common::one_channel_model(
        "translation",
        "LINEAR",
        &[0.0, 1.0],
        &[0.0, 1.0, 0.0, 0.0, 2.0, 0.0],
    );
    let mut second = j["animations"][0].clone();
    second["name"] = json!("again");
    j["animations"].as_array_mut().unwrap().push(second);
    let m = import("clip-sources", &j);
    assert_eq!(m.clip_sources, vec![vec![0], vec![1]]);
    // A merged clip came from every animation it merged (CesiumMan: 19 unnamed animations,
    // one per joint).
    let Some(path) = common::shared_asset("CesiumMan.glb") else {
        return;
    };
    let merged = load(&path, &ImportOptions::default()).unwrap();
    assert_eq!(merged.clips.len(), 1);
    assert_eq!(merged.clip_sources, vec![(0..19).collect::<Vec<_>>()]);
    let apart = load(
        &path,
        &ImportOptions {
            merge_animations: MergeAnimations::Never,
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(
        apart.clip_sources,
        (0..19).map(|i| vec![i]).collect::<Vec<_>>()
    );
}

#[test]
fn extras_of_any_json_type_are_accepted() {
    // glTF lets `extras` be any JSON value ("application-specific data"); throng reads none of
    // them, so none may refuse a file: on the root, on a node and on an animation.
    let base = common::one_channel_model(
        "translation",
        "LINEAR",
        &[0.0, 1.0],
        &[0.0, 1.0, 0.0, 0.0, 2.0, 0.0],
    );
    for extras in [
        json!(["an", "array"]),
        json!("text"),
        json!(7),
        json!(null),
        json!(true),
        json!({"a": [1, 2]}),
    ] {
        let mut j = base.clone();
        j["extras"] = extras.clone();
        j["nodes"][2]["extras"] = extras.clone();
        j["animations"][0]["extras"] = extras.clone();
        let m = import("extras", &j);
        assert_eq!(m.skeleton.len(), 2, "extras {extras}");
    }
}
