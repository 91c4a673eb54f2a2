//! Tests of [`super`]: feet found by name and by height, and synthetic gaits (walks, runs,
//! gallops, rolling feet, idles, flying) measured.

use super::*;
use crate::anim::{RawSkeleton, Transform};
use glam::Mat4;

const HEIGHT: f32 = 1.8;

/// A skeleton of `names` and `parents` (parents first), every joint at the identity: the
/// finders read only names, parents and the rest positions given them beside it.
fn skeleton_of(names: Vec<String>, parents: &[Option<usize>]) -> Skeleton {
    let n = names.len();
    RawSkeleton {
        names,
        parents: parents.to_vec(),
        rest: vec![Transform::IDENTITY; n],
        inverse_bind: vec![Mat4::IDENTITY; n],
        root_bases: vec![Mat4::IDENTITY; n],
    }
    .validate()
    .unwrap()
}

/// A synthetic gait: `feet` feet at phase offsets `phases`, each planted for `stance` of
/// a `period`-second cycle sliding back at `speed` along +z, swinging forward in an arc
/// `lift` high otherwise; `frames` samples.
fn gait(phases: &[f32], stance: f32, speed: f32, lift: f32, frames: usize) -> Vec<Vec3> {
    let period = 1.0;
    let stride = speed * stance * period;
    let mut out = Vec::new();
    for i in 0..frames {
        for (f, phase) in phases.iter().enumerate() {
            let u = (i as f32 / frames as f32 + phase).rem_euclid(1.0);
            let x = if f % 2 == 0 { 0.1 } else { -0.1 };
            let (y, z) = if u < stance {
                (0.0, stride * 0.5 - speed * u * period)
            } else {
                let w = (u - stance) / (1.0 - stance);
                let ease = 0.5 - 0.5 * (std::f32::consts::PI * w).cos();
                (
                    lift * (std::f32::consts::PI * w).sin(),
                    -stride * 0.5 + stride * ease,
                )
            };
            out.push(Vec3::new(x, y, z + f as f32 * 0.3));
        }
    }
    out
}

#[test]
fn a_biped_walk_measures_its_speed() {
    // Swings 12 cm high, and 3 cm (1.7% of 1.8 m, an in-place Mixamo walk's): under the 5%
    // band, yet a step; its stance band is the lower half of its rise (1.5 cm).
    for lift in [0.12, 0.03] {
        let p = gait(&[0.0, 0.5], 0.6, 1.2, lift, 60);
        let g = measure(&p, 2, 1, 1.0 / 60.0, HEIGHT, Vec3::Z).unwrap();
        // The stance slide is exactly 1.2 m/s; central differences at the stance's ends mix
        // in a sample of swing, which the steady-velocity rule must drop: 1% margin.
        assert!((g.speed - 1.2).abs() < 0.012, "{lift}: {g:?}");
        assert!(g.foot_slide < 0.012, "{lift}: {g:?}");
        assert!(g.lateral.abs() < 1e-4 && !g.off_axis(), "{lift}: {g:?}");
    }
}

#[test]
fn a_rolling_foot_is_measured_at_its_contact() {
    // Each foot's toe follows the walk; its heel, 0.25 m behind, lifts about the toe over
    // the second half of the stance (pitch up to 0.6 rad) and comes down during the swing.
    let (frames, stance) = (60, 0.6);
    let phases = [0.0, 0.5];
    let toes = gait(&phases, stance, 1.2, 0.12, frames);
    let mut both = Vec::new();
    for (k, toe) in toes.iter().enumerate() {
        let u = ((k / 2) as f32 / frames as f32 + phases[k % 2]).rem_euclid(1.0);
        let pitch = if u < stance * 0.5 {
            0.0
        } else if u < stance {
            0.6 * (u - stance * 0.5) / (stance * 0.5)
        } else {
            0.6 * (1.0 - (u - stance) / (1.0 - stance))
        };
        let heel = *toe + Vec3::new(0.0, 0.25 * pitch.sin(), -0.25 * pitch.cos());
        both.extend([heel, *toe]);
    }
    let step = 1.0 / frames as f32;
    let g = measure(&both, 2, 2, step, HEIGHT, Vec3::Z).unwrap();
    // The toe is the lowest point while the heel lifts: the slide is the walk's (1%, as
    // for the plain walk).
    assert!((g.speed - 1.2).abs() < 0.012, "{g:?}");
    // Both points are tracked and the heel's lift (to 0.15 m) is far above the band: had
    // the heel been taken as the contact while it rises, the foot would leave the stance
    // and its forward swing would be averaged in.
    assert!(g.foot_slide < 0.012, "{g:?}");
}

#[test]
fn a_quadruped_gallop_uses_all_four_feet() {
    let p = gait(&[0.0, 0.1, 0.5, 0.6], 0.3, 3.0, 0.1, 45);
    let g = measure(&p, 4, 1, 1.0 / 45.0, HEIGHT, Vec3::Z).unwrap();
    assert_eq!(g.feet, 4);
    // Stance is 0.3 of 45 samples per foot, less the two edge samples: ≥ 4 × 11.
    assert!(g.planted >= 44, "{g:?}");
    assert!((g.speed - 3.0).abs() < 0.03, "{g:?}");
}

#[test]
fn sideways_walks_are_flagged_and_measured_along_forward() {
    // The same walk with forward along +x: the feet slide back along z, across it.
    let p = gait(&[0.0, 0.5], 0.6, 1.2, 0.12, 60);
    match measure(&p, 2, 1, 1.0 / 60.0, HEIGHT, Vec3::X) {
        Err(NoGait::NoSlide {
            per_height,
            lateral_per_height,
            travel,
        }) => {
            assert!(per_height.abs() < 0.01);
            assert!((lateral_per_height - 1.2 / HEIGHT).abs() < 0.01);
            // It travels along +z (the feet slide back along -z), 1.2 m/s: 1% as above.
            assert!((travel - Vec2::new(0.0, 1.2)).length() < 0.012, "{travel}");
        }
        other => panic!("{other:?}"),
    }
    // Diagonal: 45° off, so the slide along forward is 1.2 cos 45° and as much across.
    let g = measure(&p, 2, 1, 1.0 / 60.0, HEIGHT, Vec3::new(1.0, 0.0, 1.0)).unwrap();
    assert!((g.speed - 1.2 * 0.5f32.sqrt()).abs() < 0.012, "{g:?}");
    assert!((g.lateral.abs() - g.speed).abs() < 0.012, "{g:?}");
}

#[test]
fn a_foot_rising_under_a_hundredth_of_the_height_never_lifts() {
    // Swing 1 cm high (0.56%): under MIN_LIFT, a shuffle in place rather than a step.
    let p = gait(&[0.0, 0.5], 0.6, 1.2, 0.01, 60);
    assert!(matches!(
        measure(&p, 2, 1, 1.0 / 60.0, HEIGHT, Vec3::Z),
        Err(NoGait::NeverLifts { .. })
    ));
    // The band: 5% of the height, or half a lower rise.
    assert_eq!(band(0.5, HEIGHT), GROUND_BAND * HEIGHT);
    assert_eq!(band(0.03, HEIGHT), 0.015);
}

#[test]
fn idles_gestures_and_flying_have_no_ground_speed() {
    // Standing: both feet still.
    let idle: Vec<Vec3> = (0..40)
        .flat_map(|_| [Vec3::new(0.1, 0.0, 0.0), Vec3::new(-0.1, 0.0, 0.0)])
        .collect();
    assert!(matches!(
        measure(&idle, 2, 1, 1.0 / 30.0, HEIGHT, Vec3::Z),
        Err(NoGait::NeverLifts { .. })
    ));
    // A gesture that lifts one foot (a tap): the other never lifts.
    let mut tap = idle.clone();
    for i in 10..20 {
        tap[i * 2].y = 0.1 * ((i - 10) as f32 / 10.0 * std::f32::consts::PI).sin();
    }
    assert!(matches!(
        measure(&tap, 2, 1, 1.0 / 30.0, HEIGHT, Vec3::Z),
        Err(NoGait::NeverLifts { foot: 1, .. })
    ));
    // Flying: feet circling 0.18 m in the air, never resting.
    let fly: Vec<Vec3> = (0..60)
        .flat_map(|i| {
            let a = i as f32 / 60.0 * std::f32::consts::TAU;
            [0.0, std::f32::consts::PI]
                .map(|o| Vec3::new(0.0, 1.0 - 0.18 * (a + o).cos(), 0.18 * (a + o).sin()))
        })
        .collect();
    assert!(matches!(
        measure(&fly, 2, 1, 1.0 / 60.0, HEIGHT, Vec3::Z),
        Err(NoGait::NotPlanted { .. })
    ));
    assert_eq!(
        measure(&[], 0, 1, 0.1, HEIGHT, Vec3::Z),
        Err(NoGait::NoFeet)
    );
}

#[test]
fn planted_marks_the_stance_only() {
    let p = gait(&[0.0, 0.5], 0.5, 1.0, 0.12, 40);
    let mut mask = vec![false; p.len()];
    let m = planted(&p, 2, 1, 1.0 / 40.0, HEIGHT, &mut mask);
    assert!((m - Vec2::new(0.0, -1.0)).length() < 1e-3, "{m}");
    for (k, planted) in mask.iter().enumerate() {
        let u = (((k / 2) as f32 / 40.0) + [0.0, 0.5][k % 2]).rem_euclid(1.0);
        // Strictly inside the stance (one sample from its ends) is planted; the swing's
        // inside is not.
        if (0.03..0.47).contains(&u) {
            assert!(planted, "sample {k} at phase {u}");
        }
        if (0.53..0.97).contains(&u) {
            assert!(!planted, "sample {k} at phase {u}");
        }
    }
}

#[test]
fn feet_by_name_and_by_ground() {
    // 0 hips; 1 leg_l, 2 foot_l, 3 toe_l; 4 leg_r, 5 foot_r; 6 arm, 7 hand (on the
    // ground, a front paw); 8 head.
    let names = [
        "hips", "leg_l", "Foot_L", "TOE_L", "leg_r", "foot_r", "arm", "hand", "head",
    ];
    let parents = [
        None,
        Some(0),
        Some(1),
        Some(2),
        Some(0),
        Some(4),
        Some(0),
        Some(6),
        Some(0),
    ];
    let rest = [
        Vec3::new(0.0, 1.0, 0.0),
        Vec3::new(0.1, 0.5, -0.3),
        Vec3::new(0.1, 0.08, -0.3),
        Vec3::new(0.1, 0.01, -0.2),
        Vec3::new(-0.1, 0.5, -0.3),
        Vec3::new(-0.1, 0.08, -0.3),
        Vec3::new(0.0, 0.6, 0.3),
        Vec3::new(0.0, 0.02, 0.3),
        Vec3::new(0.0, 1.2, 0.5),
    ];
    let n = names.len();
    let skeleton = skeleton_of(names.map(String::from).to_vec(), &parents);
    // The toe (not its ankle), the right foot, and the hand standing on the ground.
    assert_eq!(find_feet(&skeleton, &rest, 1.3), vec![3, 5, 7]);
    // A toe that moves no vertex (an end joint) is skipped for its foot, whose box has the
    // sole; with no named joint moving any, the deepest named is kept.
    assert_eq!(
        find_feet_skinned(&skeleton, &rest, 1.3, |j| (j != 3)
            .then_some((rest[j], rest[j]))),
        vec![2, 5, 7]
    );
    assert_eq!(
        find_feet_skinned(&skeleton, &rest, 1.3, |j| (j == 7)
            .then_some((rest[j], rest[j]))),
        vec![3, 5, 7]
    );
    // Unnamed: the leaves standing lowest, the toe (1 cm) and the hand (2 cm); the right
    // foot, 7 cm above the toe, is beyond 2% of 1.3 m (2.6 cm) but within 2% of 4 m.
    let unnamed = skeleton_of((0..n).map(|j| format!("node_{j}")).collect(), &parents);
    assert_eq!(find_feet(&unnamed, &rest, 1.3), vec![3, 7]);
    assert_eq!(find_feet(&unnamed, &rest, 4.0), vec![3, 5, 7]);
    assert_eq!(hips(&skeleton), 0);
    // Under an armature joint with one child, the hips are the first joint that branches.
    let wrapped = skeleton_of(
        ["armature", "root", "hips", "leg_l", "leg_r"]
            .map(String::from)
            .to_vec(),
        &[None, Some(0), Some(1), Some(2), Some(2)],
    );
    assert_eq!(hips(&wrapped), 2);
}

/// A quadruped 0.8 m tall, built like the Fox: hind legs ending in joints named like feet,
/// front legs ending in leaves named "hand" whose joints sit 9 cm up in paws whose soles touch
/// the ground, a tail and a head. By the joints' origins a front paw stands 6 cm above the
/// hind feet (beyond 2% of 0.8 m, 1.6 cm); by the soles of their vertices every paw is on the
/// ground and is a foot. A humanoid's hands, hanging, stand well above the band either way,
/// and a shin ending its chain just above a foot (RobotExpressive's, whose feet hang from IK
/// controls) stands on that foot's spot: no second foot.
#[test]
fn every_paw_of_a_quadruped_is_a_foot_by_its_sole() {
    // 0 hips; 1 thigh_l, 2 foot_l; 3 thigh_r, 4 foot_r; 5 spine, 6 arm_l, 7 hand_l (front
    // paw), 8 arm_r, 9 hand_r, 10 neck, 11 head; 12 tail; 13 shin_l (a leaf above foot_l).
    let names = [
        "hips",
        "thigh_l",
        "b_LeftFoot02",
        "thigh_r",
        "b_RightFoot02",
        "spine",
        "arm_l",
        "b_LeftHand",
        "arm_r",
        "b_RightHand",
        "neck",
        "head",
        "tail",
        "shin_l",
    ];
    let parents = [
        None,
        Some(0),
        Some(1),
        Some(0),
        Some(3),
        Some(0),
        Some(5),
        Some(6),
        Some(5),
        Some(8),
        Some(5),
        Some(10),
        Some(0),
        Some(0),
    ];
    let rest = [
        Vec3::new(0.0, 0.5, -0.3),
        Vec3::new(0.08, 0.35, -0.3),
        Vec3::new(0.08, 0.03, -0.35),
        Vec3::new(-0.08, 0.35, -0.3),
        Vec3::new(-0.08, 0.03, -0.35),
        Vec3::new(0.0, 0.5, 0.1),
        Vec3::new(0.08, 0.35, 0.25),
        Vec3::new(0.08, 0.09, 0.28),
        Vec3::new(-0.08, 0.35, 0.25),
        Vec3::new(-0.08, 0.09, 0.28),
        Vec3::new(0.0, 0.6, 0.35),
        Vec3::new(0.0, 0.7, 0.45),
        Vec3::new(0.0, 0.45, -0.7),
        Vec3::new(0.08, 0.15, -0.34),
    ];
    // The lowest point of each joint's vertices: the feet and paws touch the ground, the
    // rest of the body hangs above it (the tail's tip 30 cm up), the shin reaches down to
    // 2 mm above its foot's sole.
    let soles = [
        0.3, 0.1, 0.0, 0.1, 0.0, 0.35, 0.12, 0.0, 0.12, 0.0, 0.5, 0.6, 0.3, 0.002,
    ];
    // Each joint's box: 6 cm wide and 8 cm deep about its origin, from its sole up.
    let boxes = |soles: &[f32]| {
        let soles = soles.to_vec();
        move |j: usize| {
            let (p, half) = (rest[j], Vec3::new(0.03, 0.0, 0.04));
            Some((
                Vec3::new(p.x, soles[j], p.z) - half,
                Vec3::new(p.x, p.y + 0.02, p.z) + half,
            ))
        }
    };
    let skeleton = skeleton_of(names.map(String::from).to_vec(), &parents);
    let height = 0.8;
    // By the joints' origins, the hind feet alone (the rule that missed the Fox's front paws).
    assert_eq!(find_feet(&skeleton, &rest, height), vec![2, 4]);
    // By the soles, all four paws; the shin over the left foot is not a fifth.
    assert_eq!(
        find_feet_skinned(&skeleton, &rest, height, boxes(&soles)),
        vec![2, 4, 7, 9]
    );
    // A paw whose sole is lifted past the band (1.6 cm on 0.8 m) is not standing on the
    // ground.
    let mut lifted = soles;
    lifted[9] = 0.02;
    assert_eq!(
        find_feet_skinned(&skeleton, &rest, height, boxes(&lifted)),
        vec![2, 4, 7]
    );
    // A humanoid's hands hang at a third of its height or more: with the same skeleton
    // standing up (hands' soles 0.7 m up on 1.8 m), only the feet stand on the ground.
    let mut hanging = soles;
    hanging[7] = 0.7;
    hanging[9] = 0.7;
    assert_eq!(
        find_feet_skinned(&skeleton, &rest, 1.8, boxes(&hanging)),
        vec![2, 4]
    );
}

/// The densest cluster as it was first written: each candidate centre's count and sum in one
/// loop over the samples. [`phases`] counts four samples a lane and sums the winner alone.
fn slide_one_by_one(c: &Cycle, height: f32) -> Vec2 {
    let mut stance = vec![false; c.frames * c.feet];
    let mut velocities = Vec::new();
    mark_stance(c, height, &mut stance, &mut velocities);
    let still = STILL * height;
    let stride = velocities.len().div_ceil(MAX_CENTRES).max(1);
    let mut best = (0usize, Vec2::ZERO);
    for (_, a) in velocities.iter().step_by(stride) {
        let r = STEADY * a.length() + still;
        let r2 = r * r;
        let (mut count, mut sum) = (0usize, Vec2::ZERO);
        for (_, b) in &velocities {
            if (*a - *b).length_squared() <= r2 {
                count += 1;
                sum += *b;
            }
        }
        if count > best.0 {
            best = (count, sum / count as f32);
        }
    }
    best.1
}

/// The lane-wise count finds the same cluster, to the bit, as counting one by one: noisy
/// walks (clusters of near-equal counts, where the first best must win), below and above
/// [`MAX_CENTRES`] stance samples (every sample a centre, then every few), a sample count
/// that is no multiple of four (the NaN padding), and a cycle with a NaN in it.
#[test]
fn the_densest_cluster_is_found_the_same_four_at_a_time() {
    let mut state = 7u32;
    let mut noise = || {
        state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        (state >> 8) as f32 / (1 << 24) as f32 - 0.5
    };
    let mut checked = 0;
    for (frames, jitter) in [(61, 0.002), (90, 0.01), (400, 0.004), (333, 0.02)] {
        let mut p = gait(&[0.0, 0.5], 0.6, 1.2, 0.12, frames);
        for q in p.iter_mut() {
            *q += Vec3::new(noise(), 0.0, noise()) * jitter;
        }
        for nan in [false, true] {
            if nan {
                p[7].x = f32::NAN;
            }
            let c = Cycle::new(&p, 2, 1, 1.0 / frames as f32).unwrap();
            let slide = phases(&c, HEIGHT).slide;
            let expected = slide_one_by_one(&c, HEIGHT);
            assert_eq!(slide.x.to_bits(), expected.x.to_bits(), "{frames} frames");
            assert_eq!(slide.y.to_bits(), expected.y.to_bits(), "{frames} frames");
            assert!(slide.length() > 0.5, "{frames} frames: slide {slide}");
            checked += 1;
        }
    }
    assert_eq!(checked, 8);
}
