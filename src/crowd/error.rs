//! Errors of the crowd: LOD preset files that cannot be read or are invalid, bakes that a
//! crowd cannot use, and counts it cannot hold. Every message names the file and the problem.

use thiserror::Error;

use super::id::AgentId;

/// Why a crowd, a palette or a set of LOD presets could not be made, or a call driving an
/// agent was refused (nothing changed).
#[derive(Debug, Error)]
pub enum CrowdError {
    /// A presets file could not be read.
    #[error("{file}: cannot read LOD presets: {error}")]
    Io {
        /// The file, as given.
        file: String,
        /// What the system said (in the message, so not also the error's `source()`).
        error: std::io::Error,
    },
    /// A presets file is not TOML, or not a table of presets.
    #[error("{file}: {what}")]
    PresetSyntax {
        /// The file.
        file: String,
        /// What is wrong, with the line where the TOML parser gives one.
        what: String,
    },
    /// One key of one preset is missing, unknown or invalid.
    #[error("{file}: preset '{preset}': key '{key}': {what}")]
    Preset {
        /// The file.
        file: String,
        /// The preset (table) name.
        preset: String,
        /// The key: `distances`, `rates`, `offscreen_rate`, `culling`, or the unknown key.
        key: String,
        /// What is wrong with it.
        what: String,
    },
    /// A bake holds no characters.
    #[error("{file}: the bake holds no characters, so there is nothing to make a crowd of")]
    NoCharacters {
        /// The bake.
        file: String,
    },
    /// A character of a bake has no animations.
    #[error("{file}: character '{character}' has no animations (a crowd agent must play one)")]
    NoAnims {
        /// The bake.
        file: String,
        /// The character's name.
        character: String,
    },
    /// The file given to a crowd is not the bake it was made from.
    #[error(
        "{file}: not the bake this crowd was made from ({what}); make a new crowd for another file"
    )]
    OtherFile {
        /// The file given.
        file: String,
        /// What differs.
        what: String,
    },
    /// More agents than a crowd holds.
    #[error("{count} agents asked for; a crowd holds at most {max}")]
    TooMany {
        /// The count asked for.
        count: usize,
        /// [`crate::crowd::MAX_AGENTS`].
        max: usize,
    },
    /// A call named an agent that was despawned (or never spawned in this crowd).
    #[error("{agent} was despawned: its handle is stale")]
    StaleAgent {
        /// The handle given.
        agent: AgentId,
    },
    /// A call gave a value that is not finite (or out of its range) for an agent.
    #[error("{agent}: {what} {value} is not allowed (nothing was changed)")]
    NotFinite {
        /// The agent.
        agent: AgentId,
        /// What the value is.
        what: &'static str,
        /// The value given.
        value: String,
    },
    /// A spawn or play gave a value that is not finite (or out of its range).
    #[error("{what} {value} is not allowed (nothing was changed)")]
    NotFiniteSpawn {
        /// What the value is.
        what: &'static str,
        /// The value given.
        value: String,
    },
    /// A scale that is not finite and above 0.
    #[error(
        "{agent}: scale {scale} is not allowed: a scale is finite and above 0 (nothing was changed)"
    )]
    BadScale {
        /// The agent.
        agent: AgentId,
        /// The scale given.
        scale: String,
    },
    /// A character index past the bake's characters.
    #[error("{file}: no character {character}: the bake has {count} (indices from 0)")]
    UnknownCharacter {
        /// The bake.
        file: String,
        /// The index given.
        character: u32,
        /// How many characters the bake has.
        count: usize,
    },
    /// An animation that is not the character's.
    #[error("{file}: character '{character}' has no animation {anim} (it has: {known})")]
    UnknownAnim {
        /// The bake.
        file: String,
        /// The character's name.
        character: String,
        /// The animation asked for: its name, or `index N`.
        anim: String,
        /// The character's animations, comma-separated.
        known: String,
    },
    /// Two slices given together differ in length.
    #[error("{what}: {got} entries given, {expected} needed")]
    Lengths {
        /// Which call and slice.
        what: &'static str,
        /// The length needed.
        expected: usize,
        /// The length given.
        got: usize,
    },
}
