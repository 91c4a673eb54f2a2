//! Bake recipes: which characters, clips and states go into one `.throng` file, at which frame
//! rates and precision, with which LOD levels, written where. A TOML file (`bake/*.toml`,
//! described in docs/BAKING.md) or, for `throng bake model.glb`, the defaults for a bare model.
//!
//! A recipe keeps the line of every key it was given ([`KeyLines`]), so that a mistake found
//! later, once its characters are loaded (a clip the model lacks, an f16 budget exceeded), is
//! reported at the line that asked for it, and keys that turn out to have no effect are named
//! in the bake report.
//!
//! A recipe can also be made in code ([`Recipe::new`], [`CharacterSpec::character`],
//! [`CharacterSpec::model`], then [`Recipe::checked`]): it is checked as the TOML it stands for.

mod code;
mod file;
mod impostors;
#[cfg(test)]
mod wrong_types;

pub use code::IN_CODE;
pub use impostors::{
    DEFAULT_CELL, DEFAULT_IMPOSTOR_FPS, DEFAULT_MAX_FRAMES, DEFAULT_MIN_FRAMES, DEFAULT_VIEWS,
    ImpostorSettings,
};

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use glam::{Vec3, Vec4};

use super::error::{BakeError, RecipeAt};

/// Frame rate used when a recipe names none, frames per second.
pub const DEFAULT_FPS: f32 = 30.0;
/// Default LOD triangle ratios.
pub const DEFAULT_LODS: [f32; 5] = [1.0, 0.5, 0.2, 0.08, 0.03];
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

/// How a recipe's character faces in the bake (docs/BAKING.md, "Facing").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Facing {
    /// Turned about +y by quarter turns so that its feet walk along +z, the crowd's forward,
    /// when it has no root motion and walks along another model axis (the default).
    #[default]
    Auto,
    /// Kept as authored: never turned (the file records 0 quarter turns).
    Authored,
}

/// Where a character comes from.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
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

/// The lines of one table's keys in its recipe (the top level, or one `[[characters]]` entry),
/// so that what is found wrong later (a clip the model lacks, an f16 budget exceeded) can name
/// the line that asked for it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KeyLines {
    /// The recipe file; `None` for a recipe made in code (a bare model's), whose messages name
    /// no file.
    pub file: Option<String>,
    /// The table's own line: its `[[characters]]` header, or 1 for the top level.
    pub table: usize,
    /// The line of each key given: `clips`, `rates.run`, `params.speed`, and for each name in
    /// `once` and `loop`, `once.NAME` and `loop.NAME`.
    pub keys: BTreeMap<String, usize>,
}

impl KeyLines {
    /// Where `key` was given, else the table's line; `None` without a recipe file.
    pub fn at(&self, key: &str) -> Option<RecipeAt> {
        Some(RecipeAt {
            file: self.file.clone()?,
            line: Some(self.keys.get(key).copied().unwrap_or(self.table)),
        })
    }

    /// Whether the table gives `key`.
    pub fn has(&self, key: &str) -> bool {
        self.keys.contains_key(key)
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
    /// Whether the baker may turn it to walk along +z (`facing = "auto"`, the default) or
    /// keeps its authored facing (`"authored"`).
    pub facing: Facing,
    /// Whether its LOD levels past the first skin with fewer joints: small joints collapsed
    /// onto their ancestors within each level's simplification error (docs/BAKING.md,
    /// "Skeleton LOD"; `skeleton_lod`, default true).
    pub skeleton_lod: bool,
    /// Where its keys are in the recipe.
    pub lines: KeyLines,
}

impl CharacterSpec {
    /// A mistake in what this entry asks for, given at its `key` (`what` names the key): a
    /// [`BakeError::Recipe`] at that line of the recipe, or, for a recipe made in code, a
    /// [`BakeError::Character`].
    pub fn error(&self, key: &str, what: impl Into<String>) -> BakeError {
        let what = what.into();
        match self.lines.at(key) {
            Some(at) => BakeError::Recipe {
                at,
                what: format!("character '{}': {what}", self.name),
            },
            None => BakeError::character(&self.name, what),
        }
    }

    /// The key that chose the frame rate of clip or state `name`: `rates.NAME`, `fps`, or, when
    /// the entry gives neither, `None` (the recipe's own `fps` or the default).
    pub fn rate_key(&self, name: &str) -> Option<String> {
        let rate = format!("rates.{name}");
        if self.lines.has(&rate) {
            Some(rate)
        } else {
            self.lines.has("fps").then(|| "fps".to_string())
        }
    }
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
    /// The animated impostor atlas (`[impostors]`; format 1.4).
    pub impostors: ImpostorSettings,
    /// Characters, at least one.
    pub characters: Vec<CharacterSpec>,
    /// Where its top-level keys are.
    pub lines: KeyLines,
    /// Its top-level keys that have no effect (`max_precision_error` with `precision = "f32"`,
    /// ...), each as `FILE:LINE: KEY: why`, for the bake report. The keys of `[[characters]]`
    /// entries that have none are found when the characters are loaded.
    pub warnings: Vec<String>,
}

impl Recipe {
    /// `error`, said to come from the recipe's top-level `key` (the key that asked for what
    /// failed, e.g. `precision`), when the recipe has a file.
    pub fn locate(&self, key: &str, error: BakeError) -> BakeError {
        match self.lines.at(key) {
            Some(at) => BakeError::InRecipe {
                at,
                key: key.to_string(),
                error: Box::new(error),
            },
            None => error,
        }
    }
}

impl Recipe {
    /// Reads and validates the recipe at `path`. Relative paths in it are resolved against its
    /// folder.
    ///
    /// # Errors
    /// [`BakeError::Recipe`] naming the file and line of the key at fault, and the problem.
    pub fn load(path: &Path) -> Result<Self, BakeError> {
        let text = crate::input::read_text(path).map_err(|e| BakeError::Recipe {
            at: RecipeAt {
                file: path.display().to_string(),
                line: None,
            },
            what: format!("cannot read: {e}"),
        })?;
        Self::parse(&text, path)
    }

    /// Parses recipe `text` as if read from `path`.
    ///
    /// # Errors
    /// As [`Recipe::load`].
    pub fn parse(text: &str, path: &Path) -> Result<Self, BakeError> {
        file::parse(text, path)
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
            text,
            ..Self::new(
                output,
                vec![CharacterSpec {
                    name,
                    ..CharacterSpec::model(model)
                }],
            )
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
                "bake/r.toml:4: unknown key `colour` in `characters`, expected one of `name`",
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
                "bake/r.toml:4: characters.height: nan must be a finite number",
            ),
            (
                "[[characters]]\nmodel = \"a.glb\"\nheight = inf\n",
                "bake/r.toml:4: characters.height: inf must be a finite number",
            ),
            (
                "[[characters]]\nmodel = \"a.glb\"\nheight = 1e39\n",
                "bake/r.toml:4: characters.height: 1e39 is out of range: give a number from -3.4e38 to 3.4e38",
            ),
            (
                "fps = 1e39\n[[characters]]\nmodel = \"a.glb\"\n",
                "bake/r.toml:2: fps: 1e39 frames per second is out of range",
            ),
            (
                "fps = nan\n[[characters]]\nmodel = \"a.glb\"\n",
                "bake/r.toml:2: fps: nan must be a finite number",
            ),
            (
                "[[characters]]\nmodel = \"a.glb\"\n[characters.params]\nspeed = [1e39]\n",
                "bake/r.toml:5: characters.params.speed: 1e39 is out of range",
            ),
            (
                "[[characters]]\nmodel = \"a.glb\"\nonce = [\"Run\"]\n\nloop = [\"Run\"]\n",
                "bake/r.toml:6: character 'a': clip 'Run' is in both once and loop",
            ),
            (
                "[[characters]]\nmodel = \"a.glb\"\nheight = 1800\n",
                "character 'a': height = 1800: give its standing height in metres, above 0 and at most 1000",
            ),
            (
                "[[characters]]\nmodel = \"a.glb\"\nheight = \"tall\"\n",
                "bake/r.toml:4: `characters.height` must be a number, found the string \"tall\"",
            ),
        ];
        for (text, expected) in cases {
            let e = parse(&format!("{base}{text}")).unwrap_err();
            assert!(e.contains(expected), "{text:?}: '{e}' lacks '{expected}'");
            // Every mistake names the file and its line, but a missing table, which has none.
            let line = e
                .strip_prefix("bake/r.toml:")
                .and_then(|r| r.split(':').next());
            assert!(
                line.is_some_and(|l| l.parse::<usize>().is_ok()) || e.contains("no [[characters]]"),
                "{e}"
            );
        }
    }

    #[test]
    fn keys_remember_their_lines() {
        let r = parse(
            "output = \"x.throng\"\nprecision = \"f16\"\n\n[[characters]]\nmodel = \"a.glb\"\nclips = [\"walk\"]\nonce = [\"walk\",\n  \"die\"]\n[characters.rates]\nwalk = 60\n",
        )
        .unwrap();
        assert_eq!(
            r.lines.at("precision").unwrap().to_string(),
            "bake/r.toml:2"
        );
        let c = &r.characters[0];
        assert_eq!(c.lines.table, 4);
        let line = |k: &str| c.lines.at(k).unwrap().line.unwrap();
        assert_eq!(
            [
                line("clips"),
                line("once.walk"),
                line("once.die"),
                line("rates.walk")
            ],
            [6, 7, 8, 10]
        );
        // A key not given is said at its table.
        assert_eq!(line("height"), 4);
        assert_eq!(c.rate_key("walk").as_deref(), Some("rates.walk"));
        assert_eq!(c.rate_key("run"), None);
        let e = c.error("clips", "clips: no clip 'jog'").to_string();
        assert_eq!(e, "bake/r.toml:6: character 'a': clips: no clip 'jog'");
        // A recipe made in code has no file to name.
        let bare = Recipe::for_model(Path::new("m/Fox.glb"), Path::new("Fox.throng"));
        let e = bare.characters[0].error("clips", "clips: no clip 'jog'");
        assert_eq!(e.to_string(), "character 'Fox': clips: no clip 'jog'");
    }

    #[test]
    fn top_level_keys_without_effect_are_warned_about() {
        let r = parse(
            "output = \"x.throng\"\nprecision = \"f32\"\nmax_precision_error = 0.01\nmax_interpolation_error = 0.01\nlods = [1.0]\nlod_max_error = 0.1\nfps = 20\n[[characters]]\nmodel = \"a.glb\"\nfps = 30\n",
        )
        .unwrap();
        let keys: Vec<&str> = r
            .warnings
            .iter()
            .map(|w| w.split(" has no effect").next().unwrap())
            .collect();
        assert_eq!(
            keys,
            [
                "bake/r.toml:3: max_precision_error",
                "bake/r.toml:4: max_interpolation_error",
                "bake/r.toml:6: lod_max_error",
                "bake/r.toml:7: fps"
            ]
        );
        // The same keys where they do something.
        let r = parse(
            "output = \"x.throng\"\nprecision = \"f16\"\nmax_precision_error = 0.01\nmax_interpolation_error = 0.01\nlod_max_error = 0.1\nfps = \"auto\"\n[[characters]]\nmodel = \"a.glb\"\n",
        )
        .unwrap();
        assert_eq!(r.warnings, Vec::<String>::new());
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
