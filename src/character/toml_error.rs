//! TOML parse errors as the line and message that character files, bake recipes and
//! `throng play` scripts report, in the file's own words: the dotted key at fault
//! (`characters.params.speed`) and TOML's names of types ("must be a number, found a table",
//! "found a date-time"), never serde's or Rust's (`struct ParamSpec`, `a sequence`, `i64`,
//! toml's private `$__toml_private_datetime`). This is the one place that translates them.
//!
//! An untagged enum's `expecting` text that starts with "must be " is a sentence of this
//! kind: the key and what was found are put around it.

use std::marker::PhantomData;

use serde::de::{Deserialize, Deserializer, MapAccess, Visitor, value::MapAccessDeserializer};

/// A `T` (a struct with serde's derive) read from a TOML table only. serde's derive also reads
/// a struct from an array of its fields in order, so that `clips.walk = [true]` was taken as
/// `{ root_motion = true }` and `clips.walk = [1]` said that an element of `clips.walk` must be
/// a boolean; read through this, an array there is "must be a table, found an array".
/// Derefs to `T`.
#[derive(Debug)]
pub(crate) struct FromTable<T>(pub T);

impl<T> std::ops::Deref for FromTable<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for FromTable<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = FromTable<T>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a table")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<FromTable<T>, A::Error> {
                T::deserialize(MapAccessDeserializer::new(map)).map(FromTable)
            }
        }
        d.deserialize_map(V(PhantomData))
    }
}

/// 1-based line of byte `offset` in `text`.
pub(crate) fn line_of(text: &str, offset: usize) -> usize {
    text.get(..offset).unwrap_or(text).matches('\n').count() + 1
}

/// The line of `e` in `text` (1 when it has no position) and its message, naming the key.
pub(crate) fn located(text: &str, e: &toml::de::Error) -> (usize, String) {
    let message = e.message().trim_end();
    let span = e.span();
    let line = span.as_ref().map_or(1, |s| line_of(text, s.start));
    // An element of an array follows its `[` or the `,` after the element before it.
    let element = span.as_ref().is_some_and(|s| {
        text.get(..s.start)
            .and_then(|t| t.trim_end().chars().last())
            .is_some_and(|c| c == '[' || c == ',')
    });
    let value = span.and_then(|s| text.get(s)).map(str::trim);
    let key = keys_of(e).or_else(|| {
        e.span()
            .and_then(|s| key_before(text, s.start))
            .map(str::to_string)
    });
    let at = Value {
        key: key.as_deref(),
        text: value,
        element,
    };
    (line, say(message, &at))
}

/// The value an error is about: the key it is given for, its text, and whether it is an
/// element of the key's array.
struct Value<'a> {
    key: Option<&'a str>,
    text: Option<&'a str>,
    element: bool,
}

/// The dotted path of keys that toml records for an error (`characters.params.speed`). toml
/// prints it only when the error carries no input, so it is read from such a copy's text.
fn keys_of(e: &toml::de::Error) -> Option<String> {
    let mut bare = e.clone();
    bare.set_input(None);
    let shown = bare.to_string();
    let keys = shown.trim_end().lines().last()?;
    let keys = keys.strip_prefix("in `")?.strip_suffix('`')?;
    (!keys.is_empty()).then(|| keys.to_string())
}

/// `message` (serde's or toml's, about `value`) said with its key and in TOML's words.
fn say(message: &str, value: &Value) -> String {
    let key = value.key;
    let at = |rest: &str| match (key, value.element) {
        (Some(k), false) => format!("`{k}` {rest}"),
        (Some(k), true) => format!("an element of `{k}` {rest}"),
        (None, _) => format!("this value {rest}"),
    };
    let value = value.text;
    let inside = || key.map(|k| format!(" in `{k}`")).unwrap_or_default();
    let date_time = value.is_some_and(is_date_time);
    if let Some(rest) = message
        .strip_prefix("invalid type: ")
        .or_else(|| message.strip_prefix("invalid value: "))
        && let Some((found, expected)) = rest.rsplit_once(", expected ")
    {
        let found = if date_time {
            "a date-time".to_string()
        } else {
            found_of(found)
        };
        return at(&format!("must be {}, found {found}", expected_of(expected)));
    }
    if let Some(rest) = message.strip_prefix("invalid length ")
        && let Some((n, expected)) = rest.split_once(", expected ")
    {
        // A table read as an array ("struct X with 13 elements") is an array where a table goes.
        let found = if expected.starts_with("struct ") {
            "an array".to_string()
        } else {
            format!("{n} values")
        };
        return at(&format!("must be {}, found {found}", expected_of(expected)));
    }
    if let Some(rest) = message.strip_prefix("unknown field `")
        && let Some((field, expected)) = rest.split_once('`')
    {
        // toml hands a date-time to serde as a table with one private key.
        if field.starts_with("$__toml_private") {
            return at("must be a table, found a date-time");
        }
        let expected = expected.replace("there are no fields", "it takes no keys");
        return format!("unknown key `{field}`{}{expected}", inside());
    }
    for (serde, toml) in [
        ("missing field `", "missing key `"),
        ("duplicate field `", "duplicate key `"),
    ] {
        if let Some(rest) = message.strip_prefix(serde)
            && let Some((field, after)) = rest.split_once('`')
        {
            return format!("{toml}{field}`{}{after}", inside());
        }
    }
    if let Some(rest) = message.strip_prefix("unknown variant ") {
        return at(&format!("has the unknown value {rest}"));
    }
    if message.starts_with("must be ") {
        let found = value.and_then(type_of).map(|t| format!(", found {t}"));
        return at(&format!("{message}{}", found.unwrap_or_default()));
    }
    if date_time && message.contains("$__toml_private") {
        return at("is a date-time, which is not allowed here");
    }
    match key {
        Some(k) if !message.contains(&format!("`{k}`")) => format!("{k}: {message}"),
        _ => message.to_string(),
    }
}

/// Whether `value` is a TOML date-time (offset or local, date, time).
fn is_date_time(value: &str) -> bool {
    value.parse::<toml::value::Datetime>().is_ok()
}

/// The TOML type of the value written as `value`, as messages say it; `None` when it is not
/// a value (a table's header).
fn type_of(value: &str) -> Option<String> {
    let mut table: toml::Table = toml::from_str(&format!("v = {value}")).ok()?;
    Some(match table.remove("v")? {
        toml::Value::String(s) => format!("the string {s:?}"),
        toml::Value::Integer(i) => format!("the integer {i}"),
        toml::Value::Float(f) => format!("the float {}", super::number::short(f)),
        toml::Value::Boolean(b) => format!("the boolean {b}"),
        toml::Value::Datetime(_) => "a date-time".into(),
        toml::Value::Array(_) => "an array".into(),
        toml::Value::Table(_) => "a table".into(),
    })
}

/// serde's word for what it was given (`serde::de::Unexpected`'s text) in TOML's.
fn found_of(unexpected: &str) -> String {
    let value = |prefix: &str| {
        unexpected
            .strip_prefix(prefix)
            .map(|v| v.trim_matches('`').to_string())
    };
    if let Some(b) = value("boolean ") {
        format!("the boolean {b}")
    } else if let Some(i) = value("integer ") {
        format!("the integer {i}")
    } else if let Some(f) = value("floating point ") {
        // serde writes NaN and forty-digit floats; TOML writes nan and 1e39.
        let f = f.parse::<f64>().map_or(f, super::number::short);
        format!("the float {f}")
    } else if let Some(s) = value("string ").or_else(|| value("character ")) {
        format!("the string {s}")
    } else {
        match unexpected {
            "sequence" => "an array",
            "map" => "a table",
            _ => "a value of another type",
        }
        .into()
    }
}

/// serde's description of what it wanted (a visitor's `expecting`) in TOML's words.
fn expected_of(expected: &str) -> String {
    // TOML integers are 64-bit: the narrower types say their range.
    let integers = [
        ("i8", "from -128 to 127"),
        ("i16", "from -32768 to 32767"),
        ("i32", "from -2147483648 to 2147483647"),
        ("u8", "from 0 to 255"),
        ("u16", "from 0 to 65535"),
        ("u32", "from 0 to 4294967295"),
        ("u64", "from 0 up"),
        ("usize", "from 0 up"),
        ("u128", "from 0 up"),
    ];
    if let Some((_, range)) = integers.iter().find(|(t, _)| *t == expected) {
        format!("an integer {range}")
    } else if ["i64", "i128", "isize"].contains(&expected) {
        "an integer".into()
    } else if expected.starts_with("struct ") || expected == "a map" {
        "a table".into()
    } else if expected == "a sequence" || expected.starts_with("tuple struct ") {
        "an array".into()
    } else if let Some(n) = expected
        .strip_prefix("an array of length ")
        .or_else(|| expected.strip_prefix("a tuple of size "))
    {
        format!("an array of {n} values")
    } else if expected == "f32" || expected == "f64" {
        "a number".into()
    } else if expected == "a borrowed string" || expected == "a character" {
        "a string".into()
    } else if expected.starts_with("enum ") || expected == "option" {
        "another value".into()
    } else {
        expected.to_string()
    }
}

/// The key a value at byte `offset` is given for, when the value follows `KEY =` on its line,
/// directly (`a = 1`, `{ b = 2 }`) or as an element of an array opened there (`c = [1, 2`);
/// `None` for messages about tables or keys, and for values on the lines of a multi-line array.
/// (toml's own record of keys, [`keys_of`], is used first.)
fn key_before(text: &str, offset: usize) -> Option<&str> {
    let before = text.get(..offset)?;
    let line = &before[before.rfind('\n').map_or(0, |i| i + 1)..];
    let eq = line.rfind('=')?;
    let value = line[eq + 1..].trim_start();
    let in_array =
        value.starts_with('[') && value.matches('[').count() > value.matches(']').count();
    if !(value.is_empty() || in_array) {
        return None;
    }
    let key = line[..eq].trim_end();
    // Past the last character that cannot be in a key: a byte index after a whole character
    // (the line may hold any UTF-8 before the key).
    let start = key
        .char_indices()
        .rfind(|&(_, c)| !(c.is_alphanumeric() || "_-.\"'".contains(c)))
        .map_or(0, |(i, c)| i + c.len_utf8());
    let key = &key[start..];
    (!key.is_empty()).then_some(key)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct T {
        a: Option<f32>,
        b: Option<FromTable<Inner>>,
        c: Option<Vec<f32>>,
        d: Option<Inner>,
        e: Option<u32>,
    }

    #[derive(Debug, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Inner {
        x: f32,
    }

    fn error(text: &str) -> (usize, String) {
        located(text, &toml::from_str::<T>(text).unwrap_err())
    }

    fn message(text: &str) -> String {
        error(text).1
    }

    #[test]
    fn values_are_named_by_their_dotted_key_and_toml_s_types() {
        let (line, m) = error("\na = \"tall\"\n");
        assert_eq!(line, 2);
        assert_eq!(m, "`a` must be a number, found the string \"tall\"");
        let (line, m) = error("a = 1\nb = { x = true }\n");
        assert_eq!(line, 2);
        assert_eq!(m, "`b.x` must be a number, found the boolean true");
        assert_eq!(
            message("[b]\nx = \"nan\"\n"),
            "`b.x` must be a number, found the string \"nan\""
        );
        assert_eq!(
            message("e = 2.5"),
            "`e` must be an integer from 0 to 4294967295, found the float 2.5"
        );
        assert_eq!(
            message("e = -1"),
            "`e` must be an integer from 0 to 4294967295, found the integer -1"
        );
        assert_eq!(
            message("c = 5"),
            "`c` must be an array, found the integer 5"
        );
        assert_eq!(message("a = [1]"), "`a` must be a number, found an array");
        assert_eq!(
            message("a = { x = 1 }"),
            "`a` must be a number, found a table"
        );
    }

    #[test]
    fn date_times_are_date_times_not_tables() {
        // toml hands a date-time to serde as a table with a private key.
        for v in ["1979-05-27T07:32:00Z", "1979-05-27", "07:32:00"] {
            for (text, expected) in [
                ("a = V", "`a` must be a number, found a date-time"),
                ("b = V", "`b` must be a table, found a date-time"),
                ("d = V", "`d` must be a table, found a date-time"),
                (
                    "c = [1, V]",
                    "an element of `c` must be a number, found a date-time",
                ),
            ] {
                assert_eq!(message(&text.replace('V', v)), expected, "{text} {v}");
            }
        }
    }

    #[test]
    fn tables_and_arrays_are_said_as_toml_says_them() {
        // Read through FromTable, a struct given an array is an array where a table goes.
        assert_eq!(message("b = [1]"), "`b` must be a table, found an array");
        assert_eq!(message("b = 1"), "`b` must be a table, found the integer 1");
        // serde's derive alone reads a struct from an array; the message still says a table.
        assert_eq!(message("d = []"), "`d` must be a table, found an array");
        assert_eq!(message("b = {}"), "missing key `x` in `b`");
    }

    #[test]
    fn keys_and_elements_are_named() {
        let (line, m) = error("a = 1\nz = 2\n");
        assert_eq!(line, 2);
        assert!(
            m.starts_with("unknown key `z`, expected one of `a`, `b`"),
            "{m}"
        );
        assert_eq!(
            message("[b]\nx = 1\ny = 2\n"),
            "unknown key `y` in `b`, expected `x`"
        );
        assert_eq!(
            message("c = [1, \"x\"]\n"),
            "an element of `c` must be a number, found the string \"x\""
        );
        let (line, m) = error("c = [\n  1,\n  \"x\"]\n");
        assert_eq!(line, 3);
        assert_eq!(
            m,
            "an element of `c` must be a number, found the string \"x\""
        );
    }

    #[test]
    fn other_messages_keep_their_words_after_the_key() {
        #[derive(Debug, serde::Deserialize)]
        #[allow(dead_code)]
        struct N {
            n: crate::character::number::Number,
        }
        let text = "n = 1e39";
        let e = toml::from_str::<N>(text).unwrap_err();
        assert_eq!(
            located(text, &e).1,
            "n: 1e39 is out of range: give a number from -3.4e38 to 3.4e38"
        );
    }
}
