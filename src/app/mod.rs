//! The crowd demo: a window (winit) with the crowd and an egui panel of live statistics and
//! settings, or, with no display, one picture rendered headless.
//!
//! - `scene`: the bake, the crowd, the settings, the camera and the statistics, shared by the
//!   window and the headless path; the GPU side (`Graphics`);
//! - `camera`: the orbit/pan/zoom/fly camera (pure math);
//! - `panel`: the egui panel;
//! - `window`: the winit application;
//! - `headless`: the picture rendered when there is no display.

pub mod camera;
pub mod headless;
pub mod panel;
pub mod scene;
pub mod window;

use thiserror::Error;

pub use headless::render_headless;
pub use scene::{DemoOptions, MAX_AGENTS, Picture, Scene, SkinningChoice};
pub use window::save_png;

/// Why the demo could not run.
#[derive(Debug, Error)]
pub enum AppError {
    /// There is no display to open a window on.
    #[error("no display to open a window on ({0})")]
    NoDisplay(String),
    /// The window or its surface failed.
    #[error("window: {0}")]
    Window(String),
    /// A setting is out of range or names nothing.
    #[error("{0}")]
    Settings(String),
    /// The bake could not be read.
    #[error(transparent)]
    Format(#[from] crate::format::FormatError),
    /// The crowd could not be built.
    #[error(transparent)]
    Crowd(#[from] crate::crowd::CrowdError),
    /// Rendering failed.
    #[error(transparent)]
    Render(#[from] crate::render::RenderError),
    /// An image could not be written.
    #[error("{path}: cannot write the image: {what}")]
    Image { path: String, what: String },
}
