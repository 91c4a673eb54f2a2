//! A recipe's optional `[impostors]` table (docs/BAKING.md, "Recipes"): whether the bake draws
//! each character's animated impostor atlas (format 1.4), from how many views, at which cell
//! size and how many pictures per second of each animation. Every key has a default, so a
//! recipe without the table (and a bare model's) gets [`ImpostorSettings::default`].

use std::ops::Range;

use serde::Deserialize;
use toml::Spanned;

use crate::bake::error::BakeError;
use crate::character::number::{Number, short};

/// Default views along each side of the hemi-octahedral grid.
pub const DEFAULT_VIEWS: u32 = 9;
/// Default side of one view's square, pixels.
pub const DEFAULT_CELL: u32 = 16;
/// Default impostor frames per second of animation.
pub const DEFAULT_IMPOSTOR_FPS: f32 = 8.0;
/// Default fewest impostor frames of an animation.
pub const DEFAULT_MIN_FRAMES: u32 = 8;
/// Default most impostor frames of an animation.
pub const DEFAULT_MAX_FRAMES: u32 = 16;

/// What a recipe asks of the impostor atlas.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ImpostorSettings {
    /// Whether impostors are drawn at all (`enabled`, default true).
    pub enabled: bool,
    /// Views along each side of the grid (`views`): odd, 3 to 33; default 9.
    pub views: u32,
    /// Side of one view's square, pixels (`cell`): 4 to 256; default 16.
    pub cell: u32,
    /// Impostor frames per second of animation (`fps`): > 0, finite; default 8.
    pub fps: f32,
    /// Fewest impostor frames of an animation longer than one frame (`min_frames`): 1 to 256,
    /// at most `max_frames`; default 8.
    pub min_frames: u32,
    /// Most impostor frames of an animation (`max_frames`): 1 to 256; default 16.
    pub max_frames: u32,
}

impl Default for ImpostorSettings {
    fn default() -> Self {
        Self {
            enabled: true,
            views: DEFAULT_VIEWS,
            cell: DEFAULT_CELL,
            fps: DEFAULT_IMPOSTOR_FPS,
            min_frames: DEFAULT_MIN_FRAMES,
            max_frames: DEFAULT_MAX_FRAMES,
        }
    }
}

/// The `[impostors]` table as TOML gives it.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ImpostorsFile {
    enabled: Option<Spanned<bool>>,
    views: Option<Spanned<Number>>,
    cell: Option<Spanned<Number>>,
    fps: Option<Spanned<Number>>,
    min_frames: Option<Spanned<Number>>,
    max_frames: Option<Spanned<Number>>,
}

impl ImpostorsFile {
    /// The spans of the keys given, by key (`impostors.views`, ...), for the recipe's
    /// [`super::KeyLines`].
    pub(super) fn spans(&self) -> Vec<(&'static str, Range<usize>)> {
        let number = |n: &Option<Spanned<Number>>| n.as_ref().map(Spanned::span);
        [
            (
                "impostors.enabled",
                self.enabled.as_ref().map(Spanned::span),
            ),
            ("impostors.views", number(&self.views)),
            ("impostors.cell", number(&self.cell)),
            ("impostors.fps", number(&self.fps)),
            ("impostors.min_frames", number(&self.min_frames)),
            ("impostors.max_frames", number(&self.max_frames)),
        ]
        .into_iter()
        .filter_map(|(k, s)| Some((k, s?)))
        .collect()
    }
}

/// A whole number in `lo..=hi` at `key`, else `default` when not given.
fn whole(
    v: &Option<Spanned<Number>>,
    key: &str,
    (lo, hi): (u32, u32),
    default: u32,
    bad: &dyn Fn(Range<usize>, String) -> BakeError,
) -> Result<u32, BakeError> {
    let Some(v) = v else {
        return Ok(default);
    };
    let x = v.get_ref().get();
    if x.fract() == 0.0 && x >= lo as f32 && x <= hi as f32 {
        Ok(x as u32)
    } else {
        Err(bad(
            v.span(),
            format!(
                "impostors.{key} = {}: give a whole number from {lo} to {hi} (default {default})",
                short(x)
            ),
        ))
    }
}

/// The settings `table` gives (the defaults without it); `bad` makes the error at a span.
///
/// # Errors
/// [`BakeError::Recipe`] (made by `bad`) at the key out of range: an even or out-of-range
/// `views`, a `cell` outside 4–256, an `fps` that is not a positive finite number, a frame
/// count outside 1–256 or `min_frames` above `max_frames`.
pub(super) fn settings(
    table: Option<&ImpostorsFile>,
    bad: &dyn Fn(Range<usize>, String) -> BakeError,
) -> Result<ImpostorSettings, BakeError> {
    let d = ImpostorSettings::default();
    let Some(t) = table else {
        return Ok(d);
    };
    let views = whole(&t.views, "views", (3, 33), d.views, bad)?;
    if views % 2 == 0 {
        let span = t.views.as_ref().map_or(0..0, Spanned::span);
        return Err(bad(
            span,
            format!(
                "impostors.views = {views}: give an odd number from 3 to 33 (default {DEFAULT_VIEWS}), so that one view looks straight down"
            ),
        ));
    }
    let cell = whole(&t.cell, "cell", (4, 256), d.cell, bad)?;
    let fps = match &t.fps {
        None => d.fps,
        Some(f) if f.get_ref().get() > 0.0 && f.get_ref().get().is_finite() => f.get_ref().get(),
        Some(f) => {
            return Err(bad(
                f.span(),
                format!(
                    "impostors.fps = {}: give a positive number of pictures per second of animation (default {DEFAULT_IMPOSTOR_FPS})",
                    short(f.get_ref().get())
                ),
            ));
        }
    };
    let min_frames = whole(&t.min_frames, "min_frames", (1, 256), d.min_frames, bad)?;
    let max_frames = whole(&t.max_frames, "max_frames", (1, 256), d.max_frames, bad)?;
    if min_frames > max_frames {
        let span = t
            .min_frames
            .as_ref()
            .or(t.max_frames.as_ref())
            .map_or(0..0, Spanned::span);
        return Err(bad(
            span,
            format!("impostors.min_frames = {min_frames} is above max_frames = {max_frames}"),
        ));
    }
    Ok(ImpostorSettings {
        enabled: t.enabled.as_ref().is_none_or(|e| *e.get_ref()),
        views,
        cell,
        fps,
        min_frames,
        max_frames,
    })
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::bake::{CharacterSpec, Recipe};

    const BASE: &str = "output = \"x.throng\"\n[[characters]]\nmodel = \"a.glb\"\n";

    fn parse(table: &str) -> Result<ImpostorSettings, String> {
        let text = format!(
            "output = \"x.throng\"\n[impostors]\n{table}\n[[characters]]\nmodel = \"a.glb\"\n"
        );
        Recipe::parse(&text, Path::new("bake/r.toml"))
            .map(|r| r.impostors)
            .map_err(|e| e.to_string())
    }

    #[test]
    fn the_table_is_optional_and_its_keys_are_read() {
        let r = Recipe::parse(BASE, Path::new("bake/r.toml")).unwrap();
        assert_eq!(r.impostors, ImpostorSettings::default());
        assert_eq!(
            Recipe::for_model(Path::new("a.glb"), Path::new("a.throng")).impostors,
            ImpostorSettings::default()
        );
        let s = parse(
            "enabled = false\nviews = 5\ncell = 32\nfps = 12.5\nmin_frames = 2\nmax_frames = 4",
        )
        .unwrap();
        assert_eq!(
            s,
            ImpostorSettings {
                enabled: false,
                views: 5,
                cell: 32,
                fps: 12.5,
                min_frames: 2,
                max_frames: 4
            }
        );
        // A recipe made in code writes the table and reads it back.
        let mut r = Recipe::new("x.throng", vec![CharacterSpec::model("a.glb")]);
        r.impostors = s;
        let checked = r.checked().unwrap();
        assert!(checked.text.contains("[impostors]"), "{}", checked.text);
        assert_eq!(checked.impostors, s);
        let plain = Recipe::new("x.throng", vec![CharacterSpec::model("a.glb")]);
        assert!(!plain.checked().unwrap().text.contains("[impostors]"));
    }

    #[test]
    fn bad_values_name_the_file_line_and_key() {
        for (table, want) in [
            (
                "views = 8",
                "bake/r.toml:3: impostors.views = 8: give an odd number",
            ),
            (
                "views = 35",
                "bake/r.toml:3: impostors.views = 35: give a whole number from 3 to 33",
            ),
            ("views = 9.5", "impostors.views = 9.5"),
            (
                "cell = 2",
                "bake/r.toml:3: impostors.cell = 2: give a whole number from 4 to 256",
            ),
            ("cell = 512", "impostors.cell = 512"),
            (
                "fps = 0",
                "bake/r.toml:3: impostors.fps = 0: give a positive number",
            ),
            ("fps = -1", "impostors.fps = -1"),
            ("fps = nan", "impostors.fps"),
            (
                "min_frames = 0",
                "impostors.min_frames = 0: give a whole number from 1 to 256",
            ),
            ("max_frames = 300", "impostors.max_frames = 300"),
            (
                "min_frames = 9\nmax_frames = 4",
                "bake/r.toml:3: impostors.min_frames = 9 is above max_frames = 4",
            ),
            ("enabled = 1", "bake/r.toml:3"),
            ("size = 3", "unknown key `size`"),
        ] {
            let e = parse(table).unwrap_err();
            assert!(e.contains(want), "{table}: {e}");
        }
    }
}
