//! Skeleton LOD (format 1.3, `JLOD`): far LOD levels skin with fewer joints, small ones
//! collapsed onto their ancestors at bake time, and their vertices' influences rewritten onto
//! the kept joints. Checked on the file alone: at every far level, every vertex skinned with
//! the file's influences stays close to the same vertex skinned with its source influences
//! (LOD 0's, which skeleton LOD never changes) at every baked frame; and the level really
//! skins with fewer joints, so the check cannot pass on an unchanged file.

use crate::bake_file::frame_matrices;
use crate::common;
use crate::facing::bake_and_read;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use glam::{Mat4, Vec3};
use throng::bake::BakeReport;
use throng::format::ThrongFile;
use throng::format::records::{VertexRecord, kinds};
use throng::import::mannequin::{Variant, generate_variant};

/// The stated fraction of the height, per far level: that level's own simplification error
/// (its `MESH` records' `error`, in metres, over the height) plus this allowance. Why the
/// level's error: it is what the LOD policy already accepts wherever it draws that level, and
/// the baker collapses a joint only when no vertex of the level moves further than it at any
/// baked frame (with exact matrices), so skeleton LOD adds no more error than simplification
/// did. Why the allowance: the texels may be stored as f16, whose rounding (at most
/// `max_precision_error`, 0.1% of the height by default, per matrix) moves the two skinnings
/// compared here differently; twice that bounds it.
const F16_ALLOWANCE: f32 = 0.002;

/// The mixamo-style mannequin variant (25 joints: toe bases, a second spine joint, and end
/// joints at the head top and toe tips that move no vertices), written to a fresh folder.
fn mixamo(tag: &str) -> PathBuf {
    let path = common::temp_dir(tag).join("mixamo.glb");
    let bytes = generate_variant(&Variant::named("mixamo").unwrap()).unwrap();
    std::fs::write(&path, bytes).unwrap();
    path
}

/// A vertex's identity across levels: a level keeps source vertices with all attributes.
fn key(v: &VertexRecord) -> [u32; 8] {
    let [a, b, c] = v.position.map(f32::to_bits);
    let [d, e, f] = v.normal.map(f32::to_bits);
    let [g, h] = v.uv.map(f32::to_bits);
    [a, b, c, d, e, f, g, h]
}

/// A vertex's four joints and weights.
type Influences = ([u16; 4], [f32; 4]);

/// `v` at bind position `p` skinned with `m`.
fn skin(m: &[Mat4], p: Vec3, joints: [u16; 4], weights: [f32; 4]) -> Vec3 {
    joints
        .iter()
        .zip(weights)
        .filter(|(_, w)| *w != 0.0)
        .map(|(j, w)| w * m[usize::from(*j)].transform_point3(p))
        .sum()
}

/// What [`check`] found at one far level.
#[derive(Debug)]
struct Level {
    joints: usize,
    /// Largest distance from the full-skeleton position, as a fraction of the height.
    worst: f32,
    /// The level's recorded error, as a fraction of the height.
    error: f32,
    /// Share of vertices with 1, 2, 3 and 4 influences.
    influences: [f32; 4],
}

/// Checks every far level of character `ci` of `file` over every frame of every one of its
/// animations; returns what it found per level (from LOD 1).
fn check(file: &ThrongFile, ci: usize) -> Vec<Level> {
    let ch = &file.characters()[ci];
    let height = ch.height;
    let meshes =
        &file.meshes()[ch.first_mesh as usize..][..(ch.part_count * ch.lod_count) as usize];
    let vertices = |m: &throng::format::records::MeshRecord| {
        &file.vertices()[m.first_vertex as usize..][..m.vertex_count as usize]
    };
    // LOD 0 is the source mesh, its influences as imported.
    let source: HashMap<(u32, [u32; 8]), Influences> = meshes
        .iter()
        .filter(|m| m.lod == 0)
        .flat_map(|m| {
            vertices(m)
                .iter()
                .map(move |v| ((m.part, key(v)), (v.joints, v.weights)))
        })
        .collect();
    let anims: Vec<usize> = (0..file.anims().len())
        .filter(|&a| file.anims()[a].character as usize == ci)
        .collect();
    let frames: Vec<Vec<Mat4>> = anims
        .iter()
        .flat_map(|&a| (0..file.anims()[a].frame_count).map(move |f| (a, f)))
        .map(|(a, f)| frame_matrices(file, a, f))
        .collect();
    assert!(!frames.is_empty());
    let mut out = Vec::new();
    for lod in 1..ch.lod_count {
        let level: Vec<_> = meshes.iter().filter(|m| m.lod == lod).collect();
        let error = level.iter().map(|m| m.error).fold(0.0f32, f32::max);
        let allowed = error + F16_ALLOWANCE * height;
        let (mut worst, mut counts, mut total) = (0.0f32, [0usize; 4], 0usize);
        for m in &level {
            for v in vertices(m) {
                let (sj, sw) = source
                    .get(&(m.part, key(v)))
                    .unwrap_or_else(|| panic!("LOD {lod} part {}: a vertex not in LOD 0", m.part));
                let n = v
                    .weights
                    .iter()
                    .rposition(|w| *w != 0.0)
                    .map_or(0, |i| i + 1);
                counts[n.clamp(1, 4) - 1] += 1;
                total += 1;
                let p = Vec3::from(v.position);
                for (fi, mats) in frames.iter().enumerate() {
                    let d = skin(mats, p, *sj, *sw).distance(skin(mats, p, v.joints, v.weights));
                    assert!(
                        d <= allowed,
                        "{}: LOD {lod} part {}: a vertex at {p} is {d} m from its full-skeleton position at frame {fi}, over its allowance {allowed} m (level error {error} m)",
                        file.name(),
                        m.part
                    );
                    worst = worst.max(d);
                }
            }
        }
        out.push(Level {
            joints: file.lod_joint_count(ci, lod as usize),
            worst: worst / height,
            error: error / height,
            influences: counts.map(|c| c as f32 / total.max(1) as f32),
        });
    }
    out
}

/// Checks `file`'s character 0 and prints the figures ([`check`] asserts the stated fraction,
/// [`F16_ALLOWANCE`]); asserts that the farthest level skins with fewer joints than the
/// character has and really moves some vertex, so that the check is not vacuous.
fn far_levels_stay_close(file: &ThrongFile, report: &BakeReport) {
    let ch = &file.characters()[0];
    assert!(ch.lod_count >= 2, "a far level to check");
    assert_eq!(
        file.lod_joint_count(0, 0),
        ch.joint_count as usize,
        "LOD 0 keeps every joint"
    );
    let levels = check(file, 0);
    for (l, level) in levels.iter().enumerate() {
        println!(
            "{}: LOD {} skins {} of {} joints; worst {:.3}% of the height (level error {:.3}%); influences 1/2/3/4: {:?}",
            file.name(),
            l + 1,
            level.joints,
            ch.joint_count,
            level.worst * 100.0,
            level.error * 100.0,
            level.influences.map(|s| (s * 1000.0).round() / 10.0)
        );
        assert!(level.worst <= level.error + F16_ALLOWANCE, "{level:?}");
    }
    let farthest = levels.last().unwrap();
    assert!(
        farthest.joints < ch.joint_count as usize,
        "the farthest level collapses some joints: {levels:?}"
    );
    assert!(farthest.worst > 0.0, "some vertex moved: {levels:?}");
    // The report says the same as the file.
    let c = &report.characters[0];
    let from_file: Vec<usize> = (0..ch.lod_count as usize)
        .map(|l| file.lod_joint_count(0, l))
        .collect();
    assert_eq!(c.lod_joints, from_file);
}

#[test]
fn the_mixamo_variant_skins_far_levels_with_fewer_joints_within_their_error() {
    let path = mixamo("skeleton-lod-mixamo");
    let recipe = crate::common::bare_recipe(&path, Path::new("unused.throng"));
    let (file, report) = bake_and_read(&recipe, "mixamo.throng");
    assert_eq!(file.characters()[0].joint_count, 25);
    far_levels_stay_close(&file, &report);
}

#[test]
fn robot_expressive_skins_far_levels_with_fewer_joints_within_their_error() {
    let Some(path) = common::shared_asset("RobotExpressive.glb") else {
        return;
    };
    let recipe = crate::common::bare_recipe(&path, Path::new("unused.throng"));
    let (file, report) = bake_and_read(&recipe, "RobotExpressive.throng");
    far_levels_stay_close(&file, &report);
}

#[test]
fn skeleton_lod_false_keeps_every_joint_and_every_influence() {
    let path = mixamo("skeleton-lod-off");
    let mut on = crate::common::bare_recipe(&path, Path::new("unused.throng"));
    on.lods = vec![1.0, 0.2];
    let mut off = on.clone();
    off.characters[0].skeleton_lod = false;
    let (on, _) = bake_and_read(&on, "on.throng");
    let (off, report) = bake_and_read(&off, "off.throng");
    assert_eq!(report.characters[0].lod_joints, [25, 25]);
    assert_eq!(off.lod_joint_count(0, 1), 25);
    assert!(on.lod_joint_count(0, 1) < 25);
    // The texels are the same bytes either way (attachments, foot IK and the live tier read
    // every joint there), and so is LOD 0.
    let section = |f: &ThrongFile, k| f.container().section(k).map(<[u8]>::to_vec);
    assert_eq!(section(&on, kinds::TEXL), section(&off, kinds::TEXL));
    let lod0 = |f: &ThrongFile| {
        let m = f.meshes()[0];
        assert_eq!(m.lod, 0);
        f.vertices()[m.first_vertex as usize..][..m.vertex_count as usize].to_vec()
    };
    assert_eq!(lod0(&on), lod0(&off));
    // Off, a far level's vertices are the source's as they are: those of LOD 0 with the same
    // attributes.
    let ch = &off.characters()[0];
    let meshes = &off.meshes()[ch.first_mesh as usize..][..(ch.part_count * ch.lod_count) as usize];
    let of = |lod: u32| -> HashMap<[u32; 8], VertexRecord> {
        meshes
            .iter()
            .filter(|m| m.lod == lod)
            .flat_map(|m| &off.vertices()[m.first_vertex as usize..][..m.vertex_count as usize])
            .map(|v| (key(v), *v))
            .collect()
    };
    let (lod0, lod1) = (of(0), of(1));
    for (k, v) in &lod1 {
        assert_eq!(lod0[k].joints, v.joints);
        assert_eq!(lod0[k].weights, v.weights);
    }
}
