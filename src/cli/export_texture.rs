//! `throng export-texture`: the bone-matrix texels of a `.throng` file as an image. EXR keeps
//! the floats exactly; PNG is a preview with each channel normalised to its range.

use std::path::PathBuf;

use anyhow::{Context, Result, bail};

use crate::format::{TEXELS_PER_MATRIX, ThrongFile};

/// Arguments of `throng export-texture`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Texel i of the file is pixel (i % WIDTH, i / WIDTH); pixels past the last texel are zero.\n\
A pixel holds one row of a 3x4 skinning matrix: RGBA = (m_r0, m_r1, m_r2, m_r3). With the default\n\
width, each image row is one frame of a character with the most joints (3 pixels per joint).\n\
PNG: each channel is scaled from its own minimum..maximum over the texture to 0..255 (alpha too,\n\
so viewers show the translation column as transparency); the ranges are printed."
)]
pub struct Args {
    /// The baked file.
    file: PathBuf,
    /// The image to write: .exr (32-bit float RGBA) or .png (8-bit normalised preview).
    out: PathBuf,
    /// Image width in texels (default: 3 × the largest joint count).
    #[arg(long)]
    width: Option<u32>,
}

/// Largest image side `image` writes without complaint and viewers open.
const MAX_SIDE: u64 = 1 << 16;

pub(super) fn run(args: &Args) -> Result<()> {
    let ext = args
        .out
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    if ext != "exr" && ext != "png" {
        bail!(
            "{}: give an output ending in .exr (floats) or .png (preview)",
            args.out.display()
        );
    }
    // Before reading and converting the texels: an image that cannot be saved fails now.
    crate::atomic::check_target(&args.out, true)?;
    crate::atomic::check_not_input(&args.out, [(args.file.as_path(), "the baked file")])?;
    let f = ThrongFile::open(&args.file)?;
    let texels = f.texels();
    let n = texels.len() as u64;
    if n == 0 {
        bail!("{}: the file holds no texels", args.file.display());
    }
    let width = u64::from(
        args.width
            .unwrap_or_else(|| f.info().max_joints.saturating_mul(TEXELS_PER_MATRIX).max(1)),
    );
    if width == 0 || width > MAX_SIDE {
        bail!("--width {width}: give 1 to {MAX_SIDE}");
    }
    let height = n.div_ceil(width);
    if height > MAX_SIDE {
        bail!(
            "{} texels at width {width} make {height} rows; give a larger --width (at most {MAX_SIDE} rows)",
            n
        );
    }
    let (w, h) = (width as u32, height as u32);
    let mut data = vec![0.0f32; (width * height * 4) as usize];
    for i in 0..n as usize {
        data[i * 4..i * 4 + 4].copy_from_slice(&texels.get(i));
    }
    let (image, format) = if ext == "exr" {
        let img = image::Rgba32FImage::from_raw(w, h, data)
            .context("building the float image (size mismatch)")?;
        (
            image::DynamicImage::ImageRgba32F(img),
            image::ImageFormat::OpenExr,
        )
    } else {
        let (mut lo, mut hi) = ([f32::INFINITY; 4], [f32::NEG_INFINITY; 4]);
        for t in data[..n as usize * 4].chunks_exact(4) {
            for k in 0..4 {
                lo[k] = lo[k].min(t[k]);
                hi[k] = hi[k].max(t[k]);
            }
        }
        let bytes: Vec<u8> = data
            .chunks_exact(4)
            .enumerate()
            .flat_map(|(i, t)| {
                std::array::from_fn::<u8, 4, _>(|k| {
                    if i as u64 >= n {
                        return 0;
                    }
                    let range = hi[k] - lo[k];
                    let v = if range > 0.0 {
                        (t[k] - lo[k]) / range
                    } else {
                        0.5
                    };
                    (v * 255.0).round() as u8
                })
            })
            .collect();
        for (k, c) in ["R", "G", "B", "A"].iter().enumerate() {
            println!("{c}: {:+.4} .. {:+.4} maps to 0 .. 255", lo[k], hi[k]);
        }
        let img = image::RgbaImage::from_raw(w, h, bytes)
            .context("building the preview image (size mismatch)")?;
        (
            image::DynamicImage::ImageRgba8(img),
            image::ImageFormat::Png,
        )
    };
    // The encoder streams into the temporary file (EXR seeks back to write its offsets).
    crate::atomic::write_with(&args.out, |w| {
        image.write_to(w, format).map_err(std::io::Error::other)
    })?;
    println!(
        "wrote {} ({w} x {h} texels of {n}, {})",
        args.out.display(),
        if ext == "exr" {
            "32-bit float RGBA"
        } else {
            "8-bit normalised preview"
        }
    );
    Ok(())
}
