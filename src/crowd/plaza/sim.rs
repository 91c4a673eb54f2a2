//! One plaza agent's step: it keeps its behaviour or chooses another, cross-fades to the
//! animation of its new behaviour, and walks. Steering turns the heading only — wander, back
//! from the plaza's edges, away from neighbours — so the ground speed is always that of the
//! animation played (times the agent's scale; blended by the fade weight during a
//! cross-fade): feet do not slide. The runtime then advances the animations (see
//! [`crate::crowd::Driver`]).
//!
//! A step reads the agent, its [`Wander`] state, the palette, and how it should steer away
//! from its neighbours: [`avoidance`] finds that for every agent due, from a grid snapshot of
//! everyone's positions taken before anyone steps, walking the grid in cell order (so
//! neighbour lookups hit the cache). Each step writes only its own agent, so steps run in
//! parallel and give the same result in any order.

use std::sync::atomic::{AtomicU64, Ordering};

use glam::{BVec4A, Vec2, Vec3, Vec4};

use rayon::prelude::*;

use super::grid::{EXACT_IDS, Grid, ids_as_floats};
use super::terrain::Terrain;
use super::turn::{sin_cos, sin_cos_after_turn, steer_turn, wrap_angle};
use super::wander::{MAX_DRIFT, Wander, choose};
use crate::crowd::agent::{Agent, Play};
use crate::crowd::palette::Palette;
use crate::crowd::population::AgentMut;

/// Neighbours closer than this are steered away from, metres.
pub const AVOID_RADIUS: f32 = 1.2;

/// Cell size of the neighbour grid, metres: twice [`AVOID_RADIUS`], so a query visits at most
/// 2×2 cells. Measured at 100,000 agents and the default 6 m² each, cells of the radius itself
/// (3×3 per query) were three quarters empty, and clearing, counting and scattering four
/// times as many cells made the rebuild twice as slow (1.1 ms against 0.6 ms a frame).
pub const GRID_CELL: f32 = 2.0 * AVOID_RADIUS;

/// Fastest turn when steering, radians per second.
pub const MAX_TURN: f32 = 2.5;

/// What every step reads.
#[derive(Clone, Copy)]
pub struct StepContext<'a> {
    /// What each character can play.
    pub palette: &'a Palette,
    /// Half-size of the plaza, metres.
    pub half: f32,
    /// Length of a cross-fade, seconds (0: switch at once).
    pub fade_seconds: f32,
    /// The ground: an agent's root stands at its height.
    pub terrain: Terrain,
}

/// Starts a cross-fade of `agent` to `anim` (ground speed `speed`) in step with what it plays
/// ([`Play::in_step`]), its wander state's speeds following their animations.
pub fn fade_to(agent: &mut AgentMut<'_>, w: &mut Wander, anim: u32, speed: f32, fade_seconds: f32) {
    let (old_a, old_b) = (
        agent.anim(),
        agent.fading_to().map_or(agent.anim(), |f| f.0),
    );
    let (speed_a, speed_b) = (w.speed_a, w.speed_b);
    agent.cross_fade(anim, fade_seconds, &Play::in_step());
    let speed_of = |x: u32| {
        if x == anim {
            speed
        } else if x == old_a {
            speed_a
        } else if x == old_b {
            speed_b
        } else {
            0.0
        }
    };
    let new_a = agent.anim();
    w.speed_a = speed_of(new_a);
    w.speed_b = speed_of(agent.fading_to().map_or(new_a, |f| f.0));
}

/// Steering push back into the plaza (zero well inside, growing to 1 per axis at the edge and
/// beyond).
fn edge_push(p: Vec2, half: f32) -> Vec2 {
    let margin = (half * 0.5).clamp(1e-3, 4.0);
    let inner = half - margin;
    let axis = |x: f32| {
        if x > inner {
            -((x - inner) / margin).min(2.0)
        } else if x < -inner {
            ((-inner - x) / margin).min(2.0)
        } else {
            0.0
        }
    };
    Vec2::new(axis(p.x), axis(p.y))
}

/// The push away from the neighbours of point `id` at `p` (world x, z) within
/// [`AVOID_RADIUS`]: per neighbour, the unit direction away from it weighted by how close it
/// is (1 touching, 0 at the radius). Points on top of each other part by id.
///
/// The candidates (the points of the cells around `p`) are taken four at a time, every one
/// computed and those out of range or out of the circle masked to +0, instead of a branch per
/// candidate: which candidates are near is a coin toss for the branch predictor, and its
/// misses were most of this walk's time (5.2 a call, counted by callgrind's branch
/// simulator, against 0.5 now). Each lane keeps its own sum, added up once at the end: adding
/// the four lanes in candidate order took a third of a group's instructions in shuffles.
/// The weighted direction (p − q)/d · (1 − d/R) is worked out as (p − q) · (1/d − 1/R), one
/// division instead of three.
///
/// Which lanes count (in the run, not `id` itself, within the radius) is found with vector
/// compares, the ids compared as floats ([`ids_as_floats`]: exact in any grid of up to
/// [`EXACT_IDS`] points; larger grids compare them one by one): building those masks lane by
/// lane took about a third of the walk's instructions. Points on top of each other, whose
/// direction comes from their ids, are rare enough for a branch.
// Always inlined into `avoidance`'s walk, where the grid's fields stay in registers from one
// point to the next: called, its set-up was about half of its instructions.
#[inline(always)]
pub fn away_from(grid: &Grid, p: Vec2, id: u32) -> Vec2 {
    const LANES: Vec4 = Vec4::new(0.0, 1.0, 2.0, 3.0);
    let r2 = Vec4::splat(AVOID_RADIUS * AVOID_RADIUS);
    let inv_r = Vec4::splat(1.0 / AVOID_RADIUS);
    let (px, py) = (Vec4::splat(p.x), Vec4::splat(p.y));
    let exact = grid.len() <= EXACT_IDS;
    let own = Vec4::splat(id as f32);
    let (mut sum_x, mut sum_y) = (Vec4::ZERO, Vec4::ZERO);
    grid.for_each_run_near(p, AVOID_RADIUS, |run| {
        // One group even for an empty run: a loop that may not run is a branch to miss.
        let mut i = run.start;
        loop {
            let (qx, qy, ids) = grid.four(i);
            let (dx, dy) = (px - qx, py - qy);
            let d2 = dx * dx + dy * dy;
            let d = d2.sqrt();
            // Lanes `k` with `i + k < run.end`: the count left, at most 4, is exact.
            let left = Vec4::splat((run.end - i).min(4) as f32).cmpgt(LANES);
            let others = if exact {
                ids_as_floats(&ids).cmpne(own)
            } else {
                BVec4A::new(ids[0] != id, ids[1] != id, ids[2] != id, ids[3] != id)
            };
            let take = left & others & d2.cmple(r2);
            let apart = d.cmpgt(Vec4::splat(1e-4));
            // Infinite or NaN in lanes on top of each other: replaced below, or masked.
            let k = d.recip() - inv_r;
            let (mut cx, mut cy) = (dx * k, dy * k);
            if (take & !apart).any() {
                // On top of each other: +x when the other's id is lower, else −x, weighted
                // as any other.
                let lower = BVec4A::new(ids[0] < id, ids[1] < id, ids[2] < id, ids[3] < id);
                let w = Vec4::ONE - d * inv_r;
                let sx = Vec4::select(lower, Vec4::ONE, Vec4::NEG_ONE) * w;
                cx = Vec4::select(apart, cx, sx);
                cy = Vec4::select(apart, cy, Vec4::ZERO);
            }
            sum_x += Vec4::select(take, cx, Vec4::ZERO);
            sum_y += Vec4::select(take, cy, Vec4::ZERO);
            i += 4;
            if i >= run.end {
                break;
            }
        }
    });
    Vec2::new(sum_x.element_sum(), sum_y.element_sum())
}

/// Each point's push away from its neighbours, by id: [`avoidance`] writes those of the due
/// points from any thread (walking the grid in cell order), and the steps read them in id
/// order. Ids are slots, so the steps' reads run through memory in order, where reading in the
/// grid's order would jump about it (the step pass's main cost at 100,000 agents); the
/// scattered writes are the cheaper side, as only due points are written and a store does not
/// wait for its line.
#[derive(Debug, Default)]
pub struct Pushes(Vec<AtomicU64>);

impl Pushes {
    /// The push of point `id` (zero, or an earlier frame's, unless it was due).
    ///
    /// # Panics
    /// If `id` is not below the number of points of the last [`avoidance`].
    #[inline]
    pub fn get(&self, id: u32) -> Vec2 {
        let bits = self.0[id as usize].load(Ordering::Relaxed);
        Vec2::new(
            f32::from_bits(bits as u32),
            f32::from_bits((bits >> 32) as u32),
        )
    }

    #[inline]
    fn set(&self, id: u32, v: Vec2) {
        let bits = u64::from(v.x.to_bits()) | (u64::from(v.y.to_bits()) << 32);
        self.0[id as usize].store(bits, Ordering::Relaxed);
    }
}

/// Points [`avoidance`] looks at before it walks from the due ones among them: a power of
/// two, so that an index masked by it is in range.
const WALK_BLOCK: usize = 256;

/// [`away_from`] for every point of `grid` whose id is `due`, walking the grid in cell order,
/// in parallel from [`Grid::parallel_min`] points, into `out` by id (others are left as they
/// were: less memory written). Allocates only when the grid grows.
pub fn avoidance(grid: &Grid, due: impl Fn(u32) -> bool + Sync, out: &mut Pushes) {
    let n = grid.len();
    if out.0.len() < n {
        out.0.resize_with(n, || AtomicU64::new(0));
    }
    let out = &*out;
    let (xs, zs, ids) = grid.columns();
    // Points `start..` of the grid, whose ids are `ids`: every point is looked at and few
    // are walked from, so the look is a read of the next id and a bit, no more. The due ones
    // are listed first, a block at a time, without a branch (the index written always, the
    // count moved by the bit), and then walked: whether a point is due is a coin toss for
    // the branch predictor where a quarter of the crowd stands still.
    let walk = |start: usize, ids: &[u32]| {
        let mut listed = [0u16; WALK_BLOCK];
        for (b, block) in ids.chunks(WALK_BLOCK).enumerate() {
            let mut n = 0;
            for (k, &id) in block.iter().enumerate() {
                // `n <= k < WALK_BLOCK`: the mask only spares the bounds check.
                listed[n & (WALK_BLOCK - 1)] = k as u16;
                n += usize::from(due(id));
            }
            for &k in &listed[..n] {
                let k = usize::from(k);
                let (i, id) = (start + b * WALK_BLOCK + k, block[k]);
                out.set(id, away_from(grid, Vec2::new(xs[i], zs[i]), id));
            }
        }
    };
    let chunk = grid.parallel_min();
    if n < chunk {
        walk(0, ids);
    } else {
        ids.par_chunks(chunk)
            .enumerate()
            .for_each(|(c, ids)| walk(c * chunk, ids));
    }
}
/// Whether [`step`] by `dt` seconds reads the push of `a` (wander state `w`) away from its
/// neighbours. It does not when `a` stands still through the step: no time passes, or
/// neither of its animations moves and its behaviour lasts past the step (so it chooses no
/// new one). About a quarter of a crowd stands at any time, and [`avoidance`] need not walk
/// the grid for them: their steps are the same whatever the push.
#[inline]
pub fn steers(w: &Wander, dt: f32) -> bool {
    // The very tests `step` makes: `timer - dt <= 0` chooses anew; a speed that is not
    // zero (NaN included) may move.
    // `&` and `|`, not `&&` and `||`: no branches, as whether an agent stands is a coin toss
    // for the branch predictor.
    (dt > 0.0) & ((w.timer - dt <= 0.0) | (w.speed_a != 0.0) | (w.speed_b != 0.0))
}

/// Steps `a` (wander state `w`) by `dt` seconds (see the module docs); `away` is its
/// [`away_from`] its neighbours (read only when [`steers`] says so).
// Always inlined into the crowd's step pass, which calls it for every agent stepped: the
// call and its register saves were about 20 instructions a step.
#[inline(always)]
pub fn step(a: &mut AgentMut<'_>, w: &mut Wander, away: Vec2, ctx: &StepContext, dt: f32) {
    let palette = ctx.palette;
    let Some(character) = palette.characters().get(a.character() as usize) else {
        return;
    };

    // Behaviour.
    w.timer -= dt;
    if w.timer <= 0.0 {
        let (behaviour, anim, speed, duration) = choose(character, palette, &mut w.rng);
        w.behaviour = behaviour;
        w.timer = duration;
        fade_to(a, w, anim, speed, ctx.fade_seconds);
    }

    // Ground speed: the fade weight at mid-step, so a fade's distance is right to second
    // order; without a fade it is exactly A's speed.
    let (fade, fade_rate) = a.fade();
    let speed = if fade_rate > 0.0 {
        let mid = (fade + 0.5 * fade_rate * dt).min(1.0);
        w.speed_a + (w.speed_b - w.speed_a) * mid
    } else {
        w.speed_a
    } * a.scale();
    w.speed = speed;
    // The runtime advances the animations after this step; once a fade ends there, B's
    // speed is A's.
    if fade_rate > 0.0 && fade + fade_rate * dt >= 1.0 {
        w.speed_a = w.speed_b;
    }

    // Steering and walking.
    if speed > 0.0 && dt > 0.0 {
        w.drift = (w.drift + w.rng.range(-1.0, 1.0) * 2.0 * dt).clamp(-MAX_DRIFT, MAX_DRIFT);
        let mut position = a.position();
        let p = Vec2::new(position.x, position.z);
        let push = 2.0 * edge_push(p, ctx.half) + 1.5 * away;
        // One sine and cosine a step: the heading's, turned below by the step's small turn.
        // (With nothing to steer from, the turn towards (s, c) is exactly 0: s·c − c·s.)
        let (s, c) = sin_cos(a.heading());
        let correction = steer_turn(s, c, Vec2::new(s, c) + push, MAX_TURN * dt);
        let turn = correction + w.drift * dt;
        let heading = wrap_angle(a.heading() + turn);
        let (s, c) = sin_cos_after_turn(s, c, turn, heading);
        position += Vec3::new(s, 0.0, c) * (speed * dt);
        position.y = ctx.terrain.height(position.x, position.z);
        a.set_heading(heading);
        a.set_position(position);
    }
    if !a.position().is_finite() {
        a.set_position(Vec3::new(0.0, ctx.terrain.height(0.0, 0.0), 0.0));
    }
}

/// Where despawned agents stand in the neighbour grid: far outside any plaza, so that no
/// agent steers away from them (and no square overflows).
pub const NOWHERE: Vec2 = Vec2::splat(1e18);

/// The ground position of `a` for the neighbour grid ([`NOWHERE`] once despawned).
#[inline]
pub fn grid_point(a: &Agent) -> Vec2 {
    if a.despawned() {
        NOWHERE
    } else {
        Vec2::new(a.position().x, a.position().z)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crowd::palette::PaletteNames;
    use crate::crowd::testing::{standard_anims, synthetic_file};

    /// The steps' context of the tests: a flat plaza of half-size 20 m, fades of 0.3 s.
    fn context(palette: &Palette) -> StepContext<'_> {
        StepContext {
            palette,
            half: 20.0,
            fade_seconds: 0.3,
            terrain: Terrain::Flat,
        }
    }

    fn setup() -> Palette {
        let file = synthetic_file(&[standard_anims()], 3);
        Palette::new(&file, &PaletteNames::default()).unwrap()
    }

    /// Plaza agent `index` of a crowd seeded with `seed` on a plaza of half-size `half`, as
    /// the crowd spawns it at time 0.
    fn spawn(p: &Palette, seed: u64, index: u32, half: f32) -> (Agent, Wander) {
        let (s, w) = Wander::spawn(p, seed, index, half);
        (Agent::spawned(&s, index, p.anims(), 0.0), w)
    }

    /// A whole step to crowd time `now` as the crowd's update makes it: the plaza's, then
    /// the runtime's (animations advanced).
    fn full_step(a: &mut Agent, w: &mut Wander, away: Vec2, ctx: &StepContext, now: f64) {
        let dt = crate::crowd::population::step_seconds(a, now);
        step(&mut AgentMut::new(a, ctx.palette), w, away, ctx, dt);
        a.advance(ctx.palette.anims(), dt);
        a.last_update = now;
    }

    #[test]
    fn fades_keep_the_dominant_side_sync_phase_and_their_speeds() {
        let p = setup();
        let c = &p.characters()[0];
        let (idle, walk, run) = (c.idle.unwrap(), c.locomotion[1].anim, c.locomotion[2].anim);
        let (mut a, mut w) = spawn(&p, 1, 0, 10.0);
        a.play(walk, &Play::at_time(0.25), p.anims()); // a quarter of walk's 1 s cycle
        w.speed_a = 1.2;
        w.speed_b = 1.2;
        let fade = |a: &mut Agent, w: &mut Wander, anim, speed, secs| {
            fade_to(&mut AgentMut::new(a, &p), w, anim, speed, secs);
        };
        fade(&mut a, &mut w, run, 3.0, 0.3);
        assert_eq!((a.anim_a, a.anim_b), (walk, run));
        assert_eq!((w.speed_a, w.speed_b), (1.2, 3.0));
        // Synced gaits: the same phase of run's 2/3 s cycle (f32 arithmetic: one rounding).
        assert!((a.time_b - 0.25 * (2.0 / 3.0)).abs() < 1e-6, "{}", a.time_b);
        a.fade = 0.7;
        fade(&mut a, &mut w, idle, 0.0, 0.3);
        assert_eq!(
            (a.anim_a, a.anim_b, a.fade),
            (run, idle, 0.0),
            "B dominated: it stays as A"
        );
        assert_eq!(
            (w.speed_a, w.speed_b),
            (3.0, 0.0),
            "speeds follow their animations"
        );
        assert_eq!(
            a.time_b, 0.0,
            "idle is not a synced gait: it starts at its start"
        );
        a.fade = 0.2;
        fade(&mut a, &mut w, walk, 1.2, 0.3);
        assert_eq!(
            (a.anim_a, a.anim_b),
            (run, walk),
            "A dominated: it stays as A"
        );
        // Asked back to A: the fade turns round.
        a.fade = 0.2;
        fade(&mut a, &mut w, run, 3.0, 0.3);
        assert_eq!((a.anim_a, a.anim_b), (walk, run));
        assert_eq!((w.speed_a, w.speed_b), (1.2, 3.0));
        // 1 − 0.2 in f32: one rounding.
        assert!((a.fade - 0.8).abs() < 1e-6);
        fade(&mut a, &mut w, run, 3.0, 0.3);
        assert_eq!(
            (a.anim_a, a.anim_b),
            (walk, run),
            "asked for B again: the fade goes on"
        );
        fade(&mut a, &mut w, idle, 0.0, 0.0);
        assert_eq!(
            (a.anim_a, a.fade_rate, w.speed_a),
            (idle, 0.0, 0.0),
            "a zero fade switches at once"
        );

        // Waving while walking repeats the 1 s walking step twice in 2 s: the legs keep their
        // phase, in the repeat A's time falls in. (Times are sums of f32: 1e-6 s.)
        let greet = c.gesture[1].unwrap();
        assert_eq!(p.anims()[greet as usize].cycle, 1.0);
        a.play(walk, &Play::at_time(0.25), p.anims());
        fade(&mut a, &mut w, greet, 1.2, 0.0);
        assert!((a.time_a - 0.25).abs() < 1e-6, "{}", a.time_a);
        a.time_a = 1.6;
        fade(&mut a, &mut w, walk, 1.2, 0.0);
        assert!((a.time_a - 0.6).abs() < 1e-6, "{}", a.time_a);
    }

    /// An agent that `steers` says does not steer steps the same whatever its push (so
    /// `avoidance` may skip it), and one that does is turned by it, in some steps at least:
    /// agents over many steps, fades, behaviour changes and standing spells included.
    #[test]
    fn agents_that_do_not_steer_step_the_same_whatever_the_push() {
        let p = setup();
        let ctx = context(&p);
        let (mut still, mut steered, mut turned) = (0, 0, 0);
        for i in 0..300 {
            let (mut a, mut w) = spawn(&p, 6, i, 20.0);
            let mut now = 0.0;
            for k in 0..200 {
                // Now and then a step of no time, or one of a whole second.
                now += match k % 50 {
                    7 => 0.0,
                    8 => 1.0,
                    _ => 1.0 / 60.0 * f64::from(1 + w.rng.below(8)),
                };
                let (mut pushed, mut free) = ((a, w), (a, w));
                full_step(
                    &mut pushed.0,
                    &mut pushed.1,
                    Vec2::new(0.7, -0.4),
                    &ctx,
                    now,
                );
                full_step(&mut free.0, &mut free.1, Vec2::ZERO, &ctx, now);
                let dt = crate::crowd::population::step_seconds(&a, now);
                if steers(&w, dt) {
                    steered += 1;
                    turned += usize::from(pushed != free);
                } else {
                    assert_eq!(pushed, free, "agent {i}, step {k}: the push changed it");
                    still += 1;
                }
                (a, w) = free;
            }
        }
        assert!(
            still > 5000 && steered > 20000 && turned > 10000,
            "{still} still, {steered} steered ({turned} turned)"
        );
    }

    /// The walk four candidates at a time gives the push of the plain definition, worked out
    /// one neighbour at a time in f64: every point in range, its unit direction away
    /// weighted by closeness. Crowded points (many per cell, so runs longer than four),
    /// points on top of each other (both id orders), points exactly at the radius, and cells
    /// of the radius (3×3 per query) as well as of twice it.
    ///
    /// Tolerance: each neighbour's term is within 2e-7 of its exact value (a few f32
    /// roundings of values up to 1, and 1/d − 1/R cancels to within an ulp of 1/d, 6e-8,
    /// times |p − q| <= 1.2), and the sum of `n` terms adds at most `n` roundings of a
    /// partial sum no larger than the sum of the terms' sizes `s`: 2e-7·n + 6e-8·n·s.
    #[test]
    fn the_four_wide_walk_gives_the_plain_push() {
        let plain = |grid: &Grid, p: Vec2, id: u32| {
            let (mut away, mut n, mut size) = ([0f64; 2], 0usize, 0f64);
            grid.for_each_near(p, AVOID_RADIUS, |other, q, _| {
                if other == id {
                    return;
                }
                let (dx, dy) = (f64::from(p.x - q.x), f64::from(p.y - q.y));
                let d = (dx * dx + dy * dy).sqrt();
                let w = 1.0 - d / f64::from(AVOID_RADIUS);
                let dir = if d > 1e-4 {
                    [dx / d, dy / d]
                } else if other < id {
                    [1.0, 0.0]
                } else {
                    [-1.0, 0.0]
                };
                away = [away[0] + dir[0] * w, away[1] + dir[1] * w];
                n += 1;
                size += w.abs();
            });
            (away, n as f64, size)
        };
        let mut rng = crate::crowd::plaza::rng::Rng::new(12);
        let (mut pushed, mut on_top, mut worst) = (0, 0, 0f64);
        for round in 0..6 {
            let half = [3.0, 10.0, 25.0][round % 3];
            let mut pts: Vec<Vec2> = (0..600)
                .map(|_| Vec2::new(rng.range(-half, half), rng.range(-half, half)))
                .collect();
            // Twins, and neighbours exactly one radius away along x.
            for k in 0..40 {
                pts[k + 100] = pts[k];
                pts[k + 200] = pts[k] + Vec2::new(AVOID_RADIUS, 0.0);
            }
            let mut grid = Grid::with_parallel_min(64);
            let cell = if round < 3 { GRID_CELL } else { AVOID_RADIUS };
            grid.rebuild(half, cell, &pts, |&q| q);
            for (i, &p) in pts.iter().enumerate() {
                let a = away_from(&grid, p, i as u32);
                let (b, n, size) = plain(&grid, p, i as u32);
                let tolerance = 2e-7 * n + 6e-8 * n * size;
                for (got, want) in [(a.x, b[0]), (a.y, b[1])] {
                    let off = (f64::from(got) - want).abs();
                    assert!(
                        off <= tolerance,
                        "{p}: {got} against {want} ({n} neighbours)"
                    );
                    worst = worst.max(off / tolerance.max(f64::MIN_POSITIVE));
                }
                pushed += usize::from(a != Vec2::ZERO);
                on_top += usize::from(pts.iter().filter(|&&q| q == p).count() > 1);
            }
        }
        assert!(
            pushed > 1000 && on_top > 200,
            "{pushed} pushed, {on_top} on top"
        );
        eprintln!("worst error: {worst:.3} of the tolerance");
    }

    /// [`avoidance`] writes exactly the pushes of the due points, each the bits of
    /// [`away_from`]'s, and leaves the others as they were: on one thread over several blocks
    /// of [`WALK_BLOCK`] points, and in parallel chunks, with about a quarter not due (as many
    /// as stand in a crowd) and runs of due and not due points.
    #[test]
    fn avoidance_writes_the_due_pushes_and_no_others() {
        let mut rng = crate::crowd::plaza::rng::Rng::new(13);
        let pts: Vec<Vec2> = (0..1500)
            .map(|_| Vec2::new(rng.range(-15.0, 15.0), rng.range(-15.0, 15.0)))
            .collect();
        let due: Vec<bool> = (0..pts.len())
            .map(|i| {
                if (300..700).contains(&i) {
                    i % 50 < 25
                } else {
                    rng.unit() > 0.25
                }
            })
            .collect();
        const UNTOUCHED: u64 = 0x7fc0_1234_7fc0_5678;
        for parallel_min in [usize::MAX, 64] {
            let mut grid = Grid::with_parallel_min(parallel_min);
            grid.rebuild(15.0, GRID_CELL, &pts, |&q| q);
            let mut pushes = Pushes((0..pts.len()).map(|_| AtomicU64::new(UNTOUCHED)).collect());
            avoidance(&grid, |id| due[id as usize], &mut pushes);
            for (id, &p) in pts.iter().enumerate() {
                let got = pushes.0[id].load(Ordering::Relaxed);
                if due[id] {
                    let want = away_from(&grid, p, id as u32);
                    assert_eq!(pushes.get(id as u32), want, "point {id}");
                    assert_ne!(got, UNTOUCHED, "point {id}");
                } else {
                    assert_eq!(got, UNTOUCHED, "point {id} is not due");
                }
            }
        }
    }

    /// No foot sliding: once its fade is over, an agent covers exactly its gait's speed times
    /// its scale per second, whatever the steering does to its heading.
    #[test]
    fn agents_move_at_exactly_their_gait_speed() {
        let p = setup();
        let ctx = context(&p);
        let mut grid = Grid::new();
        let mut checked = 0;
        for i in 0..200 {
            let (mut a, mut w) = spawn(&p, 4, i, 20.0);
            // A neighbour right beside it, so avoidance steers too.
            let p0 = Vec2::new(a.position.x, a.position.z);
            let neighbours = [p0, p0 + Vec2::new(0.5, 0.3)];
            grid.rebuild(20.0, AVOID_RADIUS, &neighbours, |&q| q);
            let mut pushes = Pushes::default();
            avoidance(&grid, |id| id == 0, &mut pushes);
            let away = pushes.get(0);
            assert!(away.length() > 0.1, "the neighbour pushes");
            let mut now = 0.0;
            for _ in 0..40 {
                let dt = 1.0 / 60.0 * f64::from(1 + w.rng.below(8));
                now += dt;
                let (before, before_w) = (a, w);
                full_step(&mut a, &mut w, away, &ctx, now);
                if before.fade_rate == 0.0 && a.fade_rate == 0.0 && a.anim_a == before.anim_a {
                    let dist = (a.position - before.position).length();
                    let dt = (now - before.last_update) as f32;
                    let expected = before_w.speed_a * before.scale;
                    // f32 positions (|x| < 40 m: ulp 4e-6 m) rounded at both ends of the step,
                    // over dt >= 1/60 s: under 5e-4 m/s; 1e-3 m/s leaves room for sin/cos.
                    assert!(
                        (dist / dt - expected).abs() < 1e-3,
                        "{} m/s, gait {expected}",
                        dist / dt
                    );
                    assert_eq!(w.speed, expected);
                    checked += usize::from(expected > 0.0);
                }
            }
        }
        assert!(checked > 1000, "only {checked} moving steps checked");
    }
}
