//! The mannequin's skeleton: 19 joints in a rest pose that is also the bind pose (arms hanging
//! slightly away from the body), character facing +Z, its left on +X, feet on y = 0.

use glam::Vec3;

/// One joint: name, parent index (parents first) and model-space rest position (metres).
pub(super) struct JointDef {
    pub name: &'static str,
    pub parent: Option<usize>,
    pub position: Vec3,
}

const fn j(name: &'static str, parent: Option<usize>, x: f32, y: f32, z: f32) -> JointDef {
    JointDef {
        name,
        parent,
        position: Vec3::new(x, y, z),
    }
}

/// Joint indices, for readable motion code.
pub(super) mod idx {
    pub const HIPS: usize = 0;
    pub const SPINE: usize = 1;
    pub const CHEST: usize = 2;
    pub const NECK: usize = 3;
    pub const HEAD: usize = 4;
    pub const SHOULDER_L: usize = 5;
    pub const UPPER_ARM_L: usize = 6;
    pub const FOREARM_L: usize = 7;
    pub const HAND_L: usize = 8;
    pub const SHOULDER_R: usize = 9;
    pub const UPPER_ARM_R: usize = 10;
    pub const FOREARM_R: usize = 11;
    pub const HAND_R: usize = 12;
    pub const THIGH_L: usize = 13;
    pub const SHIN_L: usize = 14;
    pub const FOOT_L: usize = 15;
    pub const THIGH_R: usize = 16;
    pub const SHIN_R: usize = 17;
    pub const FOOT_R: usize = 18;
}

/// Height of the ankle joints above the ground in the rest pose, metres.
pub(super) const ANKLE_HEIGHT: f32 = 0.09;

/// The joints, parents first. Thigh and shin are both 0.43 m: leg length 0.86 m.
pub(super) const JOINTS: [JointDef; 19] = [
    j("hips", None, 0.0, 0.95, 0.0),
    j("spine", Some(0), 0.0, 1.06, 0.0),
    j("chest", Some(1), 0.0, 1.24, 0.0),
    j("neck", Some(2), 0.0, 1.47, 0.0),
    j("head", Some(3), 0.0, 1.57, 0.01),
    j("shoulder_l", Some(2), 0.05, 1.42, 0.0),
    j("upper_arm_l", Some(5), 0.18, 1.42, 0.0),
    j("forearm_l", Some(6), 0.215, 1.14, 0.0),
    j("hand_l", Some(7), 0.245, 0.88, 0.0),
    j("shoulder_r", Some(2), -0.05, 1.42, 0.0),
    j("upper_arm_r", Some(9), -0.18, 1.42, 0.0),
    j("forearm_r", Some(10), -0.215, 1.14, 0.0),
    j("hand_r", Some(11), -0.245, 0.88, 0.0),
    j("thigh_l", Some(0), 0.09, 0.95, 0.0),
    j("shin_l", Some(13), 0.09, 0.52, 0.0),
    j("foot_l", Some(14), 0.09, ANKLE_HEIGHT, 0.0),
    j("thigh_r", Some(0), -0.09, 0.95, 0.0),
    j("shin_r", Some(16), -0.09, 0.52, 0.0),
    j("foot_r", Some(17), -0.09, ANKLE_HEIGHT, 0.0),
];

/// Rest translation of joint `i` relative to its parent.
pub(super) fn local_offset(i: usize) -> Vec3 {
    let def = &JOINTS[i];
    match def.parent {
        Some(p) => def.position - JOINTS[p].position,
        None => def.position,
    }
}
