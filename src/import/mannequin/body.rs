//! The mannequin's skin: smooth tubes and ellipsoids swept along the bones, with weights that
//! blend between neighbouring joints across each joint, so elbows and knees bend softly.

use glam::{Vec2, Vec3};

use super::rig::{JOINTS, idx};

/// The generated mesh, before quantisation into the GLB.
pub(super) struct Body {
    pub positions: Vec<Vec3>,
    pub normals: Vec<Vec3>,
    pub uvs: Vec<Vec2>,
    /// Up to four (joint, weight) pairs per vertex, weights summing to 1.
    pub influences: Vec<Vec<(usize, f32)>>,
    pub indices: Vec<u32>,
}

/// One cross-section of a tube.
struct Ring {
    center: Vec3,
    /// Half-widths along the ring's two axes, metres.
    radii: Vec2,
    influences: Vec<(usize, f32)>,
}

fn smoothstep(e0: f32, e1: f32, x: f32) -> f32 {
    let t = ((x - e0) / (e1 - e0)).clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

/// Weights blending from `a` to `b` around a joint at parameter `at`, over `width`.
fn blend(a: usize, b: usize, at: f32, width: f32, s: f32) -> Vec<(usize, f32)> {
    let w = smoothstep(at - width, at + width, s);
    merge(vec![(a, 1.0 - w), (b, w)])
}

/// Drops zero weights and merges duplicate joints.
fn merge(list: Vec<(usize, f32)>) -> Vec<(usize, f32)> {
    let mut out: Vec<(usize, f32)> = Vec::new();
    for (j, w) in list {
        if w <= 0.0 {
            continue;
        }
        match out.iter_mut().find(|(k, _)| *k == j) {
            Some(e) => e.1 += w,
            None => out.push((j, w)),
        }
    }
    out
}

impl Body {
    /// Sweeps a closed tube through `rings` with `segments` vertices per ring, capped at both
    /// ends. `side` is the direction of the rings' first axis (roughly perpendicular to the
    /// tube); the ring frame is made orthogonal to the local tube direction.
    fn tube(&mut self, rings: &[Ring], segments: usize, side: Vec3) {
        let base = self.positions.len() as u32;
        let n = rings.len();
        for (r, ring) in rings.iter().enumerate() {
            let prev = rings[r.saturating_sub(1)].center;
            let next = rings[(r + 1).min(n - 1)].center;
            let dir = (next - prev).normalize();
            let u = (side - dir * side.dot(dir)).normalize();
            // u, v and dir form a right-handed frame, so the walls wind counter-clockwise seen
            // from outside (glTF front faces) and smooth normals point outwards.
            let v = u.cross(dir);
            for s in 0..segments {
                let a = s as f32 / segments as f32 * std::f32::consts::TAU;
                let offset = u * (a.cos() * ring.radii.x) + v * (a.sin() * ring.radii.y);
                self.positions.push(ring.center + offset);
                self.uvs.push(Vec2::new(
                    s as f32 / segments as f32,
                    r as f32 / (n - 1) as f32,
                ));
                self.influences.push(ring.influences.clone());
            }
        }
        let seg = segments as u32;
        for r in 0..(n as u32 - 1) {
            for s in 0..seg {
                let a = base + r * seg + s;
                let b = base + r * seg + (s + 1) % seg;
                let c = a + seg;
                let d = b + seg;
                self.indices.extend_from_slice(&[a, c, b, b, c, d]);
            }
        }
        // Caps: a centre vertex at each end, fanned to its ring.
        for (ring_index, flip) in [(0usize, true), (n - 1, false)] {
            let ring = &rings[ring_index];
            let center = self.positions.len() as u32;
            self.positions.push(ring.center);
            self.uvs
                .push(Vec2::new(0.5, ring_index as f32 / (n - 1) as f32));
            self.influences.push(ring.influences.clone());
            let first = base + ring_index as u32 * seg;
            for s in 0..seg {
                let a = first + s;
                let b = first + (s + 1) % seg;
                if flip {
                    self.indices.extend_from_slice(&[center, a, b]);
                } else {
                    self.indices.extend_from_slice(&[center, b, a]);
                }
            }
        }
    }
}

fn pos(i: usize) -> Vec3 {
    JOINTS[i].position
}

/// Rings along a straight segment from `a` to `b`: `count` rings, radii from `profile(s)`,
/// influences from `weights(s)`, with `s` in [0, 1].
fn rings_along(
    a: Vec3,
    b: Vec3,
    count: usize,
    profile: impl Fn(f32) -> Vec2,
    weights: impl Fn(f32) -> Vec<(usize, f32)>,
) -> Vec<Ring> {
    (0..count)
        .map(|i| {
            let s = i as f32 / (count - 1) as f32;
            Ring {
                center: a.lerp(b, s),
                radii: profile(s),
                influences: weights(s),
            }
        })
        .collect()
}

/// An ellipsoid as a tube of rings whose radii follow a half circle; ends pinched to a point.
fn ellipsoid(center: Vec3, radii: Vec3, rings: usize, joint: usize) -> Vec<Ring> {
    (0..rings)
        .map(|i| {
            // Avoid the exact poles: the caps close the ends.
            let t = (i as f32 + 0.5) / rings as f32;
            let angle = t * std::f32::consts::PI;
            Ring {
                center: center + Vec3::new(0.0, -angle.cos() * radii.y, 0.0),
                radii: Vec2::new(radii.x, radii.z) * angle.sin(),
                influences: vec![(joint, 1.0)],
            }
        })
        .collect()
}

/// The joints of one arm and the side it hangs on (+1 left, -1 right: the sign of x).
struct Arm {
    shoulder: usize,
    upper: usize,
    fore: usize,
    hand: usize,
    side: f32,
}

/// The joints of one leg and the side it stands on (+1 left, -1 right: the sign of x).
struct Leg {
    thigh: usize,
    shin: usize,
    foot: usize,
    side: f32,
}

/// Left arm first, then right: the order fixes the vertex order of the generated GLB.
const ARMS: [Arm; 2] = [
    Arm {
        shoulder: idx::SHOULDER_L,
        upper: idx::UPPER_ARM_L,
        fore: idx::FOREARM_L,
        hand: idx::HAND_L,
        side: 1.0,
    },
    Arm {
        shoulder: idx::SHOULDER_R,
        upper: idx::UPPER_ARM_R,
        fore: idx::FOREARM_R,
        hand: idx::HAND_R,
        side: -1.0,
    },
];

/// Left leg first, then right: the order fixes the vertex order of the generated GLB.
const LEGS: [Leg; 2] = [
    Leg {
        thigh: idx::THIGH_L,
        shin: idx::SHIN_L,
        foot: idx::FOOT_L,
        side: 1.0,
    },
    Leg {
        thigh: idx::THIGH_R,
        shin: idx::SHIN_R,
        foot: idx::FOOT_R,
        side: -1.0,
    },
];

/// Builds the whole body. Vertex count is fixed by the ring and segment counts below; the parts
/// are added in a fixed order (torso, neck, head, arms, legs with their feet), which is the
/// vertex order of the generated GLB.
pub(super) fn build() -> Body {
    let mut body = Body {
        positions: Vec::new(),
        normals: Vec::new(),
        uvs: Vec::new(),
        influences: Vec::new(),
        indices: Vec::new(),
    };
    body.tube(&torso(), 24, Vec3::X);
    add_neck_and_head(&mut body);
    for arm in &ARMS {
        let mut rings = clavicle(arm);
        rings.extend(arm_to_fingertips(arm));
        body.tube(&rings, 14, Vec3::Z);
    }
    for leg in &LEGS {
        body.tube(&leg_to_ankle(leg), 16, Vec3::X);
        body.tube(&foot(leg), 12, Vec3::X);
    }
    body.normals = crate::mesh::smooth_normals(&body.positions, &body.indices);
    body
}

/// Torso rings: pelvis to neck, elliptical (wider than deep), waist narrower than chest. A step
/// of its own because its profile and weights are functions of height alone.
fn torso() -> Vec<Ring> {
    let torso_bottom = Vec3::new(0.0, 0.86, 0.0);
    let torso_top = Vec3::new(0.0, 1.47, 0.0);
    let h = |s: f32| torso_bottom.y + (torso_top.y - torso_bottom.y) * s;
    rings_along(
        torso_bottom,
        torso_top,
        20,
        |s| {
            let y = h(s);
            let hip = 0.155 - 0.04 * smoothstep(0.98, 1.12, y);
            let chest = 0.03 * smoothstep(1.12, 1.30, y) * (1.0 - smoothstep(1.36, 1.47, y));
            let shoulder_taper = 1.0 - 0.45 * smoothstep(1.40, 1.47, y);
            // Deeper at the chest than at the waist.
            let depth = 0.095 - 0.012 * smoothstep(0.95, 1.08, y)
                + 0.035 * smoothstep(1.1, 1.3, y) * (1.0 - smoothstep(1.38, 1.47, y));
            // Round off the bottom so the pelvis is not a flat disc.
            let bottom = 0.6 + 0.4 * smoothstep(0.86, 0.92, y);
            Vec2::new(
                (hip + chest) * shoulder_taper * bottom,
                depth * shoulder_taper * bottom,
            )
        },
        |s| {
            let y = h(s);
            let a = smoothstep(0.98, 1.10, y);
            let b = smoothstep(1.18, 1.30, y);
            merge(vec![
                (idx::HIPS, 1.0 - a),
                (idx::SPINE, a * (1.0 - b)),
                (idx::CHEST, b),
            ])
        },
    )
}

/// Adds the neck tube and the head ellipsoid: two tubes, since the head is closed at the top.
fn add_neck_and_head(body: &mut Body) {
    let neck = rings_along(
        pos(idx::NECK) - Vec3::Y * 0.04,
        pos(idx::HEAD) + Vec3::new(0.0, 0.04, -0.01),
        5,
        |_| Vec2::new(0.05, 0.05),
        |s| blend(idx::NECK, idx::HEAD, 0.75, 0.2, s),
    );
    body.tube(&neck, 12, Vec3::X);
    let head = ellipsoid(
        pos(idx::HEAD) + Vec3::new(0.0, 0.11, 0.015),
        Vec3::new(0.085, 0.115, 0.1),
        14,
        idx::HEAD,
    );
    body.tube(&head, 18, Vec3::X);
}

/// The shoulder pad's rings, from beside the chest to the top of the upper arm, blending chest,
/// shoulder and upper arm. The arm's tube starts with them, so the shoulder has no seam.
fn clavicle(arm: &Arm) -> Vec<Ring> {
    let (shoulder, upper) = (arm.shoulder, arm.upper);
    let start = pos(shoulder) + Vec3::new(arm.side * 0.05, 0.0, 0.0);
    rings_along(
        start,
        arm_top(arm),
        4,
        |s| Vec2::new(0.05, 0.045) * (0.8 + 0.2 * s),
        |s| {
            merge(vec![
                (idx::CHEST, 0.6 * (1.0 - s)),
                (shoulder, 0.4 + 0.1 * s),
                (upper, 0.5 * s),
            ])
        },
    )
}

/// Where the clavicle ends and the upper arm begins.
fn arm_top(arm: &Arm) -> Vec3 {
    pos(arm.upper) + Vec3::new(arm.side * 0.01, -0.01, 0.0)
}

/// The arm's rings after the clavicle: upper arm, forearm and hand, spaced evenly along the
/// bent line through elbow and wrist, blending shoulder/upper arm, elbow and wrist.
fn arm_to_fingertips(arm: &Arm) -> Vec<Ring> {
    let Arm {
        shoulder,
        upper,
        fore,
        hand,
        ..
    } = *arm;
    let top = arm_top(arm);
    let elbow = pos(fore);
    let wrist = pos(hand);
    let tip = wrist + (wrist - elbow).normalize() * 0.17;
    let upper_len = (elbow - top).length();
    let fore_len = (wrist - elbow).length();
    let total = upper_len + fore_len + 0.17;
    let mut rings = Vec::new();
    let count = 26;
    for i in 1..count {
        let s = i as f32 / (count - 1) as f32;
        let d = s * total;
        let (center, radius) = if d < upper_len {
            let t = d / upper_len;
            (top.lerp(elbow, t), 0.052 - 0.012 * t)
        } else if d < upper_len + fore_len {
            let t = (d - upper_len) / fore_len;
            (elbow.lerp(wrist, t), 0.040 - 0.014 * t)
        } else {
            let t = (d - upper_len - fore_len) / 0.17;
            // The hand: flat (narrow front to back), rounded at the fingertips.
            let r = 0.045 * (1.0 - 0.35 * smoothstep(0.7, 1.0, t));
            push_hand_ring(&mut rings, wrist.lerp(tip, t), r, hand);
            continue;
        };
        let elbow_w = smoothstep(upper_len - 0.04, upper_len + 0.04, d);
        let wrist_w = smoothstep(upper_len + fore_len - 0.03, upper_len + fore_len + 0.02, d);
        let shoulder_w = 1.0 - smoothstep(0.0, 0.06, d);
        rings.push(Ring {
            center,
            radii: Vec2::splat(radius),
            influences: merge(vec![
                (shoulder, 0.5 * shoulder_w),
                (upper, (1.0 - elbow_w) * (1.0 - 0.5 * shoulder_w)),
                (fore, elbow_w * (1.0 - wrist_w)),
                (hand, wrist_w),
            ]),
        });
    }
    rings
}

/// The leg's rings: top of thigh (inside the pelvis) to the ankle, blending hips, knee and
/// ankle. The foot is a tube of its own, crossing this one at the ankle.
fn leg_to_ankle(leg: &Leg) -> Vec<Ring> {
    let Leg {
        thigh, shin, foot, ..
    } = *leg;
    let top = pos(thigh) + Vec3::new(leg.side * 0.005, -0.02, 0.0);
    // The leg ends inside the foot, so no slot opens at the ankle.
    let ankle = pos(foot) - Vec3::Y * 0.03;
    let knee_y = pos(shin).y;
    rings_along(
        top,
        ankle,
        24,
        |s| {
            let y = top.y + (ankle.y - top.y) * s;
            let thigh_r = 0.066 - 0.018 * smoothstep(0.7, 0.52, y);
            let calf = 0.008 * smoothstep(0.22, 0.36, y) * (1.0 - smoothstep(0.38, 0.5, y));
            let r = if y > knee_y {
                thigh_r
            } else {
                0.05 - 0.018 * smoothstep(0.4, 0.12, y) + calf
            };
            Vec2::new(r, r * 1.05)
        },
        |s| {
            let y = top.y + (ankle.y - top.y) * s;
            let hip_w = smoothstep(0.90, 0.96, y);
            let knee_w = smoothstep(knee_y + 0.05, knee_y - 0.05, y);
            let ankle_w = smoothstep(pos(foot).y + 0.06, pos(foot).y, y);
            merge(vec![
                (idx::HIPS, 0.5 * hip_w),
                (thigh, (1.0 - knee_w) * (1.0 - 0.5 * hip_w)),
                (shin, knee_w * (1.0 - ankle_w)),
                (foot, ankle_w),
            ])
        },
    )
}

/// The foot's rings: heel to toe along +Z, flat sole at y = 0, bound wholly to the foot joint.
fn foot(leg: &Leg) -> Vec<Ring> {
    let foot = leg.foot;
    let heel = Vec3::new(pos(foot).x, 0.045, -0.06);
    let toe = Vec3::new(pos(foot).x, 0.03, 0.19);
    rings_along(
        heel,
        toe,
        12,
        |s| {
            let round = (1.0 - (2.0 * s - 1.0).powi(8)).max(0.0).sqrt();
            Vec2::new(
                0.045 * (0.6 + 0.4 * round),
                (0.045 - 0.015 * s) * round.max(0.05),
            )
        },
        |_| vec![(foot, 1.0)],
    )
}

/// Adds a hand ring: flattened across, so the palm faces the thigh.
fn push_hand_ring(rings: &mut Vec<Ring>, center: Vec3, r: f32, hand: usize) {
    rings.push(Ring {
        center,
        radii: Vec2::new(r, r * 0.45),
        influences: vec![(hand, 1.0)],
    });
}
