//! The geometry of format 1.4's animated impostors (docs/FORMAT.md "Impostors"), shared by
//! the baker that draws them and the renderer that reads them back, and mirrored line for line
//! by `shaders/impostor.wgsl`:
//! - the hemi-octahedral grid of view directions ([`view_direction`], [`grid_position`]);
//! - the basis of each view's picture ([`view_basis`]);
//! - the 8-bit octahedral normal code ([`encode_normal`], [`decode_normal`]);
//! - which impostor frames show a baked frame ([`frames_at`]).
//!
//! Only `+ − × ÷`, `sqrt`, `abs` and `floor` are used, so a bake gives the same bytes on every
//! machine.

/// RGBA8 planes of each impostor frame: colour, then normal-depth.
pub const PLANES: u64 = 2;

/// Bytes of one impostor frame of a character with `views × views` views of `cell` pixels:
/// [`PLANES`] planes of `(views·cell)²` RGBA8 pixels.
pub fn frame_bytes(views: u32, cell: u32) -> u64 {
    let side = u64::from(views) * u64::from(cell);
    PLANES * side * side * 4
}

/// The unit direction, in model space, from the character towards the eye of view (`i`, `j`)
/// (column, row; each `0..views`) of a `views × views` grid (`views` odd, at least 3). The
/// grid's points are `u = 2i/(views−1) − 1`, `v = 2j/(views−1) − 1` on the square that the
/// upper hemisphere unfolds to: `x = (u+v)/2`, `z = (u−v)/2`, `y = 1 − |x| − |z|`, normalised.
/// The outer ring lies on the horizon (`y = 0`) and the centre at the zenith.
pub fn view_direction(i: u32, j: u32, views: u32) -> [f32; 3] {
    let last = views.saturating_sub(1).max(1) as f32;
    let u = 2.0 * i as f32 / last - 1.0;
    let v = 2.0 * j as f32 / last - 1.0;
    let x = (u + v) * 0.5;
    let z = (u - v) * 0.5;
    let y = 1.0 - x.abs() - z.abs();
    normalize([x, y.max(0.0), z])
}

/// Where direction `d` (model space, any length > 0) falls on the grid of
/// [`view_direction`], in view units: `(column, row)` in `[0, views−1]`. A direction below the
/// horizon is taken at the horizon.
pub fn grid_position(d: [f32; 3], views: u32) -> [f32; 2] {
    let [x, y, z] = d;
    let y = y.max(0.0);
    let s = x.abs() + y + z.abs();
    let (px, pz) = if s > 0.0 { (x / s, z / s) } else { (0.0, 0.0) };
    let last = views.saturating_sub(1) as f32;
    let to_grid = |t: f32| ((t + 1.0) * 0.5 * last).clamp(0.0, last);
    [to_grid(px + pz), to_grid(px - pz)]
}

/// The picture's right and up axes (model space, unit, orthogonal to `d` and each other) of
/// the view looking along `−d` (`d` unit, from the character towards the eye):
/// `right = normalize(+y × d)`, or `+x` straight above; `up = d × right`.
pub fn view_basis(d: [f32; 3]) -> ([f32; 3], [f32; 3]) {
    let [x, _, z] = d;
    let right = if x.abs() + z.abs() > 0.0 {
        normalize([z, 0.0, -x])
    } else {
        [1.0, 0.0, 0.0]
    };
    let up = cross(d, right);
    (right, up)
}

/// `n` (model space, any length > 0) as two unsigned 8-bit numbers: the octahedral map of the
/// whole sphere, each coordinate from `[−1, 1]` to `0..=255`.
pub fn encode_normal(n: [f32; 3]) -> [u8; 2] {
    let [x, y, z] = n;
    let s = x.abs() + y.abs() + z.abs();
    if s <= 0.0 || !s.is_finite() {
        return [128, 128];
    }
    let (mut ex, mut ey) = (x / s, y / s);
    if z < 0.0 {
        (ex, ey) = ((1.0 - ey.abs()) * sign(ex), (1.0 - ex.abs()) * sign(ey));
    }
    let q = |t: f32| ((t * 0.5 + 0.5) * 255.0 + 0.5).floor().clamp(0.0, 255.0) as u8;
    [q(ex), q(ey)]
}

/// The unit normal that [`encode_normal`] gave `code`.
pub fn decode_normal(code: [u8; 2]) -> [f32; 3] {
    let ex = f32::from(code[0]) / 255.0 * 2.0 - 1.0;
    let ey = f32::from(code[1]) / 255.0 * 2.0 - 1.0;
    let z = 1.0 - ex.abs() - ey.abs();
    let (x, y) = if z < 0.0 {
        ((1.0 - ey.abs()) * sign(ex), (1.0 - ex.abs()) * sign(ey))
    } else {
        (ex, ey)
    };
    normalize([x, y, z])
}

/// The two impostor frames (`0..frames`) to blend and the second's weight in `[0, 1)`, for
/// the pose at `baked` (a baked frame number with its interpolation weight added: `f0 + w` of
/// [`crate::format::ThrongFile::frames_at`]) of an animation of `baked_count` baked frames
/// with `frames` impostor frames. Impostor frame `k` shows the time `k/frames` of a looping
/// animation's duration, `k/(frames−1)` of a clamped one's, as baked frame `f` shows
/// `f/baked_count` and `f/(baked_count−1)`: so this is the format's frame rule, twice.
pub fn frames_at(baked: f32, baked_count: u32, frames: u32, looping: bool) -> (u32, u32, f32) {
    if frames == 0 {
        return (0, 0, 0.0);
    }
    let x = if looping {
        baked * frames as f32 / baked_count.max(1) as f32
    } else if baked_count > 1 {
        baked * frames.saturating_sub(1) as f32 / (baked_count - 1) as f32
    } else {
        0.0
    };
    let x = x.max(0.0);
    let lo = x.floor();
    let w = x - lo;
    let lo = lo as u32;
    if looping {
        let lo = lo % frames;
        (lo, (lo + 1) % frames, w)
    } else {
        let last = frames - 1;
        if lo >= last {
            (last, last, 0.0)
        } else {
            (lo, lo + 1, w)
        }
    }
}

fn sign(t: f32) -> f32 {
    if t < 0.0 { -1.0 } else { 1.0 }
}

fn cross(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn normalize(v: [f32; 3]) -> [f32; 3] {
    let l = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    if l > 0.0 {
        [v[0] / l, v[1] / l, v[2] / l]
    } else {
        [0.0, 1.0, 0.0]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dot(a: [f32; 3], b: [f32; 3]) -> f32 {
        a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
    }

    #[test]
    fn grid_points_round_trip_and_the_ring_is_the_horizon() {
        for n in [3, 9, 17] {
            for j in 0..n {
                for i in 0..n {
                    let d = view_direction(i, j, n);
                    assert!((dot(d, d) - 1.0).abs() < 1e-6);
                    let [u, v] = grid_position(d, n);
                    assert!((u - i as f32).abs() < 1e-4 && (v - j as f32).abs() < 1e-4);
                    let ring = i == 0 || j == 0 || i == n - 1 || j == n - 1;
                    assert_eq!(d[1] == 0.0, ring, "view ({i}, {j}) of {n}: {d:?}");
                }
            }
            assert_eq!(view_direction(n / 2, n / 2, n), [0.0, 1.0, 0.0]);
        }
        // Below the horizon reads as on it.
        let below = grid_position([0.3, -0.5, 0.8], 9);
        let on = grid_position([0.3, 0.0, 0.8], 9);
        assert_eq!(below, on);
    }

    #[test]
    fn each_view_basis_is_orthonormal_and_right_handed() {
        for j in 0..9 {
            for i in 0..9 {
                let d = view_direction(i, j, 9);
                let (r, u) = view_basis(d);
                assert!((dot(r, r) - 1.0).abs() < 1e-5 && (dot(u, u) - 1.0).abs() < 1e-5);
                assert!(dot(r, d).abs() < 1e-5 && dot(u, d).abs() < 1e-5 && dot(r, u).abs() < 1e-5);
                // right × up = d: a camera looking along −d with +x right and +y up.
                let c = cross(r, u);
                assert!((dot(c, d) - 1.0).abs() < 1e-5, "view ({i}, {j})");
            }
        }
        // From the front (+z), right is +x and up is +y.
        assert_eq!(
            view_basis([0.0, 0.0, 1.0]),
            ([1.0, 0.0, 0.0], [0.0, 1.0, 0.0])
        );
    }

    #[test]
    fn an_eight_bit_normal_is_within_a_degree() {
        // 8 bits over [−1, 1] steps 1/127.5; on the octahedron that is at most ~0.9° of arc.
        let mut worst = 1.0f32;
        for a in 0..40 {
            for b in 0..20 {
                let (t, p) = (a as f32 * 0.157, b as f32 * 0.157 - 1.5);
                let n = [t.cos() * p.cos(), p.sin(), t.sin() * p.cos()];
                worst = worst.min(dot(n, decode_normal(encode_normal(n))));
            }
        }
        assert!(worst > 1f32.to_radians().cos(), "worst cosine {worst}");
    }

    #[test]
    fn impostor_frames_follow_the_frame_rule() {
        // 30 baked frames of a loop, 8 impostor frames: baked 15.0 is half way, 7.5.
        assert_eq!(frames_at(15.0, 30, 8, true), (4, 5, 0.0));
        let (lo, hi, w) = frames_at(29.5, 30, 8, true);
        assert_eq!((lo, hi), (7, 0));
        assert!((w - 0.8667).abs() < 1e-3);
        // A clamped one: 31 baked frames, 9 impostor frames, so baked 30 is the last.
        assert_eq!(frames_at(30.0, 31, 9, false), (8, 8, 0.0));
        assert_eq!(frames_at(3.75, 31, 9, false), (1, 2, 0.0));
        assert_eq!(frames_at(-2.0, 31, 9, false), (0, 1, 0.0));
        assert_eq!(frames_at(5.0, 30, 0, true), (0, 0, 0.0));
        assert_eq!(frame_bytes(9, 16), 2 * 144 * 144 * 4);
    }
}
