//! The mannequin's clips, made procedurally and keyed at 30 frames per second: idle (breathing
//! and weight shift), walk and run (in place, feet planted by two-bone IK while the ground moves
//! back under them at the stated speed) and wave (upper body only).

use glam::{EulerRot, Quat, Vec3};

use super::rig::{ANKLE_HEIGHT, JOINTS, idx, local_offset};
use super::variant::{RUN_ARM_SWING, RUN_SPEED, Variant, WALK_SPEED, WALK_STEP_HEIGHT};

/// Keys per second of every clip.
pub(super) const FPS: f32 = 30.0;

/// A clip as key arrays, ready for the GLB writer.
pub(super) struct ClipKeys {
    pub name: &'static str,
    /// Key times, seconds; the last equals the loop period and repeats the first pose.
    pub times: Vec<f32>,
    /// Hips translation per key, when the clip moves the hips.
    pub hips_translation: Option<Vec<Vec3>>,
    /// Rotation keys per animated joint.
    pub rotations: Vec<(usize, Vec<Quat>)>,
}

/// Joint rotations (local) and hips position for one pose.
struct Pose {
    hips: Vec3,
    rot: [Quat; 19],
}

impl Pose {
    fn rest() -> Self {
        Self {
            hips: JOINTS[idx::HIPS].position,
            rot: [Quat::IDENTITY; 19],
        }
    }

    /// Model-space rotation of joint `j`.
    fn world_rotation(&self, j: usize) -> Quat {
        let mut q = self.rot[j];
        let mut i = j;
        while let Some(p) = JOINTS[i].parent {
            q = self.rot[p] * q;
            i = p;
        }
        q
    }

    /// Model-space position of joint `j`.
    fn world_position(&self, j: usize) -> Vec3 {
        match JOINTS[j].parent {
            None => self.hips,
            Some(p) => self.world_position(p) + self.world_rotation(p) * local_offset(j),
        }
    }

    /// Two-bone IK for a leg: places the ankle of `thigh -> shin -> foot` at `target`, knee
    /// bending towards `pole` (model space), and sets the foot's model-space rotation to
    /// `foot_world`. Out-of-reach targets are approached as closely as the straight leg allows.
    fn leg_ik(&mut self, thigh: usize, target: Vec3, pole: Vec3, foot_world: Quat) {
        let (shin, foot) = (thigh + 1, thigh + 2);
        let hip = self.world_position(thigh);
        let l1 = local_offset(shin).length();
        let l2 = local_offset(foot).length();
        let to_target = target - hip;
        let d = to_target.length().clamp(0.05, (l1 + l2) * 0.9999);
        let n = to_target.normalize();
        let m = (pole - n * pole.dot(n)).normalize();
        // Law of cosines: angle at the hip between the hip-ankle line and the thigh.
        let cos_a = ((l1 * l1 + d * d - l2 * l2) / (2.0 * l1 * d)).clamp(-1.0, 1.0);
        let knee = hip + (n * cos_a + m * (1.0 - cos_a * cos_a).sqrt()) * l1;
        let ankle = hip + n * d;
        let parent_world = self.world_rotation(idx::HIPS);
        let thigh_world =
            Quat::from_rotation_arc(local_offset(shin).normalize(), (knee - hip).normalize());
        self.rot[thigh] = parent_world.inverse() * thigh_world;
        let shin_dir_local = thigh_world.inverse() * (ankle - knee).normalize();
        self.rot[shin] = Quat::from_rotation_arc(local_offset(foot).normalize(), shin_dir_local);
        let shin_world = thigh_world * self.rot[shin];
        self.rot[foot] = shin_world.inverse() * foot_world;
    }
}

fn rot(x: f32, y: f32, z: f32) -> Quat {
    Quat::from_euler(EulerRot::YXZ, y, x, z)
}

/// The poses of one loop `period` seconds long at every key, [`FPS`] keys per second; the last
/// repeats the first pose exactly, so the loop is seamless.
fn cycle(period: f32, pose_at: impl Fn(f32) -> Pose) -> Vec<Pose> {
    let frames = (period * FPS).round() as usize;
    (0..=frames)
        .map(|f| pose_at((f % frames) as f32 / frames as f32))
        .collect()
}

/// The keys of `poses` (one per key, [`FPS`] apart): rotations of `joints`, and the hips'
/// translation when `hips_moves`.
fn keys(name: &'static str, hips_moves: bool, joints: &[usize], poses: &[Pose]) -> ClipKeys {
    let times: Vec<f32> = (0..poses.len()).map(|f| f as f32 / FPS).collect();
    let mut rotations: Vec<(usize, Vec<Quat>)> = joints.iter().map(|&j| (j, Vec::new())).collect();
    for pose in poses {
        for (j, list) in &mut rotations {
            let q = pose.rot[*j].normalize();
            // Keep consecutive keys in one hemisphere: slerp takes the short way anyway, but
            // continuous keys read better and interpolate identically in every player.
            let q = match list.last() {
                Some(prev) if prev.dot(q) < 0.0 => -q,
                _ => q,
            };
            list.push(q);
        }
    }
    ClipKeys {
        name,
        times,
        hips_translation: hips_moves.then(|| poses.iter().map(|p| p.hips).collect()),
        rotations,
    }
}

/// The mean model-space distance joint `j` moves between consecutive keys of `poses`.
fn motion_per_key(poses: &[Pose], j: usize) -> f32 {
    let at: Vec<Vec3> = poses.iter().map(|p| p.world_position(j)).collect();
    let moved: f32 = at.windows(2).map(|w| (w[1] - w[0]).length()).sum();
    moved / (at.len().max(2) - 1) as f32
}

/// Moves the left hand at the last key of the seamless cycle `poses` away from where the
/// first key has it by `frames` times the hand's mean motion per key, by turning the upper arm
/// about its swing axis (the shoulder's x) at that key alone: the seam a cut that does not end
/// where it starts leaves in one limb.
fn open_seam(poses: &mut [Pose], frames: f32) {
    let distance = frames * motion_per_key(poses, idx::HAND_L);
    let Some(last) = poses.last_mut() else {
        return;
    };
    let pivot = last.world_position(idx::UPPER_ARM_L);
    let axis = last.world_rotation(idx::SHOULDER_L) * Vec3::X;
    let arm = last.world_position(idx::HAND_L) - pivot;
    let radius = (arm - axis * arm.dot(axis)).length();
    // A turn by `angle` moves a point `radius` from the axis by 2 radius sin(angle / 2).
    let angle = 2.0 * (distance / (2.0 * radius)).min(1.0).asin();
    last.rot[idx::UPPER_ARM_L] = Quat::from_rotation_x(angle) * last.rot[idx::UPPER_ARM_L];
}

/// Moves the hips (and with them the whole body) of key `k` of `poses` by `per_cycle` ×
/// k / (last key): drift, or root motion, growing linearly over the cycle.
fn travel(poses: &mut [Pose], per_cycle: Vec3) {
    if per_cycle == Vec3::ZERO {
        return;
    }
    let last = (poses.len().max(2) - 1) as f32;
    for (k, p) in poses.iter_mut().enumerate() {
        p.hips += per_cycle * (k as f32 / last);
    }
}

/// Gait parameters.
struct Gait {
    speed: f32,
    period: f32,
    /// Fraction of the cycle a foot is on the ground.
    stance: f32,
    step_height: f32,
    lean: f32,
    arm_swing: f32,
    /// Backward bias of the arm swing, radians (runners keep their hands near the body).
    arm_back: f32,
    /// Heel lift at toe-off and toes-up angle at heel strike, radians.
    toe_off: f32,
    heel_strike: f32,
    elbow: f32,
    /// Mean hips height, metres.
    hips_mid: f32,
    /// Half the hips' rise and fall, metres.
    hips_bob: f32,
    /// Cycle phase of the lowest hips (walk: double support; run: mid-stance).
    hips_low_phase: f32,
}

/// The sole's toe and heel contact points relative to the ankle of a flat foot, metres.
const TOE: Vec3 = Vec3::new(0.0, -ANKLE_HEIGHT, 0.17);
const HEEL: Vec3 = Vec3::new(0.0, -ANKLE_HEIGHT, -0.05);

/// How far the ankle moves when the foot pitches by `pitch` about `pivot` (a contact point
/// relative to the ankle), the pivot staying put on the ground.
fn roll_about(pivot: Vec3, pitch: f32) -> Vec3 {
    pivot - Quat::from_rotation_x(pitch) * pivot
}

/// Where the foot is at cycle phase `phase` in [0, 1): the ankle's offset from its rest
/// position (model space) and the foot's pitch (radians about X; positive lifts the heel).
///
/// Stance: the ground contact slides back at exactly `speed`, so it is planted once the
/// character moves forward at that speed. The foot lands on its heel with the toes up, rolls
/// flat, and ends on its toes with the heel lifting. Swing: it lifts and returns forward on a
/// smooth arc, turning from toe-off to the landing pitch.
fn foot_pose(g: &Gait, phase: f32) -> (Vec3, f32) {
    let stride = g.speed * g.period * g.stance;
    let smooth = |e0: f32, e1: f32, x: f32| {
        let t = ((x - e0) / (e1 - e0)).clamp(0.0, 1.0);
        t * t * (3.0 - 2.0 * t)
    };
    if phase < g.stance {
        let s = phase / g.stance;
        let flat = Vec3::new(0.0, 0.0, stride * (0.5 - s));
        // Heel strike: toes up, rolling down about the heel; toe-off: heel up about the toes.
        let strike = -g.heel_strike * (1.0 - smooth(0.0, 0.2, s));
        let lift = g.toe_off * smooth(0.55, 1.0, s);
        let (offset, pitch) = if strike != 0.0 {
            (roll_about(HEEL, strike), strike)
        } else {
            (roll_about(TOE, lift), lift)
        };
        (flat + offset, pitch)
    } else {
        let u = (phase - g.stance) / (1.0 - g.stance);
        let ease = 0.5 - 0.5 * (std::f32::consts::PI * u).cos();
        let lift = (std::f32::consts::PI * u).sin() * g.step_height;
        // From the toe-off pose to the heel-strike pose, so the ankle path is continuous.
        let (from, to) = (
            (roll_about(TOE, g.toe_off), g.toe_off),
            (roll_about(HEEL, -g.heel_strike), -g.heel_strike),
        );
        let offset = from.0.lerp(to.0, ease);
        let pitch = from.1 + (to.1 - from.1) * ease;
        (Vec3::new(0.0, lift, stride * (ease - 0.5)) + offset, pitch)
    }
}

fn gait_pose(g: &Gait, phase: f32) -> Pose {
    let tau = std::f32::consts::TAU;
    let mut p = Pose::rest();
    let feet = [(idx::THIGH_L, phase), (idx::THIGH_R, (phase + 0.5).fract())];
    let leg = local_offset(idx::SHIN_L).length() + local_offset(idx::FOOT_L).length();
    let rest_hips = JOINTS[idx::HIPS].position;
    // The hips bob on a smooth curve, twice per cycle, capped by what both feet's targets
    // allow (legs at 97% extension) so every target stays reachable.
    let mut height = g.hips_mid - g.hips_bob * (2.0 * tau * (phase - g.hips_low_phase)).cos();
    for &(thigh, ph) in &feet {
        let (off, _) = foot_pose(g, ph);
        let reach = ((leg * 0.97).powi(2) - off.z * off.z).max(0.0).sqrt();
        height =
            height.min(ANKLE_HEIGHT + off.y + reach + (rest_hips.y - JOINTS[thigh].position.y));
    }
    p.hips = Vec3::new(0.0, height, 0.0);
    let sway = (tau * phase).sin();
    p.rot[idx::HIPS] = rot(0.0, 0.08 * sway, 0.03 * (tau * phase).cos());
    p.rot[idx::SPINE] = rot(g.lean * 0.5, -0.05 * sway, 0.0);
    p.rot[idx::CHEST] = rot(g.lean * 0.5, -0.08 * sway, -0.02 * (tau * phase).cos());
    p.rot[idx::NECK] = rot(-g.lean * 0.6, 0.06 * sway, 0.0);
    p.rot[idx::HEAD] = rot(-g.lean * 0.4, 0.04 * sway, 0.0);
    for &(thigh, ph) in &feet {
        let (off, pitch) = foot_pose(g, ph);
        let target = JOINTS[thigh + 2].position + off;
        p.leg_ik(thigh, target, Vec3::Z, Quat::from_rotation_x(pitch));
    }
    // Arms swing against the legs: the left arm with the right leg.
    for (upper, fore, side, ph) in [
        (
            idx::UPPER_ARM_L,
            idx::FOREARM_L,
            1.0f32,
            (phase + 0.5).fract(),
        ),
        (idx::UPPER_ARM_R, idx::FOREARM_R, -1.0, phase),
    ] {
        let swing = g.arm_swing * (tau * ph).cos();
        p.rot[upper] = rot(g.arm_back - swing, 0.0, side * 0.06);
        p.rot[fore] = rot(
            -g.elbow - 0.3 * g.elbow * (tau * ph).cos().max(0.0),
            0.0,
            0.0,
        );
    }
    p
}

const WALK: Gait = Gait {
    speed: WALK_SPEED,
    period: 1.0,
    stance: 0.6,
    step_height: WALK_STEP_HEIGHT,
    lean: 0.05,
    arm_swing: 0.3,
    arm_back: 0.0,
    toe_off: 0.45,
    heel_strike: 0.25,
    elbow: 0.25,
    hips_mid: 0.875,
    hips_bob: 0.025,
    hips_low_phase: 0.05,
};

const RUN: Gait = Gait {
    speed: RUN_SPEED,
    period: 2.0 / 3.0,
    stance: 0.3,
    step_height: 0.24,
    lean: 0.18,
    arm_swing: RUN_ARM_SWING,
    arm_back: 0.25,
    toe_off: 0.6,
    heel_strike: 0.0,
    elbow: 1.3,
    hips_mid: 0.85,
    hips_bob: 0.025,
    hips_low_phase: 0.15,
};

const LEGS_AND_BODY: [usize; 19] = [
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18,
];
const UPPER_BODY: [usize; 12] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12];

fn idle_pose(phase: f32) -> Pose {
    let tau = std::f32::consts::TAU;
    let mut p = Pose::rest();
    // Weight shifts from foot to foot once per loop; two breaths per loop.
    let shift = (tau * phase).sin();
    let breath = (2.0 * tau * phase).sin();
    p.hips =
        JOINTS[idx::HIPS].position + Vec3::new(0.03 * shift, -0.005 - 0.006 * shift.abs(), 0.0);
    p.rot[idx::HIPS] = rot(0.0, 0.04 * shift, -0.04 * shift);
    p.rot[idx::SPINE] = rot(0.01 * breath, 0.0, 0.03 * shift);
    p.rot[idx::CHEST] = rot(0.025 * breath, -0.03 * shift, 0.02 * shift);
    p.rot[idx::NECK] = rot(-0.02 * breath, 0.0, -0.01 * shift);
    p.rot[idx::HEAD] = rot(0.0, 0.12 * (tau * phase * 1.0 + 0.6).sin(), 0.0);
    for (shoulder, upper, fore, side) in [
        (idx::SHOULDER_L, idx::UPPER_ARM_L, idx::FOREARM_L, 1.0f32),
        (idx::SHOULDER_R, idx::UPPER_ARM_R, idx::FOREARM_R, -1.0),
    ] {
        p.rot[shoulder] = rot(0.0, 0.0, side * 0.03 * breath);
        p.rot[upper] = rot(0.02 * breath, 0.0, side * (0.05 - 0.03 * shift * side));
        p.rot[fore] = rot(-0.15 - 0.03 * breath, 0.0, 0.0);
    }
    for thigh in [idx::THIGH_L, idx::THIGH_R] {
        p.leg_ik(thigh, JOINTS[thigh + 2].position, Vec3::Z, Quat::IDENTITY);
    }
    p
}

fn wave_pose(phase: f32) -> Pose {
    let tau = std::f32::consts::TAU;
    let mut p = Pose::rest();
    // Two waves per loop with the right hand raised beside the head.
    let wave = (2.0 * tau * phase).sin();
    p.rot[idx::CHEST] = rot(0.0, 0.05, 0.04);
    p.rot[idx::NECK] = rot(0.0, -0.1, 0.0);
    p.rot[idx::HEAD] = rot(0.05, -0.15, 0.04);
    p.rot[idx::SHOULDER_R] = rot(0.0, 0.0, -0.15);
    p.rot[idx::UPPER_ARM_R] = rot(0.25, 0.0, -1.25);
    p.rot[idx::FOREARM_R] = rot(0.0, 0.0, -1.65 + 0.35 * wave);
    p.rot[idx::HAND_R] = rot(0.0, 0.0, 0.15 * wave);
    p.rot[idx::UPPER_ARM_L] = rot(0.0, 0.0, 0.06);
    p.rot[idx::FOREARM_L] = rot(-0.15, 0.0, 0.0);
    p
}

/// The four clips of `variant`, each one loop long: the walk and run at its speeds, the run's
/// seam, and the walk's and run's drift and root motion.
pub(super) fn clips(variant: &Variant) -> Vec<ClipKeys> {
    let walk = Gait {
        speed: variant.walk_speed,
        step_height: variant.walk_step_height,
        ..WALK
    };
    let run = Gait {
        speed: variant.run_speed,
        arm_swing: variant.run_arm_swing,
        ..RUN
    };
    let mut walk_poses = cycle(walk.period, |ph| gait_pose(&walk, ph));
    let mut run_poses = cycle(run.period, |ph| gait_pose(&run, ph));
    // The seam is measured on the cycle as authored, before any drift or root motion.
    if variant.run_seam > 0.0 {
        open_seam(&mut run_poses, variant.run_seam);
    }
    for (poses, g) in [(&mut walk_poses, &walk), (&mut run_poses, &run)] {
        let forward = if variant.in_place {
            0.0
        } else {
            g.speed * g.period
        };
        let drift = variant.hips_drift;
        travel(poses, Vec3::new(drift.x, 0.0, drift.y + forward));
    }
    vec![
        keys("idle", true, &LEGS_AND_BODY, &cycle(4.0, idle_pose)),
        keys("walk", true, &LEGS_AND_BODY, &walk_poses),
        keys("run", true, &LEGS_AND_BODY, &run_poses),
        keys("wave", false, &UPPER_BODY, &cycle(2.0, wave_pose)),
    ]
}

#[cfg(test)]
mod tests {
    use glam::Vec2;

    use super::super::{LARGE_SEAM, SMALL_SEAM};
    use super::*;

    fn run_poses() -> Vec<Pose> {
        cycle(RUN.period, |ph| gait_pose(&RUN, ph))
    }

    #[test]
    fn a_seam_moves_the_left_hand_by_its_frames_of_motion() {
        let seamless = run_poses();
        let per_key = motion_per_key(&seamless, idx::HAND_L);
        // The run's hands swing a few centimetres per key at 30 keys per second.
        assert!(per_key > 0.02 && per_key < 0.2, "{per_key} m per key");
        for frames in [SMALL_SEAM, 1.0, LARGE_SEAM] {
            let mut poses = run_poses();
            open_seam(&mut poses, frames);
            let (first, last) = (&poses[0], &poses[poses.len() - 1]);
            let gap =
                (last.world_position(idx::HAND_L) - first.world_position(idx::HAND_L)).length();
            // f32 forward kinematics on metre-sized positions: a few micrometres.
            assert!(
                (gap / per_key - frames).abs() < 1e-3,
                "seam {gap} m is {} frames, not {frames}",
                gap / per_key
            );
            // Only the left upper arm's last key changed.
            for (k, (a, b)) in seamless.iter().zip(&poses).enumerate() {
                for (j, joint) in JOINTS.iter().enumerate() {
                    let changed = a.rot[j] != b.rot[j];
                    let expected = k == poses.len() - 1 && j == idx::UPPER_ARM_L;
                    assert_eq!(changed, expected, "key {k} joint {}", joint.name);
                }
                assert_eq!(a.hips, b.hips);
            }
        }
    }

    fn hips_keys(v: &Variant, clip: &str) -> Vec<Vec3> {
        clips(v)
            .into_iter()
            .find(|c| c.name == clip)
            .and_then(|c| c.hips_translation)
            .unwrap()
    }

    #[test]
    fn drift_and_root_motion_move_the_hips_linearly_over_the_cycle() {
        let base = Variant::default();
        let drift = Vec2::new(0.05, -0.02);
        let drifting = Variant {
            hips_drift: drift,
            ..base
        };
        let travelling = Variant {
            in_place: false,
            ..base
        };
        for (clip, speed, period) in [
            ("walk", WALK_SPEED, WALK.period),
            ("run", RUN_SPEED, RUN.period),
        ] {
            let plain = hips_keys(&base, clip);
            // In place: the hips only bob; they never leave x = z = 0.
            assert!(plain.iter().all(|h| h.x == 0.0 && h.z == 0.0), "{clip}");
            let last = (plain.len() - 1) as f32;
            for (v, per_cycle) in [
                (drifting, Vec3::new(drift.x, 0.0, drift.y)),
                (travelling, Vec3::new(0.0, 0.0, speed * period)),
            ] {
                let moved = hips_keys(&v, clip);
                for (k, (a, b)) in plain.iter().zip(&moved).enumerate() {
                    let expected = *a + per_cycle * (k as f32 / last);
                    assert!(
                        b.abs_diff_eq(expected, 1e-6),
                        "{clip} key {k}: {b} not {expected}"
                    );
                }
            }
        }
        // The idle keeps its hips where they were (the wave keys none).
        assert_eq!(hips_keys(&drifting, "idle"), hips_keys(&base, "idle"));
    }

    #[test]
    fn a_faster_walk_slides_its_planted_foot_faster() {
        for speed in [0.8, WALK_SPEED, 1.6] {
            let g = Gait { speed, ..WALK };
            // Mid-stance (flat foot, 20% to 55% of the stance): the ankle slides back at speed.
            let (a, b) = (0.3 * g.stance, 0.4 * g.stance);
            let (pa, _) = foot_pose(&g, a);
            let (pb, _) = foot_pose(&g, b);
            let v = (pb.z - pa.z) / ((b - a) * g.period);
            assert!((v + speed).abs() < 1e-4, "{v} m/s at {speed}");
            // And the IK reaches it: the posed ankle is where the foot pose puts it.
            let pose = gait_pose(&g, a);
            let ankle = pose.world_position(idx::FOOT_L);
            let target = JOINTS[idx::FOOT_L].position + pa;
            assert!(
                ankle.abs_diff_eq(target, 1e-4),
                "{ankle} for {target} at {speed}"
            );
        }
    }
}
