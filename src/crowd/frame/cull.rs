//! View-frustum culling: the six planes of a view-projection matrix in wgpu's clip space
//! (x, y in [-w, w], depth z in [0, w]) and conservative sphere and box tests: a shape that
//! intersects the frustum is never reported outside it (a shape near a corner, outside, may
//! be reported inside).

use glam::{Mat4, Vec3, Vec4};

/// The six planes bounding what a camera sees, in world space. Each plane is `(n, d)` with
/// unit normal `n` pointing inside: a point `p` is on the inner side when `n·p + d >= 0`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Frustum {
    /// Left, right, bottom, top, near, far.
    pub planes: [Vec4; 6],
}

impl Frustum {
    /// The frustum of `view_proj` (projection × view, column vectors) for wgpu's clip space,
    /// depth 0..1: e.g. `glam::camera::rh::proj::directx::perspective(..) *
    /// glam::camera::rh::view::look_at_mat4(..)`. Planes by Gribb and Hartmann: with rows
    /// r0..r3 of the matrix, left r3 + r0, right r3 − r0, bottom r3 + r1, top r3 − r1, near r2
    /// (depth starts at 0, not −w), far r3 − r2. A degenerate plane (e.g. the far plane of an
    /// infinite projection) is dropped: it never culls.
    pub fn from_view_proj(m: Mat4) -> Self {
        let r = [m.row(0), m.row(1), m.row(2), m.row(3)];
        let raw = [
            r[3] + r[0],
            r[3] - r[0],
            r[3] + r[1],
            r[3] - r[1],
            r[2],
            r[3] - r[2],
        ];
        let planes = raw.map(|p| {
            let len = p.truncate().length();
            if len > 1e-12 && p.is_finite() {
                p / len
            } else {
                // Always inside: n = 0, d = 1.
                Vec4::W
            }
        });
        Self { planes }
    }

    /// Signed distance of `p` from plane `i` (positive inside), metres.
    #[inline]
    pub fn distance(&self, i: usize, p: Vec3) -> f32 {
        let q = self.planes[i];
        q.truncate().dot(p) + q.w
    }

    /// Whether `p` is inside all six planes (or on one).
    pub fn contains_point(&self, p: Vec3) -> bool {
        (0..6).all(|i| self.distance(i, p) >= 0.0)
    }

    /// Whether the sphere at `centre` with `radius` (metres, >= 0) may intersect the frustum:
    /// false only when it lies wholly outside one plane.
    #[inline]
    pub fn intersects_sphere(&self, centre: Vec3, radius: f32) -> bool {
        // All six tests, no early exit: for a crowd half in view, a branch per plane would be
        // mispredicted half the time.
        self.planes.iter().fold(true, |inside, q| {
            inside & (q.truncate().dot(centre) + q.w >= -radius)
        })
    }

    /// Whether the axis-aligned box `min..max` (world space) may intersect the frustum: false
    /// only when all its corners lie outside one plane.
    pub fn intersects_box(&self, min: Vec3, max: Vec3) -> bool {
        self.planes.iter().all(|q| {
            let n = q.truncate();
            // The corner furthest along the normal.
            let far = Vec3::select(n.cmpge(Vec3::ZERO), max, min);
            n.dot(far) + q.w >= 0.0
        })
    }
}

/// A [`Frustum`]'s planes with each component in all four lanes of a vector, for testing four
/// spheres at a time: lane `k` of [`SphereTest::intersects4`] is
/// [`Frustum::intersects_sphere`] of sphere `k` (the same products and sums in the same
/// order, so the same answer) in about a tenth of the instructions per sphere. The pass over
/// every agent each frame uses it.
#[derive(Clone, Copy, Debug)]
pub struct SphereTest {
    /// Per plane (left, right, bottom, top, near, far): its normal's x, y and z, and its
    /// offset, each splatted.
    planes: [[Vec4; 4]; 6],
}

impl SphereTest {
    /// The test of `frustum`'s six planes.
    pub fn new(frustum: &Frustum) -> Self {
        Self {
            planes: frustum.planes.map(|q| {
                [
                    Vec4::splat(q.x),
                    Vec4::splat(q.y),
                    Vec4::splat(q.z),
                    Vec4::splat(q.w),
                ]
            }),
        }
    }

    /// Which of four spheres (centres' x, y and z, radii; metres, one sphere per lane) may
    /// intersect the frustum: bit `k` set for lane `k`, as [`Frustum::intersects_sphere`]
    /// answers for it.
    #[inline]
    pub fn intersects4(&self, x: Vec4, y: Vec4, z: Vec4, radius: Vec4) -> u32 {
        let least = -radius;
        let mut inside = 0b1111;
        for [nx, ny, nz, d] in &self.planes {
            // `n·c + d` as Vec3::dot sums it: ((nx cx + ny cy) + nz cz) + d.
            let side = ((*nx * x + *ny * y) + *nz * z) + *d;
            inside &= side.cmpge(least).bitmask();
        }
        inside
    }

    /// [`Frustum::intersects_sphere`] of the frustum this was made from.
    #[inline]
    pub fn intersects(&self, centre: Vec3, radius: f32) -> bool {
        let lanes = |v: f32| Vec4::splat(v);
        self.intersects4(
            lanes(centre.x),
            lanes(centre.y),
            lanes(centre.z),
            lanes(radius),
        ) & 1
            != 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crowd::plaza::rng::Rng;

    fn camera(rng: &mut Rng) -> Mat4 {
        let eye = Vec3::new(
            rng.range(-30.0, 30.0),
            rng.range(0.5, 40.0),
            rng.range(-30.0, 30.0),
        );
        let target = Vec3::new(rng.range(-20.0, 20.0), 0.0, rng.range(-20.0, 20.0));
        let view = glam::camera::rh::view::look_at_mat4(eye, target + Vec3::X * 1e-3, Vec3::Y);
        let proj = glam::camera::rh::proj::directx::perspective(
            rng.range(20.0, 100.0).to_radians(),
            rng.range(0.5, 2.5),
            rng.range(0.05, 1.0),
            rng.range(20.0, 200.0),
        );
        proj * view
    }

    /// Whether clip-space `m × p` is inside wgpu's clip volume.
    fn clip_inside(m: Mat4, p: Vec3) -> bool {
        let c = m * p.extend(1.0);
        c.w > 0.0 && c.x.abs() <= c.w && c.y.abs() <= c.w && c.z >= 0.0 && c.z <= c.w
    }

    #[test]
    fn planes_agree_with_clip_space() {
        let mut rng = Rng::new(7);
        let mut inside = 0;
        for _ in 0..200 {
            let m = camera(&mut rng);
            let f = Frustum::from_view_proj(m);
            for _ in 0..200 {
                let p = Vec3::new(
                    rng.range(-60.0, 60.0),
                    rng.range(-5.0, 40.0),
                    rng.range(-60.0, 60.0),
                );
                // Points within a hair of a plane may fall either way by rounding; the
                // 1e-3 m band is far below anything culling cares about.
                if (0..6).any(|i| f.distance(i, p).abs() < 1e-3) {
                    continue;
                }
                assert_eq!(f.contains_point(p), clip_inside(m, p), "{p}");
                inside += usize::from(clip_inside(m, p));
            }
        }
        assert!(inside > 1000, "the test saw few points inside ({inside})");
    }

    /// The four-lane test sums the same products in the same order: a sphere that just
    /// touches a plane (its radius is the centre's distance outside it, to the bit) is kept
    /// by both or neither, and so is every other, in whichever lane it is.
    #[test]
    fn the_sphere_test_answers_as_the_frustum_to_the_bit() {
        let mut rng = Rng::new(3);
        let (mut touching, mut mixed) = (0, 0);
        for _ in 0..100 {
            let f = Frustum::from_view_proj(camera(&mut rng));
            let t = SphereTest::new(&f);
            let mut spheres = Vec::new();
            for _ in 0..100 {
                let c = Vec3::new(
                    rng.range(-80.0, 80.0),
                    rng.range(-5.0, 30.0),
                    rng.range(-80.0, 80.0),
                );
                for i in 0..6 {
                    let d = f.distance(i, c);
                    for r in [-d, rng.range(0.0, 3.0), 0.0] {
                        let r = r.max(0.0);
                        assert_eq!(t.intersects(c, r), f.intersects_sphere(c, r), "{c}, {r}");
                        spheres.push((c, r));
                    }
                    touching += usize::from(d < 0.0);
                }
            }
            // Shuffled, so that each lane sees kept, culled and touching spheres.
            for i in (1..spheres.len()).rev() {
                spheres.swap(i, rng.below(i as u32 + 1) as usize);
            }
            for four in spheres.chunks_exact(4) {
                let lanes = |part: fn(&(Vec3, f32)) -> f32| {
                    Vec4::new(
                        part(&four[0]),
                        part(&four[1]),
                        part(&four[2]),
                        part(&four[3]),
                    )
                };
                let mask = t.intersects4(
                    lanes(|s| s.0.x),
                    lanes(|s| s.0.y),
                    lanes(|s| s.0.z),
                    lanes(|s| s.1),
                );
                for (k, &(c, r)) in four.iter().enumerate() {
                    assert_eq!(mask >> k & 1 != 0, f.intersects_sphere(c, r), "lane {k}");
                }
                mixed += usize::from(mask != 0 && mask != 0b1111);
            }
        }
        assert!(
            touching > 1000,
            "{touching} spheres touched a plane from outside"
        );
        assert!(mixed > 1000, "{mixed} groups of four mixed kept and culled");
    }

    #[test]
    fn spheres_and_boxes_that_touch_the_view_are_kept() {
        let mut rng = Rng::new(11);
        let (mut kept, mut culled) = (0, 0);
        for _ in 0..300 {
            let m = camera(&mut rng);
            let f = Frustum::from_view_proj(m);
            for _ in 0..50 {
                let c = Vec3::new(
                    rng.range(-80.0, 80.0),
                    rng.range(-5.0, 30.0),
                    rng.range(-80.0, 80.0),
                );
                let h = Vec3::new(
                    rng.range(0.1, 3.0),
                    rng.range(0.1, 3.0),
                    rng.range(0.1, 3.0),
                );
                let (min, max) = (c - h, c + h);
                // Sample the box: a 5x5x5 lattice over its volume, faces and corners.
                let any_inside = (0..125).any(|k| {
                    let t = Vec3::new((k % 5) as f32, (k / 5 % 5) as f32, (k / 25) as f32) / 4.0;
                    f.contains_point(min + (max - min) * t)
                });
                if any_inside {
                    assert!(f.intersects_box(min, max), "box {min}..{max}");
                    assert!(f.intersects_sphere(c, h.length()), "sphere of {min}..{max}");
                    kept += 1;
                } else {
                    culled += usize::from(!f.intersects_box(min, max));
                }
            }
        }
        assert!(kept > 300 && culled > 3000, "kept {kept}, culled {culled}");
    }
}
