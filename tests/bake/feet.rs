//! The feet the baker finds (`bake::feet_of`, `anim::gait::find_feet_skinned`) on the shared
//! third-party models, bare: every paw of the quadruped, and exactly the feet of the humanoids,
//! whose hands hang well above the ground in their rest poses.

use crate::common;

use glam::Mat4;
use throng::anim::gait;
use throng::bake::measure::JointBoxes;
use throng::bake::{Size, feet_of, rest_pose, standing_height};

/// What the baker finds on the shared model `name`, baked bare.
struct Found {
    /// The feet, by name, in joint order.
    feet: Vec<String>,
    /// The feet by the rule on joint origins (each joint standing on its origin, not on its
    /// vertices' lowest corner), as found before the rule looked at the vertices.
    by_origins: Vec<String>,
    /// Every other leaf joint, by name, with how far its sole stands above the band where a
    /// leaf counts as a foot (fractions of the height: negative inside the band).
    leaves: Vec<(String, f32)>,
}

fn found(name: &str) -> Option<Found> {
    let path = common::shared_asset(name)?;
    let m = throng::import::load(&path, &throng::import::ImportOptions::default()).expect("load");
    let boxes = JointBoxes::new(m.skeleton.len(), m.meshes.iter().map(|p| &p.mesh));
    let standing = standing_height(&m);
    let factor = Size::Default.factor(standing).0;
    let height = standing * factor.y;
    let scale = Mat4::from_scale(factor);
    let skeleton = &m.skeleton;
    let names = skeleton.names();
    let feet = feet_of(&m, &boxes, scale, height).joints;
    let rest = rest_pose(&m, &boxes, scale);
    let by_origins = gait::find_feet_skinned(skeleton, &rest.origins, height, |j| {
        rest.boxes[j].map(|_| (rest.origins[j], rest.origins[j]))
    });
    let stands = |j: usize| rest.boxes[j].map_or(rest.origins[j].y, |b| b.0.y);
    let ground = feet
        .iter()
        .map(|&j| stands(j))
        .fold(f32::INFINITY, f32::min);
    let leaves = (0..names.len())
        .filter(|&j| !(0..names.len()).any(|k| skeleton.parent(k) == Some(j)))
        .filter(|j| std::env::var_os("FEET_ALL").is_some() || !feet.contains(j))
        .map(|j| {
            let above = (stands(j) - ground) / height - gait::GROUND_LEAF_BAND;
            (names[j].clone(), above)
        })
        .collect();
    let named = |joints: Vec<usize>| joints.iter().map(|&j| names[j].clone()).collect();
    let found = Found {
        feet: named(feet),
        by_origins: named(by_origins),
        leaves,
    };
    println!(
        "{name}: height {height:.3} m, feet {:?} (by origins {:?}), other leaves above the band {:?}",
        found.feet, found.by_origins, found.leaves
    );
    Some(found)
}

/// The Fox's front paws are leaves named "hand" whose joints sit higher in the paw than the
/// hind feet's joints do; their soles touch the ground: all four paws are feet.
#[test]
fn every_paw_of_the_fox_is_a_foot() {
    let Some(fox) = found("Fox.glb") else {
        return;
    };
    // By the joints' origins, the hind feet alone.
    assert_eq!(fox.by_origins, ["b_LeftFoot02_018", "b_RightFoot02_022"]);
    let mut feet = fox.feet;
    feet.sort();
    assert_eq!(
        feet,
        [
            "b_LeftFoot02_018",
            "b_LeftHand_011",
            "b_RightFoot02_022",
            "b_RightHand_08"
        ]
    );
}

/// A humanoid keeps exactly its feet, the ones the rule on joint origins found: its hands
/// hang in its rest pose, the soles of every other leaf (hands, fingers, head) above the band
/// where a leaf would count as a foot.
#[test]
fn a_humanoids_hands_hang_above_the_ground_band() {
    for (model, want, margin) in [
        // CesiumMan's joints are unnamed: his feet are the leaves standing lowest. His other
        // leaves (hands, head) hang half his height or more above the band.
        ("CesiumMan.glb", ["node_10", "node_6"], 0.4),
        // RobotExpressive's arms reach to its knees: its right ring finger's sole is 4.2% of
        // its height up, 2.2% above the band; its shins end their chains above its feet,
        // which hang from IK controls, and stand on the feet's spots.
        ("RobotExpressive.glb", ["Foot.L", "Foot.R"], 0.01),
    ] {
        let Some(f) = found(model) else {
            continue;
        };
        assert_eq!(f.feet, want, "{model}");
        assert!(!f.leaves.is_empty(), "{model}: no leaf besides the feet");
        for (leaf, above) in f.leaves {
            if leaf.starts_with("LowerLeg") {
                continue;
            }
            assert!(
                above > margin,
                "{model}: {leaf} is {above:.3} heights above the band, under {margin}"
            );
        }
    }
}

/// The live tier's rig finds its feet by the baker's rule, from the baked file (its joint
/// records, first frame and LOD 0 boxes): on a bare Fox bake, the same four paws.
#[test]
fn the_live_rig_finds_the_fox_paws_the_baker_finds() {
    let Some(path) = common::shared_asset("Fox.glb") else {
        return;
    };
    let Some(fox) = found("Fox.glb") else {
        return;
    };
    let dir = common::temp_dir("feet-live-rig");
    let recipe = crate::common::bare_recipe(&path, &dir.join("fox.throng"));
    throng::bake::bake_to_file(&recipe, &throng::bake::BakeOptions::default()).expect("bake");
    let file = throng::format::ThrongFile::open(&recipe.output).expect("open");
    let rig = throng::hybrid::LiveRig::new(&file, 0).expect("a rig");
    let joints = &file.joints()[file.characters()[0].first_joint as usize..];
    let mut live: Vec<String> = rig
        .feet
        .iter()
        .map(|f| file.str(joints[f.joint].name).to_string())
        .collect();
    let mut baked = fox.feet;
    live.sort();
    baked.sort();
    assert_eq!(live, baked);
}
