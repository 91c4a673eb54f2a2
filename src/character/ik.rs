//! A character's IK chains: resolved from the file's `[[ik]]` tables and checked once into the
//! animation core's IK jobs, then run in file order on every posed frame after forward
//! kinematics.

use glam::{Mat4, Vec3};
use toml::Spanned;

use super::context::Ctx;
use super::error::CharacterError;
use super::file::{IkSpec, TargetSpec};
use super::number::{Number, to_f32};
use crate::anim::Transform;
use crate::anim::graph::Weight;
use crate::anim::ik::{AimJob, CcdJob, FabrikJob, IkError, IterLimits, MAX_CCD_CHAIN, TwoBoneJob};
use crate::anim::skeleton::Skeleton;

/// What an IK chain solves: a job of the animation core, validated when the file was loaded.
#[derive(Clone, Debug)]
pub enum IkKind {
    /// Analytic two-bone IK; the middle joint bends towards its FK position plus `pole`
    /// (a model-space direction).
    TwoBone {
        /// The validated job: root, middle and end joints.
        job: TwoBoneJob,
        /// The offset, model space, metres, from the middle joint's FK position to the pole
        /// point the chain bends towards.
        pole: Vec3,
    },
    /// Cyclic coordinate descent over a parent-to-child chain.
    Ccd(CcdJob),
    /// FABRIK over a parent-to-child chain.
    Fabrik(FabrikJob),
    /// Turns a joint so its forward axis points at the target, keeping its up axis near +Y.
    Aim(AimJob),
}

impl IkKind {
    /// The joint whose origin the target is for: the chain's end, or the aimed joint.
    pub fn effector(&self) -> usize {
        match self {
            IkKind::TwoBone { job, .. } => job.joints()[2],
            IkKind::Ccd(job) => job.chain().last().copied().unwrap_or(0),
            IkKind::Fabrik(job) => job.chain().last().copied().unwrap_or(0),
            IkKind::Aim(job) => job.joint(),
        }
    }
}

/// Where an IK chain's effector goes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum IkTarget {
    /// A fixed model-space point, metres.
    Point(Vec3),
    /// Keep the effector at or above `floor` (metres): feet never sink through the ground.
    Ground {
        /// The lowest height the effector's origin may have: model-space y, metres.
        floor: f32,
    },
}

/// One IK post-process step, applied after forward kinematics in file order.
#[derive(Clone, Debug)]
pub struct IkChain {
    /// Name from the file.
    pub name: String,
    /// Solver and joints.
    pub kind: IkKind,
    /// Target.
    pub target: IkTarget,
    /// Blend weight from the FK pose (constant or a float parameter).
    pub weight: Weight,
}

impl IkChain {
    /// Runs this chain on a pose after FK; `local` and `model` stay consistent. `scratch` holds
    /// FABRIK positions (see [`IkChain::scratch_len`]). Allocates nothing.
    pub fn apply(
        &self,
        skeleton: &Skeleton,
        params: &[f32],
        (local, model): (&mut [Transform], &mut [Mat4]),
        scratch: &mut [Vec3],
    ) {
        let weight = match self.weight {
            Weight::Const(w) => w,
            Weight::Param(p) => params.get(p).copied().unwrap_or(0.0).clamp(0.0, 1.0),
        };
        if weight <= 0.0 {
            return;
        }
        let target = match self.target {
            IkTarget::Point(p) => p,
            IkTarget::Ground { floor } => {
                let at = model[self.kind.effector()].w_axis.truncate();
                if at.y >= floor {
                    return;
                }
                Vec3::new(at.x, floor, at.z)
            }
        };
        // The jobs were validated at load; what a run can still refuse (a degenerate pose this
        // frame) leaves the pose as FK made it, which is the right fallback for a crowd.
        let _ = match &self.kind {
            IkKind::TwoBone { job, pole } => {
                let pole_point = model[job.joints()[1]].w_axis.truncate() + *pole;
                job.run(skeleton, local, model, target, pole_point, weight)
            }
            IkKind::Ccd(job) => job.run(skeleton, local, model, target, weight),
            IkKind::Fabrik(job) => job.run(skeleton, local, model, target, scratch, weight),
            IkKind::Aim(job) => job.run(skeleton, local, model, target, weight),
        };
    }

    /// Positions [`IkChain::apply`]'s scratch must hold for this chain.
    pub fn scratch_len(&self) -> usize {
        match &self.kind {
            IkKind::Fabrik(job) => job.scratch_len(),
            _ => 0,
        }
    }
}

/// Resolves one `[[ik]]` table into a chain whose job is validated against the model.
pub(super) fn build(ctx: &Ctx, c: &Spanned<IkSpec>) -> Result<IkChain, CharacterError> {
    let s = c.get_ref();
    let owner = format!("ik '{}'", s.name.get_ref());
    let joints = s
        .joints
        .get_ref()
        .iter()
        .map(|j| ctx.joint(j, s.joints.span(), &owner))
        .collect::<Result<Vec<_>, _>>()?;
    refuse_other_types(ctx, s, &owner)?;
    let limits = limits(ctx, s, &owner)?;
    let kind = kind(ctx, c, &joints, limits, &owner)?;
    let target = match s.target.get_ref() {
        TargetSpec::Point(p) => {
            let mut point = [0.0; 3];
            for (out, v) in point.iter_mut().zip(p) {
                *out = to_f32(*v)
                    .map_err(|e| ctx.err(s.target.span(), format!("{owner}: target: {e}")))?;
            }
            if let Some(f) = &s.floor {
                return Err(ctx.err(
                    f.span(),
                    format!(
                        "{owner}: floor applies to target = \"ground\" only; this target is a point"
                    ),
                ));
            }
            IkTarget::Point(Vec3::from(point))
        }
        TargetSpec::Named(n) if n == "ground" => IkTarget::Ground {
            floor: s.floor.as_ref().map_or(0.0, |f| f.get_ref().get()),
        },
        TargetSpec::Named(n) => {
            return Err(ctx.err(
                s.target.span(),
                format!("{owner}: target '{n}' is not \"ground\" or a model-space point [x, y, z]"),
            ));
        }
    };
    Ok(IkChain {
        name: s.name.get_ref().clone(),
        kind,
        target,
        weight: ctx.weight(&s.weight, &owner)?,
    })
}

/// Refuses the keys that only another type of chain reads: a key without effect is a mistake
/// (a misremembered type, or a key meant for another chain).
fn refuse_other_types(ctx: &Ctx, s: &IkSpec, owner: &str) -> Result<(), CharacterError> {
    let kind = s.kind.get_ref().as_str();
    let keys = [
        (
            "pole",
            s.pole.as_ref().map(Spanned::span),
            &["two_bone"][..],
        ),
        (
            "forward",
            s.forward.as_ref().map(Spanned::span),
            &["aim"][..],
        ),
        ("up", s.up.as_ref().map(Spanned::span), &["aim"][..]),
        (
            "iterations",
            s.iterations.as_ref().map(Spanned::span),
            &["ccd", "fabrik"][..],
        ),
        (
            "tolerance",
            s.tolerance.as_ref().map(Spanned::span),
            &["ccd", "fabrik"][..],
        ),
    ];
    // An unknown type is reported by `kind`, with the types there are.
    if !["two_bone", "ccd", "fabrik", "aim"].contains(&kind) {
        return Ok(());
    }
    for (key, span, types) in keys {
        if let Some(span) = span
            && !types.contains(&kind)
        {
            return Err(ctx.err(
                span,
                format!(
                    "{owner}: '{key}' applies to type {} only; this chain is '{kind}'",
                    types.join(" and ")
                ),
            ));
        }
    }
    Ok(())
}

/// The iteration limits of a chain.
fn limits(ctx: &Ctx, s: &IkSpec, owner: &str) -> Result<IterLimits, CharacterError> {
    Ok(IterLimits {
        max_iterations: match &s.iterations {
            Some(i) => match u32::try_from(*i.get_ref()) {
                Ok(n @ 1..=1000) => n,
                _ => {
                    return Err(ctx.err(
                        i.span(),
                        format!("{owner}: iterations {} must be 1 to 1000", i.get_ref()),
                    ));
                }
            },
            None => IterLimits::default().max_iterations,
        },
        tolerance: match &s.tolerance {
            Some(t) if t.get_ref().get() <= 0.0 => {
                return Err(ctx.err(
                    t.span(),
                    format!(
                        "{owner}: tolerance {} must be a distance above 0 (model units)",
                        t.get_ref().get()
                    ),
                ));
            }
            Some(t) => t.get_ref().get(),
            None => IterLimits::default().tolerance,
        },
    })
}

/// The solver of a chain, checked with the file's own messages first (they name joints, which
/// the core's [`crate::anim::ik::IkError`] cannot) and then built into its job.
fn kind(
    ctx: &Ctx,
    c: &Spanned<IkSpec>,
    joints: &[usize],
    limits: IterLimits,
    owner: &str,
) -> Result<IkKind, CharacterError> {
    let s = c.get_ref();
    let skeleton = &ctx.model.skeleton;
    let span = || s.joints.span();
    // Anything the checks below let through is a bug in them; it is still reported, not lost.
    let job_err = |e: IkError| ctx.err(span(), format!("{owner}: {e}"));
    Ok(match s.kind.get_ref().as_str() {
        "two_bone" => {
            let [root, mid, end] = joints[..] else {
                return Err(ctx.err(
                    span(),
                    format!("{owner}: two_bone needs exactly 3 joints (root, middle, end)"),
                ));
            };
            if !skeleton.is_ancestor(root, mid) || !skeleton.is_ancestor(mid, end) {
                return Err(ctx.err(
                    span(),
                    format!("{owner}: each joint must be an ancestor of the next"),
                ));
            }
            IkKind::TwoBone {
                job: TwoBoneJob::new(skeleton, root, mid, end).map_err(job_err)?,
                pole: axis(ctx, owner, "pole", s.pole.as_ref(), Vec3::Z)?,
            }
        }
        "ccd" => {
            chain_linked(ctx, s, joints, owner)?;
            if joints.len() > MAX_CCD_CHAIN {
                return Err(ctx.err(
                    span(),
                    format!("{owner}: CCD chains hold at most {MAX_CCD_CHAIN} joints"),
                ));
            }
            IkKind::Ccd(CcdJob::new(skeleton, joints, limits).map_err(job_err)?)
        }
        "fabrik" => {
            chain_linked(ctx, s, joints, owner)?;
            IkKind::Fabrik(FabrikJob::new(skeleton, joints, limits).map_err(job_err)?)
        }
        "aim" => {
            let [joint] = joints[..] else {
                return Err(ctx.err(span(), format!("{owner}: aim turns exactly 1 joint")));
            };
            let forward = axis(ctx, owner, "forward", s.forward.as_ref(), Vec3::Z)?;
            let up = axis(ctx, owner, "up", s.up.as_ref(), Vec3::Y)?;
            IkKind::Aim(AimJob::new(skeleton, joint, forward, up).map_err(job_err)?)
        }
        other => {
            return Err(ctx.err(
                s.kind.span(),
                format!("{owner}: type '{other}' is not 'two_bone', 'ccd', 'fabrik' or 'aim'"),
            ));
        }
    })
}

/// A CCD or FABRIK chain: at least 2 joints, each the parent of the next.
fn chain_linked(
    ctx: &Ctx,
    s: &IkSpec,
    joints: &[usize],
    owner: &str,
) -> Result<(), CharacterError> {
    let skeleton = &ctx.model.skeleton;
    if joints.len() < 2 {
        return Err(ctx.err(
            s.joints.span(),
            format!("{owner}: a chain needs at least 2 joints"),
        ));
    }
    for w in joints.windows(2) {
        if skeleton.parent(w[1]) != Some(w[0]) {
            return Err(ctx.err(
                s.joints.span(),
                format!(
                    "{owner}: '{}' is not the parent of '{}'",
                    skeleton.names()[w[0]],
                    skeleton.names()[w[1]]
                ),
            ));
        }
    }
    Ok(())
}

/// An axis or direction from the file, or `default`. It must not be zero, or the solvers would
/// quietly do nothing; its length must be finite too (components near f32's limit overflow
/// it). Errors are reported on the key's own line.
fn axis(
    ctx: &Ctx,
    owner: &str,
    key: &str,
    v: Option<&Spanned<[Number; 3]>>,
    default: Vec3,
) -> Result<Vec3, CharacterError> {
    let Some(v) = v else {
        return Ok(default);
    };
    let x = Vec3::from(v.get_ref().map(Number::get));
    if x.length().is_finite() && x.length() > 1e-6 {
        Ok(x)
    } else {
        // f32's own `e` form: widening to f64 first would print 3e38 as 3.0000000054977558e38.
        let shown: Vec<String> = x
            .to_array()
            .iter()
            .map(|c| {
                if c.abs() >= 1e16 {
                    format!("{c:e}")
                } else {
                    c.to_string()
                }
            })
            .collect();
        Err(ctx.err(
            v.span(),
            format!(
                "{owner}: {key} [{}] must be a non-zero vector of finite length",
                shown.join(", ")
            ),
        ))
    }
}
