//! A uniform grid over the plaza for neighbour queries, rebuilt every frame by a counting sort
//! into reused arrays. Points are stored sorted by cell (rows of cells along x, row after row
//! along z), so the 3×3 cells around a query are three contiguous runs of memory. Points
//! outside the plaza are kept in the nearest edge cell, so queries stay exact.

use glam::Vec2;

/// Most cells a grid allocates: past this the cells grow instead (about 32 MB of counters).
const MAX_CELLS: usize = 1 << 23;

/// One point of the grid: where it is and whose it is.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct GridPoint {
    /// Position on the ground (world x, z), metres.
    pub p: Vec2,
    /// Index of the agent.
    pub agent: u32,
}

/// A uniform grid of points over a square centred on the origin.
#[derive(Clone, Debug, Default)]
pub struct Grid {
    cell: f32,
    inv_cell: f32,
    half: f32,
    side: u32,
    /// Per cell, one past its last point in `points` (its first is the previous cell's end).
    ends: Vec<u32>,
    points: Vec<GridPoint>,
    /// Scratch of the rebuild: each input point with its cell.
    keyed: Vec<(u32, GridPoint)>,
}

impl Grid {
    /// An empty grid (queries find nothing until [`Grid::rebuild`]).
    pub fn new() -> Self {
        Self::default()
    }

    /// Sorts `points` (agent `i` at the `i`-th position, world x and z in metres) into cells of
    /// `cell` metres over the square of half-size `half` (metres) centred on the origin.
    /// Allocates only when the grid or the number of points grows.
    pub fn rebuild(&mut self, half: f32, cell: f32, points: impl Iterator<Item = Vec2>) {
        let half = if half.is_finite() && half > 0.0 {
            half
        } else {
            1.0
        };
        let mut cell = if cell.is_finite() && cell > 0.0 {
            cell
        } else {
            1.0
        };
        let side = loop {
            let side = ((2.0 * half / cell).ceil() as usize).max(1);
            if side.saturating_mul(side) <= MAX_CELLS {
                break side;
            }
            cell *= 2.0;
        };
        self.cell = cell;
        self.inv_cell = 1.0 / cell;
        self.half = half;
        self.side = side as u32;
        let cells = side * side;
        self.ends.clear();
        self.ends.resize(cells, 0);
        self.keyed.clear();
        for (i, p) in points.enumerate() {
            let c = self.cell_index(p);
            self.ends[c as usize] += 1;
            self.keyed.push((c, GridPoint { p, agent: i as u32 }));
        }
        // Exclusive prefix sums: each cell's first point...
        let mut sum = 0u32;
        for e in &mut self.ends {
            let n = *e;
            *e = sum;
            sum += n;
        }
        // ...advanced past each point placed, in input order (stable: deterministic), leaves
        // each cell's end.
        self.points.clear();
        self.points.resize(self.keyed.len(), GridPoint::default());
        for &(c, gp) in &self.keyed {
            let at = &mut self.ends[c as usize];
            self.points[*at as usize] = gp;
            *at += 1;
        }
    }

    /// The cell size in use, metres (the one asked for, or larger for a very large plaza).
    pub fn cell(&self) -> f32 {
        self.cell
    }

    /// The points, sorted by cell.
    pub fn points(&self) -> &[GridPoint] {
        &self.points
    }

    #[inline]
    fn axis(&self, x: f32) -> u32 {
        // Casting saturates: NaN and points left of the plaza go to cell 0.
        (((x + self.half) * self.inv_cell) as u32).min(self.side - 1)
    }

    #[inline]
    fn cell_index(&self, p: Vec2) -> u32 {
        self.axis(p.y) * self.side + self.axis(p.x)
    }

    /// Calls `f(agent, position, squared distance)` for every point within `radius` metres of
    /// `p` (itself included, when it is a point of the grid), visiting the cells the circle
    /// overlaps: the 3×3 around `p` when `radius` is at most the cell size.
    #[inline]
    pub fn for_each_near(&self, p: Vec2, radius: f32, mut f: impl FnMut(u32, Vec2, f32)) {
        if self.points.is_empty() {
            return;
        }
        let r2 = radius * radius;
        let (x0, x1) = (self.axis(p.x - radius), self.axis(p.x + radius));
        let (z0, z1) = (self.axis(p.y - radius), self.axis(p.y + radius));
        for z in z0..=z1 {
            let row = z * self.side;
            let first = (row + x0) as usize;
            let start = if first == 0 { 0 } else { self.ends[first - 1] };
            let end = self.ends[(row + x1) as usize];
            for q in &self.points[start as usize..end as usize] {
                let d2 = (q.p - p).length_squared();
                if d2 <= r2 {
                    f(q.agent, q.p, d2);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crowd::rng::Rng;

    #[test]
    fn queries_find_exactly_the_points_within_the_radius() {
        let mut rng = Rng::new(5);
        let mut grid = Grid::new();
        for round in 0..4 {
            let half = 10.0 + round as f32 * 5.0;
            // Some points outside the plaza, to check the edge cells keep them.
            let pts: Vec<Vec2> = (0..2000)
                .map(|_| {
                    Vec2::new(
                        rng.range(-half - 3.0, half + 3.0),
                        rng.range(-half - 3.0, half + 3.0),
                    )
                })
                .collect();
            grid.rebuild(half, 1.2, pts.iter().copied());
            assert_eq!(grid.points().len(), pts.len());
            for _ in 0..300 {
                let q = Vec2::new(
                    rng.range(-half - 4.0, half + 4.0),
                    rng.range(-half - 4.0, half + 4.0),
                );
                let radius = rng.range(0.1, 1.2);
                let mut found = Vec::new();
                grid.for_each_near(q, radius, |a, p, _| {
                    assert_eq!(p, pts[a as usize]);
                    found.push(a);
                });
                found.sort_unstable();
                let expected: Vec<u32> = (0..pts.len() as u32)
                    .filter(|&i| (pts[i as usize] - q).length_squared() <= radius * radius)
                    .collect();
                assert_eq!(found, expected);
            }
        }
    }
}
