//! A recipe's TOML: the serde structures that mirror it, with the span of every value kept, and
//! their checking into a [`Recipe`]: each mistake at the line of its key, the lines of the
//! keys given kept in [`KeyLines`], and the top-level keys that have no effect listed.

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::Path;

use glam::{Vec3, Vec4};
use serde::Deserialize;
use toml::Spanned;

use super::{
    CharacterSpec, DEFAULT_FPS, DEFAULT_INTERPOLATION_BUDGET, DEFAULT_LODS,
    DEFAULT_PRECISION_BUDGET, Facing, KeyLines, MAX_HEIGHT, MAX_PARAM_VALUES, PrecisionChoice,
    Rate, Recipe, Selection, Size, Source,
};
use crate::bake::error::{BakeError, RecipeAt};
use crate::character::number::{Number, short};
use crate::character::toml_error::{FromTable, line_of, located};

/// A frame rate as TOML gives it; the number is kept at TOML's precision until checked (an
/// untagged enum would swallow [`Number`]'s message).
#[derive(Deserialize)]
#[serde(
    untagged,
    expecting = "must be a number of frames per second or \"auto\""
)]
enum RateFile {
    Number(f64),
    Word(String),
}

#[derive(Deserialize)]
#[serde(untagged, expecting = "must be \"all\", \"none\" or an array of names")]
enum SelectionFile {
    Word(String),
    List(Vec<String>),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RecipeFile {
    output: Spanned<String>,
    fps: Option<Spanned<RateFile>>,
    precision: Option<Spanned<String>>,
    max_precision_error: Option<Spanned<Number>>,
    max_interpolation_error: Option<Spanned<Number>>,
    lods: Option<Spanned<Vec<Number>>>,
    lod_max_error: Option<Spanned<Number>>,
    impostors: Option<Spanned<super::impostors::ImpostorsFile>>,
    #[serde(default)]
    characters: Vec<Spanned<CharacterFileSpec>>,
}

/// A `[[characters]]` entry ([`CharacterFields`]), from a table only ([`FromTable`]).
type CharacterFileSpec = FromTable<CharacterFields>;

/// Names with the line of each.
type NameList = Spanned<Vec<Spanned<String>>>;
/// A table of values by name, with the line of each.
type Table<T> = Spanned<BTreeMap<String, Spanned<T>>>;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CharacterFields {
    name: Option<Spanned<String>>,
    character: Option<Spanned<String>>,
    model: Option<Spanned<String>>,
    clips: Option<Spanned<SelectionFile>>,
    states: Option<Spanned<SelectionFile>>,
    once: Option<NameList>,
    #[serde(rename = "loop")]
    looping: Option<NameList>,
    fps: Option<Spanned<RateFile>>,
    rates: Option<Table<RateFile>>,
    params: Option<Table<Vec<Number>>>,
    scale: Option<Spanned<[Number; 3]>>,
    height: Option<Spanned<Number>>,
    tint: Option<Spanned<Vec<Number>>>,
    foot_lock: Option<Spanned<bool>>,
    skeleton_lod: Option<Spanned<bool>>,
    facing: Option<Spanned<String>>,
}

/// A recipe's text, for locating its values.
struct Text<'a> {
    file: String,
    text: &'a str,
}

impl Text<'_> {
    fn line(&self, span: Range<usize>) -> usize {
        line_of(self.text, span.start)
    }

    fn at(&self, span: Range<usize>) -> RecipeAt {
        RecipeAt {
            file: self.file.clone(),
            line: Some(self.line(span)),
        }
    }

    /// A mistake at the value spanning `span`.
    fn bad(&self, span: Range<usize>, what: impl Into<String>) -> BakeError {
        BakeError::Recipe {
            at: self.at(span),
            what: what.into(),
        }
    }

    /// `FILE:LINE: what`, for the report's warnings.
    fn warning(&self, span: Range<usize>, what: &str) -> String {
        format!("{}: {what}", self.at(span))
    }
}

fn rate(r: &Spanned<RateFile>, what: &str, t: &Text) -> Result<Rate, BakeError> {
    match r.get_ref() {
        RateFile::Number(f) if *f > 0.0 && *f <= 1000.0 => Ok(Rate::Fixed(*f as f32)),
        RateFile::Word(w) if w == "auto" => Ok(Rate::Auto),
        RateFile::Number(f) if !f.is_finite() => Err(t.bad(
            r.span(),
            format!(
                "{what}: {} must be a finite number of frames per second, or \"auto\"",
                short(*f)
            ),
        )),
        RateFile::Number(f) => Err(t.bad(
            r.span(),
            format!(
                "{what}: {} frames per second is out of range; give a number above 0 and at most 1000, or \"auto\"",
                short(*f)
            ),
        )),
        RateFile::Word(w) => Err(t.bad(
            r.span(),
            format!("{what}: '{w}' is not a frame rate; give a number, or \"auto\""),
        )),
    }
}

fn selection(
    s: Option<&Spanned<SelectionFile>>,
    what: &str,
    t: &Text,
) -> Result<Selection, BakeError> {
    let Some(s) = s else {
        return Ok(Selection::All);
    };
    match s.get_ref() {
        SelectionFile::Word(w) if w == "all" => Ok(Selection::All),
        SelectionFile::Word(w) if w == "none" => Ok(Selection::Named(Vec::new())),
        SelectionFile::Word(w) => Err(t.bad(
            s.span(),
            format!("{what} = '{w}': give \"all\", \"none\" or a list of names"),
        )),
        SelectionFile::List(l) => Ok(Selection::Named(l.clone())),
    }
}

fn budget(
    v: Option<&Spanned<Number>>,
    default: f32,
    what: &str,
    t: &Text,
) -> Result<f32, BakeError> {
    match v {
        None => Ok(default),
        Some(b) if b.get_ref().get() > 0.0 && b.get_ref().get() < 1.0 => Ok(b.get_ref().get()),
        Some(b) => Err(t.bad(
            b.span(),
            format!(
                "{what} = {}: give a fraction of the character's height between 0 and 1 (e.g. {default})",
                b.get_ref().get()
            ),
        )),
    }
}

/// The lines of the keys `c` gives.
fn key_lines(c: &Spanned<CharacterFileSpec>, t: &Text) -> KeyLines {
    let s = c.get_ref();
    let mut keys = BTreeMap::new();
    let mut put = |key: String, span: Range<usize>| {
        keys.insert(key, t.line(span));
    };
    let simple = [
        ("name", s.name.as_ref().map(Spanned::span)),
        ("character", s.character.as_ref().map(Spanned::span)),
        ("model", s.model.as_ref().map(Spanned::span)),
        ("clips", s.clips.as_ref().map(Spanned::span)),
        ("states", s.states.as_ref().map(Spanned::span)),
        ("once", s.once.as_ref().map(Spanned::span)),
        ("loop", s.looping.as_ref().map(Spanned::span)),
        ("fps", s.fps.as_ref().map(Spanned::span)),
        ("rates", s.rates.as_ref().map(Spanned::span)),
        ("params", s.params.as_ref().map(Spanned::span)),
        ("scale", s.scale.as_ref().map(Spanned::span)),
        ("height", s.height.as_ref().map(Spanned::span)),
        ("tint", s.tint.as_ref().map(Spanned::span)),
        ("foot_lock", s.foot_lock.as_ref().map(Spanned::span)),
        ("skeleton_lod", s.skeleton_lod.as_ref().map(Spanned::span)),
        ("facing", s.facing.as_ref().map(Spanned::span)),
    ];
    for (key, span) in simple {
        if let Some(span) = span {
            put(key.to_string(), span);
        }
    }
    for (key, list) in [("once", &s.once), ("loop", &s.looping)] {
        for n in list.iter().flat_map(|l| l.get_ref()) {
            put(format!("{key}.{}", n.get_ref()), n.span());
        }
    }
    for (k, v) in s.rates.iter().flat_map(|r| r.get_ref()) {
        put(format!("rates.{k}"), v.span());
    }
    for (k, v) in s.params.iter().flat_map(|r| r.get_ref()) {
        put(format!("params.{k}"), v.span());
    }
    KeyLines {
        file: Some(t.file.clone()),
        table: t.line(c.span()),
        keys,
    }
}

/// The entry's size: `height`, `scale` (not both) or the default rule.
fn size(c: &CharacterFileSpec, name: &str, t: &Text) -> Result<Size, BakeError> {
    Ok(match (&c.scale, &c.height) {
        (Some(_), Some(h)) => {
            return Err(t.bad(
                h.span(),
                format!(
                    "character '{name}': give height (metres, uniform) or scale (per axis), not both"
                ),
            ));
        }
        (Some(s), None) => {
            let scale = Vec3::from(s.get_ref().map(Number::get));
            if scale.min_element() <= 0.0 {
                return Err(t.bad(
                    s.span(),
                    format!("character '{name}': scale {scale}: give three positive numbers"),
                ));
            }
            Size::Scale(scale)
        }
        (None, Some(h)) => {
            let h_value = h.get_ref().get();
            if !(h_value > 0.0 && h_value <= MAX_HEIGHT) {
                return Err(t.bad(
                    h.span(),
                    format!(
                        "character '{name}': height = {h_value}: give its standing height in metres, above 0 and at most {MAX_HEIGHT}"
                    ),
                ));
            }
            Size::Height(h_value)
        }
        (None, None) => Size::Default,
    })
}

/// The entry's tint: `[r, g, b]` or `[r, g, b, a]`, each >= 0; white when not given.
fn tint(c: &CharacterFileSpec, name: &str, t: &Text) -> Result<Vec4, BakeError> {
    Ok(match &c.tint {
        None => Vec4::ONE,
        Some(t_spec) => {
            let v: Vec<f32> = t_spec.get_ref().iter().map(|x| x.get()).collect();
            let tint = match v[..] {
                [r, g, b] => Vec4::new(r, g, b, 1.0),
                [r, g, b, a] => Vec4::new(r, g, b, a),
                _ => {
                    return Err(t.bad(
                        t_spec.span(),
                        format!("character '{name}': tint {v:?}: give [r, g, b] or [r, g, b, a]"),
                    ));
                }
            };
            if tint.min_element() < 0.0 {
                return Err(t.bad(
                    t_spec.span(),
                    format!("character '{name}': tint {tint}: components must be numbers >= 0"),
                ));
            }
            tint
        }
    })
}

/// Character `i` of a recipe in folder `dir` whose default rate is `fps`, checked against the
/// `earlier` ones (names are unique).
fn character_spec(
    i: usize,
    entry: &Spanned<CharacterFileSpec>,
    dir: &Path,
    fps: Rate,
    earlier: &[CharacterSpec],
    t: &Text,
) -> Result<CharacterSpec, BakeError> {
    let c = entry.get_ref();
    let lines = key_lines(entry, t);
    if let Some((key, f)) = [("character", &c.character), ("model", &c.model)]
        .into_iter()
        .find_map(|(k, f)| f.as_ref().map(|f| (k, f)))
        .filter(|(_, f)| f.get_ref().trim().is_empty())
    {
        return Err(t.bad(
            f.span(),
            format!("characters[{i}]: {key} is empty: give the file to bake"),
        ));
    }
    let source = match (&c.character, &c.model) {
        (Some(f), None) => Source::Character(dir.join(f.get_ref())),
        (None, Some(m)) => Source::Model(dir.join(m.get_ref())),
        _ => {
            return Err(t.bad(
                entry.span(),
                format!(
                    "characters[{i}]: give exactly one of character = \"FILE.toml\" or model = \"FILE.glb\""
                ),
            ));
        }
    };
    let path = match &source {
        Source::Character(p) | Source::Model(p) => p,
    };
    let name = match &c.name {
        Some(n) if !n.get_ref().trim().is_empty() => n.get_ref().clone(),
        Some(n) => return Err(t.bad(n.span(), format!("characters[{i}]: the name is empty"))),
        None => path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| format!("character{i}")),
    };
    if earlier.iter().any(|o| o.name == name) {
        let span = c.name.as_ref().map_or(entry.span(), Spanned::span);
        return Err(t.bad(
            span,
            format!("characters[{i}]: the name '{name}' is used twice; give each a name = \"...\""),
        ));
    }
    let what = |k: &str| format!("character '{name}': {k}");
    let states = selection(c.states.as_ref(), &what("states"), t)?;
    if matches!(source, Source::Model(_)) && matches!(&states, Selection::Named(l) if !l.is_empty())
    {
        let span = c.states.as_ref().map_or(entry.span(), Spanned::span);
        return Err(t.bad(
            span,
            format!(
                "character '{name}': states need a character file (character = \"FILE.toml\"); a bare model has only clips"
            ),
        ));
    }
    let names = |l: &Option<NameList>| -> Vec<Spanned<String>> {
        l.as_ref().map_or_else(Vec::new, |l| l.get_ref().clone())
    };
    let (once, looping) = (names(&c.once), names(&c.looping));
    if let Some(both) = looping
        .iter()
        .find(|l| once.iter().any(|o| o.get_ref() == l.get_ref()))
    {
        return Err(t.bad(
            both.span(),
            format!(
                "character '{name}': clip '{}' is in both once and loop",
                both.get_ref()
            ),
        ));
    }
    let mut rates = BTreeMap::new();
    for (k, r) in c.rates.iter().flat_map(|r| r.get_ref()) {
        rates.insert(k.clone(), rate(r, &what(&format!("rates.{k}")), t)?);
    }
    let mut params = BTreeMap::new();
    for (k, v) in c.params.iter().flat_map(|p| p.get_ref()) {
        if v.get_ref().is_empty() || v.get_ref().len() > MAX_PARAM_VALUES {
            return Err(t.bad(
                v.span(),
                format!(
                    "character '{name}': params.{k}: give 1 to {MAX_PARAM_VALUES} values (found {})",
                    v.get_ref().len()
                ),
            ));
        }
        params.insert(k.clone(), v.get_ref().iter().map(|x| x.get()).collect());
    }
    let size = size(c, &name, t)?;
    let tint = tint(c, &name, t)?;
    let facing = match c.facing.as_ref().map(|f| (f.get_ref().as_str(), f)) {
        None | Some(("auto", _)) => Facing::Auto,
        Some(("authored", _)) => Facing::Authored,
        Some((f, s)) => {
            return Err(t.bad(
                s.span(),
                format!("character '{name}': facing = '{f}': give \"auto\" or \"authored\""),
            ));
        }
    };
    Ok(CharacterSpec {
        name: name.clone(),
        clips: selection(c.clips.as_ref(), &what("clips"), t)?,
        states: if matches!(source, Source::Model(_)) {
            Selection::Named(Vec::new())
        } else {
            states
        },
        source,
        once: once.into_iter().map(Spanned::into_inner).collect(),
        looping: looping.into_iter().map(Spanned::into_inner).collect(),
        fps: match &c.fps {
            Some(r) => rate(r, &what("fps"), t)?,
            None => fps,
        },
        rates,
        params,
        size,
        tint,
        foot_lock: c.foot_lock.as_ref().is_none_or(|f| *f.get_ref()),
        skeleton_lod: c.skeleton_lod.as_ref().is_none_or(|f| *f.get_ref()),
        facing,
        lines,
    })
}

/// The top-level keys of `spec` that have no effect, as warnings.
fn top_level_warnings(spec: &RecipeFile, recipe: &Recipe, t: &Text) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(b) = &spec.max_precision_error
        && recipe.precision == PrecisionChoice::F32
    {
        out.push(t.warning(
            b.span(),
            "max_precision_error has no effect: precision = \"f32\" writes exact texels, and no f16 error is measured",
        ));
    }
    let auto = |r: &Rate| *r == Rate::Auto;
    let any_auto = recipe
        .characters
        .iter()
        .any(|c| auto(&c.fps) || c.rates.values().any(auto));
    if let Some(b) = &spec.max_interpolation_error
        && !any_auto
    {
        out.push(t.warning(
            b.span(),
            "max_interpolation_error has no effect: it is the budget of fps = \"auto\", and no rate here is \"auto\"",
        ));
    }
    if let Some(e) = &spec.lod_max_error
        && recipe.lods.len() < 2
    {
        out.push(t.warning(
            e.span(),
            "lod_max_error has no effect: lods asks for no simplified level",
        ));
    }
    if let Some(f) = &spec.fps
        && recipe.characters.iter().all(|c| c.lines.has("fps"))
    {
        out.push(t.warning(
            f.span(),
            "fps has no effect: every [[characters]] entry gives its own fps",
        ));
    }
    out
}

/// Parses recipe `text` as if read from `path` (see [`Recipe::parse`]).
pub(super) fn parse(text: &str, path: &Path) -> Result<Recipe, BakeError> {
    let t = Text {
        file: path.display().to_string(),
        text,
    };
    let spec: RecipeFile = toml::from_str(text).map_err(|e| {
        let (line, what) = located(text, &e);
        BakeError::Recipe {
            at: RecipeAt {
                file: t.file.clone(),
                line: Some(line),
            },
            what,
        }
    })?;
    let dir = path.parent().unwrap_or(Path::new("."));
    if spec.output.get_ref().trim().is_empty() {
        return Err(t.bad(
            spec.output.span(),
            "output is empty: give the .throng file to write",
        ));
    }
    let precision = match spec.precision.as_ref().map(|p| (p.get_ref().as_str(), p)) {
        None | Some(("auto", _)) => PrecisionChoice::Auto,
        Some(("f32", _)) => PrecisionChoice::F32,
        Some(("f16", _)) => PrecisionChoice::F16,
        Some((p, s)) => {
            return Err(t.bad(
                s.span(),
                format!("precision = '{p}': give \"f32\", \"f16\" or \"auto\""),
            ));
        }
    };
    let fps = match &spec.fps {
        Some(r) => rate(r, "fps", &t)?,
        None => Rate::Fixed(DEFAULT_FPS),
    };
    let lods: Vec<f32> = spec.lods.as_ref().map_or_else(
        || DEFAULT_LODS.to_vec(),
        |l| l.get_ref().iter().map(|r| r.get()).collect(),
    );
    if lods.first() != Some(&1.0)
        || lods.windows(2).any(|w| w[1] >= w[0])
        || lods.iter().any(|r| !(*r > 0.0 && *r <= 1.0))
    {
        return Err(t.bad(
            spec.lods.as_ref().map_or(0..0, Spanned::span),
            format!(
                "lods = {lods:?}: give triangle ratios in (0, 1], starting at 1.0 and decreasing, e.g. [1.0, 0.5, 0.2]"
            ),
        ));
    }
    let lod_max_error = match &spec.lod_max_error {
        None => crate::mesh::LodOptions::default().max_error,
        Some(e) if (0.0..=1.0).contains(&e.get_ref().get()) => e.get_ref().get(),
        Some(e) => {
            return Err(t.bad(
                e.span(),
                format!(
                    "lod_max_error = {}: give a fraction of the mesh's extent from 0 to 1",
                    e.get_ref().get()
                ),
            ));
        }
    };
    if spec.characters.is_empty() {
        return Err(BakeError::Recipe {
            at: RecipeAt {
                file: t.file.clone(),
                line: None,
            },
            what: "no [[characters]]: add at least one, e.g. [[characters]] character = \"../assets/mannequin.toml\"".into(),
        });
    }
    let mut characters: Vec<CharacterSpec> = Vec::new();
    for (i, c) in spec.characters.iter().enumerate() {
        let spec = character_spec(i, c, dir, fps, &characters, &t)?;
        characters.push(spec);
    }
    let mut keys = BTreeMap::new();
    let top = [
        ("output", Some(spec.output.span())),
        ("fps", spec.fps.as_ref().map(Spanned::span)),
        ("precision", spec.precision.as_ref().map(Spanned::span)),
        (
            "max_precision_error",
            spec.max_precision_error.as_ref().map(Spanned::span),
        ),
        (
            "max_interpolation_error",
            spec.max_interpolation_error.as_ref().map(Spanned::span),
        ),
        ("lods", spec.lods.as_ref().map(Spanned::span)),
        (
            "lod_max_error",
            spec.lod_max_error.as_ref().map(Spanned::span),
        ),
    ];
    for (key, span) in top {
        if let Some(span) = span {
            keys.insert(key.to_string(), t.line(span));
        }
    }
    if let Some(i) = &spec.impostors {
        keys.insert("impostors".to_string(), t.line(i.span()));
        for (key, span) in i.get_ref().spans() {
            keys.insert(key.to_string(), t.line(span));
        }
    }
    let impostors = super::impostors::settings(
        spec.impostors.as_ref().map(Spanned::get_ref),
        &|span, what| t.bad(span, what),
    )?;
    let mut recipe = Recipe {
        path: Some(path.to_path_buf()),
        text: text.to_string(),
        output: dir.join(spec.output.get_ref()),
        precision,
        precision_budget: budget(
            spec.max_precision_error.as_ref(),
            DEFAULT_PRECISION_BUDGET,
            "max_precision_error",
            &t,
        )?,
        interpolation_budget: budget(
            spec.max_interpolation_error.as_ref(),
            DEFAULT_INTERPOLATION_BUDGET,
            "max_interpolation_error",
            &t,
        )?,
        lods,
        lod_max_error,
        impostors,
        characters,
        lines: KeyLines {
            file: Some(t.file.clone()),
            table: 1,
            keys,
        },
        warnings: Vec::new(),
    };
    recipe.warnings = top_level_warnings(&spec, &recipe, &t);
    Ok(recipe)
}
