//! Character files: a TOML description of how a glTF model animates — clip options (root
//! motion, events), joint masks, parameters, blend trees, the state machine and IK chains —
//! resolved against the model into the animation core's runtime types.
//!
//! This file holds the runtime [`Character`]; `resolve.rs` and `tree.rs` turn the TOML into it
//! (both through the shared look-ups of `context.rs`),
//! and `ik.rs` holds its IK chains, checked once at load and run after FK on every pose.
//!
//! Errors name the file, the line and the element, for instance
//! `mannequin.toml:42: state 'jog' uses clip 'Jogg', which the model does not have; clips are:
//! idle, walk, run, wave`. The format is described in docs/CHARACTER.md.

mod context;
mod error;
mod file;
mod ik;
mod poser;
mod resolve;
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
    /// [`CharacterError`] with the file, line and element at fault.
    pub fn load(path: &Path) -> Result<Self, CharacterError> {
        let file = path
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_else(|| path.display().to_string());
        let text = std::fs::read_to_string(path).map_err(|source| CharacterError::Io {
            file: file.clone(),
            source,
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
