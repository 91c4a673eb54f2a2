//! TOML parse errors as the line and message that character files, bake recipes and
//! `throng play` scripts report: `toml`'s message, with the key prepended when the message is
//! about a value (serde's messages, and [`Number`](super::number::Number)'s, name the value but
//! not the key it was given for).

/// 1-based line of byte `offset` in `text`.
pub(crate) fn line_of(text: &str, offset: usize) -> usize {
    text.get(..offset).unwrap_or(text).matches('\n').count() + 1
}

/// The line of `e` in `text` (1 when it has no position) and its message, naming the key.
pub(crate) fn located(text: &str, e: &toml::de::Error) -> (usize, String) {
    let message = e.message().trim_end();
    let Some(span) = e.span() else {
        return (1, message.to_string());
    };
    let line = line_of(text, span.start);
    let message = match key_before(text, span.start) {
        Some(key) if !message.contains(&format!("`{key}`")) => format!("{key}: {message}"),
        _ => message.to_string(),
    };
    (line, message)
}

/// The key a value at byte `offset` is given for, when the value follows `KEY =` on its line,
/// directly (`a = 1`, `{ b = 2 }`) or as an element of an array opened there (`c = [1, 2`);
/// `None` for messages about tables or keys, and for values on the lines of a multi-line array.
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
        b: Option<Inner>,
        c: Option<Vec<f32>>,
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

    #[test]
    fn values_are_named_by_their_key() {
        let (line, m) = error("\na = \"tall\"\n");
        assert_eq!(line, 2);
        assert!(m.starts_with("a: invalid type: string"), "{m}");
        let (line, m) = error("a = 1\nb = { x = true }\n");
        assert_eq!(line, 2);
        assert!(m.starts_with("x: invalid type: boolean"), "{m}");
    }

    #[test]
    fn keys_and_lines_without_a_key_are_left_as_they_are() {
        let (line, m) = error("a = 1\nd = 2\n");
        assert_eq!(line, 2);
        assert!(m.starts_with("unknown field `d`"), "{m}");
        let (_, m) = error("c = [1, \"x\"]\n");
        assert!(m.starts_with("c: invalid type"), "{m}");
        let (_, m) = error("c = [\n  1,\n  \"x\"]\n");
        assert!(m.starts_with("invalid type"), "{m}");
    }
}
