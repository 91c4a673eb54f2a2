//! Baking glue the commands share: a bake's progress bar on stderr, and the default bake with
//! the message users see before it (`throng demo`, `render` and `bench` given no file). The
//! work itself is the library's ([`crate::bake::bake_to_file`], [`crate::bake::default_bake`]).

use std::path::PathBuf;
use std::sync::Mutex;

use anyhow::Result;

use crate::bake::{BakeOptions, BakeReport, DEFAULT_RECIPE, Progress, Recipe, bake_to_file};

/// A progress bar per bake stage on stderr, or nothing when quiet; cleared when dropped.
struct Bar {
    quiet: bool,
    current: Mutex<Option<indicatif::ProgressBar>>,
}

impl Bar {
    fn new(quiet: bool) -> Self {
        Self {
            quiet,
            current: Mutex::new(None),
        }
    }

    /// Shows `p`: a new bar for a new stage, or the current one advanced.
    fn show(&self, p: Progress) {
        if self.quiet {
            return;
        }
        let Ok(mut bar) = self.current.lock() else {
            return;
        };
        match p {
            Progress::Stage(what, total) => {
                if let Some(b) = bar.take() {
                    b.finish_and_clear();
                }
                let b = indicatif::ProgressBar::with_draw_target(
                    Some(total),
                    indicatif::ProgressDrawTarget::stderr(),
                );
                b.set_style(
                    indicatif::ProgressStyle::with_template(
                        "{msg:>16} [{bar:40}] {pos}/{len} ({eta})",
                    )
                    .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
                    .progress_chars("=> "),
                );
                b.set_message(what.to_string());
                *bar = Some(b);
            }
            Progress::Advance(n) => {
                if let Some(b) = bar.as_ref() {
                    b.inc(n);
                }
            }
        }
    }
}

impl Drop for Bar {
    fn drop(&mut self) {
        if let Ok(mut b) = self.current.lock()
            && let Some(b) = b.take()
        {
            b.finish_and_clear();
        }
    }
}

/// Bakes `recipe` into its output file, with a progress bar unless `quiet`.
pub(super) fn bake_and_write(recipe: &Recipe, force: bool, quiet: bool) -> Result<BakeReport> {
    let bar = Bar::new(quiet);
    let progress = |p: Progress| bar.show(p);
    let options = BakeOptions {
        force,
        progress: Some(&progress),
    };
    Ok(bake_to_file(recipe, &options)?)
}

/// The default bake's file, baked first (saying so on stderr, with a progress bar, unless
/// `quiet`) when missing or out of date.
pub(super) fn default_bake(quiet: bool) -> Result<PathBuf> {
    let bar = Bar::new(quiet);
    let progress = |p: Progress| bar.show(p);
    let options = BakeOptions {
        force: false,
        progress: Some(&progress),
    };
    let path = crate::bake::default_bake(&options, |recipe| {
        if !quiet {
            eprintln!(
                "baking {} from {DEFAULT_RECIPE} first",
                recipe.output.display()
            );
        }
    })?;
    Ok(path)
}
