//! Culling and LOD levels for a view: which group (character, LOD level, or culled) each agent
//! belongs in. Reads only [`Hot`], the 32 bytes per slot kept beside the agents, so the pass
//! over everyone each frame reads little memory; runs in parallel past the crowd's
//! `parallel_min`.

use glam::{Mat4, Vec3, Vec4};
use rayon::prelude::*;

use super::cull::{Frustum, SphereTest};
use super::lod::{LodPolicy, MAX_LEVELS};
use super::schedule::Schedule;
use crate::crowd::agent::{Agent, flag};
use crate::crowd::palette::{Palette, upright_sphere};
use crate::crowd::settings::View;

/// What culling, LOD levels and the grid read of an agent, kept beside the agents in slot
/// order: 32 bytes instead of a whole agent for the passes over everyone each frame. A step
/// rewrites its agent's.
// In this order (`repr(C)`): the first four fields are read as one vector.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[repr(C)]
pub(crate) struct Hot {
    /// Position on the ground, metres.
    pub(crate) x: f32,
    pub(crate) z: f32,
    /// Height of its bounding sphere's centre above the ground, metres.
    pub(crate) cy: f32,
    /// Radius of its bounding sphere, metres (margin included).
    pub(crate) radius: f32,
    /// The LOD scale: the agent's uniform scale times its character's LOD size
    /// ([`Palette::lod_size`], its height over `REFERENCE_HEIGHT`), what the LOD distances
    /// are multiplied by: folded in here so that the LOD pass stays one multiply per agent.
    pub(crate) scale: f32,
    /// Character index.
    pub(crate) character: u32,
    /// LOD level by distance, as last assigned; [`LIVE_LEVEL`] in the live tier,
    /// [`IMPOSTOR_LEVEL`] in the impostor tier.
    pub(crate) level: u8,
    /// 1 when it may be drawn, 0 when it is hidden or despawned: culled by every view.
    pub(crate) shown: u8,
    /// How far into the live tier it is, 0 to 1: rises from 0 as it joins, falls to 0 before
    /// it leaves (see `population::live`).
    pub(crate) blend: f32,
}

/// The [`Hot::level`] of an agent in the live tier (drawn with LOD 0's mesh).
pub(crate) const LIVE_LEVEL: u8 = u8::MAX;

/// The [`Hot::level`] of an agent in the impostor tier.
pub(crate) const IMPOSTOR_LEVEL: u8 = u8::MAX - 1;

impl Hot {
    /// What culling and LOD levels read of `agent`, bounds grown by `margin` metres, at
    /// LOD `level`.
    // Always inlined into the step pass, which calls it for every agent stepped.
    #[inline(always)]
    pub(crate) fn of(palette: &Palette, agent: &Agent, margin: f32, level: u8) -> Self {
        let (c, radius) = agent_sphere(palette, agent, margin);
        Self {
            x: agent.position.x,
            z: agent.position.z,
            cy: c.y - agent.position.y,
            radius,
            scale: agent.scale * palette.lod_size(agent.character),
            character: agent.character,
            level,
            shown: u8::from(agent.flags & (flag::HIDDEN | flag::FREE) == 0),
            blend: 0.0,
        }
    }
}

/// Conservative world-space bounding sphere of `agent`: centre and radius, metres. The model
/// box of A (∪ B while fading) is turned about the vertical axis through the agent's origin by
/// any heading, so a sphere about that axis holding its farthest corner needs no sine or
/// cosine: centre at the box's mid-height, radius from the corners' largest horizontal reach
/// and half the height; all scaled, then `margin` added.
#[inline]
pub fn agent_sphere(palette: &Palette, agent: &Agent, margin: f32) -> (Vec3, f32) {
    let anims = palette.anims();
    let a = anims.get(agent.anim_a as usize);
    let (mid, reach) = if agent.fade > 0.0
        && let Some(b) = anims.get(agent.anim_b as usize)
    {
        let (lo, hi) = a.map_or((Vec3::ZERO, Vec3::ZERO), |a| (a.min, a.max));
        upright_sphere(lo.min(b.min), hi.max(b.max))
    } else {
        // The same function of A's box, worked out once per animation; without a box, the
        // empty box at the origin's: a point at the origin.
        a.map_or((0.0, 0.0), |a| a.sphere)
    };
    let s = agent.scale;
    let centre = agent.position + Vec3::Y * (mid * s);
    let radius = reach * s + margin;
    (centre, radius)
}

/// The most a lane's level count reaches: one per distance, at most `MAX_LEVELS − 1`.
const LEVEL_MAX: u32 = MAX_LEVELS as u32 - 1;
const _: () = assert!(LEVEL_MAX < 0x80, "min_bytes takes bytes below 0x80");

/// The bytewise minimum of two words whose bytes are all below 0x80: per byte, `a | 0x80`
/// minus `b` keeps its top bit (no borrow leaves the byte) exactly when `a >= b`.
#[inline]
fn min_bytes(a: u32, b: u32) -> u32 {
    let a_ge_b = (((a | 0x8080_8080) - b) >> 7) & 0x0101_0101;
    // 0xff in the bytes where `a >= b` (each byte's 1 times 0xff stays in its byte).
    let mask = a_ge_b * 0xff;
    (a & !mask) | (b & mask)
}

/// A four-bit lane mask spread to the bytes of a word: bit `k` becomes byte `k`'s 1.
const SPREAD: [u32; 16] = {
    let mut t = [0u32; 16];
    let mut m = 0;
    while m < 16 {
        let mut k = 0;
        while k < 4 {
            if m >> k & 1 != 0 {
                t[m] |= 1 << (8 * k);
            }
            k += 1;
        }
        m += 1;
    }
    t
};

/// Bit `k` set where agent `k` of four may be drawn ([`Hot::shown`]).
#[inline(always)]
fn shown_mask(hot: &[Hot; 4]) -> u32 {
    let [a, b, c, d] = hot.each_ref().map(|h| u32::from(h.shown & 1));
    a | b << 1 | c << 2 | d << 3
}

/// What [`Assigner::assign`] reads.
pub(crate) struct Assigner<'a> {
    pub(crate) policy: &'a LodPolicy,
    pub(crate) schedule: &'a Schedule,
    /// Fewer agents than this are assigned on the calling thread (at least 1).
    pub(crate) parallel_min: usize,
}

impl Assigner<'_> {
    /// Culling and LOD level of each of `hot` for `view` (`None`: all at LOD 0, visible), in
    /// parallel: each one's `level`, and in `want` the group it belongs in. Levels are
    /// [`LodPolicy::level_for`]'s, compared squared (no square root or division per agent):
    /// `d / s >= D` as `d² >= D² s²`, `s` the agent's scale times its character's size
    /// ([`Hot::scale`]). Four agents per vector: distances, level counts and
    /// the frustum's six planes each take one operation for four agents, with each lane's
    /// arithmetic that of one agent (so the same levels and the same culling).
    pub(crate) fn assign(&self, hot: &mut [Hot], want: &mut [u32], view: Option<&View>) {
        let culled = self.schedule.culled_group();
        let Some(view) = view else {
            for (h, want) in hot.iter_mut().zip(want) {
                let groups = self.schedule.character_groups(h.character);
                h.level = 0;
                *want = if groups.is_empty() || h.shown == 0 {
                    culled
                } else {
                    groups.start
                };
            }
            return;
        };
        let frustum = SphereTest::new(&Frustum::from_view_proj(view.view_proj));
        let mut squared = [0f32; MAX_LEVELS - 1];
        let n = self.policy.distances.len().min(MAX_LEVELS - 1);
        for (q, &d) in squared.iter_mut().zip(&self.policy.distances) {
            // level_for counts distances at or below d / s: one at or below 0 always counts,
            // a NaN never does.
            *q = if d <= 0.0 {
                -1.0
            } else if d.is_nan() {
                f32::INFINITY
            } else {
                d * d
            };
        }
        let squared = &squared[..n];
        // The impostor tier's distance, squared as the levels' are (never reached: none).
        let far2 = Vec4::splat(if self.policy.impostor_distance > 0.0 {
            self.policy.impostor_distance * self.policy.impostor_distance
        } else {
            f32::INFINITY
        });
        let (eye_x, eye_z) = (Vec4::splat(view.eye.x), Vec4::splat(view.eye.z));
        // The eye's height above the ground, squared: (eye − (x, 0, z))·itself is
        // ((ex − x)² + ey²) + (ez − z)² in Vec3::dot's order.
        let eye_y2 = Vec4::splat(view.eye.y * view.eye.y);
        // Four agents, one per lane.
        let four = |hot: &mut [Hot; 4], want: &mut [u32; 4]| {
            let lanes = |part: fn(&Hot) -> f32| Vec4::from_array(hot.each_ref().map(part));
            // The first four fields of each, one load apiece, turned into one lane each
            // of x, z, cy and radius: eight shuffles where gathering them took twelve
            // inserts.
            let [h0, h1, h2, h3] = hot.each_ref().map(|h| Vec4::new(h.x, h.z, h.cy, h.radius));
            let Mat4 {
                x_axis: x,
                y_axis: z,
                z_axis: cy,
                w_axis: radius,
            } = Mat4::from_cols(h0, h1, h2, h3).transpose();
            let (dx, dz) = (eye_x - x, eye_z - z);
            let d2 = (dx * dx + eye_y2) + dz * dz;
            let scale = lanes(|h| h.scale);
            let s2 = scale * scale;
            // Each lane's count in a byte of one word: a compare's four-bit mask, spread to
            // the bytes, adds one to the lanes it holds (at most 15 each: no carry).
            let mut levels = 0u32;
            for &q in squared {
                levels += SPREAD[d2.cmpge(Vec4::splat(q) * s2).bitmask() as usize];
            }
            let far = d2.cmpge(far2 * s2).bitmask();
            let visible = if self.policy.culling {
                frustum.intersects4(x, cy, z, radius)
            } else {
                0b1111
            };
            // Hidden and despawned agents are culled by any view.
            let visible = visible & shown_mask(hot);
            let character = hot[0].character;
            if hot.iter().all(|h| h.character == character) {
                // One character (nearly every four: slots are grouped by character): its
                // groups looked up once, the four levels capped in one word. Kept apart from
                // the mixed path below: one path for both, each lane's groups in an array,
                // cost this pass 44.2 M instructions against 33.6 M (callgrind, 2,000 `off`).
                let groups = self.schedule.character_groups(character);
                let top = (groups.len().max(1) as u32 - 1).min(LEVEL_MAX);
                let levels = min_bytes(levels, top * 0x0101_0101);
                let visible = if groups.is_empty() { 0 } else { visible };
                let impostor = self.schedule.impostor_group(character);
                let far = if impostor.is_some() { far } else { 0 };
                for (k, (h, want)) in hot.iter_mut().zip(want).enumerate() {
                    let level = levels >> (8 * k) & 0xff;
                    h.level = level as u8;
                    *want = if visible >> k & 1 == 0 {
                        culled
                    } else if let Some(g) = impostor.filter(|_| far >> k & 1 != 0) {
                        h.level = IMPOSTOR_LEVEL;
                        g
                    } else {
                        groups.start + level
                    };
                }
                return;
            }
            for (k, (h, want)) in hot.iter_mut().zip(want).enumerate() {
                let groups = self.schedule.character_groups(h.character);
                let level = (levels >> (8 * k) & 0xff).min(groups.len().max(1) as u32 - 1);
                h.level = level as u8;
                let impostor = self.schedule.impostor_group(h.character);
                *want = if visible >> k & 1 == 0 || groups.is_empty() {
                    culled
                } else if let Some(g) = impostor.filter(|_| far >> k & 1 != 0) {
                    h.level = IMPOSTOR_LEVEL;
                    g
                } else {
                    groups.start + level
                };
            }
        };
        let run = |hot: &mut [Hot], want: &mut [u32]| {
            let mut hots = hot.chunks_exact_mut(4);
            let mut wants = want.chunks_exact_mut(4);
            for (h, w) in (&mut hots).zip(&mut wants) {
                four(
                    h.try_into().expect("four agents"),
                    w.try_into().expect("four"),
                );
            }
            // The last one to three: their lanes padded with copies of the first, and only
            // the real ones written back.
            let (h, w) = (hots.into_remainder(), wants.into_remainder());
            if let Some(&first) = h.first() {
                let (mut hot4, mut want4) = ([first; 4], [0; 4]);
                hot4[..h.len()].copy_from_slice(h);
                four(&mut hot4, &mut want4);
                h.copy_from_slice(&hot4[..h.len()]);
                w.copy_from_slice(&want4[..w.len()]);
            }
        };
        if hot.len() < self.parallel_min {
            run(hot, want);
        } else {
            // Jobs of whole groups of four.
            let chunk = self.parallel_min.next_multiple_of(4);
            hot.par_chunks_mut(chunk)
                .zip(want.par_chunks_mut(chunk))
                .for_each(|(hot, want)| run(hot, want));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crowd::plaza::rng::Rng;

    /// The sphere as it was worked out at every step before each animation kept its own:
    /// the reference [`agent_sphere`] must match to the bit.
    #[cfg(feature = "bake")]
    fn sphere_as_before(palette: &Palette, agent: &Agent, margin: f32) -> (Vec3, f32) {
        let anims = palette.anims();
        let (mut lo, mut hi) = anims
            .get(agent.anim_a as usize)
            .map_or((Vec3::ZERO, Vec3::ZERO), |a| (a.min, a.max));
        if agent.fade > 0.0
            && let Some(b) = anims.get(agent.anim_b as usize)
        {
            lo = lo.min(b.min);
            hi = hi.max(b.max);
        }
        let reach2 = lo.x.abs().max(hi.x.abs()).powi(2) + lo.z.abs().max(hi.z.abs()).powi(2);
        let half_height = 0.5 * (hi.y - lo.y);
        let s = agent.scale;
        let centre = agent.position + Vec3::Y * (0.5 * (lo.y + hi.y) * s);
        let radius = (reach2 + half_height * half_height).sqrt() * s + margin;
        (centre, radius)
    }

    #[test]
    #[cfg(feature = "bake")]
    fn an_animations_own_sphere_gives_the_agents_to_the_bit() {
        use crate::crowd::palette::PaletteNames;
        use crate::crowd::testing::mannequin_bake;
        let file = mannequin_bake();
        let palette = Palette::new(&file, &PaletteNames::default()).unwrap();
        let n = palette.anims().len() as u32;
        let mut rng = Rng::new(3);
        let mut fading = 0;
        for i in 0..4000u32 {
            let mut a = Agent {
                position: Vec3::new(rng.range(-40.0, 40.0), 0.0, rng.range(-40.0, 40.0)),
                ..Agent::default()
            };
            // Now and then past the last animation: no box.
            a.anim_a = rng.below(n + 1);
            a.anim_b = rng.below(n + 1);
            a.fade = if i % 3 == 0 {
                0.0
            } else {
                rng.range(-0.2, 1.0)
            };
            a.scale = rng.range(0.5, 2.0);
            fading += usize::from(a.fade > 0.0);
            let margin = rng.range(0.0, 0.5);
            let (c, r) = agent_sphere(&palette, &a, margin);
            let (c0, r0) = sphere_as_before(&palette, &a, margin);
            assert_eq!(
                (c.to_array().map(f32::to_bits), r.to_bits()),
                (c0.to_array().map(f32::to_bits), r0.to_bits()),
                "agent {i}"
            );
        }
        assert!(fading > 1000, "{fading} fading agents");
    }

    /// Every pair of bytes below 0x80, in every byte of the word (the others random).
    #[test]
    fn min_bytes_is_the_minimum_of_each_byte() {
        let mut rng = Rng::new(3);
        for a in 0..0x80u32 {
            for b in 0..0x80u32 {
                let k = 8 * rng.below(4);
                let (ra, rb) = (
                    rng.below(1 << 31) & 0x7f7f_7f7f,
                    rng.below(1 << 31) & 0x7f7f_7f7f,
                );
                let x = ra & !(0xff << k) | a << k;
                let y = rb & !(0xff << k) | b << k;
                let want = u32::from_le_bytes(std::array::from_fn(|j| {
                    x.to_le_bytes()[j].min(y.to_le_bytes()[j])
                }));
                assert_eq!(min_bytes(x, y), want, "{x:08x} {y:08x}");
            }
        }
    }

    /// One agent at a time, as the pass was written before it took four per vector: the
    /// reference the four-lane pass must match exactly.
    fn one_by_one(schedule: &Schedule, policy: &LodPolicy, h: &Hot, view: &View) -> (u8, u32) {
        let groups = schedule.character_groups(h.character);
        let d2 = (view.eye - Vec3::new(h.x, 0.0, h.z)).length_squared();
        let s2 = h.scale * h.scale;
        let level = policy
            .distances
            .iter()
            .map(|&d| {
                if d <= 0.0 {
                    -1.0
                } else if d.is_nan() {
                    f32::INFINITY
                } else {
                    d * d
                }
            })
            .filter(|&q| d2 >= q * s2)
            .count() as u32;
        let visible = h.shown == 1
            && (!policy.culling
                || Frustum::from_view_proj(view.view_proj)
                    .intersects_sphere(Vec3::new(h.x, h.cy, h.z), h.radius));
        let level = level.min(groups.len().max(1) as u32 - 1);
        let far = policy.impostor_distance > 0.0
            && d2 >= policy.impostor_distance * policy.impostor_distance * s2;
        match schedule.impostor_group(h.character) {
            _ if !visible || groups.is_empty() => (level as u8, schedule.culled_group()),
            Some(g) if far => (IMPOSTOR_LEVEL, g),
            _ => (level as u8, groups.start + level),
        }
    }

    /// Levels and groups of the four-lane pass are those of one agent at a time: agents on
    /// a level's boundary to the bit and spheres touching a plane, several characters (one
    /// with fewer levels than the policy, one past the schedule's characters), scales that
    /// move the boundaries, counts that leave one to three agents over, on one thread and
    /// in parallel, culling on and off, with and without an impostor tier (for two of the
    /// characters).
    #[test]
    fn four_lanes_assign_as_one_agent_at_a_time() {
        let mut rng = Rng::new(12);
        let mut policy = LodPolicy {
            distances: vec![20.0, 45.0, 0.0, f32::NAN, 90.0],
            rates: vec![1, 2, 4],
            offscreen_rate: 8,
            culling: true,
            live_max: 0,
            live_distance: 0.0,
            impostor_distance: 0.0,
        };
        let mut schedule = Schedule::new();
        schedule.set_impostors(&[true, false, true]);
        let (mut boundary, mut touching, mut culled, mut kept, mut far) = (0, 0, 0, 0, 0);
        for round in 0..60 {
            policy.culling = round % 5 != 4;
            policy.impostor_distance = if round % 3 == 0 { 0.0 } else { 70.0 };
            schedule.rebuild(&[6, 2, 1], &policy, &[0]);
            let eye = Vec3::new(
                rng.range(-40.0, 40.0),
                rng.range(0.5, 30.0),
                rng.range(-40.0, 40.0),
            );
            let target = Vec3::new(rng.range(-20.0, 20.0), 0.0, rng.range(-20.0, 20.0));
            let view = View {
                view_proj: glam::camera::rh::proj::directx::perspective(
                    rng.range(30.0, 90.0).to_radians(),
                    rng.range(0.8, 2.2),
                    0.1,
                    rng.range(50.0, 300.0),
                ) * glam::camera::rh::view::look_at_mat4(
                    eye,
                    target + Vec3::X * 1e-3,
                    Vec3::Y,
                ),
                eye,
            };
            let frustum = Frustum::from_view_proj(view.view_proj);
            let count = 4096 + round % 4;
            // Odd rounds: characters in runs of seven, as slots are grouped by character
            // (fours of one character, and fours across a change); even rounds: any.
            let runs = round % 2 == 1;
            let hot: Vec<Hot> = (0..count)
                .map(|i| {
                    let mut h = Hot {
                        x: rng.range(-120.0, 120.0),
                        z: rng.range(-120.0, 120.0),
                        cy: rng.range(0.5, 1.5),
                        radius: rng.range(0.3, 2.0),
                        scale: rng.range(0.7, 1.4),
                        character: if runs {
                            (i / 7 % 4) as u32
                        } else {
                            rng.below(4)
                        },
                        level: 9,
                        // Now and then hidden (or despawned): culled by any view.
                        shown: u8::from(rng.below(16) != 0),
                        blend: 0.0,
                    };
                    match rng.below(4) {
                        // On a level's boundary, d = D s within an ulp or two, so that
                        // the compare falls either way on the last bit.
                        0 => {
                            let d2 = (eye - Vec3::new(h.x, 0.0, h.z)).length_squared();
                            let d = [20.0f32, 45.0, 70.0, 90.0][rng.below(4) as usize];
                            h.scale = (d2 / (d * d)).sqrt();
                            boundary += 1;
                        }
                        // Touching a plane from outside: the radius is the distance.
                        1 => {
                            let i = rng.below(6) as usize;
                            let d = frustum.distance(i, Vec3::new(h.x, h.cy, h.z));
                            if d < 0.0 {
                                h.radius = -d;
                                touching += 1;
                            }
                        }
                        _ => {}
                    }
                    h
                })
                .collect();
            for parallel_min in [usize::MAX, 64] {
                let assigner = Assigner {
                    policy: &policy,
                    schedule: &schedule,
                    parallel_min,
                };
                let (mut got, mut want) = (hot.clone(), vec![0; count]);
                assigner.assign(&mut got, &mut want, Some(&view));
                for (i, h) in hot.iter().enumerate() {
                    let (level, group) = one_by_one(&schedule, &policy, h, &view);
                    assert_eq!(
                        (got[i].level, want[i]),
                        (level, group),
                        "round {round}, agent {i} of {count}: {h:?}"
                    );
                    assert_eq!(
                        Hot {
                            level: h.level,
                            ..got[i]
                        },
                        *h,
                        "only the level moves"
                    );
                    if level == IMPOSTOR_LEVEL {
                        far += 1;
                    }
                    if group == schedule.culled_group() {
                        culled += 1;
                    } else {
                        kept += 1;
                    }
                }
            }
        }
        assert!(
            boundary > 10_000
                && touching > 10_000
                && culled > 100_000
                && kept > 20_000
                && far > 2_000,
            "{boundary} on a boundary, {touching} touching, {culled} culled, {kept} kept, \
             {far} impostors"
        );
    }
}
