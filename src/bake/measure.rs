//! Cheap, conservative measures over a character's skinned mesh, from the bind-space bounding
//! box of the vertices each joint moves:
//!
//! - **bounds** of the skinned mesh at a frame: the union of the joints' boxes carried by their
//!   skinning matrices. A skinned vertex is a weighted average (weights sum to 1) of its joints'
//!   transforms of it, each inside that joint's carried box, so it lies in the union: the bounds
//!   never cut off the mesh (what culling needs);
//! - **error** between two sets of skinning matrices (exact against interpolated or f16): the
//!   largest distance any point of any joint's box moves between them. For the same reason it
//!   is at least the largest distance any vertex moves, and the maximum of `|(A - B) p|` over
//!   a box is at one of its 8 corners (a convex function), so 8 points per joint give it.
//!
//! Both cost 8 points per joint rather than a pass over every vertex, which keeps baking fast.

use glam::{Mat4, Vec3, Vec4};

use crate::mesh::SkinnedMesh;

/// Per joint: the bind-space bounds of the vertices it influences (with a weight > 0).
#[derive(Clone, Debug, PartialEq)]
pub struct JointBoxes {
    /// For each joint that moves a vertex: its index, the box's centre (w = 1) and half-extent.
    boxes: Vec<(usize, Vec4, Vec3)>,
}

impl JointBoxes {
    /// The boxes of `joints` joints over `meshes`.
    pub fn new<'a>(joints: usize, meshes: impl IntoIterator<Item = &'a SkinnedMesh>) -> Self {
        let mut bounds: Vec<Option<(Vec3, Vec3)>> = vec![None; joints];
        for mesh in meshes {
            for ((p, js), ws) in mesh.positions.iter().zip(&mesh.joints).zip(&mesh.weights) {
                for (j, w) in js.iter().zip(ws) {
                    if *w <= 0.0 {
                        continue;
                    }
                    if let Some(b) = bounds.get_mut(usize::from(*j)) {
                        *b = Some(match *b {
                            Some((lo, hi)) => (lo.min(*p), hi.max(*p)),
                            None => (*p, *p),
                        });
                    }
                }
            }
        }
        let boxes = bounds
            .iter()
            .enumerate()
            .filter_map(|(j, b)| {
                let (lo, hi) = (*b)?;
                Some((j, ((lo + hi) * 0.5).extend(1.0), (hi - lo) * 0.5))
            })
            .collect();
        Self { boxes }
    }

    /// The 8 corners (bind space, w = 1) of the box of the vertices joint `joint` moves, or
    /// `None` when it moves none. A joint's skinning matrix carries them with its vertices:
    /// the ground-speed measure takes the lowest as a foot's contact point.
    pub fn corners(&self, joint: usize) -> Option<[Vec4; 8]> {
        let (_, c, e) = self.boxes.iter().find(|(j, _, _)| *j == joint)?;
        Some(std::array::from_fn(|i| {
            let sign = |bit: usize| if i & bit == 0 { -1.0 } else { 1.0 };
            *c + Vec4::new(e.x * sign(1), e.y * sign(2), e.z * sign(4), 0.0)
        }))
    }

    /// Whether no joint moves any vertex (no meshes).
    pub fn is_empty(&self) -> bool {
        self.boxes.is_empty()
    }

    /// The largest factor by which `skin` (one matrix per joint) stretches a bind-space
    /// length, over the joints that move a vertex: the longest axis (column) of their
    /// matrices. For the rotations and per-axis scales that glTF nodes and a recipe's scale
    /// compose, that is exactly the largest scale factor. `None` when no joint moves a vertex
    /// or no matrix of theirs stretches by a finite amount above 0.
    pub fn stretch(&self, skin: &[Mat4]) -> Option<f32> {
        let s = self
            .boxes
            .iter()
            .filter_map(|(j, _, _)| skin.get(*j))
            .map(|m| {
                let axes = [m.x_axis, m.y_axis, m.z_axis].map(|a| a.truncate().length());
                axes[0].max(axes[1]).max(axes[2])
            })
            .filter(|s| s.is_finite())
            .fold(0.0f32, f32::max);
        (s > 0.0).then_some(s)
    }

    /// Bounds (min, max) of the mesh skinned with `skin` (one matrix per joint); for no meshes,
    /// the bounds of the matrices' translation columns.
    pub fn bounds(&self, skin: &[Mat4]) -> (Vec3, Vec3) {
        let (mut lo, mut hi) = (Vec4::splat(f32::INFINITY), Vec4::splat(f32::NEG_INFINITY));
        for (j, c, e) in &self.boxes {
            let Some(m) = skin.get(*j) else { continue };
            // The box of a transformed box: centre moved, half-extent through |A|.
            let centre = *m * *c;
            let ext = m.x_axis.abs() * e.x + m.y_axis.abs() * e.y + m.z_axis.abs() * e.z;
            lo = lo.min(centre - ext);
            hi = hi.max(centre + ext);
        }
        if lo.x > hi.x {
            for m in skin {
                lo = lo.min(m.w_axis);
                hi = hi.max(m.w_axis);
            }
        }
        if lo.x > hi.x {
            (Vec3::ZERO, Vec3::ZERO)
        } else {
            (lo.truncate(), hi.truncate())
        }
    }

    /// The largest distance a point of any joint's box moves between `a` and `b` (one matrix
    /// per joint): at least the largest distance a vertex moves. Infinite when `b` holds
    /// values that are not finite.
    pub fn error(&self, a: &[Mat4], b: &[Mat4]) -> f32 {
        self.error_above(a, b, 0.0)
    }

    /// The larger of `floor` (a distance, ≥ 0) and [`JointBoxes::error`] of `a` and `b`, to the
    /// bit. Faster when `floor` is close to the answer (a neighbouring frame's error, when the
    /// largest over many frames is wanted): a joint whose box provably moves less than `floor`
    /// is not measured corner by corner.
    pub fn error_above(&self, a: &[Mat4], b: &[Mat4], floor: f32) -> f32 {
        debug_assert!(floor >= 0.0, "a floor is a distance: {floor}");
        // A joint is passed over when the bound below is under floor²: its own corners then
        // move less than floor. Rounding is monotone, so each corner's computed squared length
        // is at most the bound's; the margin keeps the decision clear of floor² rounded.
        let skip_below = floor * floor * (1.0 - 1e-4);
        let mut worst = 0.0f32;
        for (j, c, e) in &self.boxes {
            let (Some(ma), Some(mb)) = (a.get(*j), b.get(*j)) else {
                continue;
            };
            let d = *ma - *mb;
            // The corners are centre ± half-extents along each axis: move the centre and the
            // three half-extent vectors once, then combine the 8 sign patterns. The matrices
            // are affine, so every w below is 0 and 4-lane lengths are 3D lengths.
            let u = d * *c;
            let (x, y, z) = (d.x_axis * e.x, d.y_axis * e.y, d.z_axis * e.z);
            let reach = u.abs() + x.abs() + y.abs() + z.abs();
            if !reach.is_finite() {
                return f32::INFINITY;
            }
            // Every corner's coordinates are within `reach`'s, so its squared length is at
            // most `reach`'s.
            if reach.length_squared() < skip_below {
                continue;
            }
            worst = worst.max(farthest_corner_squared(u, x, y, z));
        }
        floor.max(worst.sqrt())
    }

    /// For each joint that moves a vertex: its index and the largest distance a point of its
    /// box moves between `a` and `b` (one matrix per joint; infinite when not finite). The
    /// per-joint form of [`JointBoxes::error`], for measures that judge each joint against
    /// its own motion.
    pub fn joint_errors(&self, a: &[Mat4], b: &[Mat4]) -> Vec<(usize, f32)> {
        self.boxes
            .iter()
            .filter_map(|(j, c, e)| {
                let d = *a.get(*j)? - *b.get(*j)?;
                let u = d * *c;
                let (x, y, z) = (d.x_axis * e.x, d.y_axis * e.y, d.z_axis * e.z);
                // `max` passes NaN over: a matrix that is not finite is found as `error` finds it.
                let finite = (u.abs() + x.abs() + y.abs() + z.abs()).is_finite();
                let m = farthest_corner_squared(u, x, y, z).sqrt();
                Some((*j, if finite { m } else { f32::INFINITY }))
            })
            .collect()
    }
}

/// The largest squared length of the 8 corners `u ± x ± y ± z` (a box's centre and
/// half-extent vectors, moved).
fn farthest_corner_squared(u: Vec4, x: Vec4, y: Vec4, z: Vec4) -> f32 {
    let mut m = 0.0f32;
    for p in [u + x, u - x] {
        for q in [p + y, p - y] {
            m = m
                .max((q + z).length_squared())
                .max((q - z).length_squared());
        }
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::{Quat, Vec2, Vec4};

    fn two_joint_bar() -> SkinnedMesh {
        // A bar along x from 0 to 2, bound to joint 0 at x = 0 and blended to joint 1 at x = 2.
        let positions: Vec<Vec3> = (0..=8)
            .flat_map(|i| {
                let x = i as f32 * 0.25;
                [Vec3::new(x, -0.1, 0.0), Vec3::new(x, 0.1, 0.0)]
            })
            .collect();
        let n = positions.len();
        let weights = positions
            .iter()
            .map(|p| [1.0 - p.x / 2.0, p.x / 2.0, 0.0, 0.0])
            .collect();
        SkinnedMesh {
            name: "bar".into(),
            normals: vec![Vec3::Z; n],
            uvs: vec![Vec2::ZERO; n],
            joints: vec![[0, 1, 0, 0]; n],
            weights,
            indices: (0..(n as u32 - 2))
                .flat_map(|i| [i, i + 1, i + 2])
                .collect(),
            material: 0,
            rigid: false,
            positions,
        }
    }

    #[test]
    fn bounds_contain_every_skinned_vertex_and_error_bounds_every_move() {
        let mesh = two_joint_bar();
        let boxes = JointBoxes::new(2, [&mesh]);
        let (mut p, mut n) = (Vec::new(), Vec::new());
        for angle in [0.0f32, 0.4, 1.2, -2.0] {
            let a = [
                Mat4::IDENTITY,
                Mat4::from_rotation_translation(
                    Quat::from_rotation_z(angle),
                    Vec3::new(0.3, 0.0, 0.1),
                ),
            ];
            mesh.skin(&a, &mut p, &mut n);
            let (lo, hi) = boxes.bounds(&a);
            for v in &p {
                assert!(
                    v.cmpge(lo - 1e-6).all() && v.cmple(hi + 1e-6).all(),
                    "{v} outside {lo}..{hi}"
                );
            }
            let b = [Mat4::IDENTITY, Mat4::from_rotation_z(angle * 0.9)];
            let exact = crate::bake::skinned_error(&mesh, &a, &b);
            let bound = boxes.error(&a, &b);
            // Per joint: the still joint 0 moves nothing, and the largest is the error.
            let each = boxes.joint_errors(&a, &b);
            assert_eq!(each[0], (0, 0.0));
            let largest = each.iter().map(|(_, e)| *e).fold(0.0, f32::max);
            assert_eq!(
                largest.to_bits(),
                bound.to_bits(),
                "{each:?} against {bound}"
            );
            assert!(
                bound >= exact - 1e-6,
                "bound {bound} below the exact {exact}"
            );
            // The bar is thin, so the box bound is close to the exact value (within the box's
            // 0.2 m thickness times the rotation difference, plus the offset).
            assert!(
                bound <= exact + 0.2,
                "bound {bound} far above the exact {exact}"
            );
        }
        assert_eq!(boxes.error(&[Mat4::IDENTITY; 2], &[Mat4::IDENTITY; 2]), 0.0);
        let nan = [Mat4::IDENTITY, Mat4::from_cols_array(&[f32::NAN; 16])];
        assert!(boxes.error(&[Mat4::IDENTITY; 2], &nan).is_infinite());
        assert!(
            boxes.joint_errors(&[Mat4::IDENTITY; 2], &nan)[1]
                .1
                .is_infinite()
        );
    }

    /// The stretch is the largest scale of the joints that move a vertex (a joint that moves
    /// none is left out), whatever their rotations; none when nothing stretches.
    #[test]
    fn stretch_is_the_largest_scale_of_the_joints_that_move_vertices() {
        let mut mesh = two_joint_bar();
        // Joint 2 moves no vertex: its scale of 50 must not count.
        let boxes = JointBoxes::new(3, [&mesh]);
        let turn = Quat::from_rotation_y(0.7) * Quat::from_rotation_x(-1.1);
        let skin = [
            Mat4::from_scale_rotation_translation(Vec3::splat(0.01), turn, Vec3::ONE),
            Mat4::from_scale_rotation_translation(Vec3::new(0.01, 0.03, 0.02), turn, Vec3::ZERO),
            Mat4::from_scale(Vec3::splat(50.0)),
        ];
        // f32 rotation rounding: a few ulps of 0.03.
        let s = boxes.stretch(&skin).unwrap();
        assert!((s - 0.03).abs() < 1e-8, "{s}");
        assert_eq!(boxes.stretch(&[Mat4::IDENTITY; 3]), Some(1.0));
        assert_eq!(boxes.stretch(&[Mat4::ZERO; 3]), None);
        mesh.weights.iter_mut().for_each(|w| *w = [0.0; 4]);
        assert_eq!(JointBoxes::new(3, [&mesh]).stretch(&skin), None);
    }

    /// [`JointBoxes::error`] as it was before [`JointBoxes::error_above`] passed joints over:
    /// every joint measured corner by corner, the reference the pruned measure must match.
    fn every_corner(boxes: &JointBoxes, a: &[Mat4], b: &[Mat4]) -> f32 {
        let mut worst = 0.0f32;
        for (j, c, e) in &boxes.boxes {
            let d = a[*j] - b[*j];
            let u = d * *c;
            let (x, y, z) = (d.x_axis * e.x, d.y_axis * e.y, d.z_axis * e.z);
            if !(u.abs() + x.abs() + y.abs() + z.abs()).is_finite() {
                return f32::INFINITY;
            }
            for p in [u + x, u - x] {
                for q in [p + y, p - y] {
                    worst = worst
                        .max((q + z).length_squared())
                        .max((q - z).length_squared());
                }
            }
        }
        worst.sqrt()
    }

    /// The larger of the floor and the error, to the bit, for floors at the error itself, a
    /// few ulps either side, far below and far above, and as a running maximum over a
    /// sequence of frames (how the baker calls it); with joints that do not move at all, ones
    /// whose error only just beats the others', and a skin that is not finite.
    #[test]
    fn error_above_is_the_larger_of_the_floor_and_the_error_to_the_bit() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut f = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0
        };
        let n = 24;
        let boxes = JointBoxes {
            boxes: (0..n)
                .map(|j| {
                    let c = Vec3::new(f(), f(), f()) * 0.5;
                    let e = Vec3::new(f().abs(), f().abs(), f().abs()) * 0.2;
                    (j, c.extend(1.0), e)
                })
                .collect(),
        };
        let mut running = 0.0f32;
        for round in 0..400 {
            let a: Vec<Mat4> = (0..n)
                .map(|_| {
                    let q = Quat::from_xyzw(f(), f(), f(), f()).normalize();
                    Mat4::from_scale_rotation_translation(
                        Vec3::splat(0.5 + f().abs()),
                        q,
                        Vec3::new(f(), f(), f()),
                    )
                })
                .collect();
            // Joints move by small amounts of different sizes; some not at all; in some
            // rounds two joints move by almost the same amount.
            let b: Vec<Mat4> = a
                .iter()
                .enumerate()
                .map(|(j, m)| {
                    if (j + round) % 5 == 0 {
                        return *m;
                    }
                    let size = if round % 3 == 0 && j < 2 {
                        1e-3
                    } else {
                        1e-3 * f().abs()
                    };
                    let mut m = *m;
                    m.w_axis += Vec4::new(f(), f(), f(), 0.0) * size;
                    m.x_axis += Vec4::new(f(), f(), f(), 0.0) * size;
                    m
                })
                .collect();
            let exact = every_corner(&boxes, &a, &b);
            let up = f32::from_bits(exact.to_bits() + 1);
            let down = f32::from_bits(exact.to_bits().saturating_sub(1));
            for floor in [
                0.0,
                exact,
                up,
                down,
                exact * (1.0 + 1e-5),
                exact * (1.0 - 1e-5),
                exact * 0.5,
                exact * 2.0,
                running,
            ] {
                assert_eq!(
                    boxes.error_above(&a, &b, floor).to_bits(),
                    floor.max(exact).to_bits(),
                    "round {round}: floor {floor}, error {exact}"
                );
            }
            running = boxes.error_above(&a, &b, running);
        }
        let mut nan = vec![Mat4::IDENTITY; n];
        nan[7] = Mat4::from_cols_array(&[f32::NAN; 16]);
        assert!(
            boxes
                .error_above(&nan, &[Mat4::IDENTITY; 24], 1.0)
                .is_infinite()
        );
    }
}
