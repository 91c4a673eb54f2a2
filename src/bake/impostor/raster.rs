//! The impostor rasteriser: triangles already projected into one view's square, drawn into its
//! 2×2-supersampled buffer with edge functions, the top-left fill rule and a z-buffer (the
//! largest depth is nearest the eye). Both faces are drawn: the z-buffer hides the far ones,
//! so a mesh with flipped winding still draws whole.
//!
//! Coordinates are in samples: sample `(sx, sy)` is centred at `(sx + 0.5, sy + 0.5)`, so
//! pixel `(x, y)`'s four samples sit at `(x + 0.25, y + 0.25)`, `(x + 0.75, y + 0.25)`, ... of
//! pixel units. Only `+ − × ÷`, `floor`, `min` and `max` are used: the same bytes everywhere.

/// A base-colour image, as stored in `PIXL`: sRGB RGBA8, rows top first.
#[derive(Clone, Copy)]
pub(super) struct Image<'a> {
    /// Width, pixels (> 0).
    pub width: u32,
    /// Height, pixels (> 0).
    pub height: u32,
    /// `width × height × 4` bytes.
    pub pixels: &'a [u8],
}

/// A mesh part's material: its linear RGBA factor times its image, if any.
#[derive(Clone, Copy)]
pub(super) struct Material<'a> {
    /// Linear RGBA base colour factor.
    pub factor: [f32; 4],
    /// Base-colour image.
    pub image: Option<Image<'a>>,
}

impl Material<'_> {
    /// The linear RGB colour at texture coordinate `uv`: the factor times the image sampled
    /// bilinearly with Repeat addressing, its texels decoded through `decode` first (as the
    /// GPU filters an sRGB texture).
    #[inline]
    pub fn colour(&self, uv: [f32; 2], decode: &[f32; 256]) -> [f32; 3] {
        let [r, g, b, _] = self.factor;
        let Some(im) = self.image else {
            return [r, g, b];
        };
        let (w, h) = (i64::from(im.width), i64::from(im.height));
        let x = uv[0] * im.width as f32 - 0.5;
        let y = uv[1] * im.height as f32 - 0.5;
        let (x0, y0) = (x.floor(), y.floor());
        let (fx, fy) = (x - x0, y - y0);
        // `as` saturates (and maps NaN to 0); `rem_euclid` wraps any of it into the image.
        let (x0, y0) = (x0 as i64, y0 as i64);
        let texel = |xi: i64, yi: i64| -> [f32; 3] {
            let (xi, yi) = (xi.rem_euclid(w), yi.rem_euclid(h));
            let at = ((yi * w + xi) * 4) as usize;
            match im.pixels.get(at..at + 3) {
                Some(p) => [
                    decode[usize::from(p[0])],
                    decode[usize::from(p[1])],
                    decode[usize::from(p[2])],
                ],
                None => [1.0; 3],
            }
        };
        let (a, b2) = (texel(x0, y0), texel(x0 + 1, y0));
        let (c, d) = (texel(x0, y0 + 1), texel(x0 + 1, y0 + 1));
        let mut out = [0.0; 3];
        for k in 0..3 {
            let top = a[k] * (1.0 - fx) + b2[k] * fx;
            let bottom = c[k] * (1.0 - fx) + d[k] * fx;
            out[k] = (top * (1.0 - fy) + bottom * fy) * self.factor[k];
        }
        out
    }
}

/// One view's supersampled buffer: `side × side` samples (`side` = 2 × the cell), each with
/// its depth (`−∞` where nothing was drawn), linear colour and model-space normal.
pub(super) struct Samples {
    /// Samples along each side.
    pub side: usize,
    /// Depth, model units towards the eye; `−∞` where uncovered.
    pub z: Vec<f32>,
    /// Linear RGB.
    pub colour: Vec<[f32; 3]>,
    /// Interpolated normal (not normalised).
    pub normal: Vec<[f32; 3]>,
}

impl Samples {
    /// A cleared buffer for a cell of `cell` pixels.
    pub fn new(cell: u32) -> Self {
        let side = 2 * cell as usize;
        Self {
            side,
            z: vec![f32::NEG_INFINITY; side * side],
            colour: vec![[0.0; 3]; side * side],
            normal: vec![[0.0; 3]; side * side],
        }
    }

    /// Every sample uncovered again.
    pub fn clear(&mut self) {
        self.z.fill(f32::NEG_INFINITY);
    }

    /// Draws the triangle of sample-space points `p` (x, y, depth) with per-vertex normals
    /// `n` and texture coordinates `uv` in `material`, keeping the nearest at each sample.
    pub fn triangle(
        &mut self,
        p: [[f32; 3]; 3],
        n: [[f32; 3]; 3],
        uv: [[f32; 2]; 3],
        material: &Material,
        decode: &[f32; 256],
    ) {
        let side = self.side;
        cover(p, side, |sx, sy, l| {
            let z = l[0] * p[0][2] + l[1] * p[1][2] + l[2] * p[2][2];
            let at = sy * side + sx;
            // Not `>=`: of two surfaces at the same depth the first drawn stays, as with a
            // GPU's `Greater` depth test.
            if let Some(old) = self.z.get_mut(at)
                && z > *old
            {
                *old = z;
                self.normal[at] =
                    [0, 1, 2].map(|k| l[0] * n[0][k] + l[1] * n[1][k] + l[2] * n[2][k]);
                let t = [
                    l[0] * uv[0][0] + l[1] * uv[1][0] + l[2] * uv[2][0],
                    l[0] * uv[0][1] + l[1] * uv[1][1] + l[2] * uv[2][1],
                ];
                self.colour[at] = material.colour(t, decode);
            }
        });
    }
}

/// The edge function of `p` against the directed edge `a → b`: twice the signed area of
/// `(a, b, p)`, positive on the inside of a triangle of positive area (x right, y down).
#[inline]
fn edge(a: [f32; 3], b: [f32; 3], p: [f32; 2]) -> f32 {
    (b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0])
}

/// Whether the edge `a → b` of a triangle of positive area is a top edge (horizontal, the
/// triangle below it) or a left edge: samples exactly on it are inside (the top-left rule, so
/// that two triangles sharing an edge cover each sample on it once).
#[inline]
fn top_left(a: [f32; 3], b: [f32; 3]) -> bool {
    let (dx, dy) = (b[0] - a[0], b[1] - a[1]);
    (dy == 0.0 && dx > 0.0) || dy < 0.0
}

/// Calls `f(sx, sy, [l0, l1, l2])` for each sample of the `side × side` grid inside the
/// triangle `p` (sample space; either winding) by the top-left rule, with the barycentric
/// weights of `p`'s three vertices. Degenerate and non-finite triangles cover nothing.
pub(super) fn cover(p: [[f32; 3]; 3], side: usize, mut f: impl FnMut(usize, usize, [f32; 3])) {
    let area = edge(p[0], p[1], [p[2][0], p[2][1]]);
    if !(area.abs() > 0.0 && area.is_finite()) {
        return;
    }
    // Wound the other way, the triangle is drawn as its mirror: the same points, so the rule
    // and the weights do not depend on which face the view sees.
    let flipped = area < 0.0;
    let (a, b, c) = if flipped {
        (p[0], p[2], p[1])
    } else {
        (p[0], p[1], p[2])
    };
    let area = area.abs();
    let lo = |k: usize| a[k].min(b[k]).min(c[k]);
    let hi = |k: usize| a[k].max(b[k]).max(c[k]);
    let last = side as f32 - 1.0;
    // Sample `s` is centred at `s + 0.5`: the first at or after `lo`, the last at or before
    // `hi` (floors, clamped to the grid; a sample just outside is rejected by its edges).
    let sx0 = (lo(0) - 0.5).floor().max(0.0);
    let sx1 = (hi(0) - 0.5).floor().min(last);
    let sy0 = (lo(1) - 0.5).floor().max(0.0);
    let sy1 = (hi(1) - 0.5).floor().min(last);
    if !(sx0 <= sx1 && sy0 <= sy1) {
        return;
    }
    let (tl0, tl1, tl2) = (top_left(b, c), top_left(c, a), top_left(a, b));
    let inside = |w: f32, tl: bool| w > 0.0 || (w == 0.0 && tl);
    for sy in sy0 as usize..=sy1 as usize {
        let py = sy as f32 + 0.5;
        for sx in sx0 as usize..=sx1 as usize {
            let q = [sx as f32 + 0.5, py];
            let (w0, w1, w2) = (edge(b, c, q), edge(c, a, q), edge(a, b, q));
            if inside(w0, tl0) && inside(w1, tl1) && inside(w2, tl2) {
                let (l0, l1, l2) = (w0 / area, w1 / area, w2 / area);
                f(sx, sy, if flipped { [l0, l2, l1] } else { [l0, l1, l2] });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn white() -> Material<'static> {
        Material {
            factor: [1.0; 4],
            image: None,
        }
    }

    #[test]
    fn a_triangle_covers_exactly_the_samples_the_top_left_rule_says() {
        // A right triangle with its legs on sample centres (x = 2.5, y = 1.5) and its
        // hypotenuse through the centres (2.5, 5.5) ... (6.5, 1.5): of the samples on its
        // edges, those on the left leg and top leg are in, those on the hypotenuse out.
        let side = 10;
        for flip in [false, true] {
            let mut p = [[2.5, 1.5, 0.0], [6.5, 1.5, 0.0], [2.5, 5.5, 0.0]];
            if flip {
                p.swap(1, 2);
            }
            let mut got = vec![0u32; side * side];
            cover(p, side, |x, y, l| {
                got[y * side + x] += 1;
                assert!((l[0] + l[1] + l[2] - 1.0).abs() < 1e-6);
            });
            for sy in 0..side {
                for sx in 0..side {
                    let (x, y) = (sx as f32 + 0.5 - 2.5, sy as f32 + 0.5 - 1.5);
                    let want = x >= 0.0 && y >= 0.0 && x + y < 4.0;
                    assert_eq!(got[sy * side + sx], u32::from(want), "({sx}, {sy}) {flip}");
                }
            }
        }
        // The two halves of a square cover each sample of it once, the shared diagonal too.
        let mut got = vec![0u32; side * side];
        let (a, b, c, d) = (
            [1.5, 1.5, 0.0],
            [7.5, 1.5, 0.0],
            [7.5, 7.5, 0.0],
            [1.5, 7.5, 0.0],
        );
        cover([a, b, c], side, |x, y, _| got[y * side + x] += 1);
        cover([a, c, d], side, |x, y, _| got[y * side + x] += 1);
        for sy in 0..side {
            for sx in 0..side {
                let want = (1..7).contains(&sx) && (1..7).contains(&sy);
                assert_eq!(got[sy * side + sx], u32::from(want), "({sx}, {sy})");
            }
        }
        // Degenerate, non-finite and off-grid triangles cover nothing, without a panic.
        let mut n = 0;
        cover([a, a, b], side, |_, _, _| n += 1);
        cover([a, [f32::NAN, 0.0, 0.0], b], side, |_, _, _| n += 1);
        cover(
            [[-9.0, -9.0, 0.0], [-1.0, -9.0, 0.0], [-9.0, -1.0, 0.0]],
            side,
            |_, _, _| n += 1,
        );
        assert_eq!(n, 0);
    }

    #[test]
    fn the_nearer_of_two_overlapping_triangles_wins() {
        let mut s = Samples::new(4);
        let m = |r: f32| Material {
            factor: [r, 0.0, 0.0, 1.0],
            image: None,
        };
        let decode = [0.0; 256];
        let tri = |z: f32| [[0.0, 0.0, z], [8.0, 0.0, z], [0.0, 8.0, z]];
        let n = [[0.0, 0.0, 1.0]; 3];
        // Near first then far, and far first then near: the near one's colour either way.
        for order in [[1.0, -1.0], [-1.0, 1.0]] {
            s.clear();
            for z in order {
                s.triangle(tri(z), n, [[0.0; 2]; 3], &m(z.max(0.0)), &decode);
            }
            assert_eq!(s.z[0], 1.0);
            assert_eq!(s.colour[0], [1.0, 0.0, 0.0]);
        }
    }

    #[test]
    fn images_are_sampled_bilinearly_with_repeat() {
        let mut decode = [0.0f32; 256];
        for (i, d) in decode.iter_mut().enumerate() {
            *d = i as f32 / 255.0;
        }
        // 2×1: black, white.
        let pixels = [0, 0, 0, 255, 255, 255, 255, 255];
        let m = Material {
            factor: [1.0, 0.5, 1.0, 1.0],
            image: Some(Image {
                width: 2,
                height: 1,
                pixels: &pixels,
            }),
        };
        assert_eq!(m.colour([0.25, 0.5], &decode), [0.0; 3]);
        assert_eq!(m.colour([0.75, 0.5], &decode), [1.0, 0.5, 1.0]);
        assert_eq!(m.colour([0.5, 0.5], &decode), [0.5, 0.25, 0.5]);
        // Repeat: u = 1.0 is half way between the white texel and the black one after it.
        assert_eq!(m.colour([1.0, 0.5], &decode), [0.5, 0.25, 0.5]);
        assert_eq!(m.colour([-1.25, 7.5], &decode), [1.0, 0.5, 1.0]);
        assert_eq!(white().colour([f32::NAN; 2], &decode), [1.0; 3]);
    }
}
