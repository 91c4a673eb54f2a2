//! Ground speed from the feet: the speed an in-place locomotion cycle travels at, read from how
//! fast its planted feet slide back in model space.
//!
//! A walk authored in place (no root motion) still carries its speed: while a foot is on the
//! ground it moves backwards, in model space, at exactly the speed the character would travel
//! for that foot not to slip. [`find_feet`] picks the foot joints of a skeleton;
//! [`measure`] takes their model-space positions over one cycle and returns the [`MeasuredGait`]: the
//! speed along the forward axis and the slip left when the character moves at it — or why the
//! cycle has no ground speed ([`NoGait`]: an idle, a gesture, flying).
//!
//! Every threshold is a fraction of the character's height (or heights per second), so the
//! rules read the same in centimetres and metres. Pure math: no I/O, one buffer per call.

use glam::{Vec2, Vec3, Vec4};

use super::Skeleton;

/// Name fragments of foot joints (compared with lower-cased joint names).
pub const FOOT_NAMES: [&str; 5] = ["foot", "ankle", "toe", "paw", "heel"];

/// A leaf joint whose sole (the lowest point of the vertices it moves, in the rest pose) is
/// within this fraction of the character's height of the lowest foot's sole also stands on the
/// ground (a quadruped's front paws, named "hand" in the Fox). Soles rather than joint
/// origins: a paw's joint sits in the middle of the paw, higher above its sole than an ankle or
/// a toe is above its own (the Fox's front paws' joints stand 6 cm, 7.6% of its height, above
/// its hind feet's), while the soles of everything standing on the ground touch the same
/// plane: the Fox's four paws' soles lie within 0.1% of its height of each other. 2%: the
/// lowest hanging hand of the shared models, RobotExpressive's long-armed right hand, reaches
/// to 4.2% of its height (its ring finger's sole), CesiumMan's and the mannequin's far higher
/// (`tests/bake/feet.rs`).
pub const GROUND_LEAF_BAND: f32 = 0.02;

/// A foot is planted only within this fraction of the character's height above its lowest
/// point over the cycle, and only in the lower half of its own vertical range ([`band`]). 5%
/// (9 cm on 1.8 m): a hand-keyed run's stance foot compresses and rolls, its contact rising
/// 3-5% of the height within the stance (Fox Run, RobotExpressive Running: at 3% a foot was in
/// stance for 10-14% of the cycle); a swing clears the ground by a fifth of the height or more,
/// and one passing lower moves forward, which the steady slide rule ([`STEADY`]) leaves out.
pub const GROUND_BAND: f32 = 0.05;

/// A foot must rise at least this fraction of the character's height over its lowest point
/// in the cycle to be stepping at all. 1% (1.8 cm on 1.8 m): a real walk's swing clears the
/// floor by 1-2 cm at the sole (an in-place Mixamo walk lifts the ankle 3 cm, 1.7% of its
/// height, at the lowest point of the foot), while a standing idle's feet, pinned to the
/// ground, rise by millimetres. The stance band is then the lower half of that rise
/// ([`band`]), so the lift itself is no longer bounded by [`GROUND_BAND`].
pub const MIN_LIFT: f32 = 0.01;

/// The stance band of a foot whose contact point rises `lift` over the cycle (model units) on
/// a character `height` tall: [`GROUND_BAND`] of the height, but no more than half the foot's
/// own rise. A foot that clears the ground by little (an in-place walk lifting 3 cm) is on the
/// ground in the lower half of its range and in the air in the upper half; one that lifts a
/// tenth of the height or more keeps the whole 5% band.
pub fn band(lift: f32, height: f32) -> f32 {
    (GROUND_BAND * height).min(0.5 * lift)
}

/// A planted foot moves mostly horizontally: its contact height changes at most this fraction
/// of its horizontal speed (plus [`STILL`]). 0.35 (about 19°) keeps touch-down and lift-off,
/// where the foot drops or rises steeply, out of the stance. The height of the contact (the
/// lowest point, whichever it is) rather than the vertical speed of one point: a foot rolling
/// over its heel or toe keeps its contact height while the corners beside the pivot rise.
pub const VERTICAL_RATIO: f32 = 0.35;

/// Speeds below this many character heights per second count as standing still (0.02: 3.6 cm/s
/// on 1.8 m), the noise of finite differences on keyed curves and of a swaying idle.
pub const STILL: f32 = 0.02;

/// A planted foot slides at a steady velocity: within this fraction of the steady slide
/// velocity (plus [`STILL`]). 10%: the slip an agent keeps at the measured speed stays a few
/// percent of it, and a swinging foot passing low over the ground (it moves forward) or a
/// rolling foot (its tracked joint turning about heel or toe) is left out.
pub const STEADY: f32 = 0.1;

/// Each foot must be in stance (near the ground, moving mostly horizontally) for at least this
/// fraction of the cycle. 15%: a sprint or a
/// gallop keeps a foot down for a fifth of the cycle or more; a foot circling in the air
/// (flying, swimming) meets the planted rule for about a tenth of its circle.
pub const MIN_STANCE: f32 = 0.15;

/// The most candidate centres `phases` tries for the steady slide velocity: 128 keeps every
/// stance sample a candidate in a 30 fps bake of a cycle up to about 2 s with two feet (the
/// densest cluster is then exact), and bounds the search at higher rates, where neighbouring
/// samples are near-duplicates and every few of them make as good a centre.
pub const MAX_CENTRES: usize = 128;

/// The slide must be at least this many heights per second to be a gait (0.05: 9 cm/s on
/// 1.8 m, a sixth of the slowest walk); an idle's feet shuffle by less.
pub const MIN_SPEED: f32 = 0.05;

/// A cycle measured by [`measure`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MeasuredGait {
    /// Ground speed along the forward axis, model units per second (> 0).
    pub speed: f32,
    /// Residual slip when the character moves at `speed` along the forward axis: the RMS, over
    /// planted samples, of the horizontal velocity of the planted foot plus the character's
    /// velocity, model units per second (0 for a perfectly planted foot).
    pub foot_slide: f32,
    /// Mean slide of the planted feet across the forward axis (horizontal, perpendicular to
    /// it), model units per second: large against `speed` when the cycle walks sideways.
    pub lateral: f32,
    /// The direction and speed the character travels in (x, z of the model; minus the mean
    /// velocity of the planted feet), model units per second: `speed` is its part along the
    /// forward axis, `lateral` the rest.
    pub travel: Vec2,
    /// Feet measured.
    pub feet: usize,
    /// Planted samples over all feet.
    pub planted: usize,
}

impl MeasuredGait {
    /// Whether the feet slide more across the forward axis than along it: the character walks
    /// along another axis than the one a crowd moves it along.
    pub fn off_axis(&self) -> bool {
        self.lateral.abs() > self.speed
    }
}

/// Why a cycle has no ground speed.
#[derive(Clone, Copy, Debug, PartialEq, thiserror::Error)]
pub enum NoGait {
    /// No foot joint was found, or fewer than 3 samples per foot were given.
    #[error("no feet to measure (or fewer than 3 samples)")]
    NoFeet,
    /// A foot never rises [`MIN_LIFT`] over its lowest point: standing, an idle, a gesture.
    #[error("foot {foot} never lifts ({lift_percent:.1}% of the height, under {min:.0}%)", min = MIN_LIFT * 100.0)]
    NeverLifts {
        /// The foot (index into the feet given).
        foot: usize,
        /// How high it rises over its lowest point, % of the height.
        lift_percent: f32,
    },
    /// A foot is in stance for too little of the cycle (flying, dangling legs).
    #[error("foot {foot} is in stance for {percent:.0}% of the cycle, under {min:.0}%", min = MIN_STANCE * 100.0)]
    NotPlanted {
        /// The foot.
        foot: usize,
        /// Planted share of the cycle, %.
        percent: f32,
    },
    /// The planted feet do not slide back along the forward axis clearly.
    #[error("planted feet slide back along the forward axis at {per_height:.3} heights/s (under {min}) and {lateral_per_height:.3} heights/s across it", min = MIN_SPEED)]
    NoSlide {
        /// Slide speed along the forward axis, heights per second (negative: forward).
        per_height: f32,
        /// Slide speed across it (horizontal, perpendicular), heights per second.
        lateral_per_height: f32,
        /// As [`MeasuredGait::travel`]: where the planted feet say the character travels (x, z),
        /// model units per second.
        travel: Vec2,
    },
}

/// The foot joints of `skeleton`: joints named like feet ([`FOOT_NAMES`]; of a chain of them
/// the deepest, the toe), plus leaf joints standing on the ground beside them
/// ([`GROUND_LEAF_BAND`]); with no foot names, the leaves standing lowest. `rest` holds each
/// joint's model-space position in the rest pose; `height` is the character's (> 0), in the
/// same units. Sorted joint indices. Without the vertices, each joint stands on its own
/// origin and every joint counts as moving vertices: see [`find_feet_skinned`] for the rule
/// on the soles of the vertices.
pub fn find_feet(skeleton: &Skeleton, rest: &[Vec3], height: f32) -> Vec<usize> {
    find_feet_skinned(skeleton, rest, height, |j| rest.get(j).map(|p| (*p, *p)))
}

/// As [`find_feet`], with what the vertices say. `bounds(j)` is the box (model space, its
/// lowest and highest corners, the units of `rest`) of the vertices joint `j` moves in the rest
/// pose (the box of the corners of their bind-space box, moved, will do), or `None` when it
/// moves none.
///
/// Of the joints named like feet only those that move vertices count, when any does: a
/// toe's end joint (Mixamo's `Toe_End`), a leaf that moves no vertex, is a point above the
/// sole, where the toe base or the foot that moves the sole's vertices has a box whose lowest
/// corner touches the ground. The ground is the lowest sole (box bottom) of those feet, and a
/// leaf joint stands on it when its own sole (its origin, when it moves no vertex) is within
/// [`GROUND_LEAF_BAND`] of the height above it: a paw whose joint sits high in the paw still
/// has its sole on the ground. A leaf whose box overlaps a foot's seen from above (x and z)
/// stands on that foot's spot: it is the same leg's lower part (RobotExpressive's shins end
/// their chains just above feet that hang from IK controls), not one more foot.
pub fn find_feet_skinned(
    skeleton: &Skeleton,
    rest: &[Vec3],
    height: f32,
    bounds: impl Fn(usize) -> Option<(Vec3, Vec3)>,
) -> Vec<usize> {
    let n = skeleton.len().min(rest.len());
    let named_like_foot = |j: usize| {
        let name = skeleton.names()[j].to_lowercase();
        FOOT_NAMES.iter().any(|f| name.contains(f))
    };
    let moves = |j: usize| bounds(j).is_some();
    // Where a joint is: its vertices' box, or its origin without any.
    let boxed = |j: usize| bounds(j).unwrap_or((rest[j], rest[j]));
    let stands = |j: usize| boxed(j).0.y;
    let overlap = |a: usize, b: usize| {
        let ((alo, ahi), (blo, bhi)) = (boxed(a), boxed(b));
        alo.x <= bhi.x && blo.x <= ahi.x && alo.z <= bhi.z && blo.z <= ahi.z
    };
    let mut named: Vec<usize> = (0..n).filter(|&j| named_like_foot(j)).collect();
    if named.iter().any(|&j| moves(j)) {
        named.retain(|&j| moves(j));
    }
    // Of a named chain (ankle, toe), the deepest: it stays on the ground longest.
    let mut feet: Vec<usize> = named
        .iter()
        .copied()
        .filter(|&j| !named.iter().any(|&k| skeleton.is_ancestor(j, k)))
        .collect();
    let mut is_leaf = vec![true; n];
    for j in 0..n {
        if let Some(p) = skeleton.parent(j) {
            is_leaf[p] = false;
        }
    }
    let leaves = (0..n).filter(|&j| is_leaf[j]);
    let ground = if feet.is_empty() {
        leaves.clone().map(stands).fold(f32::INFINITY, f32::min)
    } else {
        feet.iter()
            .map(|&j| stands(j))
            .fold(f32::INFINITY, f32::min)
    };
    for l in leaves {
        let on_chain = feet
            .iter()
            .any(|&f| f == l || skeleton.is_ancestor(f, l) || skeleton.is_ancestor(l, f));
        if !on_chain
            && stands(l) <= ground + GROUND_LEAF_BAND * height
            && !feet.iter().any(|&f| overlap(f, l))
        {
            feet.push(l);
        }
    }
    feet.sort_unstable();
    feet
}

/// The hips: the joint whose horizontal travel is the character's (root drift). From the root
/// with the most descendants, down through joints with a single child (armature and root
/// controls) to the first that branches (into spine and legs), or the end of the chain.
pub fn hips(skeleton: &Skeleton) -> usize {
    let n = skeleton.len();
    let mut children = vec![0usize; n];
    let mut below = vec![1usize; n];
    // Children come after parents: one backward pass counts every subtree.
    for j in (0..n).rev() {
        if let Some(p) = skeleton.parent(j) {
            children[p] += 1;
            below[p] += below[j];
        }
    }
    let Some(mut j) = (0..n)
        .filter(|&j| skeleton.parent(j).is_none())
        .max_by_key(|&j| below[j])
    else {
        return 0;
    };
    while children[j] == 1 {
        match (j + 1..n).find(|&k| skeleton.parent(k) == Some(j)) {
            Some(k) => j = k,
            None => break,
        }
    }
    j
}

/// The samples of one cycle: `frames × feet × points` model-space positions, frame-major,
/// `points` contact points per foot (the corners of its box, or just its joint).
struct Cycle<'a> {
    positions: &'a [Vec3],
    feet: usize,
    points: usize,
    frames: usize,
    step: f32,
    /// Per sample and foot (frame-major), the index of its contact point among its `points`:
    /// found once, as heights, velocities and climbs each read it several times.
    contacts: Vec<u32>,
}

impl<'a> Cycle<'a> {
    /// The cycle of `positions` (`frames × feet × points`, `step` seconds apart), or `None`
    /// with fewer than 3 samples per foot or a step that is not positive.
    fn new(positions: &'a [Vec3], feet: usize, points: usize, step: f32) -> Option<Self> {
        let frames = positions.len().checked_div(feet * points).unwrap_or(0);
        (frames >= 3 && step > 0.0).then(|| Self {
            positions,
            feet,
            points,
            frames,
            step,
            contacts: positions[..frames * feet * points]
                .chunks_exact(points)
                .map(|foot| contact(foot) as u32)
                .collect(),
        })
    }

    /// The RMS over the samples flagged in `planted` of the contact's horizontal velocity
    /// plus `agent` (x, z, units per second), or `None` when none is flagged.
    fn slip(&self, planted: &[bool], agent: Vec2) -> Option<f32> {
        let (mut sum, mut count) = (0.0f64, 0usize);
        for (k, _) in planted.iter().enumerate().filter(|(_, p)| **p) {
            let v = flat(self.velocity(k / self.feet, k % self.feet));
            sum += f64::from((v + agent).length_squared());
            count += 1;
        }
        (count > 0).then(|| (sum / count as f64).sqrt() as f32)
    }

    #[inline]
    fn at(&self, i: usize, f: usize, q: usize) -> Vec3 {
        self.positions[(i * self.feet + f) * self.points + q]
    }

    /// The contact point of foot `f` at sample `i`: its lowest point.
    #[inline]
    fn contact(&self, i: usize, f: usize) -> usize {
        self.contacts[i * self.feet + f] as usize
    }

    /// Height of foot `f`'s contact point at sample `i`.
    #[inline]
    fn height(&self, i: usize, f: usize) -> f32 {
        self.at(i, f, self.contact(i, f)).y
    }

    /// Velocity of foot `f`'s contact point at sample `i` (central difference of that point,
    /// wrapping: the sample after the last is the first).
    #[inline]
    fn velocity(&self, i: usize, f: usize) -> Vec3 {
        let q = self.contact(i, f);
        let next = self.at((i + 1) % self.frames, f, q);
        let prev = self.at((i + self.frames - 1) % self.frames, f, q);
        (next - prev) / (2.0 * self.step)
    }

    /// Vertical speed of foot `f`'s contact height at sample `i` (central difference of the
    /// lowest point's height, whichever point that is): a foot rolling over its heel or toe
    /// keeps its contact height while the points beside the pivot rise or drop.
    #[inline]
    fn climb(&self, i: usize, f: usize) -> f32 {
        let next = self.height((i + 1) % self.frames, f);
        let prev = self.height((i + self.frames - 1) % self.frames, f);
        (next - prev) / (2.0 * self.step)
    }

    /// Lowest and highest contact heights of foot `f` over the cycle.
    fn range(&self, f: usize) -> (f32, f32) {
        (0..self.frames)
            .map(|i| self.height(i, f))
            .fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), y| {
                (lo.min(y), hi.max(y))
            })
    }
}

/// Horizontal part (x, z) of a vector.
#[inline]
fn flat(v: Vec3) -> Vec2 {
    Vec2::new(v.x, v.z)
}

/// Per-sample phases of one cycle: stance (near the ground, moving mostly horizontally) and
/// planted (stance at the steady slide velocity), and that velocity.
struct Phases {
    stance: Vec<bool>,
    planted: Vec<bool>,
    /// The steady slide velocity (x, z), model units per second.
    slide: Vec2,
}

/// Classifies the samples of `positions` (frame-major, `frames × feet`, `step` seconds apart,
/// wrapping). Stance: within the foot's [`band`] of its lowest point and moving mostly
/// horizontally ([`VERTICAL_RATIO`]). The steady slide velocity is the densest cluster of
/// stance velocities: the stance sample with the most others within [`STEADY`] of its
/// velocity, averaged over those. Planted: stance within [`STEADY`] of that average. The
/// densest cluster rather than a median, because a rolling foot (heel strike, toe off) moves
/// its tracked joint at many speeds but slides at the gait's speed only while it is flat.
fn phases(c: &Cycle, height: f32) -> Phases {
    let (feet, frames) = (c.feet, c.frames);
    let still = STILL * height;
    let mut stance = vec![false; frames * feet];
    let mut velocities: Vec<(usize, Vec2)> = Vec::with_capacity(frames * feet);
    mark_stance(c, height, &mut stance, &mut velocities);
    let near = |a: Vec2, b: Vec2| (a - b).length() <= STEADY * a.length() + still;
    // Candidate centres: every sample up to MAX_CENTRES of them, else evenly spaced ones, each
    // counted against every sample, so the search stays linear in the samples at high rates
    // (a 120 fps bake has four times the samples of a 30 fps one and would cost sixteen times
    // as much). Squared distances: no square root per pair.
    //
    // Counting needs no order, so it runs four samples a lane (x and z apart, padded with
    // NaN, which no test passes) with no branch: the same squared distances, the same counts.
    // Only the winner's velocities are then summed, one by one in their order as before.
    let mut xs = vec![Vec4::NAN; velocities.len().div_ceil(4)];
    let mut zs = xs.clone();
    for (k, (_, v)) in velocities.iter().enumerate() {
        (xs[k / 4][k % 4], zs[k / 4][k % 4]) = (v.x, v.y);
    }
    let radius2 = |a: Vec2| {
        let r = STEADY * a.length() + still;
        r * r
    };
    let stride = velocities.len().div_ceil(MAX_CENTRES).max(1);
    let mut best = (0.0f32, Vec2::ZERO);
    for (_, a) in velocities.iter().step_by(stride) {
        let r2 = Vec4::splat(radius2(*a));
        let (ax, az) = (Vec4::splat(a.x), Vec4::splat(a.y));
        let mut counts = Vec4::ZERO;
        for (x, z) in xs.iter().zip(&zs) {
            let (dx, dz) = (ax - *x, az - *z);
            counts += Vec4::select((dx * dx + dz * dz).cmple(r2), Vec4::ONE, Vec4::ZERO);
        }
        // Whole numbers below 2^24 in each lane: exact.
        let count = counts.element_sum();
        if count > best.0 {
            best = (count, *a);
        }
    }
    let slide = if best.0 > 0.0 {
        let (a, r2) = (best.1, radius2(best.1));
        let (mut count, mut sum) = (0usize, Vec2::ZERO);
        for (_, b) in &velocities {
            if (a - *b).length_squared() <= r2 {
                count += 1;
                sum += *b;
            }
        }
        sum / count as f32
    } else {
        Vec2::ZERO
    };
    let mut planted = vec![false; frames * feet];
    for (k, v) in &velocities {
        planted[*k] = near(slide, *v);
    }
    Phases {
        stance,
        planted,
        slide,
    }
}

/// Marks in `stance` (`frames × feet`) the samples of `c` where a foot is in stance: its
/// contact within its [`band`] of its lowest point and moving mostly horizontally
/// ([`VERTICAL_RATIO`]); each such sample's index and horizontal velocity go into `velocities`.
fn mark_stance(c: &Cycle, height: f32, stance: &mut [bool], velocities: &mut Vec<(usize, Vec2)>) {
    let still = STILL * height;
    for f in 0..c.feet {
        let (low, high) = c.range(f);
        let band = band(high - low, height);
        for i in 0..c.frames {
            let k = i * c.feet + f;
            let h = flat(c.velocity(i, f));
            if c.height(i, f) - low <= band
                && c.climb(i, f).abs() <= VERTICAL_RATIO * h.length() + still
            {
                stance[k] = true;
                velocities.push((k, h));
            }
        }
    }
}

/// Marks in `stance` (one flag per foot per sample, frame-major: `frames × feet`) the samples
/// where a foot is in stance: its contact point (the lowest of its `points`) within
/// its [`band`] of its lowest over the cycle and moving mostly horizontally
/// ([`VERTICAL_RATIO`]), whatever its speed. `positions` is as [`measure`] takes it. Nothing
/// is marked for fewer than 3 samples per foot.
pub fn stance(
    positions: &[Vec3],
    feet: usize,
    points: usize,
    step: f32,
    height: f32,
    stance: &mut [bool],
) {
    stance.iter_mut().for_each(|p| *p = false);
    let Some(c) = Cycle::new(positions, feet, points, step) else {
        return;
    };
    let n = c.frames * feet;
    if height <= 0.0 || stance.len() < n {
        return;
    }
    let mut velocities = Vec::with_capacity(n);
    mark_stance(&c, height, &mut stance[..n], &mut velocities);
}

/// The index (into a foot's `points`) of the contact point of the foot whose `points` points
/// are `at`: the lowest.
pub fn contact(at: &[Vec3]) -> usize {
    (0..at.len())
        .min_by(|&a, &b| at[a].y.total_cmp(&at[b].y))
        .unwrap_or(0)
}

/// Marks in `planted` (one flag per foot per sample, frame-major: `frames × feet`) the samples
/// where a foot is planted: its contact point (the lowest of its `points`) near the ground
/// (its [`band`]), moving mostly horizontally ([`VERTICAL_RATIO`]) and at the steady slide
/// velocity ([`STEADY`]), which is returned (x, z, model units per second). `positions` is as
/// [`measure`] takes it. Nothing is marked for fewer than 3 samples per foot.
pub fn planted(
    positions: &[Vec3],
    feet: usize,
    points: usize,
    step: f32,
    height: f32,
    planted: &mut [bool],
) -> Vec2 {
    planted.iter_mut().for_each(|p| *p = false);
    let Some(c) = Cycle::new(positions, feet, points, step) else {
        return Vec2::ZERO;
    };
    let n = c.frames * feet;
    if height <= 0.0 || planted.len() < n {
        return Vec2::ZERO;
    }
    let p = phases(&c, height);
    planted[..n].copy_from_slice(&p.planted);
    p.slide
}

/// The residual slip of the [`planted`] samples of `positions` (as [`measure`] takes them)
/// when the character travels at `travel` (x, z of the model, units per second): the RMS of
/// the planted contact points' horizontal velocity plus `travel`, units per second; `None`
/// when no sample is planted. What [`MeasuredGait::foot_slide`] is for the measured speed, for a speed
/// given: the baker's check of a cycle whose feet it locked to that speed.
pub fn slide_at(
    positions: &[Vec3],
    feet: usize,
    points: usize,
    step: f32,
    height: f32,
    travel: Vec2,
) -> Option<f32> {
    let c = Cycle::new(positions, feet, points, step).filter(|_| height > 0.0)?;
    c.slip(&phases(&c, height).planted, travel)
}

/// Measures the ground speed of one locomotion cycle.
///
/// `positions` holds, at each of the cycle's samples, the model-space positions of `points`
/// points of each of `feet` feet (frame-major, `frames × feet × points`: the corners of the
/// box of the foot's vertices, or just its joint with `points` 1), `step` seconds apart,
/// wrapping (the sample after the last is the first: the cycle must be seamless). At each
/// sample a foot's contact point is its lowest: the heel at heel strike, the toe at toe off,
/// which is what stays on the ground while the joint above it rolls. `height` is the character's (> 0) and
/// `forward` the horizontal direction the character travels along in model space (normalised
/// here). The speed is the mean backward slide along `forward` of the [`planted`] samples;
/// the foot slide is over the same samples.
///
/// # Errors
/// [`NoGait`] when a foot never lifts, is in stance for less than [`MIN_STANCE`] of the cycle,
/// or the planted feet do not slide back along `forward` by at least [`MIN_SPEED`].
pub fn measure(
    positions: &[Vec3],
    feet: usize,
    points: usize,
    step: f32,
    height: f32,
    forward: Vec3,
) -> Result<MeasuredGait, NoGait> {
    let fwd = flat(forward).normalize_or_zero();
    // A height that is not positive (or NaN) measures nothing.
    let Some(c) =
        Cycle::new(positions, feet, points, step).filter(|_| height > 0.0 && fwd != Vec2::ZERO)
    else {
        return Err(NoGait::NoFeet);
    };
    let frames = c.frames;
    let p = phases(&c, height);
    for f in 0..feet {
        let (lo, hi) = c.range(f);
        let lift = hi - lo;
        if lift <= MIN_LIFT * height {
            return Err(NoGait::NeverLifts {
                foot: f,
                lift_percent: lift / height * 100.0,
            });
        }
        let down = (0..frames).filter(|&i| p.stance[i * feet + f]).count();
        if (down as f32) < MIN_STANCE * frames as f32 {
            return Err(NoGait::NotPlanted {
                foot: f,
                percent: down as f32 / frames as f32 * 100.0,
            });
        }
    }
    let (mut sum, mut count) = ([0.0f64; 2], 0usize);
    for (k, _) in p.planted.iter().enumerate().filter(|(_, p)| **p) {
        let v = flat(c.velocity(k / feet, k % feet));
        sum[0] += f64::from(v.x);
        sum[1] += f64::from(v.y);
        count += 1;
    }
    let n = count.max(1) as f64;
    let travel = -Vec2::new((sum[0] / n) as f32, (sum[1] / n) as f32);
    let speed = travel.dot(fwd);
    let lateral = travel.dot(fwd.perp());
    if speed < MIN_SPEED * height {
        return Err(NoGait::NoSlide {
            per_height: speed / height,
            lateral_per_height: lateral / height,
            travel,
        });
    }
    Ok(MeasuredGait {
        speed,
        foot_slide: c.slip(&p.planted, fwd * speed).unwrap_or(0.0),
        lateral,
        travel,
        feet,
        planted: count,
    })
}

#[cfg(test)]
mod tests;
