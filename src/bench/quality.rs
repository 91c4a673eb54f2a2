//! Picture quality: how two renders of the same frame differ to the eye, as the CIE76 colour
//! difference ΔE*ab per pixel in CIELAB (D65). A difference of about 2.3 is just noticeable;
//! above 10 the pixel shows another colour.

use image::RgbaImage;

use super::results::Quality;

/// sRGB (8-bit) to CIELAB.
fn lab(p: [u8; 4]) -> [f32; 3] {
    let lin = |c: u8| {
        let v = f32::from(c) / 255.0;
        if v <= 0.040_45 {
            v / 12.92
        } else {
            ((v + 0.055) / 1.055).powf(2.4)
        }
    };
    let (r, g, b) = (lin(p[0]), lin(p[1]), lin(p[2]));
    // Linear sRGB to XYZ, normalised by the D65 white point.
    let x = (0.412_456_4 * r + 0.357_576_1 * g + 0.180_437_5 * b) / 0.950_47;
    let y = 0.212_672_9 * r + 0.715_152_2 * g + 0.072_175 * b;
    let z = (0.019_333_9 * r + 0.119_192 * g + 0.950_304_1 * b) / 1.088_83;
    let f = |t: f32| {
        if t > 216.0 / 24389.0 {
            t.cbrt()
        } else {
            (24389.0 / 27.0 * t + 16.0) / 116.0
        }
    };
    let (fx, fy, fz) = (f(x), f(y), f(z));
    [116.0 * fy - 16.0, 500.0 * (fx - fy), 200.0 * (fy - fz)]
}

/// ΔE between `a` and `b` over their common area: mean, 99th percentile and the share of
/// pixels above 10.
pub fn delta_e(a: &RgbaImage, b: &RgbaImage) -> Quality {
    delta_e_where(a, b, |_, _| true).0
}

/// `delta_e` over the pixels of their common area where `counts(x, y)` holds, and how many
/// those are (no pixel: every figure 0).
pub fn delta_e_where(
    a: &RgbaImage,
    b: &RgbaImage,
    counts: impl Fn(u32, u32) -> bool,
) -> (Quality, u32) {
    let (w, h) = (a.width().min(b.width()), a.height().min(b.height()));
    let mut values = Vec::with_capacity((w * h) as usize);
    for y in 0..h {
        for x in 0..w {
            if !counts(x, y) {
                continue;
            }
            let (p, q) = (lab(a.get_pixel(x, y).0), lab(b.get_pixel(x, y).0));
            let d = ((p[0] - q[0]).powi(2) + (p[1] - q[1]).powi(2) + (p[2] - q[2]).powi(2)).sqrt();
            values.push(f64::from(d));
        }
    }
    if values.is_empty() {
        return (Quality::default(), 0);
    }
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    let changed = values.iter().filter(|d| **d > 10.0).count() as f64 / n;
    values.sort_by(f64::total_cmp);
    let p99 = values[((values.len() - 1) as f64 * 0.99).round() as usize];
    (Quality { mean, p99, changed }, values.len() as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn white_is_l_100_and_black_and_white_differ_by_100() {
        let white = lab([255, 255, 255, 255]);
        // 1e-3: the matrix constants are given to 7 digits.
        assert!((white[0] - 100.0).abs() < 1e-3 && white[1].abs() < 1e-2 && white[2].abs() < 1e-2);
        let a = RgbaImage::from_pixel(4, 4, image::Rgba([0, 0, 0, 255]));
        let mut b = a.clone();
        assert_eq!(delta_e(&a, &b), Quality::default());
        b.put_pixel(0, 0, image::Rgba([255, 255, 255, 255]));
        let q = delta_e(&a, &b);
        assert!((q.mean - 100.0 / 16.0).abs() < 1e-2, "{q:?}");
        assert!((q.changed - 1.0 / 16.0).abs() < 1e-9);
        // Over the changed pixel alone: all of it.
        let (q, n) = delta_e_where(&a, &b, |x, y| (x, y) == (0, 0));
        assert_eq!(n, 1);
        assert!((q.mean - 100.0).abs() < 1e-2 && q.changed == 1.0, "{q:?}");
    }
}
