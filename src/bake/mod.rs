//! Baking: every selected clip and state of a recipe's characters sampled frame by frame
//! through the animation pipeline into bone-matrix texels, with skeletons, events, root
//! motion, per-frame bounds, LOD meshes and measured errors, ready for `format` to write.
//!
//! - `recipe`: the TOML recipe ([`Recipe`]), one made in code ([`Recipe::new`],
//!   [`Recipe::checked`]), or the defaults for a bare model;
//! - `inputs`: the files a bake reads and the key that says a file is up to date ([`inputs`]);
//! - `load`: a recipe's characters loaded, sized into metres and measured
//!   ([`standing_height`]);
//! - `plan`: what to bake (one job per clip, state and parameter value) and at which rates;
//! - `frames`: which times a clip is baked at ([`FrameSchedule`]);
//! - `sample`: an animation's frames posed and packed into texels, with bounds and errors;
//! - `texels`: matrices as 3×4 rows, f16 packing, error measures;
//! - `measure`: cheap conservative bounds and errors from per-joint boxes;
//! - `root_motion` and `events`: what a baked animation moves and fires;
//! - `gait`: the ground speed of in-place cycles, measured from the planted feet;
//! - `lock`: those cycles baked again with their planted feet pinned at that speed;
//! - `precision`: f32 or f16, by the measured f16 error and the budget;
//! - `skeleton_lod`: the joints each far LOD level skins with, and its vertices rewritten onto them;
//! - `impostor`: each character's animated impostor atlas, drawn on the CPU from the
//!   assembled file ([`impostor::frame_count`], [`ImpostorReport`]);
//! - `replay`: a bake's animations posed again as baked, at any time ([`Replay`]);
//! - `assemble`: everything written into the file's builder;
//! - `report`: what a bake made ([`BakeReport`]);
//! - `baker`: [`bake`] itself, which runs the stages;
//! - `output`: baking into the recipe's file, whether it is up to date;
//! - `default`: the default bake (the mannequin crowd), from the repository's recipe or the
//!   built-in one baked into the cache ([`default_bake`]).

mod assemble;
mod baker;
mod default;
mod error;
mod events;
mod facing;
pub mod frames;
mod gait;
pub mod impostor;
mod inputs;
mod load;
mod lock;
pub mod measure;
mod output;
mod overflow;
mod plan;
mod precision;
pub mod recipe;
mod replay;
mod report;
mod root_motion;
mod sample;
mod skeleton_lod;
pub mod texels;

pub use baker::{BakeOptions, BakeProgress, Baked, bake};
pub use default::{
    BUILTIN_DIR, BUILTIN_FILES, BuiltinFile, CACHED_BAKE, DEFAULT_RECIPE, DefaultRecipe,
    DefaultSource, builtin_recipe, cache_dir, check_cache_entry, default_bake, default_recipe,
};
pub use error::{BakeError, RecipeAt};
pub use events::MAX_EVENTS;
pub use frames::{FrameSchedule, MAX_FRAMES};
pub use gait::{Feet, RestPose, feet_of, rest_pose};
pub use inputs::{TOOL, inputs};
pub use load::standing_height;
pub use output::{OutputError, bake_if_stale, bake_to_file, check_output, up_to_date};
pub use plan::{LOOP_CAP, LOOP_FRAMES, LOOP_TOLERANCE, SPREAD_FRAMES};
pub use recipe::{
    CharacterSpec, DefaultRule, Facing, ImpostorSettings, KeyLines, PrecisionChoice, Rate, Recipe,
    Selection, Size, Source,
};
pub use replay::Replay;
pub use report::{AnimReport, BakeReport, CharacterReport, ImpostorReport, length};
pub use texels::{from_rows, lerp, rows, skinned_error, through_f16};
