//! Hostile character files, recipes and `throng play` scripts (issue 17): deep and cyclic named
//! trees, numbers beyond f32, keys without effect, and a generator of mutated files run through
//! `throng pose --character`, `throng play` and `throng bake`. Each run must exit 0 or 1 (never
//! panic, abort or hang), name the file at fault, and say each clause of its error once.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use throng::character::{Character, MAX_TREE_DEPTH, Poser};

/// A run that takes longer than this is a hang. The slowest run here (a 100,000-tree chain,
/// refused) takes about 2 s in a debug build on one core; the quadratic resolution this guards
/// against took over a minute at 8,000 trees and would take hours at 100,000.
const HANG: Duration = Duration::from_secs(60);

/// A temporary folder, removed when the test ends (also when it fails).
struct Dir(PathBuf);

impl Dir {
    fn new(tag: &str) -> Self {
        Dir(common::temp_dir(&format!("hostile-{tag}")))
    }

    fn write(&self, name: &str, text: &str) -> PathBuf {
        let p = self.0.join(name);
        std::fs::write(&p, text).unwrap();
        p
    }

    fn path(&self, name: &str) -> String {
        self.0.join(name).display().to_string()
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// How a run ended.
struct Run {
    /// The exit code; `None` when killed by a signal (a stack overflow aborts).
    code: Option<i32>,
    stdout: String,
    stderr: String,
    seconds: f64,
}

/// Runs throng with `args` in `dir`, killed after [`HANG`]. Output goes to files, so a command
/// that prints a lot cannot block on a full pipe.
fn throng(dir: &Dir, args: &[&str]) -> Run {
    let out = dir.0.join(".stdout");
    let err = dir.0.join(".stderr");
    let start = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_throng"))
        .args(args)
        .current_dir(&dir.0)
        .stdout(std::fs::File::create(&out).unwrap())
        .stderr(std::fs::File::create(&err).unwrap())
        .stdin(Stdio::null())
        .spawn()
        .expect("run throng");
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if start.elapsed() > HANG {
            let _ = child.kill();
            let _ = child.wait();
            panic!("throng {args:?} ran for more than {HANG:?}");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    Run {
        code: status.code(),
        stdout: std::fs::read_to_string(&out).unwrap_or_default(),
        stderr: std::fs::read_to_string(&err).unwrap_or_default(),
        seconds: start.elapsed().as_secs_f64(),
    }
}

/// Checks what every run must do: exit 0 or 1, no panic or abort, and on failure an error that
/// names `file` and says each of its ": "-separated clauses once. Returns the error line.
fn clean(what: &str, run: &Run, file: &str) -> Option<String> {
    assert!(
        matches!(run.code, Some(0 | 1)),
        "{what}: exit {:?}\n{}",
        run.code,
        run.stderr
    );
    for bad in ["panicked", "overflow", "RUST_BACKTRACE"] {
        assert!(!run.stderr.contains(bad), "{what}: {}", run.stderr);
    }
    if run.code == Some(0) {
        return None;
    }
    let line = run
        .stderr
        .lines()
        .find(|l| l.starts_with("error: "))
        .unwrap_or_else(|| panic!("{what}: no error line in {:?}", run.stderr))
        .to_string();
    assert!(line.contains(file), "{what}: '{line}' does not name {file}");
    let clauses: Vec<&str> = line.split(": ").collect();
    for (i, c) in clauses.iter().enumerate() {
        assert!(
            !clauses[i + 1..].contains(c),
            "{what}: '{c}' is said twice in '{line}'"
        );
    }
    Some(line)
}

/// The shipped mannequin character, its model named by absolute path.
fn mannequin_text() -> String {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/mannequin.toml"),
    )
    .unwrap();
    let model = format!(
        "model = {:?}",
        common::mannequin_path().display().to_string()
    );
    text.replacen("model = \"mannequin.glb\"", &model, 1)
}

fn play_script() -> String {
    std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/mannequin-play.toml"),
    )
    .unwrap()
}

const RECIPE: &str = "output = \"o.throng\"\n\n[[characters]]\ncharacter = \"c.toml\"\n";

/// A character file of `body` on the mannequin.
fn character(body: &str) -> String {
    format!(
        "model = {:?}\n{body}",
        common::mannequin_path().display().to_string()
    )
}

/// State `s` using t0, and trees t0 .. t{n}, each naming the next, the last playing a clip.
fn chain(n: usize) -> String {
    let mut t = String::from("[states.s]\ntree = \"t0\"\n");
    for i in 0..n {
        t += &format!("[trees.t{i}]\ntree = \"t{}\"\n", i + 1);
    }
    character(&(t + &format!("[trees.t{n}]\nclip = \"walk\"\n")))
}

#[test]
fn a_chain_of_100000_named_trees_is_refused_quickly_by_every_command() {
    let dir = Dir::new("deep");
    dir.write("c.toml", &chain(100_000));
    dir.write("r.toml", RECIPE);
    dir.write("s.toml", &play_script());
    let out = dir.path("o.throng");
    for args in [
        &["pose", "--character", "c.toml"][..],
        &["play", "c.toml", "--script", "s.toml"],
        &["bake", "r.toml", "-o", &out],
    ] {
        let run = throng(&dir, args);
        let line = clean(&format!("{args:?}"), &run, "c.toml").expect("an error");
        eprintln!("{args:?}: {:.2} s: {line}", run.seconds);
        assert!(
            line.contains(&format!(
                "c.toml:2: state 's' nests its blend tree 100002 levels deep, through trees t0 -> t1 -> t2 -> t3 -> ... (99993 more) ... -> t99997 -> t99998 -> t99999 -> t100000; at most {MAX_TREE_DEPTH} levels are allowed"
            )),
            "{line}"
        );
    }
    assert!(!Path::new(&out).exists());
}

#[test]
fn a_state_of_too_many_events_is_refused_at_once_and_10000_bake() {
    let dir = Dir::new("events");
    let with_speed = |speed: &str| {
        character(&format!(
            "[clips.wave]\nevents = [{{ name = \"a\", time = 0.25 }}, {{ name = \"b\", time = 0.75 }}]\n\
             [states.s]\nadditive = \"wave\"\nspeed = {speed}\nbase = {{ clip = \"walk\" }}\n"
        ))
    };
    let recipe = "output = \"o.throng\"\nlods = [1.0]\n[[characters]]\ncharacter = \"c.toml\"\n";
    dir.write("r.toml", &format!("{recipe}states = [\"s\"]\nclips = []\n"));
    // Each marker of the 2 s wave fires u32::MAX times in the state's 1 s: refused before any
    // event is timed or frame sampled. 0.01 s here; the old way never finished. 10 s allows
    // for a loaded shared machine.
    dir.write("c.toml", &with_speed("3.4e38"));
    let run = throng(&dir, &["bake", "r.toml"]);
    let line = clean("speed = 3.4e38", &run, "r.toml:5").expect("an error");
    for part in [
        "character 'c': state 's' of c.toml fires over 8589934590 events",
        "more than the 65536 a baked animation may hold",
        "its additive node of clip 'wave' (2 markers, speed = 3.4e38)",
    ] {
        assert!(line.contains(part), "{part:?} not in {line}");
    }
    assert!(run.seconds < 10.0, "refused in {:.2} s", run.seconds);
    assert!(!Path::new(&dir.path("o.throng")).exists());
    // 10,000 firings (2 markers, 5,000 loops) bake, each at its own time.
    dir.write("c.toml", &with_speed("1e4"));
    let run = throng(&dir, &["bake", "r.toml"]);
    assert_eq!(clean("speed = 1e4", &run, "r.toml"), None);
    assert!(run.stdout.contains("10000 events"), "{}", run.stdout);
}

#[test]
fn a_chain_at_the_depth_limit_loads_and_poses_on_a_small_stack() {
    let dir = Dir::new("limit");
    // Each tree is a layer whose base names the next: two levels per tree, the heaviest
    // recursion per level. The state (1) + 2 per layer tree + the last tree (1).
    let layers = |k: usize| {
        let mut t = String::from("[masks.m]\nsubtree = \"spine\"\n[states.s]\ntree = \"t0\"\n");
        for i in 0..k {
            t += &format!(
                "[trees.t{i}]\nlayer = {{ clip = \"wave\" }}\nbase = {{ tree = \"t{}\" }}\nmask = \"m\"\n",
                i + 1
            );
        }
        character(&(t + &format!("[trees.t{k}]\nclip = \"walk\"\n")))
    };
    let k = (MAX_TREE_DEPTH as usize - 2) / 2;
    let at_limit = dir.write("ok.toml", &layers(k));
    let beyond = dir.write("deep.toml", &layers(k + 1));
    // 2 MiB: the smallest stack Rust gives a thread by default.
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || {
            let c = Character::load(&at_limit).unwrap();
            let mut poser = Poser::new(&c.model);
            let skin = poser.state(&c, 0, &[], 0.5);
            assert!(skin.iter().all(|m| m.is_finite()));
            let e = Character::load(&beyond).unwrap_err().to_string();
            assert!(
                e.starts_with(&format!(
                    "deep.toml:4: state 's' nests its blend tree {} levels deep",
                    MAX_TREE_DEPTH + 2
                )),
                "{e}"
            );
        })
        .unwrap()
        .join()
        .unwrap();
}

#[test]
fn cycles_are_named_in_every_command() {
    let dir = Dir::new("cycle");
    dir.write(
        "c.toml",
        &character(
            "[states.s]\ntree = \"t1\"\n\n[trees.t1]\ntree = \"t2\"\n\n[trees.t2]\ntree = \"t1\"\n",
        ),
    );
    dir.write("r.toml", RECIPE);
    dir.write("s.toml", &play_script());
    let out = dir.path("o.throng");
    for args in [
        &["pose", "--character", "c.toml"][..],
        &["play", "c.toml", "--script", "s.toml"],
        &["bake", "r.toml", "-o", &out],
    ] {
        let line = clean(&format!("{args:?}"), &throng(&dir, args), "c.toml").unwrap();
        assert!(
            line.ends_with("c.toml:9: tree 't1' contains itself: t1 -> t2 -> t1"),
            "{line}"
        );
    }
}

#[test]
fn messages_name_the_file_the_line_and_the_key() {
    let dir = Dir::new("messages");
    dir.write("c.toml", &mannequin_text());
    dir.write("s.toml", &play_script());
    let out = dir.path("o.throng");

    // An unknown clip in a recipe: the recipe's line of `clips`.
    dir.write("r.toml", &format!("{RECIPE}clips = [\"walk\", \"jog\"]\n"));
    let line = clean(
        "clips",
        &throng(&dir, &["bake", "r.toml", "-o", &out]),
        "r.toml",
    )
    .unwrap();
    assert_eq!(
        line,
        "error: r.toml:5: character 'c': clips: no clip 'jog'; clips are: idle, walk, run, wave"
    );
    for (key, text, expected) in [
        (
            "states",
            "states = [\"jog\"]\n",
            "r.toml:5: character 'c': states: no state 'jog'",
        ),
        (
            "once",
            "once = [\"walk\",\n  \"jog\"]\n",
            "r.toml:6: character 'c': once: no clip is called 'jog'",
        ),
        (
            "loop",
            "loop = [\"jog\"]\n",
            "r.toml:5: character 'c': loop: no clip is called 'jog'",
        ),
        (
            "rates",
            "rates = { jog = 30 }\n",
            "r.toml:5: character 'c': rates.jog: no baked clip or state is called 'jog'",
        ),
        (
            "params",
            "\n[characters.params]\nwave = [1.0]\n",
            "r.toml:7: character 'c': params.wave: the character has no float parameter 'wave'",
        ),
        (
            "fps",
            "rates = { walk = 1e39 }\n",
            "r.toml:5: character 'c': rates.walk: 1e39 frames per second is out of range",
        ),
    ] {
        dir.write("r.toml", &format!("{RECIPE}{text}"));
        let line = clean(
            key,
            &throng(&dir, &["bake", "r.toml", "-o", &out]),
            "r.toml",
        )
        .unwrap();
        assert!(
            line.starts_with(&format!("error: {expected}")),
            "{key}: {line}"
        );
    }
    // The f16 budget: the line of `precision`.
    dir.write(
        "r.toml",
        &format!("precision = \"f16\"\nmax_precision_error = 0.00001\n{RECIPE}"),
    );
    let line = clean(
        "f16",
        &throng(&dir, &["bake", "r.toml", "-o", &out]),
        "r.toml",
    )
    .unwrap();
    assert!(
        line.starts_with("error: r.toml:1: precision: f16 texels would move vertices"),
        "{line}"
    );

    // floor = nan: on floor's line, about floor.
    let floor = mannequin_text().replacen("floor = 0.09", "floor = nan", 1);
    let floor_line = floor.lines().position(|l| l == "floor = nan").unwrap() + 1;
    dir.write("c.toml", &floor);
    let line = clean(
        "floor",
        &throng(&dir, &["pose", "--character", "c.toml"]),
        "c.toml",
    )
    .unwrap();
    assert_eq!(
        line,
        format!("error: c.toml:{floor_line}: ik.floor: nan must be a finite number")
    );
    let line = clean(
        "floor",
        &throng(&dir, &["bake", "r.toml", "-o", &out]),
        "c.toml",
    )
    .unwrap();
    assert!(
        line.ends_with(&format!(
            "c.toml:{floor_line}: ik.floor: nan must be a finite number"
        )),
        "{line}"
    );

    // Numbers beyond f32 are out of range, not "not a number".
    dir.write("c.toml", &mannequin_text());
    let run = throng(
        &dir,
        &["pose", "--character", "c.toml", "--param", "speed=1e39"],
    );
    let line = clean("param", &run, "speed").unwrap();
    assert_eq!(
        line,
        "error: --param speed=1e39: 1e39 is out of range: give a number from -3.4e38 to 3.4e38"
    );
    let run = throng(
        &dir,
        &["pose", "--character", "c.toml", "--param", "speed=inf"],
    );
    assert_eq!(
        clean("param", &run, "speed").unwrap(),
        "error: --param speed=inf: inf must be a finite number"
    );
    let big = mannequin_text().replacen("duration = 0.3", "duration = 1e39", 1);
    let big_line = big.lines().position(|l| l == "duration = 1e39").unwrap() + 1;
    dir.write("c.toml", &big);
    let line = clean(
        "duration",
        &throng(&dir, &["pose", "--character", "c.toml"]),
        "c.toml",
    )
    .unwrap();
    assert_eq!(
        line,
        format!(
            "error: c.toml:{big_line}: transitions.duration: 1e39 is out of range: give a number from -3.4e38 to 3.4e38"
        )
    );
    dir.write("c.toml", &mannequin_text());
    dir.write(
        "s.toml",
        &play_script().replacen("speed = 3.0", "speed = 1e39", 1),
    );
    let line = clean(
        "script",
        &throng(&dir, &["play", "c.toml", "--script", "s.toml"]),
        "s.toml",
    )
    .unwrap();
    assert_eq!(
        line,
        "error: s.toml:12: speed: 1e39 is out of range: give a number from -3.4e38 to 3.4e38"
    );
}

#[test]
fn the_largest_numbers_f32_holds_play_and_pose_without_panicking() {
    let dir = Dir::new("largest");
    dir.write("c.toml", &mannequin_text());
    for (speed, time) in [("3e38", "3e38"), ("-3e38", "3e38"), ("3e38", "1e-30")] {
        let param = format!("speed={speed}");
        let run = throng(
            &dir,
            &[
                "pose",
                "--character",
                "c.toml",
                "--state",
                "greet",
                "--param",
                &param,
                "--time",
                time,
            ],
        );
        assert_eq!(clean(&param, &run, "c.toml"), None);
        // serde_json prints a NaN in the matrices as null.
        assert!(
            !run.stdout.contains("[null") && !run.stdout.contains(",null"),
            "{param} at {time}: a NaN was printed"
        );
    }
    dir.write(
        "s.toml",
        &play_script().replacen("dt = 0.016666668", "dt = 3e38", 1),
    );
    let run = throng(&dir, &["play", "c.toml", "--script", "s.toml"]);
    assert_eq!(clean("dt = 3e38", &run, "s.toml"), None);
    assert_eq!(run.stdout.lines().count(), 300);
}

#[test]
fn recipe_keys_without_effect_are_named_in_the_report() {
    let dir = Dir::new("unused");
    dir.write("c.toml", &mannequin_text());
    let model = common::mannequin_path().display().to_string();
    let out = dir.path("o.throng");
    // A bare model: params and states have nothing to act on.
    dir.write(
        "r.toml",
        &format!(
            "output = \"o.throng\"\nprecision = \"f32\"\nmax_precision_error = 0.01\n\n[[characters]]\nmodel = {model:?}\nstates = \"all\"\n\n[characters.params]\nspeed = [1.0]\n"
        ),
    );
    let run = throng(&dir, &["bake", "r.toml", "-o", &out]);
    assert_eq!(clean("bare", &run, "r.toml"), None);
    let notes: Vec<&str> = run
        .stdout
        .lines()
        .filter_map(|l| l.trim().strip_prefix("note: "))
        .filter(|n| n.contains("has no effect"))
        .collect();
    assert_eq!(notes.len(), 3, "{}", run.stdout);
    assert!(
        notes[0].starts_with("r.toml:3: max_precision_error has no effect: precision = \"f32\""),
        "{notes:?}"
    );
    assert!(
        notes[1].starts_with("r.toml:7: states has no effect: 'mannequin' is a bare model"),
        "{notes:?}"
    );
    assert!(
        notes[2].starts_with("r.toml:10: params.speed has no effect: 'mannequin' is a bare model"),
        "{notes:?}"
    );

    // A character file: a parameter no baked state blends on, a once for a clip not baked.
    dir.write(
        "r.toml",
        &format!("{RECIPE}clips = [\"walk\"]\nstates = [\"halt\"]\nonce = [\"wave\"]\n\n[characters.params]\nspeed = [1.0]\n"),
    );
    let run = throng(&dir, &["bake", "r.toml", "-o", &out, "--rebuild"]);
    assert_eq!(clean("file", &run, "r.toml"), None);
    let notes: Vec<&str> = run
        .stdout
        .lines()
        .filter_map(|l| l.trim().strip_prefix("note: "))
        .filter(|n| n.contains("has no effect"))
        .collect();
    assert_eq!(
        notes,
        [
            "r.toml:10: params.speed has no effect: no state it bakes blends on 'speed'",
            "r.toml:7: once.wave has no effect: clip 'wave' is not baked (see clips)"
        ],
        "{}",
        run.stdout
    );
}

/// How a mutation changes its base file.
enum Edit {
    /// Replace the first occurrence (which must exist).
    Replace(&'static str, &'static str),
    /// Append text.
    Append(&'static str),
    /// Replace the whole file.
    Whole(&'static str),
}

/// What a mutated file must do.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Expect {
    Fail,
    Pass,
}

use Edit::{Append, Replace, Whole};
use Expect::{Fail, Pass};

fn apply(base: &str, edit: &Edit, what: &str) -> String {
    match edit {
        Replace(from, to) => {
            assert!(
                base.contains(from),
                "{what}: '{from}' is not in the base file"
            );
            base.replacen(from, to, 1)
        }
        Append(text) => format!("{base}{text}"),
        Whole(text) => text.to_string(),
    }
}

/// Mutations of the mannequin's character file: run by pose, play and bake.
#[rustfmt::skip]
const CHARACTER_MUTATIONS: &[(&str, Edit, Expect)] = &[
    ("missing model", Replace("model = ", "# model = "), Fail),
    ("initial of the wrong type", Replace("initial = \"move\"", "initial = 3"), Fail),
    ("unknown initial state", Replace("initial = \"move\"", "initial = \"nope\""), Fail),
    ("empty initial state", Replace("initial = \"move\"", "initial = \"\""), Fail),
    ("unknown tree", Replace("tree = \"locomotion\"", "tree = \"nope\""), Fail),
    ("unknown clip", Replace("clip = \"idle\" },", "clip = \"Jogg\" },"), Fail),
    ("huge clip speed", Replace("clip = \"idle\"\n", "clip = \"idle\"\nspeed = 1e39\n"), Fail),
    ("nan clip speed", Replace("clip = \"idle\"\n", "clip = \"idle\"\nspeed = nan\n"), Fail),
    ("negative clip speed", Replace("clip = \"idle\"\n", "clip = \"idle\"\nspeed = -1\n"), Fail),
    ("negative duration", Replace("duration = 0.3", "duration = -0.3"), Fail),
    ("huge duration", Replace("duration = 0.3", "duration = 1e39"), Fail),
    ("nan exit time", Replace("exit_time = 0.25", "exit_time = nan"), Fail),
    ("huge event time", Replace("time = 0.5 }", "time = 1e39 }"), Fail),
    ("event time of the wrong type", Replace("time = 0.5 }", "time = \"late\" }"), Fail),
    ("nan floor", Replace("floor = 0.09", "floor = nan"), Fail),
    ("huge floor", Replace("floor = 0.09", "floor = 1e39"), Fail),
    ("zero pole", Replace("pole = [0.0, 0.0, 1.0]", "pole = [0, 0, 0]"), Fail),
    ("pole of infinite length", Replace("pole = [0.0, 0.0, 1.0]", "pole = [3e38, 3e38, 3e38]"), Fail),
    ("huge iterations", Replace("floor = 0.09", "floor = 0.09\niterations = 99999999999"), Fail),
    ("negative tolerance", Replace("floor = 0.09", "floor = 0.09\ntolerance = -1"), Fail),
    ("huge ccd iterations", Append("\n[[ik]]\nname = \"reach\"\ntype = \"ccd\"\njoints = [\"upper_arm_l\", \"forearm_l\", \"hand_l\"]\ntarget = [0.4, 1.2, 0.2]\niterations = 99999999999\n"), Fail),
    ("nan ccd tolerance", Append("\n[[ik]]\nname = \"reach\"\ntype = \"ccd\"\njoints = [\"upper_arm_l\", \"forearm_l\", \"hand_l\"]\ntarget = [0.4, 1.2, 0.2]\ntolerance = nan\n"), Fail),
    ("a ccd chain", Append("\n[[ik]]\nname = \"reach\"\ntype = \"ccd\"\njoints = [\"upper_arm_l\", \"forearm_l\", \"hand_l\"]\ntarget = [0.4, 1.2, 0.2]\niterations = 8\n"), Pass),
    ("a reference pose from another clip", Append("\n[states.add]\nadditive = \"wave\"\nbase = { clip = \"idle\" }\nreference = { clip = \"idle\", time = 0.5 }\n"), Pass),
    ("huge ik weight", Replace("floor = 0.09", "floor = 0.09\nweight = 1e39"), Fail),
    ("nan target", Replace("target = \"ground\"", "target = [nan, 0, 0]"), Fail),
    ("floor with a point target", Replace("target = \"ground\"", "target = [0, 0, 0]"), Fail),
    ("empty joint list", Replace("joints = [\"thigh_l\", \"shin_l\", \"foot_l\"]", "joints = []"), Fail),
    ("one joint three times", Replace("joints = [\"thigh_l\", \"shin_l\", \"foot_l\"]", "joints = [\"thigh_l\", \"thigh_l\", \"thigh_l\"]"), Fail),
    ("nan mask weight", Replace("subtree = \"spine\"", "subtree = \"spine\"\nweight = nan"), Fail),
    ("huge parameter default", Replace("{ type = \"float\", default = 0.0 }", "{ type = \"float\", default = 1e39 }"), Fail),
    ("empty parameter type", Replace("{ type = \"bool\" }", "{ type = \"\" }"), Fail),
    ("condition beyond f32", Replace("\"speed > 0.1\"", "\"speed > 1e39\""), Fail),
    ("condition without a value", Replace("\"speed > 0.1\"", "\"speed >\""), Fail),
    ("empty condition", Replace("when = [\"wave\"]", "when = [\"\"]"), Fail),
    ("empty root joint", Replace("initial = \"move\"", "initial = \"move\"\nroot_joint = \"\""), Fail),
    ("unknown merge mode", Replace("initial = \"move\"", "initial = \"move\"\nmerge_animations = \"sometimes\""), Fail),
    ("blend position beyond f32", Replace("{ at = 3.0, clip = \"run\" }", "{ at = 1e39, clip = \"run\" }"), Fail),
    ("blend on a bool", Replace("blend1d = \"speed\"", "blend1d = \"wave\""), Fail),
    ("unknown mask", Replace("mask = \"upper_body\"", "mask = \"lower\""), Fail),
    ("reference time beyond f32", Append("\n[states.add]\nadditive = \"wave\"\nbase = { clip = \"idle\" }\nreference = { clip = \"idle\", time = 1e39 }\n"), Fail),
    ("duplicate table", Append("\n[states.halt]\nclip = \"walk\"\n"), Fail),
    ("unknown key", Append("\ncolour = 1\n"), Fail),
    ("state with an empty name", Append("\n[states.\"\"]\nclip = \"walk\"\n"), Pass),
    ("trees in a cycle", Append("\n[trees.a]\ntree = \"b\"\n[trees.b]\ntree = \"a\"\n"), Fail),
    ("a tree that doubles per level", Append("\n[trees.d0]\nlayer = { tree = \"d1\" }\nbase = { tree = \"d1\" }\nmask = \"upper_body\"\n[trees.d1]\nlayer = { tree = \"d2\" }\nbase = { tree = \"d2\" }\nmask = \"upper_body\"\n[trees.d2]\nclip = \"walk\"\n"), Pass),
    ("empty file", Whole(""), Fail),
    ("not TOML", Whole("this is not [toml"), Fail),
];

/// Mutations of a recipe baking the mannequin's character file: run by bake.
#[rustfmt::skip]
const RECIPE_MUTATIONS: &[(&str, Edit, Expect)] = &[
    ("missing output", Replace("output = \"o.throng\"", ""), Fail),
    ("empty output", Replace("output = \"o.throng\"", "output = \"\""), Fail),
    ("huge fps", Append("fps = 1e39\n"), Fail),
    ("negative fps", Append("fps = -1\n"), Fail),
    ("nan fps", Append("fps = nan\n"), Fail),
    ("fps of the wrong type", Append("fps = [30]\n"), Fail),
    ("unknown precision", Replace("output", "precision = \"f8\"\noutput"), Fail),
    ("huge budget", Replace("output", "max_precision_error = 1e39\noutput"), Fail),
    ("nan in lods", Replace("output", "lods = [1.0, nan]\noutput"), Fail),
    ("no lods", Replace("output", "lods = []\noutput"), Fail),
    ("unknown clip", Append("clips = [\"jog\"]\n"), Fail),
    ("unknown state", Append("states = [\"jog\"]\n"), Fail),
    ("unknown once", Append("once = [\"jog\"]\n"), Fail),
    ("unknown rate", Append("rates = { jog = 30 }\n"), Fail),
    ("huge rate", Append("rates = { walk = 1e39 }\n"), Fail),
    ("huge parameter value", Append("[characters.params]\nspeed = [1e39]\n"), Fail),
    ("no parameter values", Append("[characters.params]\nspeed = []\n"), Fail),
    ("huge height", Append("height = 1e39\n"), Fail),
    ("negative height", Append("height = -1\n"), Fail),
    ("zero scale", Append("scale = [1, 0, 1]\n"), Fail),
    ("nan tint", Append("tint = [nan, 1, 1]\n"), Fail),
    ("empty name", Append("name = \"\"\n"), Fail),
    ("a name used twice", Append("\n[[characters]]\ncharacter = \"c.toml\"\n"), Fail),
    ("missing character file", Replace("character = \"c.toml\"", "character = \"nope.toml\""), Fail),
    ("empty character path", Replace("character = \"c.toml\"", "character = \"\""), Fail),
    ("missing model", Replace("character = \"c.toml\"", "model = \"nope.glb\""), Fail),
    ("both character and model", Append("model = \"nope.glb\"\n"), Fail),
    ("unknown key", Append("colour = 1\n"), Fail),
    ("duplicate key", Append("fps = 30\nfps = 30\n"), Fail),
    ("a rate for every animation", Append("fps = 30\nrates = { idle = 30, walk = 30, run = 30, wave = 30, move = 30, greet = 30, halt = 30 }\n"), Pass),
];

/// Mutations of the mannequin's play script: run by play.
#[rustfmt::skip]
const SCRIPT_MUTATIONS: &[(&str, Edit, Expect)] = &[
    ("missing steps", Replace("steps = 300", ""), Fail),
    ("negative steps", Replace("steps = 300", "steps = -1"), Fail),
    ("huge steps", Replace("steps = 300", "steps = 99999999999"), Fail),
    ("steps beyond f32", Replace("steps = 300", "steps = 1e39"), Fail),
    ("zero dt", Replace("dt = 0.016666668", "dt = 0"), Fail),
    ("nan dt", Replace("dt = 0.016666668", "dt = nan"), Fail),
    ("dt beyond f32", Replace("dt = 0.016666668", "dt = 1e39"), Fail),
    ("huge finite dt", Replace("dt = 0.016666668", "dt = 1e30"), Pass),
    ("step beyond f32", Replace("step = 60", "step = 1e39"), Fail),
    ("value beyond f32", Replace("speed = 3.0", "speed = 1e39"), Fail),
    ("unknown parameter", Replace("speed = 3.0", "sped = 3.0"), Fail),
    ("number for a bool", Replace("wave = true", "wave = 3"), Fail),
    ("set without a step", Replace("step = 60\n", ""), Fail),
    ("unknown key", Append("colour = 1\n"), Fail),
    ("empty file", Whole(""), Fail),
];

#[test]
fn mutated_files_fail_cleanly_in_every_command() {
    let dir = Dir::new("mutations");
    let base_character = mannequin_text();
    let base_script = play_script();
    let out = dir.path("o.throng");
    let mut runs = 0;
    let mut check = |what: String, file: &str, args: &[&str], expect: Expect| {
        let run = throng(&dir, args);
        let line = clean(&what, &run, file);
        eprintln!("{what}: {}", line.as_deref().unwrap_or("ok"));
        assert_eq!(
            line.is_some(),
            expect == Fail,
            "{what}: expected {expect:?}, got exit {:?}: {}",
            run.code,
            run.stderr
        );
        runs += 1;
    };
    dir.write("s.toml", &base_script);
    dir.write("r.toml", RECIPE);
    for (what, edit, expect) in CHARACTER_MUTATIONS {
        dir.write("c.toml", &apply(&base_character, edit, what));
        check(
            format!("character: {what}: pose"),
            "c.toml",
            &["pose", "--character", "c.toml"],
            *expect,
        );
        check(
            format!("character: {what}: play"),
            "c.toml",
            &["play", "c.toml", "--script", "s.toml"],
            *expect,
        );
        check(
            format!("character: {what}: bake"),
            "c.toml",
            &["bake", "r.toml", "-o", &out, "--rebuild"],
            *expect,
        );
    }
    dir.write("c.toml", &base_character);
    for (what, edit, expect) in RECIPE_MUTATIONS {
        dir.write("r.toml", &apply(RECIPE, edit, what));
        check(
            format!("recipe: {what}"),
            "r.toml",
            &["bake", "r.toml", "-o", &out, "--rebuild"],
            *expect,
        );
    }
    for (what, edit, expect) in SCRIPT_MUTATIONS {
        dir.write("s.toml", &apply(&base_script, edit, what));
        check(
            format!("script: {what}"),
            "s.toml",
            &["play", "c.toml", "--script", "s.toml"],
            *expect,
        );
    }
    eprintln!("{runs} runs");
}
