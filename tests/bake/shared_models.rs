//! The importer and the animation core against the real models:
//! - Fox and the mannequin are bound at their rest pose: with no clip applied every skinning
//!   matrix is identity and skinned positions equal the mesh's rest positions.
//! - For Fox, CesiumMan and RobotExpressive, at every keyframe time of every clip, each joint's
//!   world matrix equals the product of the keyed local transforms along its whole parent chain
//!   (up to the scene root), computed here independently with the `gltf` crate's own readers.

use crate::common;

use std::collections::HashMap;

use glam::{Mat4, Quat, Vec3};
use throng::anim::{Transform, local_to_model, sample, skinning_matrices};
use throng::import::{ImportOptions, Model, load};

fn rest_matrices(model: &Model) -> (Vec<Mat4>, Vec<Mat4>) {
    let n = model.skeleton.len();
    let mut world = vec![Mat4::IDENTITY; n];
    let mut skin = vec![Mat4::IDENTITY; n];
    local_to_model(&model.skeleton, model.skeleton.rest(), &mut world);
    skinning_matrices(&model.skeleton, &world, &mut skin);
    (world, skin)
}

fn assert_bound_at_rest(model: &Model) {
    let (world, skin) = rest_matrices(model);
    for (j, m) in skin.iter().enumerate() {
        let d = *m - Mat4::IDENTITY;
        let linear = [d.x_axis, d.y_axis, d.z_axis]
            .iter()
            .map(|c| c.abs().max_element())
            .fold(0.0f32, f32::max);
        let translation = d.w_axis.abs().max_element();
        // The linear part must be identity within 1e-5 (f32 products of ~10 rotation matrices
        // drift by a few ulps). The translation part is within 1e-5 of the joint's distance from
        // the origin: inverse binds are stored as f32, so a joint 100 units away (Fox is in
        // centimetres) cannot cancel its translation better than ulp(100) ~ 8e-6.
        let reach = world[j].w_axis.truncate().length().max(1.0);
        assert!(
            linear < 1e-5,
            "{}: joint {j} skinning matrix is not identity at rest (linear part off by {linear})",
            model.name
        );
        assert!(
            translation < 1e-5 * reach,
            "{}: joint {j} skinning matrix is not identity at rest (translation off by {translation}, joint at {reach})",
            model.name
        );
    }
    let (mut p, mut n) = (Vec::new(), Vec::new());
    let diag = model.bind_bounds().diagonal();
    for m in &model.meshes {
        m.mesh.skin(&skin, &mut p, &mut n);
        for (i, (a, b)) in p.iter().zip(&m.mesh.positions).enumerate() {
            // 1e-6 of the model size: one f32 matrix-vector product away from exact.
            assert!(
                a.distance(*b) <= 1e-6 * diag,
                "{}: {} vertex {i} moved at rest: {a} vs {b}",
                model.name,
                m.mesh.name
            );
        }
    }
}

#[test]
fn mannequin_is_bound_at_rest() {
    let model = load(&common::mannequin_path(), &ImportOptions::default()).unwrap();
    assert_bound_at_rest(&model);
}

#[test]
fn fox_is_bound_at_rest() {
    let Some(path) = common::shared_asset("Fox.glb") else {
        return;
    };
    assert_bound_at_rest(&load(&path, &ImportOptions::default()).unwrap());
}

/// The independent reference: node TRS from the document, channel keys from the gltf crate's
/// reader, world matrices by walking parent links to the scene root.
struct Reference {
    doc: gltf::Document,
    buffers: Vec<Vec<u8>>,
    parent: Vec<Option<usize>>,
}

type Track = (Vec<f32>, Vec<[f32; 4]>);

impl Reference {
    fn open(path: &std::path::Path) -> Self {
        let g = gltf::Gltf::open(path).unwrap();
        let mut parent = vec![None; g.document.nodes().count()];
        for node in g.document.nodes() {
            for c in node.children() {
                parent[c.index()] = Some(node.index());
            }
        }
        Self {
            buffers: vec![g.blob.clone().expect("GLB binary chunk")],
            doc: g.document,
            parent,
        }
    }

    /// Key times and values of every TRS channel of the given animations, by (node, path).
    fn tracks(&self, animations: &[usize]) -> HashMap<(usize, u8), Track> {
        let mut out = HashMap::new();
        for anim in self
            .doc
            .animations()
            .filter(|a| animations.contains(&a.index()))
        {
            for ch in anim.channels() {
                let r = ch.reader(|b| Some(&self.buffers[b.index()]));
                let times: Vec<f32> = r.read_inputs().unwrap().collect();
                use gltf::animation::util::ReadOutputs;
                let (path, values): (u8, Vec<[f32; 4]>) = match r.read_outputs().unwrap() {
                    ReadOutputs::Translations(it) => {
                        (0, it.map(|v| [v[0], v[1], v[2], 0.0]).collect())
                    }
                    ReadOutputs::Rotations(it) => (1, it.into_f32().collect()),
                    ReadOutputs::Scales(it) => (2, it.map(|v| [v[0], v[1], v[2], 0.0]).collect()),
                    ReadOutputs::MorphTargetWeights(_) => continue,
                };
                assert_eq!(
                    ch.sampler().interpolation(),
                    gltf::animation::Interpolation::Linear
                );
                out.insert((ch.target().node().index(), path), (times, values));
            }
        }
        out
    }

    /// A track's value at `t`: the key itself when `t` is a key time, otherwise the linear
    /// (slerp for rotations) interpolation between the surrounding keys; ends hold.
    fn value(track: &Track, path: u8, t: f32) -> [f32; 4] {
        let (times, values) = track;
        if let Some(k) = times.iter().position(|x| *x == t) {
            return values[k];
        }
        if t <= times[0] {
            return values[0];
        }
        let k = match times.iter().position(|x| *x > t) {
            Some(k) => k - 1,
            None => return values[values.len() - 1],
        };
        let u = (t - times[k]) / (times[k + 1] - times[k]);
        let (a, b) = (values[k], values[k + 1]);
        if path == 1 {
            Quat::from_array(a)
                .normalize()
                .slerp(Quat::from_array(b).normalize(), u)
                .to_array()
        } else {
            std::array::from_fn(|i| a[i] + (b[i] - a[i]) * u)
        }
    }

    fn local(&self, node: usize, tracks: &HashMap<(usize, u8), Track>, t: f32) -> Mat4 {
        let n = self.doc.nodes().nth(node).unwrap();
        let (mut tr, mut r, mut s) = n.transform().decomposed();
        if let Some(track) = tracks.get(&(node, 0)) {
            let v = Self::value(track, 0, t);
            tr = [v[0], v[1], v[2]];
        }
        if let Some(track) = tracks.get(&(node, 1)) {
            r = Self::value(track, 1, t);
        }
        if let Some(track) = tracks.get(&(node, 2)) {
            let v = Self::value(track, 2, t);
            s = [v[0], v[1], v[2]];
        }
        Mat4::from_scale_rotation_translation(
            Vec3::from(s),
            Quat::from_array(r).normalize(),
            Vec3::from(tr),
        )
    }

    fn world(&self, node: usize, tracks: &HashMap<(usize, u8), Track>, t: f32) -> Mat4 {
        let mut m = self.local(node, tracks, t);
        let mut i = node;
        while let Some(p) = self.parent[i] {
            m = self.local(p, tracks, t) * m;
            i = p;
        }
        m
    }
}

fn check_keyframe_world_matrices(name: &str) {
    let Some(path) = common::shared_asset(name) else {
        return;
    };
    let model = load(&path, &ImportOptions::default()).unwrap();
    let reference = Reference::open(&path);
    let anim_count = reference.doc.animations().count();
    let mut checked = 0;
    for (ci, clip) in model.clips.iter().enumerate() {
        // A merged clip holds every animation; otherwise clip i is animation i.
        let animations: Vec<usize> = if model.clips.len() == anim_count {
            vec![ci]
        } else {
            (0..anim_count).collect()
        };
        let tracks = reference.tracks(&animations);
        let mut times: Vec<f32> = tracks
            .values()
            .flat_map(|(t, _)| t.iter().copied())
            .collect();
        times.sort_by(f32::total_cmp);
        times.dedup();
        let mut local = vec![Transform::IDENTITY; model.skeleton.len()];
        let mut world = vec![Mat4::IDENTITY; model.skeleton.len()];
        for &t in &times {
            sample(clip, &model.skeleton, t, &mut local);
            local_to_model(&model.skeleton, &local, &mut world);
            for (j, &node) in model.joint_nodes.iter().enumerate() {
                let expected = reference.world(node, &tracks, t);
                let size = expected
                    .to_cols_array()
                    .iter()
                    .fold(1.0f32, |a, b| a.max(b.abs()));
                let err = (world[j] - expected)
                    .to_cols_array()
                    .iter()
                    .fold(0.0f32, |a, b| a.max(b.abs()));
                // 2e-6 relative to the matrix's largest element: a chain of up to ~20 f32
                // products and one slerp per joint stays within a few dozen ulps.
                assert!(
                    err <= 2e-6 * size,
                    "{name}: clip '{}' t={t}: joint {j} ('{}', node {node}) world matrix off by {err} (scale {size})",
                    clip.name(),
                    model.skeleton.names()[j]
                );
                checked += 1;
            }
        }
    }
    assert!(
        checked > 100,
        "{name}: only {checked} joint matrices compared"
    );
    eprintln!("{name}: {checked} joint world matrices match the independent product");
}

#[test]
fn fox_world_matrices_at_every_keyframe() {
    check_keyframe_world_matrices("Fox.glb");
}

#[test]
fn cesium_man_world_matrices_at_every_keyframe() {
    check_keyframe_world_matrices("CesiumMan.glb");
}

#[test]
fn robot_expressive_world_matrices_at_every_keyframe() {
    check_keyframe_world_matrices("RobotExpressive.glb");
}

#[test]
fn robot_expressive_structure() {
    let Some(path) = common::shared_asset("RobotExpressive.glb") else {
        return;
    };
    let model = load(&path, &ImportOptions::default()).unwrap();
    // Two skins over the same joints unify into one skeleton; rigid body parts are bound 100%
    // to their joint; morph targets are ignored with a warning.
    let rigid = model.meshes.iter().filter(|m| m.mesh.rigid).count();
    let skinned = model.meshes.len() - rigid;
    assert_eq!(skinned, 4, "hand primitives of the two skins");
    assert!(rigid > 10);
    assert!(
        model
            .meshes
            .iter()
            .filter(|m| m.mesh.rigid)
            .all(|m| m.mesh.max_influences() == 1)
    );
    assert!(
        model
            .warnings
            .iter()
            .any(|w| w.contains("morph targets are ignored"))
    );
    assert_eq!(model.clips.len(), 14);
    let vertices: usize = model.meshes.iter().map(|m| m.mesh.vertex_count()).sum();
    assert_eq!(vertices, 7214);
}

#[test]
fn cesium_man_animations_merge_by_default() {
    let Some(path) = common::shared_asset("CesiumMan.glb") else {
        return;
    };
    let model = load(&path, &ImportOptions::default()).unwrap();
    assert_eq!(model.clips.len(), 1);
    assert_eq!(model.clips[0].name(), throng::import::MERGED_CLIP_NAME);
    assert!(
        model
            .notes
            .iter()
            .any(|n| n.contains("merged 19 unnamed animations"))
    );
    let apart = load(
        &path,
        &ImportOptions {
            merge_animations: throng::import::MergeAnimations::Never,
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(apart.clips.len(), 19);
    assert_eq!(apart.clips[3].name(), "animation_3");
    // Fox's named, overlapping clips cannot be merged on request.
    if let Some(fox) = common::shared_asset("Fox.glb") {
        let err = load(
            &fox,
            &ImportOptions {
                merge_animations: throng::import::MergeAnimations::Always,
                ..Default::default()
            },
        )
        .unwrap_err();
        assert!(err.to_string().contains("cannot merge"), "{err}");
    }
}

/// A channel at `t`, one channel at a time, as glTF's Appendix C and the samplers' docs say,
/// with the library's scalar slerp: the reference for the batched samplers below.
fn channel_value(channel: &throng::anim::Channel, t: f32) -> glam::Vec4 {
    use throng::anim::{Interpolation, Property, transform::slerp_shortest};
    let (times, values) = (channel.times(), channel.values());
    let cubic = channel.interpolation() == Interpolation::CubicSpline;
    let key = |k: usize| if cubic { values[3 * k + 1] } else { values[k] };
    let n = times.len();
    if t <= times[0] {
        return key(0);
    }
    if t >= times[n - 1] {
        return key(n - 1);
    }
    let k = times.partition_point(|&x| x <= t) - 1;
    let u = (t - times[k]) / (times[k + 1] - times[k]);
    let rotation = channel.property() == Property::Rotation;
    match channel.interpolation() {
        Interpolation::Step => values[k],
        Interpolation::Linear if rotation => slerp_shortest(
            Quat::from_vec4(values[k]),
            Quat::from_vec4(values[k + 1]),
            u,
        )
        .into(),
        Interpolation::Linear => values[k].lerp(values[k + 1], u),
        Interpolation::CubicSpline => {
            let dt = times[k + 1] - times[k];
            let (u2, u3) = (u * u, u * u * u);
            let p = values[3 * k + 1] * (2.0 * u3 - 3.0 * u2 + 1.0)
                + values[3 * k + 2] * dt * (u3 - 2.0 * u2 + u)
                + values[3 * k + 4] * (-2.0 * u3 + 3.0 * u2)
                + values[3 * k + 3] * dt * (u3 - u2);
            if rotation { p.normalize() } else { p }
        }
    }
}

/// On every clip of the mannequin, Fox, CesiumMan and RobotExpressive, at 60 Hz through two
/// laps and at every key: the samplers (binary search and cursor: slerps four at a time, keys
/// found once per timeline) give the bits of sampling channel by channel, forward kinematics
/// (local matrices four at a time) the bits of one `to_mat4` and one product per joint, and
/// the skinning matrices those of one product per joint. Where the CPU has AVX, the library's
/// side runs its AVX copies and this side does not: the bits must agree across them too.
#[test]
fn batched_poses_are_the_one_by_one_bits_on_every_model() {
    use throng::anim::{ClipCursor, Property, Wrap, sample_with_cursor};
    let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    let mut models = vec![("mannequin".to_string(), common::mannequin())];
    for name in ["Fox.glb", "CesiumMan.glb", "RobotExpressive.glb"] {
        if let Some(path) = common::shared_asset(name) {
            models.push((name.into(), load(&path, &ImportOptions::default()).unwrap()));
        }
    }
    let mut poses = 0;
    for (name, model) in &models {
        let s = &model.skeleton;
        let n = s.len();
        for clip in &model.clips {
            let mut cursor = ClipCursor::new(clip);
            let (mut random, mut played) =
                (vec![Transform::IDENTITY; n], vec![Transform::IDENTITY; n]);
            let (mut world, mut skin) = (vec![Mat4::IDENTITY; n], vec![Mat4::IDENTITY; n]);
            let steps = (clip.duration() * 120.0) as usize + 2;
            let times = (0..steps)
                .map(|i| clip.local_time(i as f32 / 60.0, Wrap::Loop))
                .chain(clip.key_times());
            for t in times {
                let mut reference = s.rest().to_vec();
                for c in clip.channels() {
                    let v = channel_value(c, t);
                    let joint = &mut reference[c.joint()];
                    match c.property() {
                        Property::Translation => joint.translation = v.truncate(),
                        Property::Rotation => joint.rotation = Quat::from_vec4(v),
                        Property::Scale => joint.scale = v.truncate(),
                    }
                }
                sample(clip, s, t, &mut random);
                sample_with_cursor(clip, s, t, &mut cursor, &mut played);
                let pose_bits = |p: &[Transform]| {
                    bits(
                        &p.iter()
                            .flat_map(|t| {
                                t.translation
                                    .to_array()
                                    .into_iter()
                                    .chain(t.rotation.to_array())
                                    .chain(t.scale.to_array())
                            })
                            .collect::<Vec<_>>(),
                    )
                };
                let what = format!("{name}: clip '{}' at {t}", clip.name());
                assert_eq!(pose_bits(&random), pose_bits(&reference), "{what}: sample");
                assert_eq!(pose_bits(&played), pose_bits(&reference), "{what}: cursor");
                local_to_model(s, &played, &mut world);
                let mut chained: Vec<Mat4> = Vec::with_capacity(n);
                for (j, parent) in s.parents().iter().enumerate() {
                    let m = played[j].to_mat4();
                    chained.push(match parent {
                        Some(p) => chained[usize::from(*p)] * m,
                        None => s.root_bases()[j] * m,
                    });
                }
                let flat = |m: &[Mat4]| {
                    bits(&m.iter().flat_map(|m| m.to_cols_array()).collect::<Vec<_>>())
                };
                assert_eq!(flat(&world), flat(&chained), "{what}: forward kinematics");
                skinning_matrices(s, &world, &mut skin);
                let products: Vec<Mat4> = chained
                    .iter()
                    .zip(s.inverse_bind())
                    .map(|(m, b)| *m * *b)
                    .collect();
                assert_eq!(flat(&skin), flat(&products), "{what}: skinning matrices");
                poses += 1;
            }
        }
    }
    assert!(poses > 1_000, "only {poses} poses compared");
    eprintln!("{poses} poses on {} models: the same bits", models.len());
}
