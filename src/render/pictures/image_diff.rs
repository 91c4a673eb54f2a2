//! Comparing rendered images: per pixel, the largest difference of its R, G, B channels
//! (0..255); over the image, the mean and a percentile of that, and a difference picture.

use image::RgbaImage;

/// How two images differ.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Difference {
    /// Mean over pixels of the largest channel difference, as a fraction of 255.
    pub mean: f32,
    /// 99th percentile over pixels of the largest channel difference, as a fraction of 255.
    pub p99: f32,
    /// Fraction of pixels whose largest channel difference exceeds 64 (a quarter of the range:
    /// a pixel showing something else, not a shade of the same thing).
    pub changed: f32,
}

/// The difference of `a` and `b` (same size), and a picture of it: black where equal, brighter
/// where they differ (amplified 4 times).
///
/// # Panics
/// If the images differ in size.
pub fn compare(a: &RgbaImage, b: &RgbaImage) -> (Difference, RgbaImage) {
    assert_eq!(a.dimensions(), b.dimensions(), "images of different sizes");
    let mut diffs: Vec<u8> = Vec::with_capacity((a.width() * a.height()) as usize);
    let mut picture = RgbaImage::new(a.width(), a.height());
    for ((pa, pb), out) in a.pixels().zip(b.pixels()).zip(picture.pixels_mut()) {
        let d = (0..3).map(|k| pa.0[k].abs_diff(pb.0[k])).max().unwrap_or(0);
        diffs.push(d);
        let v = d.saturating_mul(4);
        *out = image::Rgba([v, v, v, 255]);
    }
    let n = diffs.len().max(1) as f32;
    let mean = diffs.iter().map(|d| f32::from(*d)).sum::<f32>() / n / 255.0;
    let changed = diffs.iter().filter(|d| **d > 64).count() as f32 / n;
    diffs.sort_unstable();
    let p99 = diffs
        .get(((diffs.len() as f32 * 0.99) as usize).min(diffs.len().saturating_sub(1)))
        .map_or(0.0, |d| f32::from(*d) / 255.0);
    (Difference { mean, p99, changed }, picture)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identical_images_do_not_differ_and_a_changed_block_shows() {
        let a = RgbaImage::from_pixel(10, 10, image::Rgba([100, 120, 140, 255]));
        let (d, _) = compare(&a, &a);
        assert_eq!((d.mean, d.p99, d.changed), (0.0, 0.0, 0.0));
        let mut b = a.clone();
        for x in 0..5 {
            for y in 0..2 {
                b.put_pixel(x, y, image::Rgba([255, 120, 140, 255]));
            }
        }
        let (d, pic) = compare(&a, &b);
        assert!((d.changed - 0.1).abs() < 1e-6);
        assert!((d.mean - 0.1 * 155.0 / 255.0).abs() < 1e-6);
        assert_eq!(d.p99, 155.0 / 255.0);
        assert_eq!(pic.get_pixel(0, 0).0[0], 255);
    }
}
