//! A uniform grid over the plaza for neighbour queries, rebuilt every frame by a counting sort
//! into reused arrays (cells found in parallel, counted, ids scattered in one pass, then the
//! positions read in place order, in parallel).
//! Points are stored sorted by cell (rows of cells along x, row after row along z), so the
//! cells around a query (3×3 when the radius is the cell size, 2×2 when it is half) are one
//! contiguous run of memory per row, and walking the points in order walks the plaza row by
//! row: queries made in that order hit the cache. Points outside the
//! plaza are kept in the nearest edge cell, so queries stay exact.

use glam::{Vec2, Vec4};
use rayon::prelude::*;

use crate::crowd::PARALLEL_MIN;

/// Most cells a grid allocates: past this the cells grow instead (about 32 MB of counters).
const MAX_CELLS: usize = 1 << 23;

/// Points kept past the last one (zeros), so that any run of points may be read in whole
/// groups of four: see [`Grid::four`].
pub const PADDING: usize = 4;

/// Ids below this are exact as `f32` (2^24), as every id of a grid of at most that many
/// points is: see [`ids_as_floats`].
pub const EXACT_IDS: usize = 1 << f32::MANTISSA_DIGITS;

/// Four ids (as [`Grid::four`] gives them) as floats, so that a walk can compare them in the
/// same vectors as distances: one instruction on x86-64. Exact below [`EXACT_IDS`]; larger
/// ones are rounded, and ids of 2^31 and above come out negative on x86-64.
#[inline]
pub fn ids_as_floats(ids: &[u32; 4]) -> Vec4 {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{__m128i, _mm_cvtepi32_ps, _mm_loadu_si128};
        // SAFETY: SSE2, all these need, is part of x86-64; the unaligned load reads the
        // array's 16 bytes.
        unsafe {
            Vec4::from(_mm_cvtepi32_ps(_mm_loadu_si128(
                ids.as_ptr().cast::<__m128i>(),
            )))
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        Vec4::from_array(ids.map(|id| id as f32))
    }
}

/// One point of the grid: where it is and whose it is (what the tests read back).
#[cfg(test)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct GridPoint {
    /// Position on the ground (world x, z), metres.
    pub p: Vec2,
    /// Its id: the index of the item it was made from.
    pub id: u32,
}

/// A uniform grid of points over a square centred on the origin.
#[derive(Clone, Debug)]
pub struct Grid {
    /// Fewer points than this are sorted (and walked by [`super::sim::avoidance`]) on the
    /// calling thread; at least 1.
    parallel_min: usize,
    cell: f32,
    inv_cell: f32,
    half: f32,
    side: u32,
    /// `side − 1` as a float (exact: `side` is at most `MAX_CELLS`).
    last: f32,
    /// Per cell, one past its last point in `points` (its first is the previous cell's end).
    ends: Vec<u32>,
    /// The points by cell, as three arrays (x, z, id: four of each load as one vector),
    /// each followed by [`PADDING`] zeros.
    xs: Vec<f32>,
    zs: Vec<f32>,
    ids: Vec<u32>,
    /// Scratch of the rebuild: each input point's cell and position, in input order.
    cell_of: Vec<u32>,
    at: Vec<Vec2>,
}

impl Default for Grid {
    fn default() -> Self {
        Self::new()
    }
}

impl Grid {
    /// An empty grid (queries find nothing until [`Grid::rebuild`]) whose passes run in
    /// parallel from [`PARALLEL_MIN`] points.
    pub fn new() -> Self {
        Self::with_parallel_min(PARALLEL_MIN)
    }

    /// An empty grid whose passes run in parallel from `parallel_min` points (0 counts as 1);
    /// the grid is the same either way.
    pub fn with_parallel_min(parallel_min: usize) -> Self {
        Self {
            parallel_min: parallel_min.max(1),
            cell: 0.0,
            inv_cell: 0.0,
            half: 0.0,
            side: 0,
            last: 0.0,
            ends: Vec::new(),
            // The padding from the start, so that even an empty grid reads a group of zeros.
            xs: vec![0.0; PADDING],
            zs: vec![0.0; PADDING],
            ids: vec![0; PADDING],
            cell_of: Vec::new(),
            at: Vec::new(),
        }
    }

    /// Fewer points than this are handled on the calling thread (at least 1).
    pub fn parallel_min(&self) -> usize {
        self.parallel_min
    }

    /// Sorts the points of `items` (`point(item)`: its position on the ground, world x and z
    /// in metres; its id is its index in `items`) into cells of `cell` metres over the square of half-size `half`
    /// (metres) centred on the origin. Points of a cell keep the order of `items`, so the grid
    /// is the same on any number of threads. Allocates only when the grid or the number of
    /// points grows.
    pub fn rebuild<T: Sync>(
        &mut self,
        half: f32,
        cell: f32,
        items: &[T],
        point: impl Fn(&T) -> Vec2 + Sync,
    ) {
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
        self.last = (side - 1) as f32;
        let cells = side * side;
        let n = items.len();
        let (mut cell_of, mut at) = (
            std::mem::take(&mut self.cell_of),
            std::mem::take(&mut self.at),
        );
        cell_of.resize(n, 0);
        at.resize(n, Vec2::ZERO);
        let this = &*self;
        let key = |((c, a), item): ((&mut u32, &mut Vec2), &T)| {
            let p = point(item);
            (*c, *a) = (this.cell_index(p), p);
        };
        if n < self.parallel_min {
            cell_of.iter_mut().zip(&mut at).zip(items).for_each(key);
        } else {
            cell_of
                .par_iter_mut()
                .zip(at.par_iter_mut())
                .zip(items.par_iter())
                .with_min_len(self.parallel_min)
                .for_each(key);
        }
        self.ends.clear();
        self.ends.resize(cells, 0);
        let ends = &mut self.ends[..];
        for &c in &cell_of {
            ends[c as usize] += 1;
        }
        // Exclusive prefix sums: each cell's first point...
        let mut sum = 0u32;
        for e in ends.iter_mut() {
            let k = *e;
            *e = sum;
            sum += k;
        }
        for v in [&mut self.xs, &mut self.zs] {
            v.resize(n + PADDING, 0.0);
            // The padding is zeros even where the grid held more points before.
            v[n..].fill(0.0);
        }
        self.ids.resize(n + PADDING, 0);
        self.ids[n..].fill(0);
        // ...advanced past each point placed, in input order (stable: deterministic), leaves
        // each cell's end. Only the ids are scattered, one store a point to a place anywhere
        // in the grid (three, with the positions, took most of the rebuild at 100,000 points:
        // each waits for its line); the positions follow in place order, below.
        let ids = &mut self.ids[..n];
        for (id, &c) in cell_of.iter().enumerate() {
            let end = &mut ends[c as usize];
            ids[*end as usize] = id as u32;
            *end += 1;
        }
        // Each place's position, read from its id: stores in order, and loads that need not
        // wait for one another; in parallel, as no place depends on another.
        let (xs, zs) = (&mut self.xs[..n], &mut self.zs[..n]);
        let fill = |((xs, zs), ids): ((&mut [f32], &mut [f32]), &[u32])| {
            for ((x, z), &id) in xs.iter_mut().zip(zs).zip(ids) {
                let p = at[id as usize];
                (*x, *z) = (p.x, p.y);
            }
        };
        if n < self.parallel_min {
            fill(((xs, zs), ids));
        } else {
            let k = self.parallel_min;
            xs.par_chunks_mut(k)
                .zip(zs.par_chunks_mut(k))
                .zip(ids.par_chunks(k))
                .for_each(fill);
        }
        self.cell_of = cell_of;
        self.at = at;
    }

    /// How many points the grid holds.
    pub fn len(&self) -> usize {
        self.ids.len().saturating_sub(PADDING)
    }

    /// Whether the grid holds no points.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Point `i` (below [`Grid::len`]) in cell order.
    ///
    /// # Panics
    /// If `i` is out of range.
    #[cfg(test)]
    #[inline]
    pub fn point(&self, i: usize) -> GridPoint {
        assert!(i < self.len(), "point {i} of {}", self.len());
        GridPoint {
            p: Vec2::new(self.xs[i], self.zs[i]),
            id: self.ids[i],
        }
    }

    /// The points in cell order as three slices of [`Grid::len`] each: x, z (metres) and id.
    #[inline]
    pub fn columns(&self) -> (&[f32], &[f32], &[u32]) {
        let n = self.len();
        (&self.xs[..n], &self.zs[..n], &self.ids[..n])
    }

    /// The points in cell order.
    #[cfg(test)]
    pub fn points(&self) -> impl ExactSizeIterator<Item = GridPoint> + '_ {
        (0..self.len()).map(|i| self.point(i))
    }

    /// Points `i..i + 4` in cell order as lanes: x, z and id. Past [`Grid::len`] (up to
    /// [`PADDING`] of them) the lanes are zeros, so that a run may be read in whole groups
    /// of four.
    ///
    /// # Panics
    /// If `i` is more than [`Grid::len`].
    // One comparison instead of a range check per column: the walk reads a group for every
    // row of cells it visits, and the three checks were about a tenth of its instructions.
    #[inline]
    pub fn four(&self, i: usize) -> (Vec4, Vec4, [u32; 4]) {
        let n = self.len();
        assert!(i <= n, "group at {i} of {n} points");
        debug_assert!(self.xs.len() == n + PADDING && self.zs.len() == n + PADDING);
        // SAFETY: the three columns hold `n + PADDING` values each (`rebuild` sizes them
        // together, and `len` is the ids' count less the padding), and `i <= n`, so the four
        // values from `i` are inside each.
        unsafe {
            (
                Vec4::from_slice(self.xs.get_unchecked(i..i + 4)),
                Vec4::from_slice(self.zs.get_unchecked(i..i + 4)),
                self.ids.as_ptr().add(i).cast::<[u32; 4]>().read_unaligned(),
            )
        }
    }

    /// The cell column (or row) of world coordinate `x`: NaN and points left of the plaza go
    /// to 0, points right of it to the last, as `(v as u32).min(side - 1)` would. Clamped as
    /// a float first, so the conversion needs none of the saturating cast's range checks
    /// (five instructions where the cast and `min` took about thirteen; three of these run
    /// per point and frame, and four per neighbour walk).
    #[inline]
    fn axis(&self, x: f32) -> u32 {
        let v = (x + self.half) * self.inv_cell;
        // `>` and `<` are false for NaN: NaN goes to 0.
        let v = if v > 0.0 { v } else { 0.0 };
        let v = if v < self.last { v } else { self.last };
        // SAFETY: v is in 0..=last (a NaN was replaced above), and last = side − 1 is at
        // most MAX_CELLS, far inside u32; truncation is then the cast's own rounding.
        unsafe { v.to_int_unchecked::<u32>() }
    }

    #[inline]
    fn cell_index(&self, p: Vec2) -> u32 {
        self.axis(p.y) * self.side + self.axis(p.x)
    }

    /// Calls `f(id, position, squared distance)` for every point within `radius` metres of
    /// `p` (itself included, when it is a point of the grid), visiting the cells the circle's
    /// bounding square overlaps: at most 3×3 when `radius` is at most the cell size, 2×2 when
    /// it is at most half of it.
    #[cfg(test)]
    #[inline]
    pub fn for_each_near(&self, p: Vec2, radius: f32, mut f: impl FnMut(u32, Vec2, f32)) {
        let r2 = radius * radius;
        self.for_each_run_near(p, radius, |run| {
            for i in run {
                let q = self.point(i);
                let d2 = (q.p - p).length_squared();
                if d2 <= r2 {
                    f(q.id, q.p, d2);
                }
            }
        });
    }

    /// Calls `f(run)` for each run of [`Grid::points`] that [`Grid::for_each_near`] visits
    /// (the cells around `p` a circle of `radius` metres overlaps, one row of cells at a
    /// time, in the same order): every point within `radius` is in one of them, with others.
    #[inline]
    pub fn for_each_run_near(
        &self,
        p: Vec2,
        radius: f32,
        mut f: impl FnMut(std::ops::Range<usize>),
    ) {
        if self.is_empty() {
            return;
        }
        let (x0, x1) = (self.axis(p.x - radius), self.axis(p.x + radius));
        let (z0, z1) = (self.axis(p.y - radius), self.axis(p.y + radius));
        for z in z0..=z1 {
            let row = z * self.side;
            let first = (row + x0) as usize;
            let start = if first == 0 { 0 } else { self.ends[first - 1] };
            let end = self.ends[(row + x1) as usize];
            f(start as usize..end as usize);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crowd::plaza::rng::Rng;

    /// Past the last point a group of four reads zeros, also after the grid shrank, and in
    /// a grid never built.
    #[test]
    fn the_padding_is_zeros() {
        let mut grid = Grid::new();
        assert_eq!(grid.four(0), (Vec4::ZERO, Vec4::ZERO, [0; 4]));
        let pts: Vec<Vec2> = (0..50).map(|i| Vec2::new(i as f32 * 0.1, 1.0)).collect();
        grid.rebuild(10.0, 2.4, &pts, |&p| p);
        grid.rebuild(10.0, 2.4, &pts[..20], |&p| p);
        assert_eq!(grid.len(), 20);
        assert_eq!(grid.four(20), (Vec4::ZERO, Vec4::ZERO, [0; 4]));
        let (x, _, ids) = grid.four(18);
        assert_eq!((x.z, x.w, ids[2], ids[3]), (0.0, 0.0, 0, 0));
    }

    /// A group starting past the last point would read past the padding: refused.
    #[test]
    #[should_panic(expected = "group at 21 of 20 points")]
    fn a_group_past_the_last_point_panics() {
        let mut grid = Grid::new();
        let pts: Vec<Vec2> = (0..20).map(|i| Vec2::new(i as f32 * 0.1, 1.0)).collect();
        grid.rebuild(10.0, 2.4, &pts, |&p| p);
        grid.four(21);
    }

    #[test]
    fn queries_find_exactly_the_points_within_the_radius() {
        let mut rng = Rng::new(5);
        // Past the threshold, so that the parallel sort is what is checked.
        let mut grid = Grid::with_parallel_min(256);
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
            // Cells of the radius (3×3 per query) and of twice it (2×2).
            let cell = if round % 2 == 0 { 1.2 } else { 2.4 };
            grid.rebuild(half, cell, &pts, |&p| p);
            assert_eq!(grid.len(), pts.len());
            // Every point once, each where its item is.
            let mut seen = vec![false; pts.len()];
            for q in grid.points() {
                assert_eq!(q.p, pts[q.id as usize]);
                assert!(!std::mem::replace(&mut seen[q.id as usize], true));
            }
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
