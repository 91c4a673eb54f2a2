//! Wrong-typed values at every key of a recipe and of a character file: each key's value (and
//! each table's) is replaced in turn by a string, integers, floats, a boolean, arrays, tables
//! and date-times, and every error must name the file and the key in the file's own words,
//! never a Rust type name (`struct ParamSpec`, `$__toml_private_datetime`, `f32`, `Option`).

use std::path::{Path, PathBuf};

use crate::bake::Recipe;
use crate::character::{Character, CharacterError};

/// The values put at each key: every TOML type, with numbers out of range and empty and
/// mixed containers.
const VALUES: [&str; 17] = [
    "\"word\"",
    "7",
    "-1",
    "2.5",
    "1e39",
    "nan",
    "true",
    "[1, 2]",
    "[\"a\", 1]",
    "[]",
    "{ a = 1 }",
    "{}",
    "[{ a = 1 }]",
    "1979-05-27T07:32:00Z",
    "1979-05-27T07:32:00",
    "1979-05-27",
    "07:32:00",
];

/// A character file that resolves on the mannequin and uses every key.
const CHARACTER: &str = r#"model = "MODEL"
merge_animations = "auto"
root_joint = "hips"
initial = "move"

[clips.walk]
root_motion = true
events = [{ name = "foot_l", time = 0.0 }]

[masks.upper]
subtree = "spine"
weight = 1.0
joints = { head = 0.5 }

[parameters]
speed = { type = "float", default = 0.0 }
wave = { type = "bool" }

[trees.locomotion]
blend1d = "speed"
children = [{ at = 0.0, clip = "idle" }, { at = 1.2, clip = "walk", speed = 1.0, loop = true }]

[states.move]
tree = "locomotion"

[states.greet]
layer = { clip = "wave" }
base = { tree = "locomotion" }
mask = "upper"
weight = 0.5

[states.nod]
additive = "wave"
base = { clip = "idle" }
reference = { clip = "idle", time = 0.0 }
weight = "speed"

[[transitions]]
from = "move"
to = "greet"
when = ["wave"]
duration = 0.3
exit_time = 0.25
sync = true

[[ik]]
name = "left_foot"
type = "two_bone"
joints = ["thigh_l", "shin_l", "foot_l"]
target = "ground"
floor = 0.09
pole = [0.0, 0.0, 1.0]
weight = 1.0

[[ik]]
name = "reach"
type = "fabrik"
joints = ["upper_arm_l", "forearm_l", "hand_l"]
target = [0.3, 1.2, 0.3]
iterations = 10
tolerance = 0.001

[[ik]]
name = "look"
type = "aim"
joints = ["head"]
target = [0.0, 1.6, 1.0]
forward = [0.0, 0.0, 1.0]
up = [0.0, 1.0, 0.0]
"#;

/// A recipe that uses every key.
const RECIPE: &str = r#"output = "crowd.throng"
fps = 30
precision = "auto"
max_precision_error = 0.001
max_interpolation_error = 0.005
lods = [1.0, 0.5]
lod_max_error = 0.01

[[characters]]
name = "walker"
character = "walker.toml"
clips = "all"
states = ["move"]
once = ["wave"]
loop = ["walk"]
fps = "auto"
scale = [1.0, 1.0, 1.0]
tint = [1.0, 0.5, 0.5]
foot_lock = true
facing = "auto"
skeleton_lod = true

[characters.rates]
walk = 60

[characters.params]
speed = [0.0, 1.2]

[[characters]]
model = "other.glb"
height = 1.8
"#;

/// Where a value starts: byte offset, and the key it is given for.
struct Site {
    key: String,
    start: usize,
    end: usize,
}

/// The end of the TOML value starting at `start` (a string, an array or inline table with
/// what it holds, or a bare word up to `,`, `}`, `]`, a comment or the line's end).
fn value_end(text: &str, start: usize) -> usize {
    let b = text.as_bytes();
    let (mut depth, mut i, mut quote) = (0i32, start, None::<u8>);
    while i < b.len() {
        let c = b[i];
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None => match c {
                b'"' | b'\'' => quote = Some(c),
                b'[' | b'{' => depth += 1,
                b']' | b'}' if depth == 0 => return i,
                b']' | b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        return i + 1;
                    }
                }
                b',' | b'\n' | b'#' if depth == 0 => return i,
                _ => {}
            },
        }
        i += 1;
    }
    i
}

/// Every `KEY = VALUE` in `text`, inline tables included (not inside strings or comments).
fn sites(text: &str) -> Vec<Site> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut quote = None::<u8>;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if let Some(q) = quote {
            if c == q {
                quote = None;
            }
        } else if c == b'"' || c == b'\'' {
            quote = Some(c);
        } else if c == b'#' {
            i = text[i..].find('\n').map_or(b.len(), |n| i + n);
            continue;
        } else if c == b'=' {
            let before = text[..i].trim_end();
            let key_start = before
                .rfind(|ch: char| !(ch.is_alphanumeric() || ch == '_' || ch == '-'))
                .map_or(0, |k| k + 1);
            let start = i + 1 + (text[i + 1..].len() - text[i + 1..].trim_start().len());
            let end = value_end(text, start);
            out.push(Site {
                key: before[key_start..].to_string(),
                start,
                end,
            });
        }
        i += 1;
    }
    out
}

/// Every table header's path (`clips.walk`, `characters.params`, `ik`) with the variants
/// of `text` where that table (and what is under it) is replaced by `LAST = VALUE` in its
/// parent, for each value.
fn table_variants(text: &str, value: &str) -> Vec<(String, String)> {
    let lines: Vec<&str> = text.lines().collect();
    let header = |l: &str| {
        let l = l.trim();
        l.starts_with('[')
            .then(|| l.trim_matches(|c| c == '[' || c == ']').to_string())
    };
    let mut paths: Vec<String> = lines.iter().filter_map(|l| header(l)).collect();
    paths.dedup();
    let mut out = Vec::new();
    for path in paths {
        let under = |h: &str| h == path || h.starts_with(&format!("{path}."));
        let (parent, last) = path.rsplit_once('.').unwrap_or(("", &path));
        let mut kept = Vec::new();
        let mut skipping = false;
        let mut placed = false;
        for l in &lines {
            if let Some(h) = header(l) {
                skipping = under(&h);
            }
            if !skipping {
                kept.push(l.to_string());
            }
            if !placed && header(l).is_some_and(|h| h == parent) {
                kept.push(format!("{last} = {value}"));
                placed = true;
            }
        }
        if !placed {
            kept.insert(0, format!("{path} = {value}"));
        }
        out.push((last.to_string(), kept.join("\n") + "\n"));
    }
    out
}

/// The variants of `text`: each key's value and each table replaced by each of [`VALUES`],
/// with the key replaced.
fn variants(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for site in sites(text) {
        for v in VALUES {
            let t = format!("{}{v}{}", &text[..site.start], &text[site.end..]);
            out.push((site.key.clone(), t));
        }
    }
    for v in VALUES {
        out.extend(table_variants(text, v));
    }
    out
}

/// Words of Rust that a message must not hold: serde's names of types and of containers,
/// and the names of throng's own types that parse these files.
const RUST_WORDS: [&str; 24] = [
    "u8", "u16", "u32", "u64", "usize", "i8", "i16", "i32", "i64", "f32", "f64", "Option", "Vec",
    "String", "Spanned", "BTreeMap", "Number", "Value", "sequence", "map", "struct", "enum",
    "variant", "unit",
];

/// What in `message` is Rust's rather than the file's, if anything: a marker of toml's or
/// serde's internals, or a Rust word outside quotes (a key named `map`, or a value such as
/// `precision = "f32"`, is the file's own).
fn rust_in(message: &str) -> Option<String> {
    for marker in ["$__", "struct ", "enum ", "untagged"] {
        if message.contains(marker) {
            return Some(marker.into());
        }
    }
    let mut plain = String::new();
    let mut quote = None;
    for c in message.chars() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if matches!(c, '`' | '\'' | '"') => quote = Some(c),
            None => plain.push(c),
        }
    }
    for word in plain.split(|c: char| !(c.is_alphanumeric() || c == '_')) {
        let camel = word.len() > 1
            && word.starts_with(|c: char| c.is_ascii_uppercase())
            && word[1..].contains(|c: char| c.is_ascii_uppercase())
            && word.contains(|c: char| c.is_ascii_lowercase());
        if camel || RUST_WORDS.contains(&word) {
            return Some(word.into());
        }
    }
    None
}

fn mannequin() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/mannequin.glb")
}

/// Checks one message; returns what is wrong with it.
fn judge(message: &str, file: &str, key: &str) -> Option<String> {
    if let Some(r) = rust_in(message) {
        return Some(format!("holds '{r}'"));
    }
    if !message.starts_with(file) {
        return Some(format!("does not start with the file '{file}'"));
    }
    if !message.contains(key) {
        return Some(format!("does not name the key '{key}'"));
    }
    None
}

#[test]
fn the_check_finds_what_serde_and_toml_used_to_say() {
    for leak in [
        "a: invalid type: integer `1`, expected struct ParamSpec",
        "unknown field `$__toml_private_datetime`, expected `type` or `default`",
        "speed: invalid type: map, expected a sequence",
        "iterations: invalid type: floating point `NaN`, expected i64",
        "x: invalid value: integer `-1`, expected u32",
        "1e39 is out of range: give a number from -3.4e38 to 3.4e38 (f32)",
        "data did not match any variant of untagged enum WeightSpec",
        "invalid type: unit value, expected an Option",
    ] {
        assert!(rust_in(leak).is_some(), "{leak}");
    }
    // A file's own words in quotes are not Rust's.
    assert_eq!(rust_in("precision = 'f32': give 'auto'"), None);
    assert_eq!(rust_in("unknown key `map`"), None);
}

/// How many distinct keys `variants` changes: every key of the file, each table included.
fn keys(all: &[(String, String)]) -> usize {
    let mut k: Vec<&str> = all.iter().map(|(k, _)| k.as_str()).collect();
    k.sort_unstable();
    k.dedup();
    k.len()
}

/// Parses every variant of `all` with `parse` (an error's message, and whether it must name
/// the key) and fails listing each message that [`judge`] refuses.
fn check(all: &[(String, String)], file: &str, parse: impl Fn(&str) -> Option<(String, bool)>) {
    let mut bad = Vec::new();
    for (key, text) in all {
        if let Some((m, names_key)) = parse(text) {
            let named = if names_key { key.as_str() } else { "" };
            if let Some(why) = judge(&m, file, named) {
                bad.push(format!("{key}: {why}: {m}"));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "{} of {}:\n{}",
        bad.len(),
        all.len(),
        bad.join("\n")
    );
}

#[test]
fn wrong_types_in_a_character_file_are_said_in_toml_s_words() {
    let base = CHARACTER.replace("MODEL", &mannequin().display().to_string());
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let path = dir.join("hostile.toml");
    Character::parse(&base, "hostile.toml", dir, &path).unwrap_or_else(|e| panic!("{e}"));
    let all = variants(&base);
    // Every key of the file's syntax but the table names chosen here: a generator that
    // found fewer would pass without testing them.
    assert!(keys(&all) >= 49, "{} keys", keys(&all));
    check(&all, "hostile.toml:", |text| {
        let e = Character::parse(text, "hostile.toml", dir, &path).err()?;
        // A value of the right type that the file's meaning refuses names the element
        // instead ("state 'nod' uses clip 'word', which the model does not have").
        let names_key = matches!(e, CharacterError::Syntax { .. });
        Some((e.to_string(), names_key))
    });
}

#[test]
fn wrong_types_in_a_recipe_are_said_in_toml_s_words() {
    let path = Path::new("bake/hostile.toml");
    Recipe::parse(RECIPE, path).unwrap_or_else(|e| panic!("{e}"));
    let all = variants(RECIPE);
    assert!(keys(&all) >= 23, "{} keys", keys(&all));
    check(&all, "bake/hostile.toml:", |text| {
        Some((Recipe::parse(text, path).err()?.to_string(), true))
    });
}
