//! Foot locking: the planted feet of an in-place cycle pinned to the ground of an agent that
//! moves at the cycle's ground speed, by a two-bone leg solve on the finished skinning
//! matrices.
//!
//! A hand-keyed walk rarely slides its stance foot back at one steady speed: within a stance
//! the Fox's hind paws slide at half to one and a half times the mean. An agent moving at the
//! mean ([`super::gait`]) then sees its feet skate forward and back by several centimetres per
//! step, whatever speed it picks. [`offsets`] finds, per foot and sample, the horizontal
//! correction that makes the contact point slide at exactly the agent's speed through each
//! stance (the smallest such correction: zero mean over the stance), and carries it smoothly
//! to the next stance through the swing, where the foot is in the air. [`Leg::apply`] moves
//! the foot by that correction: the thigh and shin turn (hip and knee, lengths kept) so that
//! the ankle lands on its corrected place, and the foot below it keeps its animated
//! orientation, translating rigidly. Heights are left as animated.
//!
//! Pure math on model-space skinning matrices (joint `j`'s model-space origin is
//! `skin[j] * bind_origin[j]`): no allocation per sample.

use glam::{Mat4, Quat, Vec2, Vec3, Vec4};

use super::Skeleton;
use super::gait::{self, FOOT_NAMES};
use super::ik::arc;

/// How much shorter than fully stretched (sum of thigh and shin) or longer than fully folded
/// (their difference) a solved leg may be, as a fraction of the stretched length: 0.1%. Keeps
/// the knee angle off the ends of `acos`, where it has no reliable bend direction.
const REACH_MARGIN: f32 = 1e-3;

/// Bones shorter than this fraction of the leg's reach have no direction to turn (a
/// zero-length leg, a joint on top of its parent).
const MIN_BONE: f32 = 1e-4;

/// A leg found for a foot: the two joints that turn and the subtree that follows the foot.
#[derive(Clone, Debug, PartialEq)]
pub struct Leg {
    /// The hip (the thigh's joint): turns about its origin to swing the leg.
    pub hip: usize,
    /// The knee (the shin's joint): turns about its origin to lengthen or shorten the leg.
    pub knee: usize,
    /// The ankle: its origin is what the leg places; it and everything below it translate.
    /// Usually the knee's child; for a foot hung from the root (an IK-control rig), the foot
    /// itself, which the shin ends at.
    pub ankle: usize,
    /// Every joint the solve moves, with how: 0 the hip's turn, 1 the hip's and the knee's,
    /// 2 the translation of the foot.
    moved: Vec<(usize, u8)>,
    /// Bind-space origins of hip, knee and ankle (homogeneous).
    bind: [Vec4; 3],
}

impl Leg {
    /// The leg of foot joint `foot` in `skeleton`, or `None` when it has none to turn.
    ///
    /// The ankle is the highest joint of the foot's chain named like a foot
    /// ([`FOOT_NAMES`]: Mixamo's `LeftFoot` above `LeftToeBase`, the Fox's `Foot01` above
    /// `Foot02`); without names, of the joints between the foot and the hips, the one below the
    /// two longest consecutive bones in `rest` (model-space joint origins): thigh and shin are
    /// a leg's longest. Knee and hip are the ankle's parent and grandparent, both below the
    /// hips. A foot with fewer than two joints between it and the hips `hips` (or a root) hangs
    /// from the root, as in rigs whose feet are IK controls: its leg is the nearest one whose
    /// shin ends at it (`detached_knee`). `bind_origin` holds each joint's bind-space origin.
    pub fn find(
        skeleton: &Skeleton,
        foot: usize,
        hips: usize,
        rest: &[Vec3],
        bind_origin: &[Vec4],
    ) -> Option<Self> {
        // The foot's ancestors up to (not including) the hips: the leg's joints.
        let mut path = vec![foot];
        let mut j = foot;
        while let Some(p) = skeleton.parent(j) {
            if p == hips || skeleton.parent(p).is_none() {
                break;
            }
            path.push(p);
            j = p;
        }
        let named = |j: usize| {
            let name = skeleton.names()[j].to_lowercase();
            FOOT_NAMES.iter().any(|f| name.contains(f))
        };
        let by_name = path
            .iter()
            .rposition(|&j| named(j))
            .filter(|&i| named(path[0]) && i + 2 < path.len());
        let at = by_name.or_else(|| {
            (0..path.len().saturating_sub(2)).max_by(|&a, &b| {
                let span = |i: usize| {
                    rest[path[i]].distance(rest[path[i + 1]])
                        + rest[path[i + 1]].distance(rest[path[i + 2]])
                };
                span(a).total_cmp(&span(b))
            })
        });
        let (ankle, knee, hip) = match at {
            Some(at) => (path[at], path[at + 1], path[at + 2]),
            None => {
                let (knee, hip) = detached_knee(skeleton, foot, rest)?;
                (foot, knee, hip)
            }
        };
        let n = skeleton.len();
        let mut region = vec![None::<u8>; n];
        for j in 0..n {
            region[j] = if j == ankle {
                Some(2)
            } else if j == knee {
                Some(1)
            } else if j == hip {
                Some(0)
            } else {
                skeleton.parent(j).and_then(|p| region[p])
            };
        }
        let moved = region
            .iter()
            .enumerate()
            .filter_map(|(j, r)| r.map(|r| (j, r)))
            .collect();
        Some(Self {
            hip,
            knee,
            ankle,
            moved,
            bind: [bind_origin[hip], bind_origin[knee], bind_origin[ankle]],
        })
    }

    /// Moves the ankle of the pose `skin` (model-space skinning matrices, one per joint) by
    /// `delta` (model units): the knee bends to make the hip-to-ankle distance right, the hip
    /// turns the leg onto the new ankle, and the ankle's subtree translates with it, keeping
    /// its animated orientation. Beyond the leg's reach the ankle stops short, on the line
    /// towards its target. Returns how far the ankle actually moved. A zero `delta` leaves the
    /// pose bit-identical.
    pub fn apply(&self, delta: Vec3, skin: &mut [Mat4]) -> Vec3 {
        if delta == Vec3::ZERO {
            return Vec3::ZERO;
        }
        let at = |j: usize, b: Vec4| (skin[j] * b).truncate();
        let (h, k, a) = (
            at(self.hip, self.bind[0]),
            at(self.knee, self.bind[1]),
            at(self.ankle, self.bind[2]),
        );
        let (thigh, shin) = (k - h, a - k);
        let (l1, l2) = (thigh.length(), shin.length());
        let reach = l1 + l2;
        if !(l1 > MIN_BONE * reach && l2 > MIN_BONE * reach) {
            return Vec3::ZERO;
        }
        let target = a + delta;
        let d = (target - h).length().clamp(
            (l1 - l2).abs() + REACH_MARGIN * reach,
            reach * (1.0 - REACH_MARGIN),
        );
        // The knee's interior angle now and as the new hip-to-ankle distance needs it.
        let bend = thigh.cross(shin);
        let knee_turn = if bend.length() > MIN_BONE * reach * reach {
            let now = (-thigh).angle_between(shin);
            let want = ((l1 * l1 + l2 * l2 - d * d) / (2.0 * l1 * l2))
                .clamp(-1.0, 1.0)
                .acos();
            // Turning the shin about (hip - knee) x shin opens the angle between them.
            Quat::from_axis_angle((-thigh).cross(shin).normalize(), want - now)
        } else {
            // A straight leg has no bend direction: only the hip turns.
            Quat::IDENTITY
        };
        let bent = k + knee_turn * shin;
        let (from, to) = ((bent - h).normalize(), (target - h).normalize());
        let hip_turn = if from.is_finite() && to.is_finite() {
            arc(from, to)
        } else {
            Quat::IDENTITY
        };
        let about = |q: Quat, p: Vec3| {
            Mat4::from_translation(p) * Mat4::from_quat(q) * Mat4::from_translation(-p)
        };
        let (turn_hip, turn_knee) = (about(hip_turn, h), about(knee_turn, k));
        let both = turn_hip * turn_knee;
        let moved = both.transform_point3(a) - a;
        if !moved.is_finite() {
            return Vec3::ZERO;
        }
        let shift = Mat4::from_translation(moved);
        for &(j, r) in &self.moved {
            skin[j] = match r {
                0 => turn_hip * skin[j],
                1 => both * skin[j],
                _ => shift * skin[j],
            };
        }
        moved
    }
}

/// The knee and hip of a foot that hangs from the root rather than from its leg (rigs whose
/// feet are IK controls: RobotExpressive's `Foot.L` is a child of the root, its shin
/// `LowerLeg.L` ends above it): of the joints outside the foot's chain that hang from a parent
/// below a root, above the foot, with their bone from that parent pointing at the foot (within
/// [`DETACHED_AIM`]), the one nearest it. `None` when there is none.
fn detached_knee(skeleton: &Skeleton, foot: usize, rest: &[Vec3]) -> Option<(usize, usize)> {
    let at = rest[foot];
    (0..skeleton.len())
        .filter_map(|k| {
            let h = skeleton.parent(k)?;
            skeleton.parent(h)?;
            if k == foot || skeleton.is_ancestor(k, foot) || skeleton.is_ancestor(foot, k) {
                return None;
            }
            let (thigh, shin) = (rest[k] - rest[h], at - rest[k]);
            let aims = thigh.dot(shin) > DETACHED_AIM * thigh.length() * shin.length();
            (aims && rest[k].y > at.y && thigh.length() > 0.0).then_some((k, h))
        })
        .min_by(|a, b| rest[a.0].distance(at).total_cmp(&rest[b.0].distance(at)))
}

/// How straight a detached foot's leg must stand at rest to be taken for its leg: the cosine
/// of the largest angle between the thigh and the line from the knee to the foot (0.7: 45°;
/// a standing leg is nearly straight, while an arm or the other leg points elsewhere).
const DETACHED_AIM: f32 = 0.7;

/// A stance sample is locked only while its contact slides back along the travel at this
/// share of the agent's speed or more (0.5): the hand-keyed cycles' planted feet slide at 0.5
/// to 1.5 times the mean; a foot touching down still moves forward or barely back, and pinning
/// it would drag it by a large part of a stride (the Fox's walk: corrections up to 34 cm
/// with every stance sample locked, 4 cm with this rule).
const LOCK_MIN_SLIDE: f32 = 0.5;

/// The horizontal corrections (x, z, model units) that lock the planted feet of one cycle to
/// the ground of an agent travelling at `velocity` (x, z of the model, units per second), into
/// `out` (`frames × feet`, frame-major).
///
/// `positions` is as [`gait::measure`] takes it (`frames × feet × points` model-space points,
/// `step` seconds apart, wrapping); `height` is the character's. In each stance
/// ([`gait::stance`], while the foot slides back at half the speed or more) the
/// correction makes the foot's contact point move by exactly
/// `-velocity × step` from one sample to the next (so it stays put in the world), offset so that
/// its mean over the stance is zero (the least correction). Between stances it eases (smoothstep)
/// from the value the stance ended with to the one the next starts with. A foot with no stance,
/// or one always in stance, gets none.
pub fn offsets(
    positions: &[Vec3],
    feet: usize,
    points: usize,
    step: f32,
    height: f32,
    velocity: Vec2,
    out: &mut [Vec2],
) {
    out.iter_mut().for_each(|o| *o = Vec2::ZERO);
    let frames = positions.len().checked_div(feet * points).unwrap_or(0);
    if frames < 3 || out.len() < frames * feet {
        return;
    }
    let mut down = vec![false; frames * feet];
    gait::stance(positions, feet, points, step, height, &mut down);
    let at = |i: usize, f: usize| {
        let k = (i * feet + f) * points;
        &positions[k..k + points]
    };
    let wanted = -velocity * step;
    // Only stance samples that slide back with the travel are locked: touch-down, where a foot
    // already on the ground still moves forward or barely back, is left as animated (pinning it
    // would drag the foot by a large share of a stride).
    let ahead = velocity.normalize_or_zero();
    for i in 0..frames {
        for f in 0..feet {
            let here = at(i, f);
            let q = gait::contact(here);
            let (next, prev) = (
                at((i + 1) % frames, f)[q],
                at((i + frames - 1) % frames, f)[q],
            );
            let v = (next - prev) / (2.0 * step);
            let back = -Vec2::new(v.x, v.z).dot(ahead);
            if back < LOCK_MIN_SLIDE * velocity.length() {
                down[i * feet + f] = false;
            }
        }
    }
    for f in 0..feet {
        let is_down = |i: usize| down[(i % frames) * feet + f];
        let Some(first_up) = (0..frames).find(|&i| !is_down(i)) else {
            continue;
        };
        // Walk the cycle from a swing sample, so no stance is cut by the wrap.
        let mut runs: Vec<(usize, usize)> = Vec::new();
        let mut i = first_up;
        while i < first_up + frames {
            if is_down(i) {
                let start = i;
                while i < first_up + frames && is_down(i) {
                    i += 1;
                }
                runs.push((start, i - start));
            } else {
                i += 1;
            }
        }
        for &(start, len) in &runs {
            // Integrate the slip of the contact point (the one lowest at each sample, moved
            // to the next sample) against the agent's travel.
            let mut sum = Vec2::ZERO;
            let mut acc = Vec2::ZERO;
            for s in 0..len {
                let i = (start + s) % frames;
                out[i * feet + f] = acc;
                sum += acc;
                let here = at(i, f);
                let q = gait::contact(here);
                let next = at((i + 1) % frames, f)[q];
                let moved = next - here[q];
                acc += wanted - Vec2::new(moved.x, moved.z);
            }
            let mean = sum / len as f32;
            for s in 0..len {
                out[((start + s) % frames) * feet + f] -= mean;
            }
        }
        // Ease through each swing from the end of one stance to the start of the next.
        for (r, &(start, len)) in runs.iter().enumerate() {
            let (next, _) = runs[(r + 1) % runs.len()];
            let last = start + len - 1;
            let gap = (next + frames - last - 1) % frames;
            let (from, to) = (
                out[(last % frames) * feet + f],
                out[(next % frames) * feet + f],
            );
            for g in 1..=gap {
                let u = g as f32 / (gap + 1) as f32;
                let w = u * u * (3.0 - 2.0 * u);
                out[((last + g) % frames) * feet + f] = from.lerp(to, w);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::anim::{RawSkeleton, Transform};

    /// A leg: hips at 1 m, hip joint below it, knee 0.45 m lower (bent slightly forward),
    /// ankle 0.45 m below the knee, toe 0.15 m ahead of the ankle.
    fn leg() -> (Skeleton, Vec<Vec3>) {
        let rest = vec![
            Vec3::new(0.0, 1.0, 0.0),
            Vec3::new(0.1, 0.95, 0.0),
            Vec3::new(0.1, 0.5, 0.05),
            Vec3::new(0.1, 0.06, 0.0),
            Vec3::new(0.1, 0.0, 0.15),
        ];
        let parents = [None, Some(0), Some(1), Some(2), Some(3)];
        let names = ["hips", "thigh", "shin", "foot", "toe"];
        let local = (0..5)
            .map(|j| {
                let above = parents[j].map_or(Vec3::ZERO, |p: usize| rest[p]);
                Transform {
                    translation: rest[j] - above,
                    ..Transform::IDENTITY
                }
            })
            .collect();
        let raw = RawSkeleton {
            names: names.iter().map(|s| s.to_string()).collect(),
            parents: parents.to_vec(),
            rest: local,
            inverse_bind: rest.iter().map(|p| Mat4::from_translation(-*p)).collect(),
            root_bases: vec![Mat4::IDENTITY; 5],
        };
        (raw.validate().unwrap(), rest)
    }

    fn origins(rest: &[Vec3]) -> Vec<Vec4> {
        rest.iter().map(|p| p.extend(1.0)).collect()
    }

    #[test]
    fn the_leg_is_found_by_name_above_the_toe() {
        let (s, rest) = leg();
        let l = Leg::find(&s, 4, 0, &rest, &origins(&rest)).unwrap();
        assert_eq!((l.hip, l.knee, l.ankle), (1, 2, 3));
    }

    #[test]
    fn the_ankle_lands_on_its_target_and_the_foot_keeps_its_orientation() {
        let (s, rest) = leg();
        let l = Leg::find(&s, 4, 0, &rest, &origins(&rest)).unwrap();
        // The bind pose: skinning matrices are identity.
        let mut skin = vec![Mat4::IDENTITY; 5];
        let delta = Vec3::new(0.02, 0.0, -0.07);
        let moved = l.apply(delta, &mut skin);
        // f32 through acos and two rotations of 0.5 m bones: 1e-5 m.
        assert!((moved - delta).length() < 1e-5, "{moved}");
        let ankle = (skin[3] * rest[3].extend(1.0)).truncate();
        assert!((ankle - (rest[3] + delta)).length() < 1e-5, "{ankle}");
        // The toe moves by the same amount: the foot translates rigidly.
        let toe = (skin[4] * rest[4].extend(1.0)).truncate();
        assert!((toe - (rest[4] + delta)).length() < 1e-5, "{toe}");
        // Bone lengths are kept.
        let p = |j: usize| (skin[j] * rest[j].extend(1.0)).truncate();
        for (a, b) in [(1, 2), (2, 3)] {
            let was = rest[a].distance(rest[b]);
            assert!((p(a).distance(p(b)) - was).abs() < 1e-5);
        }
        // The hips do not move.
        assert_eq!(skin[0], Mat4::IDENTITY);
    }

    #[test]
    fn out_of_reach_stops_short_and_zero_changes_nothing() {
        let (s, rest) = leg();
        let l = Leg::find(&s, 4, 0, &rest, &origins(&rest)).unwrap();
        let mut skin = vec![Mat4::IDENTITY; 5];
        assert_eq!(l.apply(Vec3::ZERO, &mut skin), Vec3::ZERO);
        assert!(skin.iter().all(|m| *m == Mat4::IDENTITY));
        let moved = l.apply(Vec3::new(0.0, 0.0, 2.0), &mut skin);
        assert!(moved.length() < 2.0 && moved.z > 0.0, "{moved}");
        assert!(skin.iter().all(|m| m.is_finite()));
    }

    #[test]
    fn a_sliding_stance_is_locked_to_the_agents_speed() {
        // One foot: in stance for the first 12 of 20 samples, sliding back at a speed that
        // varies from 0.6 to 1.4 m/s (mean 1); lifted in an arc otherwise.
        let (frames, step) = (20, 0.05);
        let slide = |i: usize| 1.0 + 0.4 * (std::f32::consts::PI * i as f32 / 11.0).cos();
        let stride: f32 = (0..12).map(|i| slide(i) * step).sum();
        let mut z = 0.3f32;
        let mut p = Vec::new();
        for i in 0..frames {
            // The swing carries the foot forward by the stride, so the cycle closes.
            let (y, dz) = if i < 12 {
                (0.0, -slide(i) * step)
            } else {
                let u = (i - 11) as f32 / 9.0;
                (0.2 * (std::f32::consts::PI * u).sin(), stride / 8.0)
            };
            p.push(Vec3::new(0.0, y, z));
            z += dz;
        }
        let mut out = vec![Vec2::ZERO; frames];
        let velocity = Vec2::new(0.0, 1.0);
        offsets(&p, 1, 1, step, 1.8, velocity, &mut out);
        // Corrected, each stance step moves back by exactly velocity × step.
        let mut marked = vec![false; frames];
        gait::stance(&p, 1, 1, step, 1.8, &mut marked);
        let locked: Vec<usize> = (0..frames - 1)
            .filter(|&i| marked[i] && marked[i + 1])
            .collect();
        assert!(locked.len() >= 8, "{marked:?}");
        for i in locked {
            let a = Vec2::new(p[i].x, p[i].z) + out[i];
            let b = Vec2::new(p[i + 1].x, p[i + 1].z) + out[i + 1];
            // f32 sums of 0.05 m steps: 1e-6 m.
            assert!(
                ((b - a) + velocity * step).length() < 1e-6,
                "{i}: {}",
                b - a
            );
        }
        // The least correction: zero mean over the stance; none larger than the slide's
        // swing about its mean allows (0.4 m/s over 0.6 s, well under 0.2 m).
        assert!(out.iter().all(|o| o.length() < 0.2));
    }
}
