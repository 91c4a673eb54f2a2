//! Why a bake's numbers left f32's range, for the baker's message: a joint whose own values are
//! far beyond what a model holds (a rotation far from unit length, a huge scale or
//! translation), named with the key and its value; the recipe's `scale` or `height` only when
//! it gave one.

use super::load::Loaded;
use super::plan::{Job, JobSource};
use super::recipe::Size;
use crate::anim::clip::{Interpolation, Property};
use crate::anim::transform::Transform;
use crate::character::number::short;

/// The factor by which a joint's own value multiplies its matrix (a rotation's squared
/// length, a scale, a translation in heights of the model) above which that value is named as
/// the cause. Real models stay far below: rotations are unit length within quantisation,
/// scales and translations within a few hundred heights; and a factor that takes a bake past
/// f32's 3.4e38 on its own is far above (a rotation of length 1e19, a scale of 1e38).
const ODD: f64 = 1e6;

/// One of a joint's own values, with the factor it multiplies the joint's matrix by.
struct Odd {
    factor: f64,
    joint: usize,
    what: String,
}

/// The sentence that says why animation `j` of `l` overflowed: the joint value with the
/// largest factor above [`ODD`] (in the rest pose, or in a key of the clips the animation
/// plays), and the size the recipe gave (`size`), if any.
pub(super) fn cause(l: &Loaded, j: &Job, size: &Size) -> String {
    let odd = odd_value(l, j);
    let tall = format!("the character is {:.3e} m tall", l.height);
    let given = match size {
        Size::Scale(_) => Some("scale"),
        Size::Height(_) => Some("height"),
        Size::Default => None,
    };
    match (odd, given) {
        (Some(o), None) => format!("joint '{}': {}", name(l, o.joint), o.what),
        (Some(o), Some(key)) => format!(
            "joint '{}': {} (at the recipe's {key}, {tall})",
            name(l, o.joint),
            o.what
        ),
        (None, Some(key)) => format!("{key} too large? {tall}"),
        (None, None) => format!(
            "no joint's own value is out of the ordinary, so their product down the hierarchy is; {tall}"
        ),
    }
}

fn name(l: &Loaded, joint: usize) -> &str {
    l.model
        .skeleton
        .names()
        .get(joint)
        .map_or("?", String::as_str)
}

/// The joint value with the largest factor above [`ODD`], first in joint and key order among
/// equals.
fn odd_value(l: &Loaded, j: &Job) -> Option<Odd> {
    // Translations count in heights of the model: a metre means nothing to a model in
    // kilometres. (A model of no height counts them in model units.)
    let height = f64::from(l.standing).max(f64::MIN_POSITIVE);
    let mut best: Option<Odd> = None;
    let mut offer = |factor: f64, joint: usize, what: &dyn Fn() -> String| {
        if factor > ODD && best.as_ref().is_none_or(|b| factor > b.factor) {
            best = Some(Odd {
                factor,
                joint,
                what: what(),
            });
        }
    };
    for (joint, rest) in l.model.skeleton.rest().iter().enumerate() {
        for (property, factor, value) in rest_factors(rest, height) {
            offer(factor, joint, &|| {
                describe(property, &format!("its rest {}", property.name()), value, l)
            });
        }
    }
    for (c, clip) in l.model.clips.iter().enumerate() {
        if matches!(j.source, JobSource::Clip(k) if k != c) {
            continue;
        }
        for ch in clip.channels() {
            // CUBICSPLINE rotations are normalised when sampled, whatever their length.
            if ch.property() == Property::Rotation
                && ch.interpolation() == Interpolation::CubicSpline
            {
                continue;
            }
            for (i, v) in ch.values().iter().enumerate() {
                // In f64: a length past f32's range is what this looks for.
                let v = v.as_dvec4();
                let value = match ch.property() {
                    Property::Rotation => v.length(),
                    Property::Scale => v.truncate().abs().max_element(),
                    Property::Translation => v.truncate().length(),
                };
                offer(factor(ch.property(), value, height), ch.joint(), &|| {
                    let key = match ch.interpolation() {
                        Interpolation::CubicSpline => format!("value {i}"),
                        _ => format!("key {i}"),
                    };
                    let at = format!("{} {key} of clip '{}'", ch.property().name(), clip.name());
                    describe(ch.property(), &at, value, l)
                });
            }
        }
    }
    best
}

/// The factor by which `value` (a rotation's length, a scale's largest magnitude or a
/// translation's length) multiplies a joint's matrix.
fn factor(property: Property, value: f64, height: f64) -> f64 {
    match property {
        Property::Rotation => value * value,
        Property::Scale => value,
        Property::Translation => value / height,
    }
}

/// The three values of a rest transform with their factors.
fn rest_factors(rest: &Transform, height: f64) -> [(Property, f64, f64); 3] {
    [
        (Property::Rotation, rest.rotation.as_dquat().length()),
        (Property::Scale, rest.scale.as_dvec3().abs().max_element()),
        (Property::Translation, rest.translation.as_dvec3().length()),
    ]
    .map(|(p, v)| (p, factor(p, v, height), v))
}

/// "`at` has length 1e20, where a rotation has length 1", and the like.
fn describe(property: Property, at: &str, value: f64, l: &Loaded) -> String {
    // At f32's precision, as the file wrote it (1e20, not 1.0000000200408773e20), when it fits.
    let v = if (value as f32).is_finite() {
        short(value as f32)
    } else {
        short(value)
    };
    match property {
        Property::Rotation => format!("{at} has length {v}, where a rotation has length 1"),
        Property::Scale => format!("{at} is {v}"),
        Property::Translation => format!(
            "{at} is {v} model units long, on a model {} units tall",
            short(l.standing)
        ),
    }
}
