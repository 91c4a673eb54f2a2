//! The `META` section: what a file was baked from and how, as UTF-8 JSON. Used to tell whether
//! a re-bake would change anything, and shown by `throng inspect`.

use serde::{Deserialize, Serialize};

/// One input file of a bake.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct InputFile {
    /// The path as the recipe (or command line) named it, resolved.
    pub path: String,
    /// Lowercase hex SHA-256 of its bytes.
    pub sha256: String,
    /// Its size in bytes.
    pub bytes: u64,
}

/// Bake metadata.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Metadata {
    /// The tool that baked the file, e.g. `throng 0.1.0`.
    pub tool: String,
    /// Hex SHA-256 over the tool version, the recipe and every input file's hash: equal keys
    /// mean a re-bake would write the same file.
    pub input_key: String,
    /// The recipe's path (or `-` for a bake of a bare model without a recipe).
    pub recipe_path: String,
    /// The recipe's text (for a bare model: the equivalent recipe).
    pub recipe: String,
    /// Every file read besides the recipe (whose text is stored whole): character files,
    /// models and their external buffers and images.
    pub inputs: Vec<InputFile>,
    /// `f32` or `f16`, and why (`"f16 (auto: within the budget)"`).
    pub precision: String,
    /// The budget for f16 error, as a fraction of character height.
    pub precision_budget: f32,
    /// The budget for mid-frame interpolation error used by `fps = "auto"`, as a fraction of
    /// character height.
    pub interpolation_budget: f32,
    /// Why each looping animation that has no ground speed has none, in animation order; empty
    /// when every looping animation has one. Optional in the file: absent when empty (and in
    /// files baked before it was recorded).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub no_ground_speed: Vec<NoGroundSpeed>,
}

/// Why a looping animation has no ground speed (`AEXT` records none for it).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct NoGroundSpeed {
    /// The animation: its index in the file's `ANIM` table.
    pub anim: u32,
    /// The reason, in words (a foot never lifts, is not planted long enough, the planted feet
    /// do not slide back).
    pub why: String,
}

/// A JSON value read with every object's keys checked to be unique, at any depth: a `META`
/// whose object names a key twice is ambiguous (which value is meant?), so it is refused
/// rather than resolved by keeping one.
pub(super) struct UniqueKeys(pub serde_json::Value);

impl<'de> Deserialize<'de> for UniqueKeys {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(UniqueVisitor).map(UniqueKeys)
    }
}

struct UniqueVisitor;

impl<'de> serde::de::Visitor<'de> for UniqueVisitor {
    type Value = serde_json::Value;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Self::Value, E> {
        Ok(v.into())
    }
    fn visit_i64<E>(self, v: i64) -> Result<Self::Value, E> {
        Ok(v.into())
    }
    fn visit_u64<E>(self, v: u64) -> Result<Self::Value, E> {
        Ok(v.into())
    }
    fn visit_f64<E>(self, v: f64) -> Result<Self::Value, E> {
        // serde_json only hands out finite numbers.
        Ok(serde_json::Number::from_f64(v).map_or(serde_json::Value::Null, Into::into))
    }
    fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
        Ok(v.into())
    }
    fn visit_string<E>(self, v: String) -> Result<Self::Value, E> {
        Ok(v.into())
    }
    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(serde_json::Value::Null)
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut items = Vec::new();
        while let Some(UniqueKeys(v)) = seq.next_element()? {
            items.push(v);
        }
        Ok(items.into())
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut out = serde_json::Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let UniqueKeys(v) = map.next_value()?;
            if out.contains_key(&key) {
                return Err(serde::de::Error::custom(format!(
                    "the key \"{key}\" appears twice in one object"
                )));
            }
            out.insert(key, v);
        }
        Ok(out.into())
    }
}
