//! Bake in code: build a bake recipe in Rust (no recipe file), bake it into a `.throng` file,
//! open that file and print what it holds.
//!
//! ```text
//! cargo run --example bake_in_code [-- OUTPUT.throng]
//! ```
//!
//! OUTPUT defaults to `throng-bake-in-code.throng` in the system's temporary folder. The
//! character is the built-in mannequin, written first to a temporary folder, so the example
//! runs from any folder. Each field of the recipe is what a key of a TOML recipe sets
//! (docs/BAKING.md); `Recipe::checked` checks it exactly as that file would be checked.

use std::path::{Path, PathBuf};

use anyhow::{Context, ensure};
use throng::bake::{
    BakeOptions, BakeReport, CharacterSpec, PrecisionChoice, Rate, Recipe, Selection, Size,
    bake_to_file,
};
use throng::format::records::anim_flags;
use throng::format::{TexelFormat, ThrongFile};
use throng::import::mannequin::{RUN_SPEED, WALK_SPEED, generate_glb};

fn main() -> anyhow::Result<()> {
    let output = match std::env::args_os().nth(1) {
        Some(path) => PathBuf::from(path),
        None => std::env::temp_dir().join("throng-bake-in-code.throng"),
    };

    // The mannequin's files go in a folder of their own, removed once baked.
    let inputs = std::env::temp_dir().join(format!("throng-bake-in-code-{}", std::process::id()));
    let baked = bake_mannequin(&inputs, &output);
    let _ = std::fs::remove_dir_all(&inputs);
    let (recipe, report) = baked?;
    for warning in report.characters.iter().flat_map(|c| &c.warnings) {
        eprintln!("warning: {warning}");
    }

    // Open the result as the runtime does (memory-mapped and validated), and print it.
    let file = ThrongFile::open(&recipe.output)?;
    println!(
        "{}: {} texels of {}",
        recipe.output.display(),
        file.info().texel_count,
        file.format().name()
    );
    for c in file.characters() {
        println!(
            "character '{}': {} joints, {:.2} m tall, {} LOD levels",
            file.str(c.name),
            c.joint_count,
            c.height,
            c.lod_count
        );
        let first = c.first_anim as usize;
        for (i, a) in file.anims()[first..first + c.anim_count as usize]
            .iter()
            .enumerate()
        {
            let name = match file.str(a.param) {
                "" => file.str(a.name).to_string(),
                param => format!("{} ({param} = {})", file.str(a.name), a.param_value),
            };
            let looping = if a.flags & anim_flags::LOOPING != 0 {
                "looping"
            } else {
                "once"
            };
            let speed = file
                .ground_speed(first + i)
                .map_or_else(String::new, |s| format!(", moves at {s:.2} m/s"));
            println!(
                "  {name:<22} {:>3} frames at {:>4} fps, {:.2} s, {looping}{speed}",
                a.frame_count, a.fps, a.duration
            );
        }
    }

    // What this recipe must give: a run of the example fails loudly if the library changes it.
    ensure!(file.format() == TexelFormat::Rgba16F, "f16 was asked for");
    let [c] = file.characters() else {
        anyhow::bail!("one character was baked");
    };
    ensure!(c.anim_count == 4 && c.lod_count == 2, "{c:?}");
    ensure!(
        (c.height - 1.8).abs() < 0.01,
        "height {} m, not 1.8",
        c.height
    );
    // The first animation named `move`: the state baked at walking speed.
    let walk = file
        .find_anim(0, "move")
        .context("the state 'move' is baked")?;
    let walk_speed = file.ground_speed(walk).context("walking moves")?;
    ensure!(
        walk_speed > 1.0 && walk_speed < 2.0,
        "walking at {walk_speed} m/s"
    );
    ensure!(report.texels == file.info().texel_count);
    Ok(())
}

/// Writes the mannequin's files into folder `inputs`, and bakes it from them into `output` with
/// a recipe made in code.
fn bake_mannequin(inputs: &Path, output: &Path) -> anyhow::Result<(Recipe, BakeReport)> {
    // A recipe names its characters by file: write the mannequin's model and its character
    // file (the repository's assets/mannequin.toml, built into this program) where the bake
    // can read them. Your own would name your .glb, or your character file, instead.
    std::fs::create_dir_all(inputs).with_context(|| format!("creating {}", inputs.display()))?;
    std::fs::write(inputs.join("mannequin.glb"), generate_glb())?;
    std::fs::write(
        inputs.join("mannequin.toml"),
        include_str!("../assets/mannequin.toml"),
    )?;

    // One character, from its character file (a bare glTF model would be
    // `CharacterSpec::model("x.glb")`: its clips, no states).
    let mut mannequin = CharacterSpec::character(inputs.join("mannequin.toml"));
    // Two clips and one state (a blend tree of idle, walk and run on the `speed` parameter),
    // baked at two speeds, metres per second: walking and running. That makes 4 animations.
    mannequin.clips = Selection::Named(vec!["idle".into(), "wave".into()]);
    mannequin.states = Selection::Named(vec!["move".into()]);
    mannequin
        .params
        .insert("speed".into(), vec![WALK_SPEED, RUN_SPEED]);
    // Idle moves slowly: 10 frames per second are enough. The rest keep the default 30, or
    // `Rate::Auto` chooses the lowest rate within the interpolation budget.
    mannequin.rates.insert("idle".into(), Rate::Fixed(10.0));
    // Scaled uniformly to stand 1.8 m tall (the default keeps metres as authored).
    mannequin.size = Size::Height(1.8);

    let mut recipe = Recipe::new(output, vec![mannequin]);
    // Half-size texels; the bake fails if they move a vertex by more than the budget (0.1% of
    // the character's height unless `precision_budget` says otherwise).
    recipe.precision = PrecisionChoice::F16;
    // Two LOD levels: the full mesh and 30% of its triangles.
    recipe.lods = vec![1.0, 0.3];
    // Checked as its TOML would be; `recipe.text` is that TOML, stored in the baked file.
    let recipe = recipe.checked()?;
    println!("{}", recipe.text);

    // Bake and write the file atomically (`throng::bake::bake` bakes without writing).
    let report = bake_to_file(&recipe, &BakeOptions::default())?;
    Ok((recipe, report))
}
