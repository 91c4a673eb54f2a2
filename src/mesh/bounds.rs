//! Axis-aligned bounding boxes.

use glam::Vec3;

/// An axis-aligned box; `min > max` on some axis means empty.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Aabb {
    /// Smallest corner, metres.
    pub min: Vec3,
    /// Largest corner, metres.
    pub max: Vec3,
}

impl Aabb {
    /// The empty box: contains nothing; growing it by a point gives that point.
    pub const EMPTY: Self = Self {
        min: Vec3::splat(f32::INFINITY),
        max: Vec3::splat(f32::NEG_INFINITY),
    };

    /// The bounds of `points` ([`Aabb::EMPTY`] for none).
    pub fn from_points<'a>(points: impl IntoIterator<Item = &'a Vec3>) -> Self {
        points.into_iter().fold(Self::EMPTY, |b, p| b.grow(*p))
    }

    /// This box extended to contain `p`.
    #[inline]
    pub fn grow(self, p: Vec3) -> Self {
        Self {
            min: self.min.min(p),
            max: self.max.max(p),
        }
    }

    /// The smallest box containing both.
    pub fn union(self, other: Self) -> Self {
        Self {
            min: self.min.min(other.min),
            max: self.max.max(other.max),
        }
    }

    /// True when the box contains no point.
    pub fn is_empty(&self) -> bool {
        self.min.cmpgt(self.max).any()
    }

    /// Extent along each axis (zero for an empty box).
    pub fn size(&self) -> Vec3 {
        if self.is_empty() {
            Vec3::ZERO
        } else {
            self.max - self.min
        }
    }

    /// Length of the diagonal, metres (zero for an empty box).
    pub fn diagonal(&self) -> f32 {
        self.size().length()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_of_points() {
        let b = Aabb::from_points(&[Vec3::new(1.0, 2.0, 3.0), Vec3::new(-1.0, 0.0, 5.0)]);
        assert_eq!(b.min, Vec3::new(-1.0, 0.0, 3.0));
        assert_eq!(b.max, Vec3::new(1.0, 2.0, 5.0));
        assert!((b.diagonal() - 12.0f32.sqrt()).abs() < 1e-6);
        assert!(Aabb::EMPTY.is_empty());
        assert_eq!(Aabb::EMPTY.diagonal(), 0.0);
    }
}
