//! Recipes made in code: [`Recipe::new`] and [`CharacterSpec`]'s constructors give a recipe
//! with the defaults a TOML recipe gets, its public fields change it, and [`Recipe::checked`]
//! writes it out as the TOML it stands for and reads that back through the one recipe parser.
//! So a recipe made in code is checked exactly as its file would be, and the text stored in
//! the baked file (and hashed into its input key) says what was baked.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use glam::Vec4;
use toml::Value;

use super::{
    CharacterSpec, DEFAULT_FPS, DEFAULT_INTERPOLATION_BUDGET, DEFAULT_LODS,
    DEFAULT_PRECISION_BUDGET, Facing, ImpostorSettings, KeyLines, PrecisionChoice, Rate, Recipe,
    Selection, Size, Source, file,
};
use crate::bake::error::{BakeError, RecipeAt};

/// What messages about a recipe made in code call it, in place of a file name.
pub const IN_CODE: &str = "recipe made in code";

/// `x` as TOML writes it: through its shortest decimal form, so that 0.1 is stored as `0.1`
/// (not `0.10000000149011612`) and reads back as the same `f32`.
fn float(x: f32) -> Value {
    Value::Float(x.to_string().parse().unwrap_or(f64::NAN))
}

fn floats(xs: &[f32]) -> Value {
    Value::Array(xs.iter().map(|&x| float(x)).collect())
}

fn names(xs: &[String]) -> Value {
    Value::Array(xs.iter().cloned().map(Value::String).collect())
}

fn rate(r: Rate) -> Value {
    match r {
        Rate::Fixed(f) => float(f),
        Rate::Auto => Value::String("auto".into()),
    }
}

/// A path as a TOML string; TOML holds only UTF-8.
fn path(p: &Path, what: &str) -> Result<Value, BakeError> {
    p.to_str()
        .map(|s| Value::String(s.into()))
        .ok_or_else(|| in_code(format!("{what} {}: the path is not UTF-8", p.display())))
}

/// The `[impostors]` table of `s`: its keys that differ from the defaults (empty when none
/// do).
fn impostor_table(s: &ImpostorSettings) -> String {
    let d = ImpostorSettings::default();
    let mut t = Keys::new();
    if s.enabled != d.enabled {
        t.push(("enabled".into(), Value::Boolean(s.enabled)));
    }
    for (key, value, default) in [
        ("views", s.views, d.views),
        ("cell", s.cell, d.cell),
        ("min_frames", s.min_frames, d.min_frames),
        ("max_frames", s.max_frames, d.max_frames),
    ] {
        if value != default {
            t.push((key.into(), Value::Integer(i64::from(value))));
        }
    }
    // `!=`, not a tolerance: any other value, NaN included, is written and checked.
    if s.fps != d.fps {
        t.push(("fps".into(), float(s.fps)));
    }
    let mut out = String::new();
    if !t.is_empty() {
        out.push_str("\n[impostors]\n");
        write_keys(&mut out, &t);
    }
    out
}

/// A mistake in a recipe made in code.
fn in_code(what: String) -> BakeError {
    BakeError::Recipe {
        at: RecipeAt {
            file: IN_CODE.into(),
            line: None,
        },
        what,
    }
}

/// Keys and values, in the order a person would write them.
type Keys = Vec<(String, Value)>;

/// `keys` as TOML lines, each key bare when TOML allows it, else quoted (names of clips and
/// parameters may hold any character).
fn write_keys(out: &mut String, keys: &Keys) {
    for (k, v) in keys {
        let bare = !k.is_empty()
            && k.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
        let key = if bare {
            k.clone()
        } else {
            Value::String(k.clone()).to_string()
        };
        out.push_str(&format!("{key} = {v}\n"));
    }
}

/// One `[[characters]]` entry: the keys whose values differ from the defaults, then its
/// `rates` and `params` tables.
fn character_entry(c: &CharacterSpec) -> Result<String, BakeError> {
    let mut t = Keys::new();
    t.push(("name".into(), Value::String(c.name.clone())));
    match &c.source {
        Source::Character(p) => t.push(("character".into(), path(p, "character")?)),
        Source::Model(p) => t.push(("model".into(), path(p, "model")?)),
    }
    if let Selection::Named(l) = &c.clips {
        t.push(("clips".into(), names(l)));
    }
    match (&c.source, &c.states) {
        // A bare model has no states: `Named([])` is what the parser makes of it.
        (Source::Model(_), Selection::Named(l)) if l.is_empty() => {}
        (_, Selection::Named(l)) => {
            t.push(("states".into(), names(l)));
        }
        (_, Selection::All) => {}
    }
    if !c.once.is_empty() {
        t.push(("once".into(), names(&c.once)));
    }
    if !c.looping.is_empty() {
        t.push(("loop".into(), names(&c.looping)));
    }
    if c.fps != Rate::Fixed(DEFAULT_FPS) {
        t.push(("fps".into(), rate(c.fps)));
    }
    match c.size {
        Size::Default => {}
        Size::Height(h) => {
            t.push(("height".into(), float(h)));
        }
        Size::Scale(s) => {
            t.push(("scale".into(), floats(&s.to_array())));
        }
    }
    if c.tint != Vec4::ONE {
        t.push(("tint".into(), floats(&c.tint.to_array())));
    }
    if !c.foot_lock {
        t.push(("foot_lock".into(), Value::Boolean(false)));
    }
    if c.facing == Facing::Authored {
        t.push(("facing".into(), Value::String("authored".into())));
    }
    if !c.skeleton_lod {
        t.push(("skeleton_lod".into(), Value::Boolean(false)));
    }
    let mut out = "\n[[characters]]\n".to_string();
    write_keys(&mut out, &t);
    if !c.rates.is_empty() {
        out.push_str("[characters.rates]\n");
        let rates = c.rates.iter().map(|(k, &r)| (k.clone(), rate(r)));
        write_keys(&mut out, &rates.collect());
    }
    if !c.params.is_empty() {
        out.push_str("[characters.params]\n");
        let params = c.params.iter().map(|(k, v)| (k.clone(), floats(v)));
        write_keys(&mut out, &params.collect());
    }
    Ok(out)
}

impl CharacterSpec {
    /// A character from character file `path` (docs/CHARACTER.md), as a `[[characters]]` entry
    /// with only `character = PATH` bakes it: named after the file's stem, every clip and every
    /// state (states blending on a parameter at their Blend1D children's positions) at
    /// [`DEFAULT_FPS`], sized by the default rule ([`Size::Default`]), untinted, feet locked.
    /// Change its public fields to ask for more, then check the recipe with
    /// [`Recipe::checked`]. A relative path is relative to the current folder.
    pub fn character(path: impl Into<PathBuf>) -> Self {
        Self::with_source(Source::Character(path.into()), Selection::All)
    }

    /// A bare glTF model (.glb, or .gltf with its files), as a `[[characters]]` entry with only
    /// `model = PATH` bakes it: named after the file's stem, every clip as authored at
    /// [`DEFAULT_FPS`], no states, sized by the default rule, untinted, feet locked. A relative
    /// path is relative to the current folder.
    pub fn model(path: impl Into<PathBuf>) -> Self {
        Self::with_source(Source::Model(path.into()), Selection::Named(Vec::new()))
    }

    fn with_source(source: Source, states: Selection) -> Self {
        let (Source::Character(p) | Source::Model(p)) = &source;
        Self {
            name: p
                .file_stem()
                .map_or_else(|| "character".into(), |s| s.to_string_lossy().into_owned()),
            source,
            clips: Selection::All,
            states,
            once: Vec::new(),
            looping: Vec::new(),
            fps: Rate::Fixed(DEFAULT_FPS),
            rates: BTreeMap::new(),
            params: BTreeMap::new(),
            size: Size::Default,
            tint: Vec4::ONE,
            foot_lock: true,
            facing: Facing::Auto,
            skeleton_lod: true,
            lines: KeyLines::default(),
        }
    }
}

impl Recipe {
    /// A recipe made in code that bakes `characters` (see [`CharacterSpec::character`] and
    /// [`CharacterSpec::model`]) into `output`, with a TOML recipe's defaults: automatic
    /// precision with the [`DEFAULT_PRECISION_BUDGET`], the [`DEFAULT_INTERPOLATION_BUDGET`],
    /// the [`DEFAULT_LODS`] and the default LOD error. A relative `output` is relative to the
    /// current folder.
    ///
    /// Change its public fields, then call [`Recipe::checked`] before baking it: until then it
    /// is unchecked and its `text` is empty.
    pub fn new(output: impl Into<PathBuf>, characters: Vec<CharacterSpec>) -> Self {
        Self {
            path: None,
            text: String::new(),
            output: output.into(),
            precision: PrecisionChoice::Auto,
            precision_budget: DEFAULT_PRECISION_BUDGET,
            interpolation_budget: DEFAULT_INTERPOLATION_BUDGET,
            lods: DEFAULT_LODS.to_vec(),
            lod_max_error: crate::mesh::LodOptions::default().max_error,
            impostors: ImpostorSettings::default(),
            characters,
            lines: KeyLines::default(),
            warnings: Vec::new(),
        }
    }

    /// The recipe as a TOML recipe file (docs/BAKING.md) would give it: the keys whose values
    /// differ from the defaults, with paths as they are (a relative path in it is relative to
    /// the folder the file would be in).
    ///
    /// # Errors
    /// [`BakeError::Recipe`] for a path that is not UTF-8 (TOML holds only UTF-8).
    pub fn to_toml(&self) -> Result<String, BakeError> {
        let mut t = Keys::new();
        t.push(("output".into(), path(&self.output, "output")?));
        let precision = match self.precision {
            PrecisionChoice::Auto => None,
            PrecisionChoice::F32 => Some("f32"),
            PrecisionChoice::F16 => Some("f16"),
        };
        if let Some(p) = precision {
            t.push(("precision".into(), Value::String(p.into())));
        }
        let defaults = [
            (
                "max_precision_error",
                self.precision_budget,
                DEFAULT_PRECISION_BUDGET,
            ),
            (
                "max_interpolation_error",
                self.interpolation_budget,
                DEFAULT_INTERPOLATION_BUDGET,
            ),
            (
                "lod_max_error",
                self.lod_max_error,
                crate::mesh::LodOptions::default().max_error,
            ),
        ];
        for (key, value, default) in defaults {
            // `!=` rather than a tolerance: any other value, NaN included, is written and
            // checked.
            if value != default {
                t.push((key.into(), float(value)));
            }
        }
        if self.lods != DEFAULT_LODS {
            t.push(("lods".into(), floats(&self.lods)));
        }
        let mut out = format!(
            "# {IN_CODE} (throng::bake::Recipe::checked): the recipe file it stands for.\n"
        );
        write_keys(&mut out, &t);
        out.push_str(&impostor_table(&self.impostors));
        for c in &self.characters {
            out.push_str(&character_entry(c)?);
        }
        Ok(out)
    }

    /// Checks a recipe made or changed in code exactly as its TOML file would be checked
    /// ([`Recipe::to_toml`], read back by the recipe parser), and returns it with that TOML as
    /// its `text`: what the baked file stores and what its input key hashes, so that
    /// [`up_to_date`](crate::bake::up_to_date) sees any change. Its messages name no file: a
    /// mistake found now reads `recipe made in code: ...`, one found while baking (a clip its
    /// model lacks) names the character, and the warnings name the key. The recipe's own keys
    /// without effect are warned about (in `warnings`, shown by the bake report); those of a
    /// character entry (e.g. `params` on a bare model) are not, as for a bare model's recipe:
    /// the bake names only keys it can point at in a file.
    ///
    /// # Errors
    /// [`BakeError::Recipe`] for what a recipe file may not hold: no characters, a name used
    /// twice, states asked of a bare model, a clip both once and looping, a rate, budget, size,
    /// tint or LOD ratio out of its range, a value that is not finite, a path that is not UTF-8.
    pub fn checked(self) -> Result<Self, BakeError> {
        let text = self.to_toml()?;
        // A file name without a folder: paths resolve against "", so they stay as given.
        let mut r = file::parse(&text, Path::new(IN_CODE)).map_err(|e| match e {
            BakeError::Recipe { what, .. } => in_code(what),
            e => e,
        })?;
        // The warnings are `FILE:LINE: KEY has no effect...`; lines of a text the user never
        // wrote would mislead.
        for w in &mut r.warnings {
            if let Some((_, rest)) = w
                .strip_prefix(IN_CODE)
                .and_then(|w| w.strip_prefix(':'))
                .and_then(|w| w.split_once(": "))
            {
                *w = rest.to_string();
            }
        }
        // Keys given stay known (they choose which key a later message blames), but name no
        // file: messages of the bake name the character instead.
        r.path = None;
        r.lines.file = None;
        for c in &mut r.characters {
            c.lines.file = None;
        }
        Ok(r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec3;

    #[test]
    fn a_recipe_file_and_its_code_agree() {
        let text = "output = \"x.throng\"\nprecision = \"f16\"\nlods = [1.0, 0.4]\nmax_precision_error = 0.002\n\n[[characters]]\nname = \"m\"\ncharacter = \"m.toml\"\nclips = [\"walk\", \"run\"]\nstates = [\"move\"]\nonce = [\"run\"]\nfps = \"auto\"\nheight = 1.75\ntint = [1, 0.5, 0.25]\nfoot_lock = false\nfacing = \"authored\"\nskeleton_lod = false\n[characters.rates]\nwalk = 24\n\"Run Fast\" = 20\n[characters.params]\nspeed = [0, 1.2]\n\n[[characters]]\nmodel = \"Fox.glb\"\nscale = [0.01, 0.01, 0.01]\n";
        let from_file = Recipe::parse(text, Path::new("r.toml")).unwrap();

        let mut m = CharacterSpec::character("m.toml");
        m.name = "m".into();
        m.clips = Selection::Named(vec!["walk".into(), "run".into()]);
        m.states = Selection::Named(vec!["move".into()]);
        m.once = vec!["run".into()];
        m.fps = Rate::Auto;
        m.rates.insert("walk".into(), Rate::Fixed(24.0));
        m.rates.insert("Run Fast".into(), Rate::Fixed(20.0));
        m.params.insert("speed".into(), vec![0.0, 1.2]);
        m.size = Size::Height(1.75);
        m.tint = Vec4::new(1.0, 0.5, 0.25, 1.0);
        m.foot_lock = false;
        m.facing = Facing::Authored;
        m.skeleton_lod = false;
        let mut fox = CharacterSpec::model("Fox.glb");
        fox.size = Size::Scale(Vec3::splat(0.01));
        let mut code = Recipe::new("x.throng", vec![m, fox]);
        code.precision = PrecisionChoice::F16;
        code.lods = vec![1.0, 0.4];
        code.precision_budget = 0.002;
        let code = code.checked().unwrap();

        // Everything baked is the same; only where it came from differs.
        let same = |mut r: Recipe| {
            r.text.clear();
            r.path = None;
            r.lines = KeyLines::default();
            for c in &mut r.characters {
                c.lines = KeyLines::default();
            }
            r
        };
        assert_eq!(same(code.clone()), same(from_file));
        assert!(code.text.contains("fps = \"auto\""), "{}", code.text);
        assert!(
            code.text.contains("\n\"Run Fast\" = 20.0\n"),
            "{}",
            code.text
        );
        // The text reads back as the same recipe, and names no file in its messages.
        assert_eq!(code.characters[0].lines.file, None);
        assert!(code.characters[0].lines.has("fps"));
        let e = code.characters[0].error("clips", "clips: no clip 'jog'");
        assert_eq!(e.to_string(), "character 'm': clips: no clip 'jog'");
    }

    #[test]
    fn the_defaults_are_a_minimal_recipe() {
        let r = Recipe::new("out/m.throng", vec![CharacterSpec::model("a/M.glb")])
            .checked()
            .unwrap();
        assert_eq!(
            r.text,
            format!(
                "# {IN_CODE} (throng::bake::Recipe::checked): the recipe file it stands for.\noutput = \"out/m.throng\"\n\n[[characters]]\nname = \"M\"\nmodel = \"a/M.glb\"\n"
            )
        );
        assert_eq!(r.output, Path::new("out/m.throng"));
        assert_eq!(r.characters[0].name, "M");
        assert_eq!(r.characters[0].states, Selection::Named(Vec::new()));
        let bare = Recipe::for_model(Path::new("a/M.glb"), Path::new("out/m.throng"));
        let mut characters = r.characters.clone();
        characters[0].lines = KeyLines::default();
        assert_eq!(characters, bare.characters);
        assert_eq!((r.path, r.warnings), (None, Vec::<String>::new()));
    }

    #[test]
    fn mistakes_in_code_are_named_without_a_file() {
        let e = |r: Recipe| r.checked().unwrap_err().to_string();
        assert_eq!(
            e(Recipe::new("x.throng", Vec::new())),
            format!(
                "{IN_CODE}: no [[characters]]: add at least one, e.g. [[characters]] character = \"../assets/mannequin.toml\""
            )
        );
        let mut r = Recipe::new("x.throng", vec![CharacterSpec::model("a.glb")]);
        r.lods = vec![0.5, 1.0];
        assert!(e(r).starts_with(&format!("{IN_CODE}: lods = [0.5, 1.0]")));
        let mut c = CharacterSpec::model("a.glb");
        c.size = Size::Height(f32::NAN);
        let msg = e(Recipe::new("x.throng", vec![c]));
        assert!(msg.contains("height: nan must be a finite number"), "{msg}");
        let mut c = CharacterSpec::model("a.glb");
        c.states = Selection::Named(vec!["run".into()]);
        let msg = e(Recipe::new("x.throng", vec![c]));
        assert!(msg.contains("states need a character file"), "{msg}");
        let two = vec![
            CharacterSpec::model("a.glb"),
            CharacterSpec::model("b/a.glb"),
        ];
        assert!(e(Recipe::new("x.throng", two)).contains("'a' is used twice"));
        // Keys without effect are warned about by key, without a line of a text never written.
        let mut r = Recipe::new("x.throng", vec![CharacterSpec::model("a.glb")]);
        r.precision = PrecisionChoice::F32;
        r.precision_budget = 0.01;
        let w = r.checked().unwrap().warnings;
        assert_eq!(w.len(), 1);
        assert!(
            w[0].starts_with("max_precision_error has no effect"),
            "{w:?}"
        );
    }
}
