//! The clocks a blend tree's event markers run on: how far each node that reports events
//! moves, in phase, in one step of `dt` seconds. [`BlendTree::advance`] steps its nodes with
//! [`Clock::step`], and [`BlendTree::event_clocks`] hands the same clocks out, so that a
//! caller can time one marker's crossings (the baker, finding when each event of a state
//! fires) without replaying the whole tree for each of them.

use super::{BlendTree, Node, NodeId};
use crate::anim::clip::Clip;
use crate::anim::events::EventTrack;

/// A finite phase step of `x` cycles: a step of more cycles than an f32 holds (a huge `dt`
/// on a short clip) would otherwise make the phase `fract(inf)`, NaN, which no sampling can
/// use. Steps that large are whole numbers of cycles, so the phase stays where it is.
fn finite(x: f32) -> f32 {
    if x.is_finite() { x } else { f32::MAX }
}

/// How a node's phase step follows the step's `dt`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Clock {
    /// One cycle every this many seconds (the root's, or a layered subtree's, cycle); 0 or
    /// less for a node without a cycle (a single pose), which never moves.
    Cycle(f32),
    /// A clip of `duration` seconds played at `speed` times its own rate (an additive node's
    /// clip, on its own clock).
    Rate {
        /// Multiple of the clip's own rate, > 0.
        speed: f32,
        /// The clip's length, seconds.
        duration: f32,
    },
}

impl Clock {
    /// The phase step, in cycles (>= 0, finite), of a step of `dt` seconds (finite, >= 0).
    #[inline]
    pub fn step(self, dt: f32) -> f32 {
        match self {
            Self::Cycle(c) if c > 0.0 => finite(dt / c),
            Self::Rate { speed, duration } if duration > 0.0 => finite(dt * speed / duration),
            _ => 0.0,
        }
    }
}

/// A node that reports its clip's markers, with the clock it plays them on, as a fresh
/// state of its tree (every phase 0) steps under fixed parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EventClock {
    /// The node (a clip or additive node).
    pub node: NodeId,
    /// The clip whose markers it reports.
    pub clip: usize,
    /// The clip's length, seconds.
    pub duration: f32,
    /// How its phase follows `dt`.
    pub clock: Clock,
    /// Whether that clock wraps (else it stops at the clip's end).
    pub looping: bool,
}

impl EventClock {
    /// How often marker `index` of `track` (this clip's markers) fires in a first step of
    /// `dt` seconds: what [`BlendTree::advance`] reports for it from a fresh state, in
    /// constant time.
    pub fn crossings(&self, track: &EventTrack, index: usize, dt: f32) -> u32 {
        track.crossings_of(index, 0.0, self.clock.step(dt), self.duration, self.looping)
    }
}

impl BlendTree {
    /// The nodes that report event markers with non-zero weight under `params` (clips in
    /// `clips`, as for [`BlendTree::advance`]), in the order `advance` reports them, each with
    /// its clock: a first step of `dt` seconds from [`BlendTree::new_state`] reports marker
    /// `i` of such a node [`EventClock::crossings`] times.
    pub fn event_clocks(&self, clips: &[Clip], params: &[f32]) -> Vec<EventClock> {
        let mut state = self.new_state();
        self.weights(&mut state, params);
        self.cycles(clips, &mut state, params);
        let mut clock = vec![Clock::Cycle(0.0); self.nodes.len()];
        clock[self.root] = Clock::Cycle(state.cycle[self.root]);
        let mut out = Vec::new();
        // Top-down, as `advance` steps the nodes: children take their parent's clock.
        for &node in self.order.iter().rev() {
            let c = clock[node];
            match &self.nodes[node] {
                Node::Clip { clip, .. } => {
                    if state.weight[node] > 0.0 {
                        out.push(EventClock {
                            node,
                            clip: *clip,
                            duration: clips[*clip].duration(),
                            clock: c,
                            looping: self.clock_looping[node],
                        });
                    }
                }
                Node::Blend1D { children, .. } => {
                    for &child in children {
                        clock[child] = c;
                    }
                }
                Node::Layer { base, over, .. } => {
                    clock[*base] = c;
                    clock[*over] = Clock::Cycle(state.cycle[*over]);
                }
                Node::Additive {
                    base,
                    clip,
                    speed,
                    looping,
                    weight,
                    ..
                } => {
                    clock[*base] = c;
                    let duration = clips[*clip].duration();
                    if state.weight[node] * weight.get(params) > 0.0 {
                        out.push(EventClock {
                            node,
                            clip: *clip,
                            duration,
                            clock: Clock::Rate {
                                speed: *speed,
                                duration,
                            },
                            looping: *looping,
                        });
                    }
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::anim::clip::{Interpolation, Property, RawChannel, RawClip};
    use crate::anim::events::Event;
    use crate::anim::graph::Weight;
    use crate::anim::skeleton::tests::sample_skeleton;
    use glam::Vec4;

    #[test]
    fn the_clocks_fire_each_marker_as_often_as_advancing_the_tree_does() {
        let s = sample_skeleton();
        let clip = |name: &str, end: f32| {
            RawClip {
                name: name.into(),
                channels: vec![RawChannel {
                    joint: 1,
                    property: Property::Translation,
                    interpolation: Interpolation::Linear,
                    times: vec![0.0, end],
                    values: vec![Vec4::ZERO, Vec4::X],
                }],
            }
            .validate(&s)
            .unwrap()
        };
        let clips = vec![clip("a", 1.0), clip("b", 0.7)];
        let marker = |time: f32| Event {
            name: format!("m{time}"),
            time,
        };
        let events = vec![
            EventTrack::new(vec![marker(0.0), marker(0.3), marker(0.9)]),
            EventTrack::new(vec![marker(0.1), marker(0.7)]),
        ];
        // A layer over a blend of two speeds of `a`, with `b` additive (on its own clock) on
        // a clamped `a`: every kind of clock.
        let nodes = vec![
            Node::Layer {
                base: 1,
                over: 4,
                mask: vec![1.0; s.len()],
                weight: Weight::Const(0.5),
            },
            Node::Blend1D {
                param: 0,
                positions: vec![0.0, 1.0],
                children: vec![2, 3],
            },
            Node::Clip {
                clip: 0,
                speed: 1.0,
                looping: true,
            },
            Node::Clip {
                clip: 0,
                speed: 2.5,
                looping: true,
            },
            Node::Additive {
                base: 5,
                clip: 1,
                speed: 3.3,
                looping: true,
                reference: s.rest().to_vec(),
                weight: Weight::Const(1.0),
            },
            Node::Clip {
                clip: 0,
                speed: 0.7,
                looping: false,
            },
        ];
        let tree = BlendTree::new(nodes, 0, &s, &clips, 1).unwrap();
        let params = [0.4];
        let clocks = tree.event_clocks(&clips, &params);
        assert_eq!(clocks.len(), 4, "{clocks:?}");
        for dt in [0.01, 0.37, 1.0, 2.9, 1e3, 3e38] {
            let mut advanced = Vec::new();
            let mut state = tree.new_state();
            tree.advance(&clips, &events, &mut state, &params, dt, |h| {
                advanced.push((h.clip, h.event, h.count));
            });
            let mut clocked = Vec::new();
            for c in &clocks {
                for i in 0..events[c.clip].events().len() {
                    let n = c.crossings(&events[c.clip], i, dt);
                    if n > 0 {
                        clocked.push((c.clip, i, n));
                    }
                }
            }
            assert!(
                !advanced.is_empty(),
                "dt = {dt}: the marker at 0 fires at once"
            );
            assert_eq!(clocked, advanced, "dt = {dt}");
        }
    }
}
