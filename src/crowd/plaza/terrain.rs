//! The ground agents stand on: the flat plaza, or the relief plaza (gentle slopes, a raised
//! terrace with steps on three sides and a ramp on the fourth), as a height field the crowd
//! samples so that agents' roots follow it. Analytic, so exact at any point and the same for
//! every user (the crowd, the renderer's ground, tests).
//!
//! The relief is laid out in world metres about the origin, where the demo's camera looks:
//! - slopes: two crossed sine waves of [`SLOPE_AMPLITUDE`] (a grade of at most about 4%),
//!   fading to flat between [`RELIEF_RADIUS`] and 1.5 times it, so the plaza beyond is flat;
//! - the terrace: a rectangle ([`TERRACE_MIN`] to [`TERRACE_MAX`], x and z) raised
//!   [`TERRACE_HEIGHT`] above the slopes, reached from −x, −z and +z by [`STEPS`] steps of
//!   [`RISE`] with treads of [`TREAD`] (turning the corners), and from +x by a ramp
//!   [`RAMP_LENGTH`] long, the terrace's width, whose sides drop to the corner steps beside it.

use std::fmt;
use std::str::FromStr;

use glam::{Vec2, Vec3};

/// Height of the slopes' waves, metres (crest to mean).
pub const SLOPE_AMPLITUDE: f32 = 0.3;
/// Distance from the origin, metres, beyond which the slopes fade out (flat from 1.5 × it).
pub const RELIEF_RADIUS: f32 = 40.0;
/// The terrace's corners (x, z), metres.
pub const TERRACE_MIN: Vec2 = Vec2::new(4.0, -5.0);
/// See [`TERRACE_MIN`].
pub const TERRACE_MAX: Vec2 = Vec2::new(12.0, 5.0);
/// Steps (risers) up to the terrace on its −x, −z and +z sides: `STEPS − 1` treads between
/// the plaza and the top.
pub const STEPS: u32 = 4;
/// Height of one step, metres.
pub const RISE: f32 = 0.15;
/// Depth of one tread, metres.
pub const TREAD: f32 = 0.35;
/// How far the terrace stands above the slopes, metres: all its steps.
pub const TERRACE_HEIGHT: f32 = STEPS as f32 * RISE;
/// Length of the ramp down from the terrace's +x side, metres (a 10% grade).
pub const RAMP_LENGTH: f32 = 6.0;

/// The ground agents stand on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Terrain {
    /// The flat plaza at y = 0.
    #[default]
    Flat,
    /// Slopes, a terrace with steps and a ramp (see the module docs).
    Relief,
}

/// An unknown terrain name.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown ground '{0}' (there are: flat, relief)")]
pub struct UnknownTerrain(pub String);

impl Terrain {
    /// Every terrain, in the order the command line lists them.
    pub const ALL: [Terrain; 2] = [Terrain::Flat, Terrain::Relief];

    /// Its name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Terrain::Flat => "flat",
            Terrain::Relief => "relief",
        }
    }

    /// The ground's height at world (`x`, `z`), metres.
    pub fn height(self, x: f32, z: f32) -> f32 {
        match self {
            Terrain::Flat => 0.0,
            Terrain::Relief => slopes(x, z) + terrace(x, z),
        }
    }

    /// The ground's unit normal at world (`x`, `z`): of the slopes and the ramp, straight up on
    /// treads (the risers' vertical faces are edges of the field, not points of it).
    pub fn normal(self, x: f32, z: f32) -> Vec3 {
        match self {
            Terrain::Flat => Vec3::Y,
            Terrain::Relief => {
                // The slopes by central differences over 1 cm (they are smooth); the ramp's
                // grade exactly (differences would straddle its edges); treads are flat.
                let e = 0.01;
                let mut dx = (slopes(x + e, z) - slopes(x - e, z)) / (2.0 * e);
                let dz = (slopes(x, z + e) - slopes(x, z - e)) / (2.0 * e);
                if in_ramp_strip(x, z) && x < TERRACE_MAX.x + RAMP_LENGTH {
                    dx -= TERRACE_HEIGHT / RAMP_LENGTH;
                }
                Vec3::new(-dx, 1.0, -dz).normalize()
            }
        }
    }
}

impl Terrain {
    /// Whether (`x`, `z`) is on the built part of the relief (the terrace, its steps, the
    /// ramp) rather than the plaza: drawn in stone.
    pub fn built(self, x: f32, z: f32) -> bool {
        self == Terrain::Relief && terrace(x, z) > 0.0
    }
}

impl fmt::Display for Terrain {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Terrain {
    type Err = UnknownTerrain;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Terrain::ALL
            .into_iter()
            .find(|t| t.name() == s)
            .ok_or_else(|| UnknownTerrain(s.to_string()))
    }
}

/// The slopes: crossed waves fading out with distance from the origin.
fn slopes(x: f32, z: f32) -> f32 {
    let r = (x * x + z * z).sqrt();
    let t = ((r - RELIEF_RADIUS) / (0.5 * RELIEF_RADIUS)).clamp(0.0, 1.0);
    let fade = 1.0 - t * t * (3.0 - 2.0 * t);
    SLOPE_AMPLITUDE * fade * (x / 9.0).sin() * (z / 7.0).cos()
}

/// Whether (`x`, `z`) lies in the ramp's strip: beyond the terrace's +x side, within its z.
fn in_ramp_strip(x: f32, z: f32) -> bool {
    x > TERRACE_MAX.x && (TERRACE_MIN.y..=TERRACE_MAX.y).contains(&z)
}

/// The ramp's height above the slopes at (`x`, `z`) (0 outside its strip).
fn ramp(x: f32, z: f32) -> f32 {
    if in_ramp_strip(x, z) {
        TERRACE_HEIGHT * (1.0 - (x - TERRACE_MAX.x) / RAMP_LENGTH).max(0.0)
    } else {
        0.0
    }
}

/// The terrace, its steps and its ramp: height above the slopes at (`x`, `z`).
fn terrace(x: f32, z: f32) -> f32 {
    if in_ramp_strip(x, z) {
        return ramp(x, z);
    }
    // Distance outside the rectangle, measured square (the steps turn its corners).
    let outside = Vec2::new(
        (TERRACE_MIN.x - x).max(x - TERRACE_MAX.x).max(0.0),
        (TERRACE_MIN.y - z).max(z - TERRACE_MAX.y).max(0.0),
    )
    .max_element();
    // Each tread one rise down: the first tread outside the edge is one rise below the top,
    // and the plaza is `STEPS` below it.
    let down = (outside / TREAD).ceil();
    (STEPS as f32 - down).max(0.0) * RISE
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flat_is_flat_and_names_read_back() {
        assert_eq!(Terrain::Flat.height(3.0, -7.0), 0.0);
        assert_eq!(Terrain::Flat.normal(3.0, -7.0), Vec3::Y);
        for t in Terrain::ALL {
            assert_eq!(t.name().parse::<Terrain>(), Ok(t));
        }
        let e = "hills".parse::<Terrain>().unwrap_err().to_string();
        assert_eq!(e, "unknown ground 'hills' (there are: flat, relief)");
    }

    #[test]
    fn steps_rise_by_a_step_per_tread_up_to_the_terrace() {
        let t = Terrain::Relief;
        let z = 0.0;
        // Along −x away from the terrace's edge at x = 4: tread j (1 to STEPS − 1) lies j − 1
        // to j treads out and is j rises below the top; beyond them, the plaza.
        let above = |x: f32| t.height(x, z) - slopes(x, z);
        for j in 1..STEPS {
            let x = TERRACE_MIN.x - (j as f32 - 0.5) * TREAD;
            let want = (STEPS - j) as f32 * RISE;
            assert!((above(x) - want).abs() < 1e-6, "tread {j}: {}", above(x));
        }
        assert!(above(TERRACE_MIN.x - (STEPS as f32 - 0.5) * TREAD).abs() < 1e-6);
        assert!((above(8.0) - TERRACE_HEIGHT).abs() < 1e-6);
        // The same on the −z side and round a corner.
        assert!(
            (t.height(8.0, -5.0 - 0.5 * TREAD) - slopes(8.0, -5.0 - 0.5 * TREAD) - 0.6 + RISE)
                .abs()
                < 1e-6
        );
        let corner = (TERRACE_MIN.x - 0.5 * TREAD, TERRACE_MIN.y - 1.5 * TREAD);
        let c = t.height(corner.0, corner.1) - slopes(corner.0, corner.1);
        assert!((c - (TERRACE_HEIGHT - 2.0 * RISE)).abs() < 1e-6, "{c}");
    }

    #[test]
    fn the_ramp_falls_evenly_and_the_far_plaza_is_flat() {
        let t = Terrain::Relief;
        let above = |x: f32| t.height(x, 0.0) - slopes(x, 0.0);
        assert!((above(TERRACE_MAX.x + 0.5 * RAMP_LENGTH) - 0.5 * TERRACE_HEIGHT).abs() < 1e-6);
        assert_eq!(above(TERRACE_MAX.x + RAMP_LENGTH + 0.1), 0.0);
        // The ramp's grade shows in the normal: 0.6 m over 6 m, a tilt of 0.0995 towards +x
        // (where the slopes' own grade is 0.3%: within 0.01).
        let n = t.normal(15.0, 0.0);
        assert!((n.x - 0.1 / 1.01f32.sqrt()).abs() < 0.01, "{n}");
        for (x, z) in [(61.0, 0.0), (0.0, -70.0), (45.0, 45.0)] {
            assert_eq!(t.height(x, z), 0.0);
            assert_eq!(t.normal(x, z), Vec3::Y);
        }
    }

    #[test]
    fn along_x_the_ground_jumps_only_at_step_edges_and_by_one_rise() {
        // Scans along x across the relief, 1 cm apart: neighbouring points differ by the
        // slopes' and the ramp's grades (under 1.5 mm over 1 cm) except across a step's edge,
        // where they differ by one rise.
        let t = Terrain::Relief;
        let mut jumps = 0;
        for iz in -200..200 {
            let z = iz as f32 * 0.1 + 0.05;
            let mut last = t.height(-20.0, z);
            for ix in 1..4000 {
                let x = -20.0 + ix as f32 * 0.01;
                let h = t.height(x, z);
                let d = (h - last).abs();
                if d > 2e-3 {
                    assert!((d - RISE).abs() < 2e-3, "a jump of {d} m at ({x}, {z})");
                    jumps += 1;
                }
                last = h;
            }
        }
        assert!(jumps > 0, "the scan crossed no step");
    }
}
