//! [`AgentId`]: the handle a program holds to one of its agents, apart from the agent itself
//! so that errors can name an agent without knowing what one is.

use std::fmt;

/// A handle to an agent of a [`super::Crowd`]: its index and the generation of that index.
/// Despawning an agent makes its handle stale (every call with it then fails with
/// [`super::CrowdError::StaleAgent`]); the index is reused by a later spawn, with the next
/// generation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct AgentId {
    pub(crate) index: u32,
    pub(crate) generation: u32,
}

impl AgentId {
    /// Its index: agents of a crowd have indices `0..` the largest number alive at once.
    pub fn index(self) -> u32 {
        self.index
    }

    /// How many agents held its index before it.
    pub fn generation(self) -> u32 {
        self.generation
    }
}

impl fmt::Display for AgentId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "agent {} (generation {})", self.index, self.generation)
    }
}
