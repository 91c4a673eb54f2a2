//! The slot schedule: where each agent's instance record lives in the one instance buffer,
//! arranged so that drawing and updating are contiguous runs.
//!
//! Slots are split into buckets: for each character `c`, each of its LOD levels `l`, and each
//! phase `p` in `0..rate(l)`, bucket `(c, l, p)`, in that lexicographic order; then the culled
//! buckets (phase `0..offscreen_rate`) last. A *group* is all phases of one `(c, l)` (or the
//! culled agents): one contiguous slot range, so one draw call; the agents due at frame `f`
//! are those in phase `f % rate` of each group: one contiguous run per group.
//!
//! Moving an agent from bucket `i` to bucket `j` costs `|i − j|` swaps: it is swapped with the
//! boundary element of its bucket and the boundary is shifted past it, bucket by bucket. Each
//! swap is reported to the caller (who moves the records along) and both slots are marked
//! dirty. An agent entering a group takes its phase with the fewest members (ties: the one due
//! soonest); [`Schedule::rebalance`] then keeps the phases of every group within one member
//! of each other, so each frame updates about the same number of agents.

use std::ops::Range;

use super::lod::LodPolicy;

/// Dirty runs of slots separated by fewer clean slots than this are merged into one range:
/// re-uploading up to 15 unchanged records (780 bytes) is cheaper than another upload call.
pub const DIRTY_GAP: u32 = 16;

/// One draw call: the slots of the agents of `character` drawn at LOD `level`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DrawRange {
    /// Character index in the bake.
    pub character: u32,
    /// LOD level (a mesh level the bake has; 0 for the live tier).
    pub level: u32,
    /// The slots, non-empty.
    pub slots: Range<u32>,
    /// Whether these are the character's live-tier agents (see [`LodPolicy::live_max`]):
    /// drawn at LOD 0 from joint matrices evaluated on the CPU this frame on the hybrid
    /// path, from the bake like the rest on every other path.
    pub live: bool,
    /// Whether these are the character's impostor-tier agents (see
    /// [`LodPolicy::impostor_distance`]): drawn as animated impostors where the renderer can,
    /// else at `level`, which is then the character's last mesh level.
    pub impostor: bool,
}

/// Slots, buckets and groups of a crowd's agents (see the module docs).
#[derive(Clone, Debug, Default)]
pub struct Schedule {
    /// Per character: its first group, and how many LOD groups it has (its live group, if
    /// any, follows them).
    char_group: Vec<u32>,
    char_lods: Vec<u32>,
    /// Per character: whether it gets an impostor group where the policy has the tier.
    impostors: Vec<bool>,
    /// Per visible group: its character and level, and whether it is a live or an impostor
    /// tier.
    group_char: Vec<u32>,
    group_level: Vec<u32>,
    group_live: Vec<bool>,
    group_impostor: Vec<bool>,
    /// Per group (visible groups, then the culled group): update rate.
    group_rate: Vec<u32>,
    /// Per group, its first bucket; one more entry: the bucket count.
    group_bucket: Vec<u32>,
    /// Per bucket: its group.
    bucket_group: Vec<u32>,
    /// Per bucket, its first slot; one more entry: the slot count.
    bucket_start: Vec<u32>,
    slot_agent: Vec<u32>,
    agent_slot: Vec<u32>,
    agent_bucket: Vec<u32>,
    /// One bit per slot whose record changed since the last clear.
    dirty_bits: Vec<u64>,
    dirty_ranges: Vec<Range<u32>>,
    draws: Vec<DrawRange>,
    /// Whether `draws` and `dirty_ranges` are out of date (set by every change).
    stale: bool,
}

impl Schedule {
    /// An empty schedule: no characters, no agents.
    pub fn new() -> Self {
        Self::default()
    }

    /// Which characters (by index; those past the end: none) have impostors, for the next
    /// [`Schedule::rebuild`].
    pub fn set_impostors(&mut self, impostors: &[bool]) {
        self.impostors.clear();
        self.impostors.extend_from_slice(impostors);
    }

    /// Lays out the groups for characters with `levels` LOD levels each (at least 1 is used)
    /// under `policy` (a character gets `min(levels, policy.levels())` LOD groups, then an
    /// impostor group where the policy has the tier and [`Schedule::set_impostors`] said the
    /// character has impostors, then a live group updated every frame where the policy has a
    /// live tier), and places
    /// agent `a` in group `groups[a]` (see [`Schedule::group_of`], [`Schedule::culled_group`];
    /// an index past the groups means culled). Within a group, agents in index order take the
    /// phases in turn, so every group starts balanced. Every slot is marked dirty.
    pub fn rebuild(&mut self, levels: &[u32], policy: &LodPolicy, groups: &[u32]) {
        self.char_group.clear();
        self.char_lods.clear();
        self.group_char.clear();
        self.group_level.clear();
        self.group_live.clear();
        self.group_impostor.clear();
        self.group_rate.clear();
        for (c, &n) in levels.iter().enumerate() {
            self.char_group.push(self.group_char.len() as u32);
            let lods = n.clamp(1, policy.levels());
            self.char_lods.push(lods);
            let mut group = |level: u32, live: bool, impostor: bool, rate: u32| {
                self.group_char.push(c as u32);
                self.group_level.push(level);
                self.group_live.push(live);
                self.group_impostor.push(impostor);
                self.group_rate.push(rate);
            };
            for l in 0..lods {
                group(l, false, false, policy.rate_of(l));
            }
            if policy.impostor_distance > 0.0 && self.impostors.get(c) == Some(&true) {
                group(lods - 1, false, true, policy.rate_of(lods));
            }
            if policy.live_max > 0 {
                group(0, true, false, 1);
            }
        }
        self.group_rate.push(policy.offscreen());
        self.group_bucket.clear();
        self.bucket_group.clear();
        let mut buckets = 0;
        for (g, &rate) in self.group_rate.iter().enumerate() {
            self.group_bucket.push(buckets);
            buckets += rate;
            self.bucket_group
                .extend(std::iter::repeat_n(g as u32, rate as usize));
        }
        self.group_bucket.push(buckets);

        // Counting sort: members per group, then per bucket (phases round-robin).
        let culled = self.culled_group();
        let group = |g: u32| g.min(culled);
        let mut members = vec![0u32; self.group_rate.len()];
        for &g in groups {
            members[group(g) as usize] += 1;
        }
        self.bucket_start.clear();
        let mut start = 0;
        for (g, &rate) in self.group_rate.iter().enumerate() {
            let n = members[g];
            for p in 0..rate {
                self.bucket_start.push(start);
                start += n / rate + u32::from(p < n % rate);
            }
        }
        self.bucket_start.push(start);
        let mut fill = self.bucket_start.clone();
        let mut seen = vec![0u32; self.group_rate.len()];
        self.slot_agent.clear();
        self.slot_agent.resize(groups.len(), 0);
        self.agent_slot.clear();
        self.agent_bucket.clear();
        for (a, &g) in groups.iter().enumerate() {
            let g = group(g) as usize;
            let b = self.group_bucket[g] + seen[g] % self.group_rate[g];
            seen[g] += 1;
            let slot = fill[b as usize];
            fill[b as usize] += 1;
            self.slot_agent[slot as usize] = a as u32;
            self.agent_slot.push(slot);
            self.agent_bucket.push(b);
        }
        self.dirty_bits.clear();
        self.dirty_bits.resize(groups.len().div_ceil(64), 0);
        self.mark_all_dirty();
        self.refresh();
    }

    /// Adds agent `len()` in a new last slot, in the culled group's last bucket (move it
    /// where it belongs with [`Schedule::move_to_group`]); the slot is marked dirty.
    /// Amortised O(1).
    pub fn push_agent(&mut self) -> u32 {
        let slot = self.slot_agent.len() as u32;
        let last = self.bucket_start.len() - 2;
        self.slot_agent.push(slot);
        self.agent_slot.push(slot);
        self.agent_bucket.push(last as u32);
        if let Some(end) = self.bucket_start.last_mut() {
            *end += 1;
        }
        self.dirty_bits.resize((slot as usize + 1).div_ceil(64), 0);
        self.mark(slot);
        self.stale = true;
        slot
    }

    /// Number of agents (and slots).
    pub fn len(&self) -> usize {
        self.slot_agent.len()
    }

    /// Whether there are no agents.
    pub fn is_empty(&self) -> bool {
        self.slot_agent.is_empty()
    }

    /// The group of `character` at LOD `level` (a level past the character's last group is
    /// clamped to it). Characters past the layout go to the culled group.
    pub fn group_of(&self, character: u32, level: u32) -> u32 {
        let groups = self.character_groups(character);
        if groups.is_empty() {
            return self.culled_group();
        }
        (groups.start + level).min(groups.end - 1)
    }

    /// The LOD groups of `character`: LOD 0 first (empty past the layout's characters). Its
    /// live group is not among them ([`Schedule::live_group`]).
    #[inline]
    pub fn character_groups(&self, character: u32) -> Range<u32> {
        let c = character as usize;
        match (self.char_group.get(c), self.char_lods.get(c)) {
            (Some(&first), Some(&lods)) => first..first + lods,
            _ => 0..0,
        }
    }

    /// The impostor group of `character`, where the policy has the tier and the character
    /// impostors.
    #[inline]
    pub fn impostor_group(&self, character: u32) -> Option<u32> {
        let g = self.character_groups(character).end;
        self.group_impostor.get(g as usize).filter(|&&i| i)?;
        (self.group_char.get(g as usize) == Some(&character)).then_some(g)
    }

    /// The live group of `character`, where the policy has a live tier.
    #[inline]
    pub fn live_group(&self, character: u32) -> Option<u32> {
        let end = self.character_groups(character).end;
        let g = end + u32::from(self.impostor_group(character).is_some());
        self.group_live.get(g as usize).filter(|&&live| live)?;
        (self.group_char.get(g as usize) == Some(&character)).then_some(g)
    }

    /// Whether group `g` is a live group.
    #[inline]
    pub fn is_live_group(&self, g: u32) -> bool {
        self.group_live.get(g as usize).copied().unwrap_or(false)
    }

    /// The group of culled agents (after every visible group).
    pub fn culled_group(&self) -> u32 {
        self.group_char.len() as u32
    }

    /// Number of groups, the culled group included.
    pub fn groups(&self) -> u32 {
        self.group_rate.len() as u32
    }

    /// Update rate of group `g` (every n-th frame).
    pub fn group_rate(&self, g: u32) -> u32 {
        self.group_rate[g as usize]
    }

    /// `(character, level)` of visible group `g`; `None` for the culled group.
    pub fn group_key(&self, g: u32) -> Option<(u32, u32)> {
        Some((
            *self.group_char.get(g as usize)?,
            *self.group_level.get(g as usize)?,
        ))
    }

    /// The slots of group `g`.
    pub fn group_slots(&self, g: u32) -> Range<u32> {
        let b = &self.group_bucket;
        self.bucket_start[b[g as usize] as usize]..self.bucket_start[b[g as usize + 1] as usize]
    }

    /// The buckets of group `g`: phase `p` is bucket `start + p`.
    pub fn group_buckets(&self, g: u32) -> Range<u32> {
        self.group_bucket[g as usize]..self.group_bucket[g as usize + 1]
    }

    /// The group agent `a` is in.
    pub fn group_of_agent(&self, a: u32) -> u32 {
        self.bucket_group[self.agent_bucket[a as usize] as usize]
    }

    /// Per bucket, its first slot; one more entry (the slot count) at the end.
    pub fn bucket_start(&self) -> &[u32] {
        &self.bucket_start
    }

    /// The agent in each slot.
    pub fn slot_agent(&self) -> &[u32] {
        &self.slot_agent
    }

    /// The slot of each agent (the inverse of [`Schedule::slot_agent`]).
    pub fn agent_slot(&self) -> &[u32] {
        &self.agent_slot
    }

    /// The bucket of each agent.
    pub fn agent_bucket(&self) -> &[u32] {
        &self.agent_bucket
    }

    fn swap_slots(&mut self, s: u32, t: u32, swap: &mut impl FnMut(u32, u32)) {
        if s == t {
            return;
        }
        let (a, b) = (self.slot_agent[s as usize], self.slot_agent[t as usize]);
        self.slot_agent.swap(s as usize, t as usize);
        self.agent_slot[a as usize] = t;
        self.agent_slot[b as usize] = s;
        self.mark(s);
        self.mark(t);
        swap(s, t);
    }

    /// Moves agent `a` to bucket `to`, reporting each slot swap to `swap(s, t)` (records must
    /// be swapped alike). Costs `|from − to|` swaps.
    pub fn move_to_bucket(&mut self, a: u32, to: u32, swap: &mut impl FnMut(u32, u32)) {
        let mut b = self.agent_bucket[a as usize];
        while b < to {
            // To the end of bucket b, then that end moves down past it: it is first of b + 1.
            let last = self.bucket_start[b as usize + 1] - 1;
            self.swap_slots(self.agent_slot[a as usize], last, swap);
            self.bucket_start[b as usize + 1] -= 1;
            b += 1;
        }
        while b > to {
            // To the start of bucket b, then that start moves up past it: it is last of b − 1.
            let first = self.bucket_start[b as usize];
            self.swap_slots(self.agent_slot[a as usize], first, swap);
            self.bucket_start[b as usize] += 1;
            b -= 1;
        }
        self.agent_bucket[a as usize] = to;
        self.stale = true;
    }

    /// The phase (bucket) of group `g` an agent entering it at frame `frame` takes: the one
    /// with the fewest members; of those, the one due soonest (this frame's first).
    pub fn entry_bucket(&self, g: u32, frame: u64) -> u32 {
        let buckets = self.group_buckets(g);
        let rate = buckets.len() as u64;
        let now = (frame % rate) as u32;
        let size = |b: u32| self.bucket_start[b as usize + 1] - self.bucket_start[b as usize];
        (0..rate as u32)
            .map(|k| buckets.start + (now + k) % rate as u32)
            .min_by_key(|&b| size(b))
            .unwrap_or(buckets.start)
    }

    /// Moves agent `a` into group `g` at frame `frame` (nothing if it is there already),
    /// taking [`Schedule::entry_bucket`].
    pub fn move_to_group(&mut self, a: u32, g: u32, frame: u64, swap: &mut impl FnMut(u32, u32)) {
        if self.group_of_agent(a) == g {
            return;
        }
        let to = self.entry_bucket(g, frame);
        self.move_to_bucket(a, to, swap);
    }

    /// Evens out the phases of every group: while the largest has two members more than the
    /// smallest, moves its boundary agent nearest the smallest there.
    pub fn rebalance(&mut self, swap: &mut impl FnMut(u32, u32)) {
        for g in 0..self.groups() {
            let buckets = self.group_buckets(g);
            if buckets.len() < 2 {
                continue;
            }
            loop {
                let size =
                    |b: u32| self.bucket_start[b as usize + 1] - self.bucket_start[b as usize];
                let (mut big, mut small) = (buckets.start, buckets.start);
                for b in buckets.clone() {
                    if size(b) > size(big) {
                        big = b;
                    }
                    if size(b) < size(small) {
                        small = b;
                    }
                }
                if size(big) - size(small) <= 1 {
                    break;
                }
                // The agent at the edge of `big` facing `small`: its first swap is with itself.
                let slot = if small > big {
                    self.bucket_start[big as usize + 1] - 1
                } else {
                    self.bucket_start[big as usize]
                };
                let a = self.slot_agent[slot as usize];
                self.move_to_bucket(a, small, swap);
            }
        }
    }

    /// Slot runs due at frame `frame`: per group (in slot order), the phase `frame % rate`.
    /// Empty runs are left out.
    pub fn due(&self, frame: u64) -> impl Iterator<Item = Range<u32>> + '_ {
        (0..self.groups()).filter_map(move |g| {
            let first = self.group_bucket[g as usize];
            let b = (first + (frame % u64::from(self.group_rate[g as usize])) as u32) as usize;
            let r = self.bucket_start[b]..self.bucket_start[b + 1];
            (!r.is_empty()).then_some(r)
        })
    }

    #[inline]
    fn mark(&mut self, s: u32) {
        self.dirty_bits[(s / 64) as usize] |= 1 << (s % 64);
    }

    /// Marks the records of `slots` changed.
    pub fn mark_dirty(&mut self, slots: Range<u32>) {
        let end = slots.end.min(self.len() as u32);
        let mut s = slots.start;
        while s < end {
            let (w, bit) = ((s / 64) as usize, s % 64);
            let n = (64 - bit).min(end - s);
            let mask = if n == 64 {
                !0
            } else {
                ((1u64 << n) - 1) << bit
            };
            self.dirty_bits[w] |= mask;
            s += n;
        }
        self.stale = true;
    }

    /// Marks every record changed.
    pub fn mark_all_dirty(&mut self) {
        self.mark_dirty(0..self.len() as u32);
    }

    /// Forgets the changes (after the renderer uploaded them).
    pub fn clear_dirty(&mut self) {
        self.dirty_bits.fill(0);
        self.dirty_ranges.clear();
    }

    /// Brings [`Schedule::draws`] and [`Schedule::dirty`] up to date after moves and marks.
    /// Allocates nothing once the lists have grown to their usual size.
    pub fn refresh(&mut self) {
        self.draws.clear();
        for g in 0..self.culled_group() {
            let slots = self.group_slots(g);
            if !slots.is_empty() {
                self.draws.push(DrawRange {
                    character: self.group_char[g as usize],
                    level: self.group_level[g as usize],
                    slots,
                    live: self.group_live[g as usize],
                    impostor: self.group_impostor[g as usize],
                });
            }
        }
        self.dirty_ranges.clear();
        let n = self.len() as u32;
        let bits = &self.dirty_bits;
        // The first slot at or after `from` whose bit is `set`, or `n`.
        let next = |from: u32, set: bool| -> u32 {
            let mut w = (from / 64) as usize;
            if w >= bits.len() {
                return n;
            }
            let flip = if set { 0 } else { !0 };
            let mut word = (bits[w] ^ flip) & (!0u64 << (from % 64));
            while word == 0 {
                w += 1;
                if w >= bits.len() {
                    return n;
                }
                word = bits[w] ^ flip;
            }
            (w as u32 * 64 + word.trailing_zeros()).min(n)
        };
        let mut s = 0;
        loop {
            let start = next(s, true);
            if start >= n {
                break;
            }
            let end = next(start, false);
            match self.dirty_ranges.last_mut() {
                Some(last) if start - last.end < DIRTY_GAP => last.end = end,
                _ => self.dirty_ranges.push(start..end),
            }
            s = end;
        }
        self.stale = false;
    }

    /// The draw calls: visible, non-empty groups, in slot order. Up to date as of the last
    /// [`Schedule::refresh`] (or rebuild).
    pub fn draws(&self) -> &[DrawRange] {
        debug_assert!(!self.stale, "Schedule::refresh after moves, before draws");
        &self.draws
    }

    /// Slot ranges whose records changed since the last [`Schedule::clear_dirty`], runs
    /// closer than [`DIRTY_GAP`] merged, ascending. Up to date as of the last
    /// [`Schedule::refresh`].
    pub fn dirty(&self) -> &[Range<u32>] {
        debug_assert!(!self.stale, "Schedule::refresh after marks, before dirty");
        &self.dirty_ranges
    }

    /// Whether slot `s`'s record is marked changed.
    pub fn is_dirty(&self, s: u32) -> bool {
        self.dirty_bits
            .get((s / 64) as usize)
            .is_some_and(|w| w & (1 << (s % 64)) != 0)
    }
}

#[cfg(test)]
mod tests;
