//! LOD policy: the mesh level an agent is drawn at, from its distance to the camera, and how
//! often agents at each level (and agents out of view) are updated. Named presets live in a
//! TOML file: `assets/lod.toml` is built in ([`LodPresets::builtin`]); users may load their own
//! ([`LodPresets::load`]).

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::crowd::error::CrowdError;

/// Most LOD levels a policy may have (distances + 1).
pub const MAX_LEVELS: usize = 16;

/// Largest update rate (every n-th frame) a policy may ask for: one update a second at 64 fps.
pub const MAX_RATE: u32 = 64;

/// Most agents a live tier may hold ([`LodPolicy::live_max`]): live evaluation costs
/// microseconds per agent where a baked one costs nanoseconds, so a tier is for the few
/// nearest agents, not a crowd.
pub const MAX_LIVE: u32 = 4096;

/// The character height, metres, that a policy's distances are written for
/// ([`LodPolicy::distances`], [`LodPolicy::live_distance`]): a character `h` metres tall
/// changes level at `h / REFERENCE_HEIGHT` times those distances (times its agent's scale), so
/// a 0.8 m fox drops to its coarser meshes at under half the distance a person does, where it
/// covers as few pixels. The built-in mannequin's baked height to the bit (`throng inspect
/// bake/mannequin.throng --json`: 1.7942128 m), so that for the built-in crowd the factor is
/// exactly 1 and its levels are the distances as written (the figures measured on it in
/// docs/ hold; a unit test keeps the two equal).
pub const REFERENCE_HEIGHT: f32 = 1.794_212_8;

/// A character's LOD size: its `height` (metres, [`CharacterRecord::height`]) over
/// [`REFERENCE_HEIGHT`], the factor its agents' distances are divided by beside their scale. A
/// height that is not a positive number counts as the reference (1).
///
/// [`CharacterRecord::height`]: crate::format::records::CharacterRecord::height
pub fn size_factor(height: f32) -> f32 {
    if height.is_finite() && height > 0.0 {
        height / REFERENCE_HEIGHT
    } else {
        1.0
    }
}

/// The built-in presets file.
const BUILTIN: &str = include_str!("../../../assets/lod.toml");

/// Where an agent's detail and update rate come from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LodPolicy {
    /// Distances from the camera, metres, at which LOD 1, 2, ... begin for a character
    /// [`REFERENCE_HEIGHT`] tall at scale 1: finite, positive and ascending, at most
    /// `MAX_LEVELS - 1`. For an agent they are multiplied by its scale and by its character's
    /// [`size_factor`] (height over the reference), so bigger agents keep detail longer and a
    /// small character (a fox) drops it nearer, at the same size on screen. Empty: everything
    /// at LOD 0.
    pub distances: Vec<f32>,
    /// Update every n-th frame, per LOD level (`rates[0]` is LOD 0), each in 1..=[`MAX_RATE`];
    /// a level past the end uses the last rate.
    pub rates: Vec<u32>,
    /// Update rate of agents out of view (culled), in 1..=[`MAX_RATE`].
    pub offscreen_rate: u32,
    /// Whether agents outside the view are culled. When false every agent is drawn, at the
    /// level its distance gives.
    pub culling: bool,
    /// The live tier: at most this many visible agents (the nearest ones within
    /// `live_distance`) are evaluated on the CPU every frame, with foot IK on the ground, on
    /// the hybrid skinning path. 0..=[`MAX_LIVE`]; 0 (the default) means no live tier.
    #[serde(default)]
    pub live_max: u32,
    /// Metres from the camera within which agents may join the live tier, for a character
    /// [`REFERENCE_HEIGHT`] tall at scale 1 (multiplied by the agent's scale and its
    /// character's [`size_factor`], as `distances` are): positive where `live_max` is not 0.
    /// Default 0.
    #[serde(default)]
    pub live_distance: f32,
    /// The impostor tier: agents at least this many metres from the camera (for a character
    /// [`REFERENCE_HEIGHT`] tall at scale 1, sized per agent as `distances` are) are drawn as
    /// animated impostors where their character's bake has them (format 1.4), at the rate
    /// after the last mesh level's; a character without impostors keeps its last mesh level
    /// there. Finite, at least 0; 0 (the default) means no impostor tier.
    #[serde(default)]
    pub impostor_distance: f32,
}

impl Default for LodPolicy {
    /// No LOD: everything at LOD 0, updated every frame, with culling (the `off` preset).
    fn default() -> Self {
        Self {
            distances: Vec::new(),
            rates: vec![1],
            offscreen_rate: 1,
            culling: true,
            live_max: 0,
            live_distance: 0.0,
            impostor_distance: 0.0,
        }
    }
}

impl LodPolicy {
    /// The levels this policy distinguishes: `distances.len() + 1`, at most [`MAX_LEVELS`].
    pub fn levels(&self) -> u32 {
        (self.distances.len() + 1).min(MAX_LEVELS) as u32
    }

    /// The LOD level of an agent `distance` metres from the camera with uniform `scale`, of a
    /// character `height` metres tall ([`CharacterRecord::height`]) whose bake has
    /// `levels_in_file` LOD meshes: the number of `distances` at or below `distance / (scale ×
    /// size_factor(height))`, clamped to the last level the file has (and to the policy's
    /// levels). A scale that is not a positive number counts as 1, a height that is not as
    /// [`REFERENCE_HEIGHT`]; a NaN distance gives LOD 0. A character half the reference height
    /// is at the level a full-height one is at twice the distance.
    ///
    /// [`CharacterRecord::height`]: crate::format::records::CharacterRecord::height
    pub fn level_for(&self, distance: f32, scale: f32, height: f32, levels_in_file: u32) -> u32 {
        let scale = if scale.is_finite() && scale > 0.0 {
            scale
        } else {
            1.0
        };
        let d = distance / (scale * size_factor(height));
        let level = self
            .distances
            .iter()
            .take(MAX_LEVELS - 1)
            .filter(|&&x| d >= x)
            .count() as u32;
        level.min(levels_in_file.max(1) - 1)
    }

    /// Whether an agent `distance` metres from the camera with uniform `scale`, of a character
    /// `height` metres tall, is in the impostor tier: `distance / (scale × size_factor(height))
    /// >= impostor_distance` where the policy has the tier (scale and height read as in
    /// [`LodPolicy::level_for`]; a NaN distance is not).
    pub fn impostor_at(&self, distance: f32, scale: f32, height: f32) -> bool {
        let scale = if scale.is_finite() && scale > 0.0 {
            scale
        } else {
            1.0
        };
        self.impostor_distance > 0.0
            && distance / (scale * size_factor(height)) >= self.impostor_distance
    }

    /// The update rate (every n-th frame) of LOD `level`: `rates[level]`, or the last rate past
    /// the end, clamped to 1..=[`MAX_RATE`] (1 when `rates` is empty).
    pub fn rate_of(&self, level: u32) -> u32 {
        self.rates
            .get(level as usize)
            .or(self.rates.last())
            .copied()
            .unwrap_or(1)
            .clamp(1, MAX_RATE)
    }

    /// This policy without its live tier: every agent baked (what every skinning path but the
    /// hybrid one draws).
    pub fn without_live(&self) -> Self {
        Self {
            live_max: 0,
            ..self.clone()
        }
    }

    /// The update rate of culled agents, clamped to 1..=[`MAX_RATE`].
    pub fn offscreen(&self) -> u32 {
        self.offscreen_rate.clamp(1, MAX_RATE)
    }

    /// Checks the rules on each field (documented on them); `file` and `preset` name the
    /// policy in the error.
    ///
    /// # Errors
    /// [`CrowdError::Preset`] naming the first key that breaks a rule.
    pub fn validate(&self, file: &str, preset: &str) -> Result<(), CrowdError> {
        let bad = |key: &str, what: String| CrowdError::Preset {
            file: file.to_string(),
            preset: preset.to_string(),
            key: key.to_string(),
            what,
        };
        if self.distances.len() >= MAX_LEVELS {
            return Err(bad(
                "distances",
                format!(
                    "{} distances make {} levels; at most {MAX_LEVELS} levels are allowed",
                    self.distances.len(),
                    self.distances.len() + 1
                ),
            ));
        }
        if let Some(d) = self
            .distances
            .iter()
            .find(|d| !(d.is_finite() && **d > 0.0))
        {
            return Err(bad(
                "distances",
                format!("{d} is not a positive number of metres"),
            ));
        }
        if let Some(w) = self.distances.windows(2).find(|w| w[1] <= w[0]) {
            return Err(bad(
                "distances",
                format!(
                    "{} follows {}: distances must ascend (LOD 1 begins nearest)",
                    w[1], w[0]
                ),
            ));
        }
        if self.rates.is_empty() {
            return Err(bad(
                "rates",
                "empty: give at least the rate of LOD 0 (1 = every frame)".into(),
            ));
        }
        if self.rates.len() > MAX_LEVELS {
            return Err(bad(
                "rates",
                format!(
                    "{} rates; at most {MAX_LEVELS} levels are allowed",
                    self.rates.len()
                ),
            ));
        }
        if let Some(r) = self.rates.iter().find(|r| !(1..=MAX_RATE).contains(*r)) {
            return Err(bad(
                "rates",
                format!("{r} is not an update rate in 1..={MAX_RATE} (every n-th frame)"),
            ));
        }
        if !(1..=MAX_RATE).contains(&self.offscreen_rate) {
            return Err(bad(
                "offscreen_rate",
                format!(
                    "{} is not an update rate in 1..={MAX_RATE} (every n-th frame)",
                    self.offscreen_rate
                ),
            ));
        }
        if self.live_max > MAX_LIVE {
            return Err(bad(
                "live_max",
                format!(
                    "{} agents; a live tier holds at most {MAX_LIVE} (0 = none)",
                    self.live_max
                ),
            ));
        }
        if !(self.live_distance.is_finite() && self.live_distance >= 0.0)
            || (self.live_max > 0 && self.live_distance <= 0.0)
        {
            return Err(bad(
                "live_distance",
                format!(
                    "{} is not a positive number of metres (needed with live_max {})",
                    self.live_distance, self.live_max
                ),
            ));
        }
        if !(self.impostor_distance.is_finite() && self.impostor_distance >= 0.0) {
            return Err(bad(
                "impostor_distance",
                format!(
                    "{} is not a positive number of metres (0 = no impostor tier)",
                    self.impostor_distance
                ),
            ));
        }
        Ok(())
    }
}

/// Named LOD policies, in the order of their file.
#[derive(Clone, Debug, PartialEq)]
pub struct LodPresets {
    presets: Vec<(String, LodPolicy)>,
}

impl LodPresets {
    /// The presets of the built-in `assets/lod.toml`: `off`, `balanced` and `aggressive`.
    pub fn builtin() -> Self {
        // The embedded file is ours and a unit test parses it, so this cannot fail at run time.
        Self::parse(BUILTIN, "assets/lod.toml (built in)")
            .expect("the built-in assets/lod.toml is valid")
    }

    /// Reads the presets file at `path`: one table per preset, keys as on [`LodPolicy`].
    ///
    /// # Errors
    /// [`CrowdError::Io`] if it cannot be read; [`CrowdError::PresetSyntax`] if it is not TOML
    /// or a top-level value is not a table; [`CrowdError::Preset`] naming the file, the preset
    /// and the key that is missing, unknown, of the wrong type or out of range.
    pub fn load(path: &Path) -> Result<Self, CrowdError> {
        let file = path.display().to_string();
        let text = crate::input::read_text(path).map_err(|error| CrowdError::Io {
            file: file.clone(),
            error,
        })?;
        Self::parse(&text, &file)
    }

    /// Parses presets from TOML `text`; `file` names it in errors.
    ///
    /// # Errors
    /// As [`LodPresets::load`], less the I/O error.
    pub fn parse(text: &str, file: &str) -> Result<Self, CrowdError> {
        let syntax = |what: String| CrowdError::PresetSyntax {
            file: file.to_string(),
            what,
        };
        let doc: BTreeMap<String, toml::Spanned<toml::Value>> =
            toml::from_str(text).map_err(|e| syntax(e.to_string().trim_end().to_string()))?;
        // Keep the file's order (the map is sorted by name): presets are offered as written.
        let mut entries: Vec<_> = doc.into_iter().collect();
        entries.sort_by_key(|(_, v)| v.span().start);
        let mut presets = Vec::with_capacity(entries.len());
        for (name, value) in entries {
            let value = value.into_inner();
            let toml::Value::Table(table) = value else {
                return Err(syntax(format!(
                    "'{name}' holds a value of type {}, not a table of LOD settings ([{name}] with distances, rates, offscreen_rate, culling)",
                    value.type_str()
                )));
            };
            let policy = policy_of(&table, file, &name)?;
            policy.validate(file, &name)?;
            presets.push((name, policy));
        }
        Ok(Self { presets })
    }

    /// The preset called `name`.
    pub fn get(&self, name: &str) -> Option<&LodPolicy> {
        self.presets.iter().find(|(n, _)| n == name).map(|(_, p)| p)
    }

    /// The preset names, in file order.
    pub fn names(&self) -> impl Iterator<Item = &str> + '_ {
        self.presets.iter().map(|(n, _)| n.as_str())
    }

    /// The presets, in file order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &LodPolicy)> + '_ {
        self.presets.iter().map(|(n, p)| (n.as_str(), p))
    }
}

/// The LOD presets of `config` (a TOML file, see assets/lod.toml), or the built-in ones:
/// what the demo and `throng bench` offer, read one way.
///
/// # Errors
/// As [`LodPresets::load`]; [`CrowdError::PresetSyntax`] when the file defines no preset at
/// all (an empty file).
pub fn lod_presets(config: Option<&Path>) -> Result<LodPresets, CrowdError> {
    let Some(path) = config else {
        return Ok(LodPresets::builtin());
    };
    let presets = LodPresets::load(path)?;
    if presets.names().next().is_none() {
        return Err(CrowdError::PresetSyntax {
            file: path.display().to_string(),
            what: "defines no LOD presets (each is a [NAME] table; see assets/lod.toml)".into(),
        });
    }
    Ok(presets)
}

/// The policy of preset `name`; a serde error is turned into one naming the key.
fn policy_of(table: &toml::Table, file: &str, name: &str) -> Result<LodPolicy, CrowdError> {
    let e = match LodPolicy::deserialize(toml::Value::Table(table.clone())) {
        Ok(policy) => return Ok(policy),
        Err(e) => e,
    };
    let bad = |key: &str, what: String| CrowdError::Preset {
        file: file.to_string(),
        preset: name.to_string(),
        key: key.to_string(),
        what,
    };
    // serde names the key of unknown and missing fields, but not of a value of the wrong type:
    // find that key by reading each field alone.
    let message = e.to_string();
    for (kind, what) in [
        ("unknown field `", "unknown key"),
        ("missing field `", "missing"),
    ] {
        if let Some(rest) = message.split(kind).nth(1)
            && let Some(key) = rest.split('`').next()
        {
            let known = "distances, rates, offscreen_rate, culling, and optionally live_max, live_distance, impostor_distance";
            return Err(bad(key, format!("{what} (the keys are {known})")));
        }
    }
    let field_error = |key: &str| table.get(key).and_then(|v| wrong_type(key, v));
    for key in [
        "distances",
        "rates",
        "offscreen_rate",
        "culling",
        "live_max",
        "live_distance",
        "impostor_distance",
    ] {
        if let Some(what) = field_error(key) {
            return Err(bad(key, what));
        }
    }
    Err(bad("?", message.trim_end().to_string()))
}

/// What is wrong with the type of preset key `key`'s value `v`, in the file's words (TOML's
/// types, the key's units and range), or `None` when its type is right. serde's own message
/// would name Rust's types ("expected u32").
fn wrong_type(key: &str, v: &toml::Value) -> Option<String> {
    use toml::Value as V;
    let number = |v: &V| matches!(v, V::Integer(_) | V::Float(_));
    let whole = |v: &V| matches!(v, V::Integer(i) if (0..=i64::from(u32::MAX)).contains(i));
    let (element, want): (&dyn Fn(&V) -> bool, &str) = match key {
        "distances" => (&number, "an array of numbers (metres)"),
        "rates" => (&whole, "an array of whole numbers from 0 to 4294967295"),
        "offscreen_rate" | "live_max" => (&whole, "a whole number from 0 to 4294967295"),
        "live_distance" | "impostor_distance" => (&number, "a number (metres)"),
        _ => (&|v: &V| matches!(v, V::Boolean(_)), "true or false"),
    };
    let found = match (key, v) {
        ("distances" | "rates", V::Array(a)) => match a.iter().find(|e| !element(e)) {
            Some(e) => format!("an array holding {}", toml_words(e)),
            None => return None,
        },
        ("distances" | "rates", other) => toml_words(other),
        (_, v) if element(v) => return None,
        (_, v) => toml_words(v),
    };
    Some(format!("must be {want}, found {found}"))
}

/// A TOML value as a message names it: its type, and the value itself when it is short.
fn toml_words(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => format!("the string {s:?}"),
        toml::Value::Integer(i) => format!("the integer {i}"),
        toml::Value::Float(f) => format!("the float {f}"),
        toml::Value::Boolean(b) => format!("the boolean {b}"),
        toml::Value::Datetime(d) => format!("the date-time {d}"),
        toml::Value::Array(_) => "an array".to_string(),
        toml::Value::Table(_) => "a table".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrong_types_are_named_in_the_files_words() {
        for (text, want) in [
            (
                "[a]\ndistances = \"x\"\n",
                "key 'distances': must be an array of numbers (metres), found the string \"x\"",
            ),
            (
                "[a]\ndistances = [10.0]\nrates = [1, -2]\n",
                "key 'rates': must be an array of whole numbers from 0 to 4294967295, found an array holding the integer -2",
            ),
            (
                "[a]\noffscreen_rate = 1979-05-27T07:32:00Z\n",
                "key 'offscreen_rate': must be a whole number from 0 to 4294967295, found the date-time 1979-05-27T07:32:00Z",
            ),
            (
                "[a]\nculling = 3\n",
                "key 'culling': must be true or false, found the integer 3",
            ),
            (
                "[a]\nlive_distance = [1.0]\n",
                "key 'live_distance': must be a number (metres), found an array",
            ),
            (
                "[a]\ndistances = []\nrates = [1]\noffscreen_rate = 1\nculling = true\nimpostor_distance = \"far\"\n",
                "key 'impostor_distance': must be a number (metres), found the string \"far\"",
            ),
            (
                "[a]\ndistances = []\nrates = [1]\noffscreen_rate = 1\nculling = true\nimpostor_distance = -5.0\n",
                "key 'impostor_distance': -5 is not a positive number of metres (0 = no impostor tier)",
            ),
            (
                "[a]\ndistances = []\nrates = [1]\noffscreen_rate = 1\nculling = true\nimpostor_distance = nan\n",
                "key 'impostor_distance': NaN is not a positive number of metres (0 = no impostor tier)",
            ),
        ] {
            let e = LodPresets::parse(text, "l.toml").err().unwrap().to_string();
            assert!(e.contains(want), "{e}");
            for rust in ["u32", "f32", "sequence", "invalid type", "struct"] {
                assert!(!e.contains(rust), "{e}");
            }
        }
    }

    #[test]
    fn builtin_presets_parse_in_file_order() {
        let p = LodPresets::builtin();
        assert_eq!(
            p.names().collect::<Vec<_>>(),
            ["off", "balanced", "impostors", "aggressive"]
        );
        let b = p.get("balanced").unwrap();
        assert_eq!(b.distances, [20.0, 45.0, 70.0, 110.0]);
        assert_eq!(b.rates, [1, 1, 2, 4]);
        assert_eq!(b.offscreen_rate, 8);
        assert!(b.culling);
        let off = p.get("off").unwrap();
        assert_eq!(off, &LodPolicy::default());
        let a = p.get("aggressive").unwrap();
        assert_eq!(
            (a.distances.as_slice(), a.rates.as_slice()),
            (&[10.0, 25.0, 40.0, 60.0][..], &[1, 3, 6][..])
        );
        assert_eq!(a.offscreen_rate, 16);
        // The impostor tier: `balanced` with impostors from 150 m; no other preset has it.
        let i = p.get("impostors").unwrap();
        assert_eq!(i.impostor_distance, 150.0);
        assert_eq!(
            LodPolicy {
                impostor_distance: 0.0,
                ..i.clone()
            },
            *p.get("balanced").unwrap()
        );
        assert!(
            p.iter()
                .all(|(n, q)| n == "impostors" || q.impostor_distance == 0.0)
        );
        assert!(p.get("none").is_none());
    }

    #[test]
    fn the_three_level_comparison_file_keeps_the_builtin_presets() {
        let text = include_str!("../../../assets/lod-three-levels.toml");
        let p = LodPresets::parse(text, "assets/lod-three-levels.toml").unwrap();
        let builtin = LodPresets::builtin();
        for name in ["off", "balanced", "impostors"] {
            assert_eq!(p.get(name), builtin.get(name), "{name}");
        }
        let three = p.get("three-level").unwrap();
        assert_eq!(
            (three.distances.as_slice(), three.rates.as_slice()),
            (&[20.0, 45.0][..], &[1, 2, 4][..])
        );
    }

    #[test]
    fn levels_scale_with_the_agent_and_clamp_to_the_file() {
        let b = LodPresets::builtin().get("balanced").unwrap().clone();
        assert_eq!(b.level_for(5.0, 1.0, REFERENCE_HEIGHT, 3), 0);
        assert_eq!(
            b.level_for(20.0, 1.0, REFERENCE_HEIGHT, 3),
            1,
            "LOD 1 begins at 20 m"
        );
        assert_eq!(
            b.level_for(21.0, 1.1, REFERENCE_HEIGHT, 3),
            0,
            "a bigger agent keeps detail longer"
        );
        assert_eq!(b.level_for(100.0, 1.0, REFERENCE_HEIGHT, 3), 2);
        assert_eq!(
            b.level_for(100.0, 1.0, REFERENCE_HEIGHT, 2),
            1,
            "clamped to the file's last level"
        );
        assert_eq!(
            b.level_for(100.0, 1.0, REFERENCE_HEIGHT, 0),
            0,
            "a file without meshes has one level"
        );
        assert_eq!(b.level_for(f32::NAN, 1.0, REFERENCE_HEIGHT, 3), 0);
        assert_eq!(
            b.level_for(30.0, 0.0, REFERENCE_HEIGHT, 3),
            1,
            "a bad scale counts as 1"
        );
        assert_eq!(
            [
                b.rate_of(0),
                b.rate_of(1),
                b.rate_of(2),
                b.rate_of(3),
                b.rate_of(7)
            ],
            [1, 1, 2, 4, 4]
        );
        let empty = LodPolicy {
            rates: vec![],
            offscreen_rate: 0,
            ..LodPolicy::default()
        };
        assert_eq!((empty.rate_of(3), empty.offscreen()), (1, 1));
        // A character half the reference height at half the distance is at the same level as a
        // full-height one: it covers as many pixels.
        for d in [5.0, 19.0, 20.0, 30.0, 59.0, 60.0, 100.0] {
            assert_eq!(
                b.level_for(d * 0.5, 1.0, REFERENCE_HEIGHT * 0.5, 3),
                b.level_for(d, 1.0, REFERENCE_HEIGHT, 3),
                "{d} m"
            );
        }
        // A 0.8 m fox 10 m away is drawn as a person of the reference height 22 m away: at
        // LOD 1, where the person is still at LOD 0.
        assert_eq!(b.level_for(10.0, 1.0, 0.8, 3), 1);
        assert_eq!(b.level_for(10.0, 1.0, REFERENCE_HEIGHT, 3), 0);
        // With its scale too: a fox at scale 2 is sized like a 1.6 m character.
        assert_eq!(b.level_for(19.0, 2.0, 0.8, 3), 1);
        assert_eq!(b.level_for(17.0, 2.0, 0.8, 3), 0);
        // A height that is no positive number counts as the reference.
        for h in [0.0, -1.0, f32::NAN, f32::INFINITY] {
            assert_eq!(b.level_for(20.0, 1.0, h, 3), 1, "height {h}");
            assert_eq!(b.level_for(19.0, 1.0, h, 3), 0, "height {h}");
        }
        assert_eq!(size_factor(REFERENCE_HEIGHT), 1.0);
    }

    fn error_of(text: &str) -> String {
        LodPresets::parse(text, "my-lod.toml")
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn bad_files_are_named_with_the_preset_and_key() {
        let good = "distances = [10.0]\nrates = [1, 2]\noffscreen_rate = 4\nculling = true\n";
        assert!(LodPresets::parse(&format!("[mine]\n{good}"), "x").is_ok());
        let cases = [
            (
                format!("[mine]\n{good}distnces = [1.0]\n"),
                "'distnces'",
                "unknown",
            ),
            (
                "[mine]\nrates = [1]\noffscreen_rate = 1\nculling = true\n".into(),
                "'distances'",
                "missing",
            ),
            (
                format!("[mine]\n{}", good.replace("[1, 2]", "\"fast\"")),
                "'rates'",
                "string",
            ),
            (
                format!("[mine]\n{}", good.replace("[1, 2]", "[1, 0]")),
                "'rates'",
                "1..=64",
            ),
            (
                format!("[mine]\n{}", good.replace("[10.0]", "[10.0, 5.0]")),
                "'distances'",
                "ascend",
            ),
            (
                format!("[mine]\n{}", good.replace("[10.0]", "[-1.0]")),
                "'distances'",
                "positive",
            ),
            (
                format!("[mine]\n{}", good.replace("[10.0]", "[nan]")),
                "'distances'",
                "positive",
            ),
            (
                format!("[mine]\n{}", good.replace("= 4", "= 0")),
                "'offscreen_rate'",
                "1..=64",
            ),
            (
                format!("[mine]\n{}", good.replace("true", "1")),
                "'culling'",
                "integer",
            ),
            (
                format!(
                    "[mine]\n{}",
                    good.replace(
                        "[10.0]",
                        &format!("{:?}", (1..=16).map(|d| d as f32).collect::<Vec<_>>())
                    )
                ),
                "'distances'",
                "at most 16",
            ),
        ];
        for (text, key, what) in cases {
            let e = error_of(&text);
            assert!(
                e.starts_with("my-lod.toml: preset 'mine': key ")
                    && e.contains(key)
                    && e.contains(what),
                "{text}\n-> {e}"
            );
        }
        let e = error_of("mine = 3\n");
        assert!(
            e.starts_with("my-lod.toml: 'mine' holds a value of type integer"),
            "{e}"
        );
        let e = error_of("[mine\n");
        assert!(
            e.starts_with("my-lod.toml: ") && e.contains("line 1"),
            "{e}"
        );
    }

    #[test]
    fn load_names_the_file_the_preset_and_the_key() {
        let dir = std::env::temp_dir().join(format!("throng-lod-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("lod.toml");
        std::fs::write(
            &path,
            "[near]\ndistances = [5.0]\nrates = [1, 2]\noffscreen_rate = 4\nculling = true\n\n[far]\ndistances = [5.0]\nrates = [1, 2]\noffscreen = 4\nculling = true\n",
        )
        .unwrap();
        let e = LodPresets::load(&path).unwrap_err().to_string();
        let _ = std::fs::remove_dir_all(&dir);
        assert!(
            e.starts_with(&format!(
                "{}: preset 'far': key 'offscreen': unknown key",
                path.display()
            )),
            "{e}"
        );
    }

    #[test]
    fn load_names_a_missing_file() {
        let e = LodPresets::load(Path::new("/nonexistent/lod.toml")).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("/nonexistent/lod.toml: cannot read"),
            "{e}"
        );
    }
}
