//! # throng
//!
//! Bake skeletal animation of glTF characters into bone-matrix textures and render crowds of
//! instanced characters.
//!
//! ## Conventions
//! - Math: [`glam`]; right-handed, +Y up, metres, seconds, radians, column vectors, column-major
//!   storage (glTF's conventions).
//! - Joints are stored parents-first (`parent < joint`), so forward kinematics is one loop.
//! - Words: "joint" (glTF's word), "clip", "state", "instance", "agent", "LOD level".
//! - Importers build raw types and validate them into immutable runtime types; hot functions
//!   take borrowed slices and allocate nothing.
//! - Each module has its own error enum; messages name the file and what is wrong.
//!
//! ## Modules
//! - [`anim`]: pure-CPU animation core (transforms, skeleton, clips, sampling, FK, skinning).
//! - [`mesh`]: skinned meshes, materials, bounds.
//! - [`import`]: glTF import and the procedural mannequin.
//! - [`cli`]: the `throng` command line (glue only).

pub mod anim;
pub mod cli;
pub mod import;
pub mod mesh;
