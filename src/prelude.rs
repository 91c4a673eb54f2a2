//! The names a program that embeds a crowd needs, in one `use throng::prelude::*;`: the bake
//! it opens, the crowd it drives (agents, what they play, the LOD presets, the view), and the
//! renderer that draws the crowd into the program's own pass (its device, formats, the
//! automatic choice of skinning path).

pub use crate::crowd::{
    AgentId, Crowd, CrowdError, CrowdSettings, End, LodPolicy, LodPresets, Play, RootMotion, Spawn,
    Start, UpdateStats, View,
};
pub use crate::format::{FormatError, ThrongFile};
pub use crate::render::{
    CrowdFrame, CrowdRenderer, Gpu, PassFormat, PathLimits, PathRequest, RenderError, SkinningPath,
    choose_path,
};
pub use crate::{glam, wgpu};
