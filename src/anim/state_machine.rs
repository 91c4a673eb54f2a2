//! State machines: parameters, states (each a blend tree), transitions with conditions, exit
//! times and crossfades, any-state transitions, and transitions that interrupt transitions.
//!
//! During a crossfade every active state keeps advancing at its own rate (the outgoing state is
//! neither reset nor frozen); their poses are mixed by weights that sum to 1. A new transition
//! may start while one is running: the new target fades in over its duration while everything
//! already playing fades out together, keeping its relative weights. A target that is still
//! fading out continues from where it is. Triggers last one step.

use thiserror::Error;

use super::blend::Accumulator;
use super::clip::Clip;
use super::events::EventTrack;
use super::graph::{BlendTree, EventHit, TreeScratch, TreeState};
use super::skeleton::Skeleton;
use super::transform::Transform;

/// Kinds of parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamKind {
    /// Any finite value.
    Float,
    /// 0 (false) or 1 (true).
    Bool,
    /// Set to 1 by the user; reset to 0 when a transition that tests it fires.
    Trigger,
}

/// A declared parameter.
#[derive(Clone, Debug, PartialEq)]
pub struct ParamDef {
    /// Name, unique in the machine.
    pub name: String,
    /// Kind.
    pub kind: ParamKind,
    /// Initial value (bools and triggers: 0 or 1).
    pub default: f32,
}

/// A test on one parameter.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Condition {
    /// `param > value`.
    Greater(usize, f32),
    /// `param < value`.
    Less(usize, f32),
    /// Bool or trigger parameter is set.
    IsSet(usize),
    /// Bool parameter is clear.
    IsClear(usize),
}

impl Condition {
    fn holds(self, params: &[f32]) -> bool {
        let get = |i: usize| params.get(i).copied().unwrap_or(0.0);
        match self {
            Self::Greater(p, v) => get(p) > v,
            Self::Less(p, v) => get(p) < v,
            Self::IsSet(p) => get(p) != 0.0,
            Self::IsClear(p) => get(p) == 0.0,
        }
    }

    fn param(self) -> usize {
        match self {
            Self::Greater(p, _) | Self::Less(p, _) | Self::IsSet(p) | Self::IsClear(p) => p,
        }
    }
}

/// A transition between states.
#[derive(Clone, Debug, PartialEq)]
pub struct Transition {
    /// Source state; `None` for an any-state transition (never to the state already current).
    pub from: Option<usize>,
    /// Target state.
    pub to: usize,
    /// All must hold.
    pub conditions: Vec<Condition>,
    /// If set, the normalised time of the source state (cycles since it became current) at
    /// which it may leave: a looping source each time its cycle passes this point, a clamped one
    /// at or after it (see [`BlendTree::reached`]).
    pub exit_time: Option<f32>,
    /// Crossfade length, seconds (0 = cut).
    pub duration: f32,
    /// Start the target at the source's normalised phase, so that two gaits crossfade in step
    /// (for states that share a cycle, e.g. walking with and without a wave layer).
    pub sync: bool,
}

/// A state: a name and its blend tree.
#[derive(Clone, Debug)]
pub struct State {
    /// Name, unique in the machine.
    pub name: String,
    /// What the state plays.
    pub tree: BlendTree,
}

/// Why a state machine is invalid.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum MachineError {
    /// A reference to a state or parameter that does not exist, or a bad value.
    #[error("{0}")]
    Invalid(String),
}

/// An immutable, validated state machine.
#[derive(Clone, Debug)]
pub struct StateMachine {
    params: Vec<ParamDef>,
    states: Vec<State>,
    transitions: Vec<Transition>,
    initial: usize,
}

/// At most this many states play at once; when an interrupting transition would exceed it,
/// the faintest is dropped and the rest renormalised.
pub const MAX_ACTIVE: usize = 4;

/// One playing state.
#[derive(Clone, Debug)]
struct Active {
    state: usize,
    tree: TreeState,
    weight: f32,
    /// Weight when the current crossfade started.
    start_weight: f32,
}

/// Per-instance state of a machine: parameter values, the playing states and their blend.
#[derive(Clone, Debug)]
pub struct MachineInstance {
    params: Vec<f32>,
    active: Vec<Active>,
    /// (elapsed, duration) of the running crossfade into the last active state.
    fade: Option<(f32, f32)>,
    scratch: TreeScratch,
    first: Vec<Transform>,
    tmp: Vec<Transform>,
    /// Trees' states recycled so that transitions allocate nothing once warm.
    spare: Vec<Vec<TreeState>>,
}

/// What a step did, for tools and tests.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fired {
    /// Index of the transition that fired.
    pub transition: usize,
    /// Its target state.
    pub to: usize,
}

impl StateMachine {
    /// Validates the definition.
    ///
    /// # Errors
    /// [`MachineError`] for duplicate names, references out of range, negative durations or
    /// exit times, conditions on the wrong kind of parameter.
    pub fn new(
        params: Vec<ParamDef>,
        states: Vec<State>,
        transitions: Vec<Transition>,
        initial: usize,
    ) -> Result<Self, MachineError> {
        let err = |s: String| Err(MachineError::Invalid(s));
        if states.is_empty() {
            return err("the state machine has no states".into());
        }
        if initial >= states.len() {
            return err(format!("initial state {initial} does not exist"));
        }
        for (i, t) in transitions.iter().enumerate() {
            if t.to >= states.len() || t.from.is_some_and(|f| f >= states.len()) {
                return err(format!(
                    "transition {i}: refers to a state that does not exist"
                ));
            }
            if !(t.duration >= 0.0 && t.duration.is_finite()) {
                return err(format!(
                    "transition {i}: duration {} must be a finite number of seconds >= 0",
                    t.duration
                ));
            }
            if t.exit_time.is_some_and(|e| !(e >= 0.0 && e.is_finite())) {
                return err(format!("transition {i}: exit time must be >= 0"));
            }
            for c in &t.conditions {
                let Some(p) = params.get(c.param()) else {
                    return err(format!(
                        "transition {i}: parameter {} does not exist",
                        c.param()
                    ));
                };
                let ok = match c {
                    Condition::Greater(..) | Condition::Less(..) => p.kind == ParamKind::Float,
                    Condition::IsSet(_) => p.kind != ParamKind::Float,
                    Condition::IsClear(_) => p.kind == ParamKind::Bool,
                };
                if !ok {
                    return err(format!(
                        "transition {i}: condition does not fit {:?} parameter '{}'",
                        p.kind, p.name
                    ));
                }
            }
        }
        Ok(Self {
            params,
            states,
            transitions,
            initial,
        })
    }

    /// Declared parameters.
    pub fn params(&self) -> &[ParamDef] {
        &self.params
    }

    /// States.
    pub fn states(&self) -> &[State] {
        &self.states
    }

    /// Transitions.
    pub fn transitions(&self) -> &[Transition] {
        &self.transitions
    }

    /// Index of the parameter called `name`.
    pub fn param(&self, name: &str) -> Option<usize> {
        self.params.iter().position(|p| p.name == name)
    }

    /// Index of the state called `name`.
    pub fn state(&self, name: &str) -> Option<usize> {
        self.states.iter().position(|s| s.name == name)
    }

    /// A new instance in the initial state with default parameters, sized for `skeleton`.
    pub fn instantiate(&self, skeleton: &Skeleton) -> MachineInstance {
        let slots = self
            .states
            .iter()
            .map(|s| s.tree.slot_count())
            .max()
            .unwrap_or(1);
        let biggest = self
            .states
            .iter()
            .find(|s| s.tree.slot_count() == slots)
            .map(|s| s.tree.new_scratch());
        let mut active = Vec::with_capacity(MAX_ACTIVE + 1);
        active.push(Active {
            state: self.initial,
            tree: self.states[self.initial].tree.new_state(),
            weight: 1.0,
            start_weight: 1.0,
        });
        MachineInstance {
            params: self.params.iter().map(|p| p.default).collect(),
            active,
            fade: None,
            scratch: biggest.unwrap_or_else(|| self.states[0].tree.new_scratch()),
            first: vec![Transform::IDENTITY; skeleton.len()],
            tmp: vec![Transform::IDENTITY; skeleton.len()],
            spare: self
                .states
                .iter()
                .map(|s| vec![s.tree.new_state()])
                .collect(),
        }
    }

    /// Advances `inst` by `dt` seconds:
    /// 1. the running crossfade progresses (weights at the end of the step);
    /// 2. every playing state's tree advances, each at its own rate, reporting its events
    ///    weighted by the state's weight;
    /// 3. at most one transition fires: any-state transitions first, then those from the
    ///    current state, in definition order;
    /// 4. triggers that no transition consumed are cleared (a trigger lasts one step).
    ///
    /// Returns the transition that fired, if any.
    pub fn step(
        &self,
        clips: &[Clip],
        events: &[EventTrack],
        inst: &mut MachineInstance,
        dt: f32,
        mut on_event: impl FnMut(usize, EventHit),
    ) -> Option<Fired> {
        let dt = if dt.is_finite() { dt.max(0.0) } else { 0.0 };
        if let Some((elapsed, duration)) = inst.fade {
            let elapsed = elapsed + dt;
            let t = if duration > 0.0 {
                (elapsed / duration).min(1.0)
            } else {
                1.0
            };
            let last = inst.active.len() - 1;
            for (i, a) in inst.active.iter_mut().enumerate() {
                // The target rises from its start weight to 1; the rest fall together.
                a.weight = if i == last {
                    a.start_weight + (1.0 - a.start_weight) * t
                } else {
                    a.start_weight * (1.0 - t)
                };
            }
            if t >= 1.0 {
                self.retire(inst, 0..last);
                inst.fade = None;
            } else {
                inst.fade = Some((elapsed, duration));
            }
        }
        for a in &mut inst.active {
            let (state, w) = (a.state, a.weight);
            self.states[state].tree.advance(
                clips,
                events,
                &mut a.tree,
                &inst.params,
                dt,
                |mut hit| {
                    hit.weight *= w;
                    if hit.weight > 0.0 {
                        on_event(state, hit);
                    }
                },
            );
        }
        let fired = self.choose(inst);
        if let Some(f) = fired {
            self.start(inst, f);
        }
        for (value, def) in inst.params.iter_mut().zip(&self.params) {
            if def.kind == ParamKind::Trigger {
                *value = 0.0;
            }
        }
        fired
    }

    /// The first transition whose conditions hold now.
    fn choose(&self, inst: &MachineInstance) -> Option<Fired> {
        let current = inst.active.last()?;
        let tree = &self.states[current.state].tree;
        let any = self
            .transitions
            .iter()
            .enumerate()
            .filter(|(_, t)| t.from.is_none() && t.to != current.state);
        let own = self
            .transitions
            .iter()
            .enumerate()
            .filter(|(_, t)| t.from == Some(current.state));
        any.chain(own)
            .find(|(_, t)| {
                t.exit_time.is_none_or(|e| tree.reached(&current.tree, e))
                    && t.conditions.iter().all(|c| c.holds(&inst.params))
            })
            .map(|(i, t)| Fired {
                transition: i,
                to: t.to,
            })
    }

    fn start(&self, inst: &mut MachineInstance, fired: Fired) {
        let t = &self.transitions[fired.transition];
        // The source's phase, for transitions that keep the target in step with it.
        let source = inst
            .active
            .last()
            .map(|a| self.states[a.state].tree.root_phase(&a.tree))
            .unwrap_or(0.0);
        // A target that is still fading out continues from where it is, not from its start.
        if let Some(i) = inst.active.iter().position(|a| a.state == fired.to) {
            let entry = inst.active.remove(i);
            inst.active.push(entry);
        } else {
            if inst.active.len() >= MAX_ACTIVE {
                let faintest = (0..inst.active.len())
                    .min_by(|a, b| inst.active[*a].weight.total_cmp(&inst.active[*b].weight))
                    .unwrap_or(0);
                self.retire(inst, faintest..faintest + 1);
                let total: f32 = inst.active.iter().map(|a| a.weight).sum();
                let count = inst.active.len() as f32;
                for a in &mut inst.active {
                    a.weight = if total > 0.0 {
                        a.weight / total
                    } else {
                        1.0 / count
                    };
                }
            }
            let target = &self.states[fired.to].tree;
            let mut tree = inst.spare[fired.to]
                .pop()
                .unwrap_or_else(|| target.new_state());
            target.reset(&mut tree);
            if t.sync {
                target.set_root_phase(&mut tree, source);
            }
            inst.active.push(Active {
                state: fired.to,
                tree,
                weight: 0.0,
                start_weight: 0.0,
            });
        }
        for a in &mut inst.active {
            a.start_weight = a.weight;
        }
        let last = inst.active.len() - 1;
        if t.duration > 0.0 && inst.active.len() > 1 {
            inst.fade = Some((0.0, t.duration));
        } else {
            inst.active[last].weight = 1.0;
            self.retire(inst, 0..last);
            inst.fade = None;
        }
    }

    /// Root motion of the last step: each playing state's tree motion, weighted by the
    /// state's weight (see [`BlendTree::motion`]); `tracks[c]` is clip `c`'s motion track.
    pub fn motion(
        &self,
        clips: &[Clip],
        tracks: &[Option<super::root_motion::MotionTrack>],
        inst: &MachineInstance,
    ) -> (glam::Vec2, f32) {
        inst.active
            .iter()
            .fold((glam::Vec2::ZERO, 0.0), |(m, y), a| {
                let (dm, dy) = self.states[a.state].tree.motion(clips, tracks, &a.tree);
                (m + dm * a.weight, y + dy * a.weight)
            })
    }

    /// Removes active entries in `range`, keeping their tree states for reuse.
    fn retire(&self, inst: &mut MachineInstance, range: std::ops::Range<usize>) {
        for a in inst.active.drain(range) {
            inst.spare[a.state].push(a.tree);
        }
    }

    /// Writes the blended local pose of every playing state into `out`. Allocates nothing.
    pub fn evaluate(
        &self,
        clips: &[Clip],
        skeleton: &Skeleton,
        inst: &mut MachineInstance,
        out: &mut [Transform],
    ) {
        let MachineInstance {
            params,
            active,
            scratch,
            first,
            tmp,
            ..
        } = inst;
        let mut started = false;
        for a in active.iter_mut() {
            if a.weight <= 0.0 {
                continue;
            }
            let tree = &self.states[a.state].tree;
            if !started {
                tree.evaluate(clips, skeleton, &mut a.tree, params, scratch, first);
                Accumulator::begin(out, first, a.weight);
                started = true;
            } else {
                tree.evaluate(clips, skeleton, &mut a.tree, params, scratch, tmp);
                Accumulator::push(out, first, tmp, a.weight);
            }
        }
        if started {
            Accumulator::finish(out);
        } else {
            out.copy_from_slice(skeleton.rest());
        }
    }
}

impl MachineInstance {
    /// Current parameter values, in declaration order.
    pub fn params(&self) -> &[f32] {
        &self.params
    }

    /// Sets parameter `index` (bools and triggers: non-zero means set). Out-of-range indices
    /// and non-finite values are ignored.
    pub fn set_param(&mut self, index: usize, value: f32) {
        if let Some(p) = self.params.get_mut(index)
            && value.is_finite()
        {
            *p = value;
        }
    }

    /// The playing states and their weights (summing to 1), oldest first; the last is current.
    pub fn active(&self) -> impl Iterator<Item = (usize, f32)> + '_ {
        self.active.iter().map(|a| (a.state, a.weight))
    }

    /// The current state (the target of the latest transition).
    pub fn current(&self) -> usize {
        self.active.last().map_or(0, |a| a.state)
    }

    /// Progress of the running crossfade in [0, 1), if one is running.
    pub fn fade_progress(&self) -> Option<f32> {
        self.fade
            .map(|(e, d)| if d > 0.0 { (e / d).min(1.0) } else { 1.0 })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::anim::clip::{Interpolation, Property, RawChannel, RawClip};
    use crate::anim::graph::Node;
    use crate::anim::skeleton::tests::sample_skeleton;
    use glam::Vec4;

    fn clip(name: &str, duration: f32, skeleton: &Skeleton) -> Clip {
        RawClip {
            name: name.into(),
            channels: vec![RawChannel {
                joint: 1,
                property: Property::Translation,
                interpolation: Interpolation::Linear,
                times: vec![0.0, duration],
                values: vec![Vec4::ZERO, Vec4::new(1.0, 0.0, 0.0, 0.0)],
            }],
        }
        .validate(skeleton)
        .unwrap()
    }

    #[test]
    fn the_outgoing_state_keeps_advancing_during_a_crossfade() {
        let s = sample_skeleton();
        let clips = vec![clip("a", 1.0, &s), clip("b", 2.0, &s)];
        let tree = |c| {
            BlendTree::new(
                vec![Node::Clip {
                    clip: c,
                    speed: 1.0,
                    looping: true,
                }],
                0,
                &s,
                &clips,
                1,
            )
            .unwrap()
        };
        let machine = StateMachine::new(
            vec![ParamDef {
                name: "go".into(),
                kind: ParamKind::Trigger,
                default: 0.0,
            }],
            vec![
                State {
                    name: "a".into(),
                    tree: tree(0),
                },
                State {
                    name: "b".into(),
                    tree: tree(1),
                },
            ],
            vec![Transition {
                from: Some(0),
                to: 1,
                conditions: vec![Condition::IsSet(0)],
                exit_time: None,
                duration: 1.0,
                sync: false,
            }],
            0,
        )
        .unwrap();
        let mut inst = machine.instantiate(&s);
        machine.step(&clips, &[], &mut inst, 0.25, |_, _| {});
        inst.set_param(0, 1.0);
        assert!(
            machine
                .step(&clips, &[], &mut inst, 0.25, |_, _| {})
                .is_some()
        );
        let elapsed = |inst: &MachineInstance, i: usize| {
            machine.states[inst.active[i].state]
                .tree
                .elapsed_cycles(&inst.active[i].tree)
        };
        // State a (1 s cycle) has played 0.5 s; b has just started.
        assert!((elapsed(&inst, 0) - 0.5).abs() < 1e-6);
        machine.step(&clips, &[], &mut inst, 0.25, |_, _| {});
        // Both advance at their own rates while fading: a by 0.25 cycles, b by 0.125.
        assert!(
            (elapsed(&inst, 0) - 0.75).abs() < 1e-6,
            "the outgoing state froze"
        );
        assert!((elapsed(&inst, 1) - 0.125).abs() < 1e-6);
        assert_eq!(
            inst.active().map(|(_, w)| w).collect::<Vec<_>>(),
            vec![0.75, 0.25]
        );
        // The trigger was consumed.
        assert_eq!(inst.params()[0], 0.0);
    }

    #[test]
    fn invalid_definitions_are_refused() {
        let s = sample_skeleton();
        let clips = vec![clip("a", 1.0, &s)];
        let tree = BlendTree::new(
            vec![Node::Clip {
                clip: 0,
                speed: 1.0,
                looping: true,
            }],
            0,
            &s,
            &clips,
            1,
        )
        .unwrap();
        let state = || {
            vec![State {
                name: "a".into(),
                tree: tree.clone(),
            }]
        };
        let float = vec![ParamDef {
            name: "x".into(),
            kind: ParamKind::Float,
            default: 0.0,
        }];
        let bad_condition = Transition {
            from: None,
            to: 0,
            conditions: vec![Condition::IsSet(0)],
            exit_time: None,
            duration: 0.1,
            sync: false,
        };
        let err = StateMachine::new(float.clone(), state(), vec![bad_condition], 0).unwrap_err();
        assert_eq!(
            err.to_string(),
            "transition 0: condition does not fit Float parameter 'x'"
        );
        let bad_target = Transition {
            from: None,
            to: 3,
            conditions: vec![],
            exit_time: Some(1.0),
            duration: 0.1,
            sync: false,
        };
        assert!(StateMachine::new(float, state(), vec![bad_target], 0).is_err());
        assert!(StateMachine::new(vec![], vec![], vec![], 0).is_err());
    }
}
