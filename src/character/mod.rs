//! Character files: a TOML description of how a glTF model animates — clip options (root
//! motion, events), joint masks, parameters, blend trees, the state machine and IK chains —
//! resolved against the model into the animation core's runtime types.
//!
//! This file holds the runtime [`Character`]; `resolve.rs` and `tree.rs` turn the TOML into it
//! (both through the shared look-ups of `context.rs`),
//! and `ik.rs` holds its IK chains, checked once at load and run after FK on every pose.
//!
//! `nesting.rs` checks how the named trees nest before any tree is built, so no file can make
//! loading recurse without bound or expand into more than [`MAX_TREE_NODES`] nodes.
//!
//! Errors name the file, the line and the element, for instance
//! `mannequin.toml:42: state 'jog' uses clip 'Jogg', which the model does not have; clips are:
//! idle, walk, run, wave`. The format is described in docs/CHARACTER.md.

mod context;
mod error;
mod file;
mod ik;
mod nesting;
pub mod number;
mod poser;
mod resolve;
pub(crate) mod toml_error;
mod tree;

use std::path::{Path, PathBuf};

use glam::{Mat4, Vec3};

pub use error::CharacterError;
pub use ik::{IkChain, IkKind, IkTarget};
pub use poser::Poser;

use crate::anim::Transform;
use crate::anim::events::EventTrack;
use crate::anim::root_motion::MotionTrack;
use crate::anim::state_machine::StateMachine;
use crate::import::Model;

/// Default crossfade length of a transition without `duration`, seconds.
pub const DEFAULT_CROSSFADE: f32 = 0.25;

/// Most levels a state's blend tree may nest, counting each `tree = NAME` node and the named
/// tree it brings in. Building a tree recurses once per level, about 4 KiB of stack each in a
/// debug build (measured: 100 levels of layers fit a 512 KiB stack, 150 do not), so a chain of
/// thousands of named trees would overflow a thread's stack; 64 levels take about a quarter of
/// the smallest stack Rust gives a thread (2 MiB), and real blend trees nest a dozen levels or
/// fewer.
pub const MAX_TREE_DEPTH: u64 = 64;

/// Most blend-tree nodes a character's states hold in all, counting each named tree once for
/// every place that uses it (it is copied there), plus the nodes written in the named trees
/// themselves. A tree that uses the next one twice doubles per level, so a file of a few lines
/// could otherwise ask for billions of nodes; real characters hold tens to hundreds.
pub const MAX_TREE_NODES: u64 = 65_536;

/// Most per-joint values a character's masks, layer nodes and additive nodes hold in all
/// (each holds one weight or transform per joint of the skeleton): 4 Mi values, at most 160 MiB
/// of reference poses, which keeps the product of a large skeleton and many such nodes from
/// exhausting memory. The mannequin's 19 joints allow over 200,000 of them.
pub const MAX_JOINT_VALUES: u64 = 1 << 22;

/// A loaded character: the model (with root-motion clips made in place), per-clip events and
/// motion tracks, the state machine and the IK chains.
#[derive(Clone, Debug)]
pub struct Character {
    /// The character file.
    pub path: PathBuf,
    /// The imported model; clips with root motion are replaced by their in-place versions.
    pub model: Model,
    /// Event markers per clip (empty tracks for clips without).
    pub events: Vec<EventTrack>,
    /// Root motion per clip, for clips that extract it.
    pub motion: Vec<Option<MotionTrack>>,
    /// The state machine.
    pub machine: StateMachine,
    /// IK chains, applied in order after FK.
    pub ik: Vec<IkChain>,
}

impl Character {
    /// Loads a character file and the model it names (relative paths resolve against the
    /// file's folder).
    ///
    /// # Errors
    /// [`CharacterError`] with the file, line and element at fault: [`CharacterError::Io`] when
    /// it cannot be read; [`CharacterError::Syntax`] for TOML syntax, an unknown key or a value
    /// of the wrong type; [`CharacterError::Invalid`] for a reference to something that does not
    /// exist, a cycle or a value out of range; [`CharacterError::Model`] when its model does not
    /// import.
    pub fn load(path: &Path) -> Result<Self, CharacterError> {
        let file = path
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_else(|| path.display().to_string());
        let text = crate::input::read_text(path).map_err(|error| CharacterError::Io {
            file: file.clone(),
            error,
        })?;
        Self::parse(&text, &file, path.parent().unwrap_or(Path::new(".")), path)
    }

    /// Parses character file `text` named `file` (for messages), resolving the model path
    /// against `dir`.
    ///
    /// # Errors
    /// As [`Character::load`].
    pub fn parse(text: &str, file: &str, dir: &Path, path: &Path) -> Result<Self, CharacterError> {
        resolve::resolve(text, file, dir, path)
    }

    /// Applies the IK chains, in order, to a pose after forward kinematics. `local` and `model`
    /// stay consistent. `scratch` holds FABRIK positions (at least the longest chain; see
    /// [`Character::ik_scratch_len`]). Allocates nothing.
    pub fn apply_ik(
        &self,
        params: &[f32],
        local: &mut [Transform],
        model: &mut [Mat4],
        scratch: &mut [Vec3],
    ) {
        for chain in &self.ik {
            chain.apply(
                &self.model.skeleton,
                params,
                (&mut *local, &mut *model),
                scratch,
            );
        }
    }

    /// Positions [`Character::apply_ik`]'s scratch must hold.
    pub fn ik_scratch_len(&self) -> usize {
        self.ik.iter().map(IkChain::scratch_len).max().unwrap_or(0)
    }
}
