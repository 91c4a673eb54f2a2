//! Characters made from one source file (variants in size, tint and rate) are posed once for
//! all of them (`bake::sample`'s pose cache, and `bake::events::GroupEvents` for their event
//! markers): each character of such a recipe bakes exactly what it bakes alone, to the bit —
//! texels, bounds, errors, ground speeds, foot locks and events.
//!
//! A cycle the baker may lock is first sampled for its feet alone (`bake::sample::sample_feet`),
//! and made whole only when it is not locked after all: such a cycle bakes exactly what it
//! bakes with foot locking off, where it is sampled whole at once.

use crate::common;

use std::path::Path;

use throng::bake::{BakeOptions, Recipe, bake};
use throng::format::{TEXELS_PER_MATRIX, ThrongFile};

/// The recipe's top keys: f16 (forced) so that the f16 error is measured too.
const HEADER: &str = "output = \"shared.throng\"\nfps = 60\nprecision = \"f16\"\n";

/// The `[[characters]]` entries: four variants of the mannequin's character file (two scales,
/// a height, another rate, fewer speeds, no foot lock) and two of its bare model (one at the
/// `auto` rate, whose tries at several rates go through the cache).
fn entries(root: &Path) -> Vec<String> {
    let character = root.join("assets/mannequin.toml").display().to_string();
    let model = root.join("assets/mannequin.glb").display().to_string();
    vec![
        format!(
            "[[characters]]\nname = \"tall\"\ncharacter = {character:?}\nscale = [0.95, 1.12, 0.95]\ntint = [0.5, 0.7, 1.0]\n[characters.params]\nspeed = [0.0, 1.2, 3.0]\n"
        ),
        format!(
            "[[characters]]\nname = \"child\"\ncharacter = {character:?}\nscale = [0.62, 0.62, 0.62]\nfps = 30\n[characters.params]\nspeed = [0.0, 1.2]\n"
        ),
        format!(
            "[[characters]]\nname = \"big\"\ncharacter = {character:?}\nheight = 2.1\nfoot_lock = false\n[characters.params]\nspeed = [0.0, 1.5, 3.0]\n"
        ),
        format!(
            "[[characters]]\nname = \"plain\"\ncharacter = {character:?}\n[characters.params]\nspeed = [0.0, 1.2, 3.0]\n"
        ),
        format!("[[characters]]\nname = \"bare\"\nmodel = {model:?}\nscale = [1.1, 1.1, 1.1]\n"),
        format!("[[characters]]\nname = \"bare-auto\"\nmodel = {model:?}\nfps = \"auto\"\n"),
    ]
}

/// `entries` baked as one recipe in `dir`, written and opened, with the bake's report.
fn baked(dir: &Path, name: &str, entries: &[String]) -> (ThrongFile, throng::bake::BakeReport) {
    let path = dir.join(name);
    std::fs::write(&path, format!("{HEADER}{}", entries.concat())).unwrap();
    let recipe = Recipe::load(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
    let b = bake(
        &recipe,
        &BakeOptions {
            force: true,
            ..Default::default()
        },
    )
    .unwrap_or_else(|e| panic!("{name}: {e}"));
    let out = dir.join(format!("{name}.throng"));
    b.builder.write(&out).unwrap();
    (ThrongFile::open(&out).unwrap(), b.report)
}

/// The events of animation `a` of `f`, as (name, time bits).
fn events(f: &ThrongFile, a: usize) -> Vec<(String, u32)> {
    let r = &f.anims()[a];
    let e = &f.events()[r.first_event as usize..][..r.event_count as usize];
    e.iter()
        .map(|e| (f.str(e.name).to_string(), e.time.to_bits()))
        .collect()
}

/// Every texel of animation `a` of `f` (frames × joints × rows), as bits.
fn texels(f: &ThrongFile, a: usize) -> Vec<[u32; 4]> {
    let r = &f.anims()[a];
    let joints = f.characters()[r.character as usize].joint_count as u64;
    let n = u64::from(r.frame_count) * joints * u64::from(TEXELS_PER_MATRIX);
    let t = f.texels();
    (r.first_texel..r.first_texel + n)
        .map(|k| t.get(k as usize).map(f32::to_bits))
        .collect()
}

/// The bounds of animation `a` of `f`, as bits.
fn bounds(f: &ThrongFile, a: usize) -> Vec<[u32; 6]> {
    let r = &f.anims()[a];
    let b = &f.bounds()[r.first_bounds as usize..][..r.frame_count as usize];
    b.iter()
        .map(|b| {
            let (lo, hi) = (b.min.map(f32::to_bits), b.max.map(f32::to_bits));
            [lo[0], lo[1], lo[2], hi[0], hi[1], hi[2]]
        })
        .collect()
}

#[test]
fn characters_of_one_source_bake_as_they_bake_alone() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = common::temp_dir("shared-poses");
    let all = entries(root);
    let (together, report) = baked(&dir, "together.toml", &all);
    assert_eq!(together.characters().len(), all.len());
    let bits = |x: Option<f32>| x.map(f32::to_bits);
    for (c, entry) in all.iter().enumerate() {
        let (alone, alone_report) = baked(
            &dir,
            &format!("alone-{c}.toml"),
            std::slice::from_ref(entry),
        );
        let name = together.str(together.characters()[c].name).to_string();
        let mine: Vec<usize> = (0..together.anims().len())
            .filter(|&a| together.anims()[a].character as usize == c)
            .collect();
        assert_eq!(mine.len(), alone.anims().len(), "{name}: animations");
        for (k, &a) in mine.iter().enumerate() {
            let (x, y) = (&together.anims()[a], &alone.anims()[k]);
            let what = format!("{name}: {}", together.str(x.name));
            assert_eq!(together.str(x.name), alone.str(y.name), "{what}");
            assert_eq!(
                (
                    x.frame_count,
                    x.flags,
                    x.fps.to_bits(),
                    x.duration.to_bits()
                ),
                (
                    y.frame_count,
                    y.flags,
                    y.fps.to_bits(),
                    y.duration.to_bits()
                ),
                "{what}: frames, flags, rate, duration"
            );
            assert_eq!(
                (bits(together.ground_speed(a)), bits(together.foot_slide(a))),
                (bits(alone.ground_speed(k)), bits(alone.foot_slide(k))),
                "{what}: ground speed, foot slide"
            );
            assert_eq!(together.feet_locked(a), alone.feet_locked(k), "{what}");
            assert!(texels(&together, a) == texels(&alone, k), "{what}: texels");
            assert!(bounds(&together, a) == bounds(&alone, k), "{what}: bounds");
            assert_eq!(events(&together, a), events(&alone, k), "{what}: events");
            let (p, q) = (
                &report.characters[c].anims[k],
                &alone_report.characters[0].anims[k],
            );
            assert_eq!(
                (p.interpolation_error.to_bits(), bits(p.f16_error)),
                (q.interpolation_error.to_bits(), bits(q.f16_error)),
                "{what}: interpolation and f16 errors"
            );
            assert_eq!(bits(p.foot_lock), bits(q.foot_lock), "{what}: foot lock");
        }
    }
    // The recipe exercises what it says: feet locked in a variant, states at speeds the other
    // variants do not bake, and an auto rate.
    let locked = (0..together.anims().len()).filter(|&a| together.feet_locked(a));
    assert!(locked.count() >= 2, "no feet were locked");
    // Events of states (found by playing them) shared by variants of one source.
    let with_events = (0..together.anims().len())
        .filter(|&a| together.anims()[a].event_count > 0)
        .count();
    assert!(
        with_events >= 4,
        "only {with_events} animations have events"
    );
    assert!(report.characters[5].anims.iter().all(|a| a.auto_rate));
}

/// The mannequin's character file, its bare model and the shared models (those present; one
/// is turned to walk along +z) baked with foot locking on and off: every animation that the
/// first does not lock went through a sampling of its feet alone (it loops, has no root motion
/// and declares no speed), and is the same to the bit in both.
#[test]
fn cycles_sampled_first_for_their_feet_and_not_locked_bake_as_without_foot_locks() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = common::temp_dir("feet-first");
    let mut sources = vec![
        format!(
            "character = {:?}\n[characters.params]\nspeed = [0.0, 1.2]\n",
            root.join("assets/mannequin.toml").display().to_string()
        ),
        format!(
            "model = {:?}\n",
            root.join("assets/mannequin.glb").display().to_string()
        ),
    ];
    for name in ["RobotExpressive.glb", "CesiumMan.glb", "Fox.glb"] {
        if let Some(p) = common::shared_asset(name) {
            sources.push(format!("model = {:?}\n", p.display().to_string()));
        }
    }
    let bits = |x: Option<f32>| x.map(f32::to_bits);
    let mut compared = 0;
    for (i, source) in sources.iter().enumerate() {
        // The foot-lock key goes before the table of parameters.
        let entry = |lock: bool| {
            let (top, params) = source.split_at(source.find('[').unwrap_or(source.len()));
            vec![format!(
                "[[characters]]\nname = \"c\"\n{top}foot_lock = {lock}\n{params}"
            )]
        };
        let (on, on_report) = baked(&dir, &format!("on-{i}.toml"), &entry(true));
        let (off, off_report) = baked(&dir, &format!("off-{i}.toml"), &entry(false));
        assert_eq!(on.anims().len(), off.anims().len(), "{source}");
        for a in 0..on.anims().len() {
            let (x, p) = (&on.anims()[a], &on_report.characters[0].anims[a]);
            let may_lock = p.looping && !p.root_motion && p.declared_speed.is_none();
            if on.feet_locked(a) || !may_lock {
                continue;
            }
            let what = format!("{source}: {}", on.str(x.name));
            let q = &off_report.characters[0].anims[a];
            assert!(texels(&on, a) == texels(&off, a), "{what}: texels");
            assert!(bounds(&on, a) == bounds(&off, a), "{what}: bounds");
            assert_eq!(
                (p.interpolation_error.to_bits(), bits(p.f16_error)),
                (q.interpolation_error.to_bits(), bits(q.f16_error)),
                "{what}: interpolation and f16 errors"
            );
            assert_eq!(
                (bits(on.ground_speed(a)), bits(on.foot_slide(a))),
                (bits(off.ground_speed(a)), bits(off.foot_slide(a))),
                "{what}: ground speed, foot slide"
            );
            compared += 1;
        }
        assert_eq!(
            on_report.characters[0].quarter_turns, off_report.characters[0].quarter_turns,
            "{source}: turns"
        );
    }
    // The mannequin's idle and wave loop without being locked (and its states at speed 0).
    assert!(compared >= 3, "only {compared} unlocked cycles compared");
}
