//! Numbers read from TOML (character files, bake recipes, `throng play` scripts) and from the
//! command line (`--param NAME=VALUE`) into `f32`, with one set of messages for what does not
//! fit.
//!
//! TOML numbers are 64-bit. Converting one to `f32` with `as` would turn `1e39` into infinity and
//! leave it to each check downstream to misreport ("inf must be a positive number", "is not a
//! number"); [`Number`] refuses it where it is read instead, so the message points at the value
//! and says what is wrong with it: out of `f32`'s range, or not finite (`nan`, `inf`).

use serde::de::{self, Deserialize, Deserializer, Visitor};

/// The largest magnitude an `f32` holds, as messages print it.
const RANGE: &str = "-3.4e38 to 3.4e38";

/// A finite number that fits an `f32`: a TOML integer or float. Deserializing anything else
/// fails with a message about the value (see [`to_f32`]).
#[derive(Clone, Copy, Debug, PartialEq, PartialOrd)]
pub struct Number(pub f32);

impl Number {
    /// The value.
    pub fn get(self) -> f32 {
        self.0
    }
}

/// `v` as an `f32`.
///
/// # Errors
/// A message for a value that is NaN or infinite ("must be a finite number") or beyond `f32`'s
/// range ("out of range", with the range). Values too small for `f32` round to 0, which is what
/// the number means at `f32`'s precision.
pub fn to_f32(v: f64) -> Result<f32, String> {
    if !v.is_finite() {
        return Err(format!("{} must be a finite number", short(v)));
    }
    if v.abs() > f64::from(f32::MAX) {
        return Err(format!(
            "{} is out of range: give a number from {RANGE}",
            short(v)
        ));
    }
    Ok(v as f32)
}

/// Parses `text` (Rust's float syntax, as `--param` takes) into a finite `f32`.
///
/// # Errors
/// "'TEXT' is not a number" for text that is not one, else as [`to_f32`].
pub fn parse_f32(text: &str) -> Result<f32, String> {
    let t = text.trim();
    let v: f64 = t.parse().map_err(|_| format!("'{t}' is not a number"))?;
    to_f32(v)
}

/// `v` (an `f64` or an `f32`, printed at its own precision: `1e20f32` is `1e20`) as a person
/// would write it: `1e39` rather than forty digits, `nan`, `inf`.
pub(crate) fn short<T>(v: T) -> String
where
    T: Copy + Into<f64> + std::fmt::Display + std::fmt::LowerExp,
{
    let x: f64 = v.into();
    if x.is_nan() {
        "nan".into()
    } else if x.is_infinite() {
        if x > 0.0 { "inf" } else { "-inf" }.into()
    } else if x != 0.0 && !(1e-4..1e16).contains(&x.abs()) {
        format!("{v:e}")
    } else {
        v.to_string()
    }
}

impl<'de> Deserialize<'de> for Number {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Number;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a number")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Number, E> {
                // Every i64 is within f32's range (to 7 significant digits).
                Ok(Number(v as f32))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Number, E> {
                Ok(Number(v as f32))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Number, E> {
                to_f32(v).map(Number).map_err(E::custom)
            }
        }
        d.deserialize_any(V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Deserialize)]
    struct T {
        x: Number,
    }

    fn read(v: &str) -> Result<f32, String> {
        toml::from_str::<T>(&format!("x = {v}"))
            .map(|t| t.x.get())
            .map_err(|e| e.message().to_string())
    }

    #[test]
    fn numbers_that_fit_are_read() {
        assert_eq!(read("1.5"), Ok(1.5));
        assert_eq!(read("-3"), Ok(-3.0));
        assert_eq!(read("3.4e38"), Ok(3.4e38));
        assert_eq!(read("1e-50"), Ok(0.0));
        assert_eq!(parse_f32(" 2.5 "), Ok(2.5));
    }

    #[test]
    fn numbers_that_do_not_fit_say_why() {
        assert_eq!(
            read("1e39").unwrap_err(),
            "1e39 is out of range: give a number from -3.4e38 to 3.4e38"
        );
        assert_eq!(
            read("-1e39").unwrap_err(),
            "-1e39 is out of range: give a number from -3.4e38 to 3.4e38"
        );
        assert_eq!(read("nan").unwrap_err(), "nan must be a finite number");
        assert_eq!(read("-inf").unwrap_err(), "-inf must be a finite number");
        assert!(read("\"fast\"").unwrap_err().contains("expected a number"));
        assert_eq!(
            parse_f32("1e39").unwrap_err(),
            "1e39 is out of range: give a number from -3.4e38 to 3.4e38"
        );
        assert_eq!(parse_f32("inf").unwrap_err(), "inf must be a finite number");
        assert_eq!(parse_f32("fast").unwrap_err(), "'fast' is not a number");
    }
}
