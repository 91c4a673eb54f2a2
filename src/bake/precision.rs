//! The texel precision of a bake: f32, or f16 where the recipe asks for it or (`auto`) where
//! every animation's measured f16 error fits the budget, a fraction of its character's height.
//! f16 over the budget is refused unless forced; values beyond f16's range always are.

use super::error::BakeError;
use super::load::Loaded;
use super::plan::Job;
use super::recipe::{PrecisionChoice, Recipe};
use crate::format::TexelFormat;

/// The texel format of the whole file and why, from each job's measured f16 error
/// (`f16_errors[i]` of `jobs[i]`, model units); `force` writes f16 over the budget.
///
/// # Errors
/// [`BakeError::PrecisionBudget`] when f16 was asked for, exceeds the budget and is not
/// forced; [`BakeError::Character`] when f16 was asked for and a value is beyond its range.
pub(super) fn choose(
    recipe: &Recipe,
    force: bool,
    jobs: &[Job],
    f16_errors: &[f32],
    loaded: &[Loaded],
) -> Result<(TexelFormat, String), BakeError> {
    let worst = jobs
        .iter()
        .zip(f16_errors)
        .map(|(j, e)| (j, e / loaded[j.character].height))
        .max_by(|a, b| a.1.total_cmp(&b.1));
    let fits = worst.is_none_or(|(_, f)| f <= recipe.precision_budget);
    // f16 tops out at 65504: larger values (a character far from its origin, in centimetres)
    // become infinite, which no budget or force can allow.
    let representable = worst.is_none_or(|(_, f)| f.is_finite());
    Ok(match recipe.precision {
        PrecisionChoice::F32 => (TexelFormat::Rgba32F, "f32 (asked for)".to_string()),
        PrecisionChoice::F16 if fits => (
            TexelFormat::Rgba16F,
            "f16 (asked for; within the budget)".to_string(),
        ),
        PrecisionChoice::F16 if force && representable => (
            TexelFormat::Rgba16F,
            "f16 (forced, over the budget)".to_string(),
        ),
        PrecisionChoice::F16 if !representable => {
            let (j, _) = worst.expect("not representable means there is a worst animation");
            return Err(recipe.locate(
                "precision",
                BakeError::character(
                    &loaded[j.character].name,
                    format!(
                        "'{}' has skinning matrix values beyond 65504, the largest f16; use precision = \"f32\"",
                        j.name
                    ),
                ),
            ));
        }
        PrecisionChoice::F16 => {
            let (j, f) = worst.expect("over budget means there is a worst animation");
            return Err(recipe.locate(
                "precision",
                BakeError::PrecisionBudget {
                    character: loaded[j.character].name.clone(),
                    anim: j.name.clone(),
                    error: f * loaded[j.character].height,
                    fraction: f * 100.0,
                    budget: recipe.precision_budget * 100.0,
                },
            ));
        }
        PrecisionChoice::Auto if fits => (
            TexelFormat::Rgba16F,
            "f16 (auto: within the budget)".to_string(),
        ),
        PrecisionChoice::Auto => (
            TexelFormat::Rgba32F,
            format!(
                "f32 (auto: f16 would exceed the budget in '{}')",
                worst.map_or(String::new(), |(j, _)| j.name.clone())
            ),
        ),
    })
}

/// The precision error an animation's record stores: what its texels lose in `format`
/// (model units; f32 texels are exact).
pub(super) fn stored_error(format: TexelFormat, f16_error: f32) -> f32 {
    match format {
        TexelFormat::Rgba32F => 0.0,
        TexelFormat::Rgba16F => f16_error,
    }
}
