//! Bake recipes: which characters, clips and states go into one `.throng` file, at which frame
//! rates and precision, with which LOD levels, written where. A TOML file (`bake/*.toml`,
//! described in docs/BAKING.md) or, for `throng bake model.glb`, the defaults for a bare model.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use glam::{Vec3, Vec4};
use serde::Deserialize;

use super::error::BakeError;

/// Frame rate used when a recipe names none, frames per second.
pub const DEFAULT_FPS: f32 = 30.0;
/// Default LOD triangle ratios.
pub const DEFAULT_LODS: [f32; 3] = [1.0, 0.5, 0.2];
/// Default budget for the skinned-vertex error of f16 texels, as a fraction of the character's
/// height: 0.1% is 1.8 mm on a 1.8 m character, under a pixel of a 1080-line screen with a 60°
/// field of view for anything more than 2 m from the camera. f16 keeps 11 significant bits, so
/// the mannequin measures about 0.07%.
pub const DEFAULT_PRECISION_BUDGET: f32 = 0.001;
/// Default budget for the skinned-vertex error of linear interpolation between baked frames,
/// as a fraction of character height, used by `fps = "auto"`: 0.5% is 9 mm on a 1.8 m
/// character.
pub const DEFAULT_INTERPOLATION_BUDGET: f32 = 0.005;
/// The rates `fps = "auto"` tries, lowest first.
pub const AUTO_RATES: [f32; 10] = [5.0, 10.0, 15.0, 20.0, 24.0, 30.0, 40.0, 60.0, 90.0, 120.0];
/// Most animations a state may be baked into (one per parameter value).
pub const MAX_PARAM_VALUES: usize = 64;
/// The largest standing height a recipe may ask for, metres: anything taller is a mistake in
/// units (a height in centimetres or millimetres), not a character.
pub const MAX_HEIGHT: f32 = 1000.0;

/// A frame rate: fixed, or the lowest of [`AUTO_RATES`] that keeps the interpolation error
/// within the budget.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Rate {
    /// Frames per second (rounded so that frames fit the animation exactly).
    Fixed(f32),
    /// Chosen per animation.
    Auto,
}

/// Texel precision requested by a recipe.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PrecisionChoice {
    /// 32-bit floats: exact.
    F32,
    /// 16-bit floats; refused when the error exceeds the budget, unless forced.
    F16,
    /// f16 if every animation fits the budget, f32 otherwise.
    Auto,
}

/// Where a character comes from.
#[derive(Clone, Debug, PartialEq)]
pub enum Source {
    /// A character file (docs/CHARACTER.md): clips, states, IK, root motion, events.
    Character(PathBuf),
    /// A bare glTF model: its clips, as authored.
    Model(PathBuf),
}

/// Which clips or states to bake.
#[derive(Clone, Debug, PartialEq)]
pub enum Selection {
    /// Every one.
    All,
    /// These, by name.
    Named(Vec<String>),
}

/// How a character is sized: the factor every length of its bake (texels, bounds, root
/// motion, LOD errors, height, speeds) is multiplied by, so that the bake is in metres.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Size {
    /// Neither `height` nor `scale`: as authored, unless its standing height reads as
    /// centimetres (see [`Size::factor`]).
    Default,
    /// `scale = [x, y, z]`: these factors along model x, y, z, each > 0 (proportions).
    Scale(Vec3),
    /// `height = METRES`: a uniform factor that makes the standing height this many metres,
    /// in (0, [`MAX_HEIGHT`]].
    Height(f32),
}

/// What [`Size::Default`] did with a character, for the bake report.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum DefaultRule {
    /// The standing height is in 0.3–4 units: read as metres, baked as authored.
    Metres,
    /// The standing height is in 30–400 units: read as centimetres, scaled by 0.01.
    Centimetres,
    /// Neither: baked as authored, which is probably not its size in metres.
    Unknown,
}

/// Standing heights, in units, that [`Size::Default`] reads as metres (no warning).
pub const METRES_RANGE: (f32, f32) = (0.3, 4.0);
/// Standing heights, in units, that [`Size::Default`] reads as centimetres (scaled by 0.01).
pub const CENTIMETRES_RANGE: (f32, f32) = (30.0, 400.0);

impl Size {
    /// The factors along model x, y, z for a character whose standing height as authored is
    /// `standing` units (the y extent of its rest pose, see docs/BAKING.md), and for
    /// [`Size::Default`] the rule that chose them:
    /// - `Scale(s)`: `s`;
    /// - `Height(h)`: `h / standing` on every axis;
    /// - `Default`: 0.01 on every axis when `standing` is in [`CENTIMETRES_RANGE`], else 1.
    pub fn factor(&self, standing: f32) -> (Vec3, Option<DefaultRule>) {
        let within = |(lo, hi): (f32, f32)| (lo..=hi).contains(&standing);
        match *self {
            Size::Scale(s) => (s, None),
            Size::Height(h) => (Vec3::splat(h / standing), None),
            Size::Default if within(CENTIMETRES_RANGE) => {
                (Vec3::splat(0.01), Some(DefaultRule::Centimetres))
            }
            Size::Default if within(METRES_RANGE) => (Vec3::ONE, Some(DefaultRule::Metres)),
            Size::Default => (Vec3::ONE, Some(DefaultRule::Unknown)),
        }
    }
}

/// One character of a recipe.
#[derive(Clone, Debug, PartialEq)]
pub struct CharacterSpec {
    /// Name in the baked file (unique within the recipe).
    pub name: String,
    /// Where it comes from (resolved path).
    pub source: Source,
    /// Clips to bake.
    pub clips: Selection,
    /// States to bake (none for a bare model).
    pub states: Selection,
    /// Clips that play once: baked with their end frame, not wrapped. Clips in neither `once`
    /// nor `looping` loop when their last pose matches their first.
    pub once: Vec<String>,
    /// Clips that loop whatever their ends.
    pub looping: Vec<String>,
    /// Frame rate for its animations.
    pub fps: Rate,
    /// Frame rates of single clips or states by name.
    pub rates: BTreeMap<String, Rate>,
    /// Values at which states blending on a parameter are baked, by parameter name (default:
    /// the positions of the state's Blend1D children).
    pub params: BTreeMap<String, Vec<f32>>,
    /// Its size: the recipe's `height` or `scale`, or the default rule. Applied to the posed
    /// character (after IK).
    pub size: Size,
    /// Multiplies every material's base colour (linear RGBA).
    pub tint: Vec4,
    /// Whether cycles whose ground speed is measured from the feet are baked with their
    /// planted feet locked to it (docs/BAKING.md, "Foot locking"; default true).
    pub foot_lock: bool,
}

/// A validated recipe.
#[derive(Clone, Debug, PartialEq)]
pub struct Recipe {
    /// The recipe file, if there is one.
    pub path: Option<PathBuf>,
    /// Its text (for a bare model: the equivalent recipe), stored in the file's metadata.
    pub text: String,
    /// Output file (resolved).
    pub output: PathBuf,
    /// Texel precision.
    pub precision: PrecisionChoice,
    /// f16 error budget, fraction of character height.
    pub precision_budget: f32,
    /// Interpolation error budget for `fps = "auto"`, fraction of character height.
    pub interpolation_budget: f32,
    /// LOD triangle ratios, strictly decreasing, the first 1.
    pub lods: Vec<f32>,
    /// Largest simplification error, relative to a mesh's extent (see [`crate::mesh::simplify`]).
    pub lod_max_error: f32,
    /// Characters, at least one.
    pub characters: Vec<CharacterSpec>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum RateFile {
    Number(f32),
    Word(String),
}

#[derive(Deserialize)]
#[serde(untagged)]
enum SelectionFile {
    Word(String),
    List(Vec<String>),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RecipeFile {
    output: String,
    #[serde(default)]
    fps: Option<RateFile>,
    #[serde(default)]
    precision: Option<String>,
    #[serde(default)]
    max_precision_error: Option<f32>,
    #[serde(default)]
    max_interpolation_error: Option<f32>,
    #[serde(default)]
    lods: Option<Vec<f32>>,
    #[serde(default)]
    lod_max_error: Option<f32>,
    #[serde(default)]
    characters: Vec<CharacterFileSpec>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CharacterFileSpec {
    name: Option<String>,
    character: Option<String>,
    model: Option<String>,
    #[serde(default)]
    clips: Option<SelectionFile>,
    #[serde(default)]
    states: Option<SelectionFile>,
    #[serde(default)]
    once: Vec<String>,
    #[serde(default, rename = "loop")]
    looping: Vec<String>,
    #[serde(default)]
    fps: Option<RateFile>,
    #[serde(default)]
    rates: BTreeMap<String, RateFile>,
    #[serde(default)]
    params: BTreeMap<String, Vec<f32>>,
    #[serde(default)]
    scale: Option<[f32; 3]>,
    #[serde(default)]
    height: Option<f32>,
    #[serde(default)]
    tint: Option<Vec<f32>>,
    #[serde(default)]
    foot_lock: Option<bool>,
}

fn rate(r: &RateFile, what: &str, bad: &dyn Fn(String) -> BakeError) -> Result<Rate, BakeError> {
    match r {
        RateFile::Number(f) if f.is_finite() && *f > 0.0 && *f <= 1000.0 => Ok(Rate::Fixed(*f)),
        RateFile::Word(w) if w == "auto" => Ok(Rate::Auto),
        RateFile::Number(f) => Err(bad(format!(
            "{what}: {f} frames per second; give a number from 0 to 1000, or \"auto\""
        ))),
        RateFile::Word(w) => Err(bad(format!(
            "{what}: '{w}' is not a frame rate; give a number, or \"auto\""
        ))),
    }
}

fn selection(
    s: &Option<SelectionFile>,
    what: &str,
    bad: &dyn Fn(String) -> BakeError,
) -> Result<Selection, BakeError> {
    match s {
        None => Ok(Selection::All),
        Some(SelectionFile::Word(w)) if w == "all" => Ok(Selection::All),
        Some(SelectionFile::Word(w)) if w == "none" => Ok(Selection::Named(Vec::new())),
        Some(SelectionFile::Word(w)) => Err(bad(format!(
            "{what} = '{w}': give \"all\", \"none\" or a list of names"
        ))),
        Some(SelectionFile::List(l)) => Ok(Selection::Named(l.clone())),
    }
}

fn budget(
    v: Option<f32>,
    default: f32,
    what: &str,
    bad: &dyn Fn(String) -> BakeError,
) -> Result<f32, BakeError> {
    match v {
        None => Ok(default),
        Some(b) if b.is_finite() && b > 0.0 && b < 1.0 => Ok(b),
        Some(b) => Err(bad(format!(
            "{what} = {b}: give a fraction of the character's height between 0 and 1 (e.g. {default})"
        ))),
    }
}

/// Character `i` of a recipe in folder `dir` whose default rate is `fps`, checked against the
/// `earlier` ones (names are unique).
fn character_spec(
    i: usize,
    c: &CharacterFileSpec,
    dir: &Path,
    fps: Rate,
    earlier: &[CharacterSpec],
    bad: &dyn Fn(String) -> BakeError,
) -> Result<CharacterSpec, BakeError> {
    let source = match (&c.character, &c.model) {
        (Some(f), None) => Source::Character(dir.join(f)),
        (None, Some(m)) => Source::Model(dir.join(m)),
        _ => {
            return Err(bad(format!(
                "characters[{i}]: give exactly one of character = \"FILE.toml\" or model = \"FILE.glb\""
            )));
        }
    };
    let path = match &source {
        Source::Character(p) | Source::Model(p) => p,
    };
    let name = match &c.name {
        Some(n) if !n.trim().is_empty() => n.clone(),
        Some(_) => return Err(bad(format!("characters[{i}]: the name is empty"))),
        None => path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| format!("character{i}")),
    };
    if earlier.iter().any(|o| o.name == name) {
        return Err(bad(format!(
            "characters[{i}]: the name '{name}' is used twice; give each a name = \"...\""
        )));
    }
    let what = |k: &str| format!("character '{name}': {k}");
    let states = selection(&c.states, &what("states"), bad)?;
    if matches!(source, Source::Model(_)) && matches!(&states, Selection::Named(l) if !l.is_empty())
    {
        return Err(bad(format!(
            "character '{name}': states need a character file (character = \"FILE.toml\"); a bare model has only clips"
        )));
    }
    if let Some(both) = c.once.iter().find(|o| c.looping.contains(o)) {
        return Err(bad(format!(
            "character '{name}': clip '{both}' is in both once and loop"
        )));
    }
    let mut rates = BTreeMap::new();
    for (k, r) in &c.rates {
        rates.insert(k.clone(), rate(r, &what(&format!("rates.{k}")), bad)?);
    }
    for (k, v) in &c.params {
        if v.is_empty() || v.len() > MAX_PARAM_VALUES || v.iter().any(|x| !x.is_finite()) {
            return Err(bad(format!(
                "character '{name}': params.{k}: give 1 to {MAX_PARAM_VALUES} finite values"
            )));
        }
    }
    let size = match (c.scale, c.height) {
        (Some(_), Some(_)) => {
            return Err(bad(format!(
                "character '{name}': give height (metres, uniform) or scale (per axis), not both"
            )));
        }
        (Some(s), None) => {
            let scale = Vec3::from(s);
            if !(scale.is_finite() && scale.min_element() > 0.0) {
                return Err(bad(format!(
                    "character '{name}': scale {scale}: give three positive numbers"
                )));
            }
            Size::Scale(scale)
        }
        (None, Some(h)) => {
            if !(h.is_finite() && h > 0.0 && h <= MAX_HEIGHT) {
                return Err(bad(format!(
                    "character '{name}': height = {h}: give its standing height in metres, above 0 and at most {MAX_HEIGHT}"
                )));
            }
            Size::Height(h)
        }
        (None, None) => Size::Default,
    };
    let tint = match c.tint.as_deref() {
        None => Vec4::ONE,
        Some([r, g, b]) => Vec4::new(*r, *g, *b, 1.0),
        Some([r, g, b, a]) => Vec4::new(*r, *g, *b, *a),
        Some(t) => {
            return Err(bad(format!(
                "character '{name}': tint {t:?}: give [r, g, b] or [r, g, b, a]"
            )));
        }
    };
    if !(tint.is_finite() && tint.min_element() >= 0.0) {
        return Err(bad(format!(
            "character '{name}': tint {tint}: components must be numbers >= 0"
        )));
    }
    Ok(CharacterSpec {
        name: name.clone(),
        clips: selection(&c.clips, &what("clips"), bad)?,
        states: if matches!(source, Source::Model(_)) {
            Selection::Named(Vec::new())
        } else {
            states
        },
        source,
        once: c.once.clone(),
        looping: c.looping.clone(),
        fps: match &c.fps {
            Some(r) => rate(r, &what("fps"), bad)?,
            None => fps,
        },
        rates,
        params: c.params.clone(),
        size,
        tint,
        foot_lock: c.foot_lock.unwrap_or(true),
    })
}

impl Recipe {
    /// Reads and validates the recipe at `path`. Relative paths in it are resolved against its
    /// folder.
    ///
    /// # Errors
    /// [`BakeError::Recipe`] naming the file (and the line, for syntax errors) and the problem.
    pub fn load(path: &Path) -> Result<Self, BakeError> {
        let text = std::fs::read_to_string(path).map_err(|e| BakeError::Recipe {
            file: path.display().to_string(),
            what: format!("cannot read: {e}"),
        })?;
        Self::parse(&text, path)
    }

    /// Parses recipe `text` as if read from `path`.
    ///
    /// # Errors
    /// As [`Recipe::load`].
    pub fn parse(text: &str, path: &Path) -> Result<Self, BakeError> {
        let file = path.display().to_string();
        let bad = |what: String| BakeError::Recipe {
            file: file.clone(),
            what,
        };
        let spec: RecipeFile = toml::from_str(text).map_err(|e| {
            let line = e
                .span()
                .map(|s| text[..s.start.min(text.len())].matches('\n').count() + 1);
            BakeError::Recipe {
                file: match line {
                    Some(l) => format!("{file}:{l}"),
                    None => file.clone(),
                },
                what: e.message().to_string(),
            }
        })?;
        let dir = path.parent().unwrap_or(Path::new("."));
        let precision = match spec.precision.as_deref() {
            None | Some("auto") => PrecisionChoice::Auto,
            Some("f32") => PrecisionChoice::F32,
            Some("f16") => PrecisionChoice::F16,
            Some(p) => {
                return Err(bad(format!(
                    "precision = '{p}': give \"f32\", \"f16\" or \"auto\""
                )));
            }
        };
        let fps = match &spec.fps {
            Some(r) => rate(r, "fps", &bad)?,
            None => Rate::Fixed(DEFAULT_FPS),
        };
        let lods = spec.lods.unwrap_or_else(|| DEFAULT_LODS.to_vec());
        if lods.first() != Some(&1.0)
            || lods.windows(2).any(|w| w[1] >= w[0] || w[1].is_nan())
            || lods.iter().any(|r| !(*r > 0.0 && *r <= 1.0))
        {
            return Err(bad(format!(
                "lods = {lods:?}: give triangle ratios in (0, 1], starting at 1.0 and decreasing, e.g. [1.0, 0.5, 0.2]"
            )));
        }
        let lod_max_error = match spec.lod_max_error {
            None => crate::mesh::LodOptions::default().max_error,
            Some(e) if (0.0..=1.0).contains(&e) => e,
            Some(e) => {
                return Err(bad(format!(
                    "lod_max_error = {e}: give a fraction of the mesh's extent from 0 to 1"
                )));
            }
        };
        if spec.characters.is_empty() {
            return Err(bad(
                "no [[characters]]: add at least one, e.g. [[characters]] character = \"../assets/mannequin.toml\"".into(),
            ));
        }
        let mut characters: Vec<CharacterSpec> = Vec::new();
        for (i, c) in spec.characters.iter().enumerate() {
            let spec = character_spec(i, c, dir, fps, &characters, &bad)?;
            characters.push(spec);
        }
        Ok(Self {
            path: Some(path.to_path_buf()),
            text: text.to_string(),
            output: dir.join(&spec.output),
            precision,
            precision_budget: budget(
                spec.max_precision_error,
                DEFAULT_PRECISION_BUDGET,
                "max_precision_error",
                &bad,
            )?,
            interpolation_budget: budget(
                spec.max_interpolation_error,
                DEFAULT_INTERPOLATION_BUDGET,
                "max_interpolation_error",
                &bad,
            )?,
            lods,
            lod_max_error,
            characters,
        })
    }

    /// The recipe for baking a bare glTF model with the defaults: every clip at
    /// [`DEFAULT_FPS`], automatic precision, the default LODs, sized by the default rule
    /// ([`Size::Default`]), written to `output`.
    pub fn for_model(model: &Path, output: &Path) -> Self {
        let name = model
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "model".into());
        let text = format!(
            "# The defaults for a bare model (throng bake {}).\noutput = {:?}\n\n[[characters]]\nname = {:?}\nmodel = {:?}\n",
            model.display(),
            output.display().to_string(),
            name,
            model.display().to_string()
        );
        Self {
            path: None,
            text,
            output: output.to_path_buf(),
            precision: PrecisionChoice::Auto,
            precision_budget: DEFAULT_PRECISION_BUDGET,
            interpolation_budget: DEFAULT_INTERPOLATION_BUDGET,
            lods: DEFAULT_LODS.to_vec(),
            lod_max_error: crate::mesh::LodOptions::default().max_error,
            characters: vec![CharacterSpec {
                name,
                source: Source::Model(model.to_path_buf()),
                clips: Selection::All,
                states: Selection::Named(Vec::new()),
                once: Vec::new(),
                looping: Vec::new(),
                fps: Rate::Fixed(DEFAULT_FPS),
                rates: BTreeMap::new(),
                params: BTreeMap::new(),
                size: Size::Default,
                tint: Vec4::ONE,
                foot_lock: true,
            }],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Recipe, String> {
        Recipe::parse(text, Path::new("bake/r.toml")).map_err(|e| e.to_string())
    }

    #[test]
    fn a_minimal_recipe_gets_the_defaults() {
        let r = parse(
            "output = \"x.throng\"\n[[characters]]\ncharacter = \"../assets/mannequin.toml\"\n",
        )
        .unwrap();
        assert_eq!(r.output, Path::new("bake/x.throng"));
        assert_eq!(r.precision, PrecisionChoice::Auto);
        assert_eq!(r.lods, DEFAULT_LODS);
        let c = &r.characters[0];
        assert_eq!(c.name, "mannequin");
        assert_eq!(
            c.source,
            Source::Character("bake/../assets/mannequin.toml".into())
        );
        assert_eq!(
            (c.clips.clone(), c.states.clone()),
            (Selection::All, Selection::All)
        );
        assert_eq!(c.fps, Rate::Fixed(DEFAULT_FPS));
    }

    #[test]
    fn mistakes_are_named() {
        let base = "output = \"x.throng\"\n";
        let cases = [
            (
                "fps = -3\n[[characters]]\nmodel = \"a.glb\"\n",
                "fps: -3 frames per second",
            ),
            (
                "fps = \"fast\"\n[[characters]]\nmodel = \"a.glb\"\n",
                "'fast' is not a frame rate",
            ),
            (
                "precision = \"f8\"\n[[characters]]\nmodel = \"a.glb\"\n",
                "precision = 'f8'",
            ),
            (
                "lods = [0.5, 1.0]\n[[characters]]\nmodel = \"a.glb\"\n",
                "starting at 1.0 and decreasing",
            ),
            ("", "no [[characters]]"),
            (
                "[[characters]]\nmodel = \"a.glb\"\ncharacter = \"a.toml\"\n",
                "exactly one of",
            ),
            (
                "[[characters]]\nmodel = \"a.glb\"\n[[characters]]\nmodel = \"b/a.glb\"\n",
                "'a' is used twice",
            ),
            (
                "[[characters]]\nmodel = \"a.glb\"\nstates = [\"run\"]\n",
                "states need a character file",
            ),
            (
                "[[characters]]\nmodel = \"a.glb\"\nscale = [1, 0, 1]\n",
                "three positive numbers",
            ),
            (
                "[[characters]]\nmodel = \"a.glb\"\ntint = [1, 0]\n",
                "give [r, g, b]",
            ),
            (
                "[[characters]]\nmodel = \"a.glb\"\ncolour = 1\n",
                "bake/r.toml:4: unknown field `colour`",
            ),
            (
                "max_precision_error = 2\n[[characters]]\nmodel = \"a.glb\"\n",
                "max_precision_error = 2",
            ),
            (
                "[[characters]]\nmodel = \"a.glb\"\nheight = 1.8\nscale = [1, 1, 1]\n",
                "character 'a': give height (metres, uniform) or scale (per axis), not both",
            ),
            (
                "[[characters]]\nmodel = \"a.glb\"\nheight = 0\n",
                "character 'a': height = 0: give its standing height in metres",
            ),
            (
                "[[characters]]\nmodel = \"a.glb\"\nheight = -1.8\n",
                "character 'a': height = -1.8: give",
            ),
            (
                "[[characters]]\nmodel = \"a.glb\"\nheight = nan\n",
                "character 'a': height = NaN: give",
            ),
            (
                "[[characters]]\nmodel = \"a.glb\"\nheight = inf\n",
                "character 'a': height = inf: give",
            ),
            (
                "[[characters]]\nmodel = \"a.glb\"\nheight = 1800\n",
                "character 'a': height = 1800: give its standing height in metres, above 0 and at most 1000",
            ),
            (
                "[[characters]]\nmodel = \"a.glb\"\nheight = \"tall\"\n",
                "bake/r.toml:4: invalid type",
            ),
        ];
        for (text, expected) in cases {
            let e = parse(&format!("{base}{text}")).unwrap_err();
            assert!(e.contains(expected), "{text:?}: '{e}' lacks '{expected}'");
            assert!(e.starts_with("bake/r.toml"), "{e}");
        }
    }

    #[test]
    fn height_and_scale_choose_the_size() {
        let with = |keys: &str| {
            parse(&format!(
                "output = \"x.throng\"\n[[characters]]\nmodel = \"a.glb\"\n{keys}"
            ))
            .unwrap()
            .characters[0]
                .size
        };
        assert_eq!(with(""), Size::Default);
        assert_eq!(with("height = 1.8\n"), Size::Height(1.8));
        assert_eq!(with("height = 1000\n"), Size::Height(MAX_HEIGHT));
        assert_eq!(
            with("scale = [0.5, 1, 2]\n"),
            Size::Scale(Vec3::new(0.5, 1.0, 2.0))
        );
        let bare = Recipe::for_model(Path::new("m/Fox.glb"), Path::new("Fox.throng"));
        assert_eq!(bare.characters[0].size, Size::Default);
    }

    #[test]
    fn the_default_rule_reads_centimetres_and_leaves_the_rest() {
        // (standing height as authored, factor, rule): the ends of both ranges are inside them.
        let cases = [
            (1.5, 1.0, DefaultRule::Metres),
            (0.3, 1.0, DefaultRule::Metres),
            (4.0, 1.0, DefaultRule::Metres),
            (4.6, 1.0, DefaultRule::Unknown),
            (0.2, 1.0, DefaultRule::Unknown),
            (29.9, 1.0, DefaultRule::Unknown),
            (30.0, 0.01, DefaultRule::Centimetres),
            (79.0, 0.01, DefaultRule::Centimetres),
            (400.0, 0.01, DefaultRule::Centimetres),
            (1800.0, 1.0, DefaultRule::Unknown),
        ];
        for (standing, factor, rule) in cases {
            assert_eq!(
                Size::Default.factor(standing),
                (Vec3::splat(factor), Some(rule)),
                "{standing}"
            );
        }
        // An explicit size is used as given, and no rule is reported.
        assert_eq!(Size::Height(1.8).factor(0.9), (Vec3::splat(2.0), None));
        let s = Vec3::new(1.0, 2.0, 3.0);
        assert_eq!(Size::Scale(s).factor(79.0), (s, None));
    }
}
