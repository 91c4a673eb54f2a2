//! The joint hierarchy: names, parents (ordered parents-first), rest pose and inverse binds.
//!
//! Importers fill a [`RawSkeleton`] and [`RawSkeleton::validate`] it into an immutable
//! [`Skeleton`]. Parents-first order (`parent < joint`) lets forward kinematics be a single
//! forward loop and lets subtree masks be computed in one pass.

use glam::Mat4;

use super::error::AnimError;
use super::transform::Transform;

/// The most joints a runtime [`Skeleton`] can hold: joint indices are stored as `u16` (its
/// parents here; mesh joints and textures elsewhere), so joints are numbered 0..=65534. A
/// baked file has its own limit, `format::MAX_JOINTS` (65536); the baker checks that every
/// skeleton this limit admits fits it.
pub const MAX_SKELETON_JOINTS: usize = u16::MAX as usize;

/// Skeleton data as an importer builds it, before validation.
#[derive(Clone, Debug, Default)]
pub struct RawSkeleton {
    /// One name per joint (need not be unique; lookups return the first match).
    pub names: Vec<String>,
    /// Parent joint index per joint; `None` for roots. Must satisfy `parent < joint`.
    pub parents: Vec<Option<usize>>,
    /// Rest (node) pose: each joint's local transform when no clip drives it.
    pub rest: Vec<Transform>,
    /// Inverse bind matrix per joint: model space to the joint's bind space.
    pub inverse_bind: Vec<Mat4>,
    /// For a root joint, the fixed model-space transform of whatever it hangs from (the
    /// non-joint ancestors folded in: armature nodes, scene-root transforms). Identity for
    /// non-root joints, where it is unused.
    pub root_bases: Vec<Mat4>,
}

/// An immutable, validated skeleton with joints ordered parents-first.
#[derive(Clone, Debug)]
pub struct Skeleton {
    names: Vec<String>,
    parents: Vec<Option<u16>>,
    rest: Vec<Transform>,
    inverse_bind: Vec<Mat4>,
    root_bases: Vec<Mat4>,
}

impl RawSkeleton {
    /// Checks lengths, parents-first order and finiteness.
    ///
    /// # Errors
    /// [`AnimError::EmptySkeleton`], [`AnimError::TooManyJoints`] (more than
    /// [`MAX_SKELETON_JOINTS`]), [`AnimError::SkeletonLengths`] when the per-joint arrays
    /// disagree, and, naming the first offending joint, [`AnimError::ParentOrder`] or
    /// [`AnimError::BadJointData`] (a non-finite transform or a singular inverse bind).
    pub fn validate(self) -> Result<Skeleton, AnimError> {
        let n = self.names.len();
        if n == 0 {
            return Err(AnimError::EmptySkeleton);
        }
        if n > MAX_SKELETON_JOINTS {
            return Err(AnimError::TooManyJoints {
                count: n,
                max: MAX_SKELETON_JOINTS,
            });
        }
        if [
            self.parents.len(),
            self.rest.len(),
            self.inverse_bind.len(),
            self.root_bases.len(),
        ]
        .iter()
        .any(|&len| len != n)
        {
            return Err(AnimError::SkeletonLengths {
                names: n,
                parents: self.parents.len(),
                rest: self.rest.len(),
                inverse_bind: self.inverse_bind.len(),
                root_bases: self.root_bases.len(),
            });
        }
        let bad = |joint: usize, what: &'static str| AnimError::BadJointData {
            joint,
            name: self.names[joint].clone(),
            what,
        };
        let mut parents = Vec::with_capacity(n);
        for (joint, parent) in self.parents.iter().enumerate() {
            if let Some(p) = *parent
                && p >= joint
            {
                return Err(AnimError::ParentOrder {
                    joint,
                    name: self.names[joint].clone(),
                    parent: p,
                });
            }
            // Cannot truncate: n <= MAX_SKELETON_JOINTS was checked above.
            parents.push(parent.map(|p| p as u16));
            if !self.rest[joint].is_finite() {
                return Err(bad(joint, "rest transform contains NaN or infinity"));
            }
            let ibm = &self.inverse_bind[joint];
            if !ibm.is_finite() {
                return Err(bad(joint, "inverse bind matrix contains NaN or infinity"));
            }
            if ibm.determinant().abs() < f32::MIN_POSITIVE {
                return Err(bad(joint, "inverse bind matrix is singular"));
            }
            if !self.root_bases[joint].is_finite() {
                return Err(bad(joint, "parent transform contains NaN or infinity"));
            }
        }
        Ok(Skeleton {
            names: self.names,
            parents,
            rest: self.rest,
            inverse_bind: self.inverse_bind,
            root_bases: self.root_bases,
        })
    }
}

impl Skeleton {
    /// Number of joints (at least 1, at most [`MAX_SKELETON_JOINTS`]).
    #[inline]
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Always false: a validated skeleton has at least one joint.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// Joint names in joint order.
    #[inline]
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// The parent of `joint`, `None` for a root.
    ///
    /// # Panics
    /// If `joint >= len()`.
    #[inline]
    pub fn parent(&self, joint: usize) -> Option<usize> {
        self.parents[joint].map(usize::from)
    }

    /// True when `ancestor` is a strict ancestor of `joint`.
    ///
    /// # Panics
    /// If `joint >= len()`.
    pub fn is_ancestor(&self, ancestor: usize, joint: usize) -> bool {
        let mut j = joint;
        while let Some(p) = self.parent(j) {
            if p == ancestor {
                return true;
            }
            // Parents-first order: once below `ancestor`, the walk cannot meet it.
            if p < ancestor {
                return false;
            }
            j = p;
        }
        false
    }

    /// Parent indices in joint order (`parent < joint`).
    #[inline]
    pub fn parents(&self) -> &[Option<u16>] {
        &self.parents
    }

    /// The rest (node) pose, one local transform per joint.
    #[inline]
    pub fn rest(&self) -> &[Transform] {
        &self.rest
    }

    /// Inverse bind matrices, one per joint (model space to bind space).
    #[inline]
    pub fn inverse_bind(&self) -> &[Mat4] {
        &self.inverse_bind
    }

    /// Model-space transform a root joint hangs from (identity for non-roots).
    #[inline]
    pub fn root_bases(&self) -> &[Mat4] {
        &self.root_bases
    }

    /// Index of the first joint called `name`.
    pub fn find(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|n| n == name)
    }

    /// Depth of each joint (roots are 0), in joint order.
    pub fn depths(&self) -> Vec<usize> {
        let mut depth = vec![0; self.len()];
        for j in 0..self.len() {
            if let Some(p) = self.parent(j) {
                depth[j] = depth[p] + 1;
            }
        }
        depth
    }

    /// Membership of the subtree rooted at `root` (the joint and all its descendants), one flag
    /// per joint. One forward pass, thanks to parents-first order.
    ///
    /// # Panics
    /// If `root >= len()`.
    pub fn subtree(&self, root: usize) -> Vec<bool> {
        let mut inside = vec![false; self.len()];
        inside[root] = true;
        for j in root + 1..self.len() {
            if let Some(p) = self.parent(j) {
                inside[j] = inside[p];
            }
        }
        inside
    }

    /// A per-joint weight mask: `weight` (0..=1) on the subtree of `root`, 0 elsewhere.
    pub fn subtree_mask(&self, root: usize, weight: f32) -> Vec<f32> {
        self.subtree(root)
            .into_iter()
            .map(|inside| if inside { weight } else { 0.0 })
            .collect()
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use glam::Vec3;

    /// A small chain with a branch: 0 root, 1 and 3 children of 0, 2 child of 1.
    pub(crate) fn sample_skeleton() -> Skeleton {
        let rest = vec![
            Transform::IDENTITY,
            Transform {
                translation: Vec3::Y,
                ..Transform::IDENTITY
            },
            Transform {
                translation: Vec3::Y,
                ..Transform::IDENTITY
            },
            Transform {
                translation: Vec3::X,
                ..Transform::IDENTITY
            },
        ];
        RawSkeleton {
            names: ["root", "a", "b", "c"].map(String::from).to_vec(),
            parents: vec![None, Some(0), Some(1), Some(0)],
            rest,
            inverse_bind: vec![Mat4::IDENTITY; 4],
            root_bases: vec![Mat4::IDENTITY; 4],
        }
        .validate()
        .unwrap()
    }

    #[test]
    fn subtree_and_lookup() {
        let s = sample_skeleton();
        assert_eq!(s.find("b"), Some(2));
        assert_eq!(s.find("nope"), None);
        assert_eq!(s.subtree(1), vec![false, true, true, false]);
        assert_eq!(s.subtree(0), vec![true; 4]);
        assert_eq!(s.subtree_mask(3, 0.5), vec![0.0, 0.0, 0.0, 0.5]);
        assert_eq!(s.depths(), vec![0, 1, 2, 1]);
    }

    #[test]
    fn rejects_children_before_parents() {
        let err = RawSkeleton {
            names: vec!["a".into(), "b".into()],
            parents: vec![Some(1), None],
            rest: vec![Transform::IDENTITY; 2],
            inverse_bind: vec![Mat4::IDENTITY; 2],
            root_bases: vec![Mat4::IDENTITY; 2],
        }
        .validate()
        .unwrap_err();
        assert!(
            matches!(err, AnimError::ParentOrder { joint: 0, .. }),
            "{err}"
        );
    }

    #[test]
    fn rejects_nan_and_singular_data() {
        let mut raw = RawSkeleton {
            names: vec!["a".into()],
            parents: vec![None],
            rest: vec![Transform::IDENTITY],
            inverse_bind: vec![Mat4::ZERO],
            root_bases: vec![Mat4::IDENTITY],
        };
        assert!(
            raw.clone()
                .validate()
                .unwrap_err()
                .to_string()
                .contains("singular")
        );
        raw.inverse_bind[0] = Mat4::IDENTITY;
        raw.rest[0].translation.x = f32::NAN;
        assert!(raw.validate().unwrap_err().to_string().contains("NaN"));
    }
}
