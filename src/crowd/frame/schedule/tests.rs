//! Tests of the slot schedule: layout, moves, balance, dirty runs, impostor groups.
use super::*;
use crate::crowd::plaza::rng::Rng;
use crate::crowd::testing::whole;

fn balanced() -> LodPolicy {
    LodPolicy {
        distances: vec![20.0, 45.0],
        rates: vec![1, 2, 4],
        offscreen_rate: 8,
        culling: true,
        live_max: 0,
        live_distance: 0.0,
        impostor_distance: 0.0,
    }
}

/// Every invariant of a schedule; `payload` is what the swap callback moved along.
fn check(s: &Schedule, payload: &[u32]) {
    let n = s.len();
    assert_eq!(s.agent_slot().len(), n);
    for (slot, &a) in s.slot_agent().iter().enumerate() {
        assert_eq!(
            s.agent_slot()[a as usize],
            slot as u32,
            "inverse permutation"
        );
        assert_eq!(
            payload[slot], a,
            "the swaps reported moved the payload along"
        );
    }
    let bs = s.bucket_start();
    assert_eq!((bs[0], *bs.last().unwrap()), (0, n as u32));
    assert!(bs.windows(2).all(|w| w[0] <= w[1]));
    for a in 0..n as u32 {
        let b = s.agent_bucket()[a as usize] as usize;
        let slot = s.agent_slot()[a as usize];
        assert!(
            (bs[b]..bs[b + 1]).contains(&slot),
            "agent {a} in bucket {b}"
        );
    }
    for g in 0..s.groups() {
        let sizes: Vec<u32> = s
            .group_buckets(g)
            .map(|b| bs[b as usize + 1] - bs[b as usize])
            .collect();
        let (min, max) = (sizes.iter().min().unwrap(), sizes.iter().max().unwrap());
        assert!(max - min <= 1, "group {g} unbalanced: {sizes:?}");
    }
    let mut last = 0;
    for d in s.draws() {
        let g = match d.impostor {
            true => s.impostor_group(d.character).expect("an impostor group"),
            false if d.live => s.live_group(d.character).expect("a live group"),
            false => s.group_of(d.character, d.level),
        };
        assert_eq!(d.slots, s.group_slots(g));
        assert!(!d.slots.is_empty() && d.slots.start >= last);
        last = d.slots.end;
    }
}

#[test]
fn rebuild_places_agents_in_balanced_groups() {
    let mut s = Schedule::new();
    let mut rng = Rng::new(1);
    let groups: Vec<u32> = (0..1000).map(|_| rng.below(8)).collect();
    s.rebuild(&[3, 2], &balanced(), &groups);
    // Character 0: 3 levels, character 1: 2, then culled.
    assert_eq!(s.groups(), 6);
    assert_eq!(
        (0..6).map(|g| s.group_rate(g)).collect::<Vec<_>>(),
        [1, 2, 4, 1, 2, 8]
    );
    assert_eq!(
        s.group_of(1, 5),
        4,
        "levels past a character's last clamp to it"
    );
    let payload = s.slot_agent().to_vec();
    check(&s, &payload);
    for a in 0..1000 {
        assert_eq!(s.group_of_agent(a), groups[a as usize].min(5));
    }
    assert_eq!(s.dirty(), whole(1000));
}

#[test]
fn random_moves_keep_every_invariant_and_mark_what_changed() {
    let mut rng = Rng::new(2);
    let policy = balanced();
    for round in 0..20 {
        let n = 1 + rng.below(600);
        let groups: Vec<u32> = (0..n).map(|_| rng.below(5)).collect();
        let mut s = Schedule::new();
        s.rebuild(&[3, 1], &policy, &groups);
        s.clear_dirty();
        s.refresh();
        let mut payload = s.slot_agent().to_vec();
        let before = payload.clone();
        let buckets = s.group_buckets(s.culled_group()).end;
        let moves = rng.below(200);
        for k in 0..moves {
            let a = rng.below(n);
            let frame = u64::from(rng.below(100));
            let mut swap = |x: u32, y: u32| payload.swap(x as usize, y as usize);
            if k % 2 == 0 {
                s.move_to_bucket(a, rng.below(buckets), &mut swap);
            } else {
                s.move_to_group(a, rng.below(s.groups()), frame, &mut swap);
            }
        }
        s.rebalance(&mut |x, y| payload.swap(x as usize, y as usize));
        s.refresh();
        check(&s, &payload);
        let dirty = s.dirty();
        assert!(dirty.windows(2).all(|w| w[1].start >= w[0].end + DIRTY_GAP));
        for slot in 0..n {
            if payload[slot as usize] != before[slot as usize] {
                assert!(
                    dirty.iter().any(|r| r.contains(&slot)),
                    "round {round}: slot {slot} changed but is not dirty: {dirty:?}"
                );
            }
        }
    }
}

#[test]
fn moving_costs_one_swap_per_bucket_crossed() {
    let mut s = Schedule::new();
    s.rebuild(&[3], &balanced(), &[0, 1, 1, 2, 2, 2, 2, 3, 3]);
    let mut swaps = 0;
    let a = s.slot_agent()[0];
    s.move_to_bucket(a, 10, &mut |_, _| swaps += 1);
    // From bucket 0 to bucket 10, some swaps are with itself (the last of a bucket).
    assert!(swaps <= 10, "{swaps} swaps");
    assert_eq!(s.agent_bucket()[a as usize], 10);
    s.refresh();
    let bs = s.bucket_start();
    assert!((bs[10]..bs[11]).contains(&s.agent_slot()[a as usize]));
}

#[test]
fn entering_takes_the_emptiest_phase_due_soonest() {
    let mut s = Schedule::new();
    // Group 2 (LOD 2, rate 4) gets 4 agents: one per phase.
    s.rebuild(&[3], &balanced(), &[2, 2, 2, 2, 0]);
    let g = s.group_of(0, 2);
    let first = s.group_buckets(g).start;
    // All phases hold one: ties go to the one due soonest.
    assert_eq!(s.entry_bucket(g, 6), first + 2);
    s.move_to_group(4, g, 6, &mut |_, _| {});
    assert_eq!(s.agent_bucket()[4], first + 2);
    // Now phase 2 holds two: the next due after it, phase 3.
    assert_eq!(s.entry_bucket(g, 6), first + 3);
}

/// The core promise: with a static population, an agent at rate k is due exactly once in
/// every k consecutive frames, and each group updates the same number of agents every
/// frame, give or take one.
#[test]
fn static_population_is_due_once_per_window_and_evenly() {
    let mut rng = Rng::new(3);
    let policy = balanced();
    let n = 997;
    let groups: Vec<u32> = (0..n).map(|_| rng.below(4)).collect();
    let mut s = Schedule::new();
    s.rebuild(&[3], &policy, &groups);
    // Scramble with moves, then rebalance, as a running crowd would.
    for k in 0..300 {
        let a = rng.below(n);
        s.move_to_group(a, rng.below(s.groups()), k, &mut |_, _| {});
    }
    s.rebalance(&mut |_, _| {});
    s.refresh();
    let frames = 64u64;
    let mut due_at: Vec<Vec<u64>> = vec![Vec::new(); n as usize];
    let mut per_group: Vec<Vec<u32>> = vec![Vec::new(); s.groups() as usize];
    for f in 0..frames {
        let mut count = vec![0u32; s.groups() as usize];
        for r in s.due(f) {
            let g = s.group_of_agent(s.slot_agent()[r.start as usize]);
            for slot in r {
                let a = s.slot_agent()[slot as usize];
                assert_eq!(s.group_of_agent(a), g, "a due run stays in one group");
                due_at[a as usize].push(f);
                count[g as usize] += 1;
            }
        }
        for g in 0..s.groups() as usize {
            per_group[g].push(count[g]);
        }
    }
    for a in 0..n {
        let k = u64::from(s.group_rate(s.group_of_agent(a)));
        let frames_due = &due_at[a as usize];
        for w in 0..=frames - k {
            let inside = frames_due.iter().filter(|&&f| f >= w && f < w + k).count();
            assert_eq!(
                inside,
                1,
                "agent {a} (rate {k}) due {inside} times in frames {w}..{}",
                w + k
            );
        }
    }
    for (g, counts) in per_group.iter().enumerate() {
        let (min, max) = (counts.iter().min().unwrap(), counts.iter().max().unwrap());
        assert!(max - min <= 1, "group {g}: due per frame {min}..{max}");
    }
}

/// An impostor group follows a character's LOD groups (before its live group), only for
/// characters with impostors and a policy with the tier, at the rate after the last
/// level's, and draws at the character's last mesh level with `impostor` set.
#[test]
fn impostor_groups_follow_the_lod_groups_of_their_characters() {
    let mut s = Schedule::new();
    let policy = LodPolicy {
        impostor_distance: 70.0,
        live_max: 10,
        live_distance: 5.0,
        ..balanced()
    };
    s.set_impostors(&[true, false]);
    // Character 0: 3 levels, impostors, live; character 1: 2 levels, live; culled.
    let groups: Vec<u32> = (0..700).map(|a| a % 8).collect();
    s.rebuild(&[3, 2], &policy, &groups);
    assert_eq!(s.groups(), 9);
    assert_eq!(s.character_groups(0), 0..3);
    assert_eq!((s.impostor_group(0), s.live_group(0)), (Some(3), Some(4)));
    assert_eq!((s.impostor_group(1), s.live_group(1)), (None, Some(7)));
    assert_eq!(
        (0..9).map(|g| s.group_rate(g)).collect::<Vec<_>>(),
        [1, 2, 4, 4, 1, 1, 2, 1, 8]
    );
    let imp: Vec<_> = s.draws().iter().filter(|d| d.impostor).collect();
    assert_eq!(imp.len(), 1);
    assert_eq!((imp[0].character, imp[0].level, imp[0].live), (0, 2, false));
    assert_eq!(imp[0].slots, s.group_slots(3));
    let payload = s.slot_agent().to_vec();
    check(&s, &payload);
    // Without the tier in the policy, no character gets the group.
    s.rebuild(&[3, 2], &balanced(), &groups);
    assert_eq!((s.impostor_group(0), s.groups()), (None, 6));
    assert!(s.draws().iter().all(|d| !d.impostor));
}

#[test]
fn dirty_runs_merge_across_small_gaps() {
    let mut s = Schedule::new();
    s.rebuild(&[1], &LodPolicy::default(), &vec![0; 300]);
    s.clear_dirty();
    s.mark_dirty(3..5);
    s.mark_dirty(10..12);
    s.mark_dirty(40..41);
    s.mark_dirty(56..130);
    s.mark_dirty(146..150);
    s.mark_dirty(299..300);
    s.refresh();
    // Gaps of 5 and 15 clean slots merge; 16 and more do not.
    assert_eq!(s.dirty(), [3..12, 40..130, 146..150, 299..300]);
    s.clear_dirty();
    s.refresh();
    assert!(s.dirty().is_empty());
}
