//! The hostile-input corpus (`tests/fixtures/hostile`, listed in its README.md): every command
//! that takes such an input runs on each file, in a copy of the corpus in a temporary folder.
//! Each run must end within a time limit with success (0) or an error (1): never a panic, an
//! abort, a stack overflow or a hang. Every error message says each of its clauses once (the
//! message split on ": " has no clause twice), and each file's message says what the file is
//! refused for (the fragments in `EXPECTED`). Inputs too large to commit (a 100,000-deep tree
//! chain) and runtime flags are made here, and so are inputs that are not files at all (a
//! FIFO, a folder, `/dev/zero`) or sparse files over their kind's size limit, given as every
//! kind of input (model, recipe, character file, LOD presets, play script, bench
//! configuration and recipe, `.throng` file): each gets one message at once, nothing written.

use crate::common;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// A run taking longer than this hangs: the slowest runs bake the mannequin in a debug build
/// (a few seconds on 2 cores); everything refused is refused in well under a second.
const LIMIT: Duration = Duration::from_secs(180);

/// What each corpus file's error message (or, for one that succeeds, its output) must say,
/// lower-cased: the cause, in the user's words. A file not listed must still pass the
/// general checks.
const EXPECTED: &[(&str, &str)] = &[
    ("models/empty.glb", "the file is empty"),
    ("models/truncated-header.glb", "truncated"),
    ("models/truncated-body.glb", "truncated"),
    ("models/version-7.glb", "version"),
    ("models/bad-json.gltf", "json"),
    ("models/abs-uri.gltf", "absolute"),
    ("models/climb-uri.gltf", "climbs out"),
    ("models/percent-uri.gltf", "climbs out"),
    ("models/file-uri.gltf", "file:"),
    ("models/huge-view.gltf", "bufferview 0"),
    ("models/huge-offset.gltf", "bufferview 0"),
    ("models/huge-accessor.gltf", "accessor 0"),
    ("throng/empty.throng", "the file is empty"),
    ("throng/truncated.throng", "truncated"),
    ("throng/vert-1-byte.throng", "not a whole number"),
    ("throng/anim-3-bytes.throng", "not a whole number"),
    ("throng/flip-crc-kept.throng", "crc"),
    ("throng/empty-mesh.throng", "no triangles"),
    ("throng/minor-2-no-cext.throng", "no 'cext' section"),
    ("throng/facing-4.throng", "facing turn of 4 quarter turns"),
    ("throng/minor-3-no-jlod.throng", "no 'jlod' section"),
    (
        "throng/jlod-root.throng",
        "lod 0 draws joint 0 with joint 1",
    ),
    ("throng/minor-4-no-impo.throng", "no 'impo' section"),
    ("throng/impo-views-4.throng", "4 impostor views per side"),
    (
        "throng/impx-past.throng",
        "impostor frames of 288 bytes from byte 0 run past the 0 bytes of 'impx'",
    ),
    (
        "recipes/scale-1e25.toml",
        "scale-1e25.toml:4: character 'mannequin': animation 'idle'",
    ),
    ("recipes/params-on-bare.toml", "params.speed has no effect"),
    ("recipes/output-empty.toml", "output is empty"),
    ("recipes/unknown-clip.toml", "jog"),
    ("recipes/unknown-state.toml", "fly"),
    ("recipes/height-nan.toml", "height"),
    ("recipes/height-and-scale.toml", "scale"),
    ("recipes/fps-1e39.toml", "fps"),
    ("recipes/model-is-passwd.toml", "passwd"),
    (
        "recipes/events-speed-huge.toml",
        "state 's' of additive-speed-huge.toml fires over 8589934590 events",
    ),
    ("characters/tree-cycle.toml", "contains itself"),
    ("characters/tree-self.toml", "contains itself"),
    ("characters/tree-missing.toml", "nowhere"),
    ("characters/floor-nan.toml", "floor"),
    ("characters/initial-missing.toml", "nope"),
    ("scripts/speed-1e39.toml", "out of range"),
    ("scripts/dt-nan.toml", "dt"),
    ("lod/empty.toml", "no lod presets"),
];

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// What one run printed and how it ended.
struct Ran {
    what: String,
    status: ExitStatus,
    stdout: String,
    stderr: String,
}

/// Runs `throng ARGS` in `dir` (with its own cache folder), killing it past [`LIMIT`].
fn run(dir: &Path, args: &[OsString]) -> Ran {
    run_within(dir, args, LIMIT)
}

/// [`run`], killing it past `limit`.
fn run_within(dir: &Path, args: &[OsString], limit: Duration) -> Ran {
    let what = format!(
        "throng {}",
        args.iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join(" ")
    );
    let out = dir.join("stdout.txt");
    let err = dir.join("stderr.txt");
    let mut child = Command::new(env!("CARGO_BIN_EXE_throng"))
        .args(args)
        .current_dir(dir)
        .env("XDG_CACHE_HOME", dir.join("cache"))
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out).unwrap())
        .stderr(std::fs::File::create(&err).unwrap())
        .spawn()
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if start.elapsed() > limit {
            child.kill().ok();
            child.wait().ok();
            panic!("{what}: still running after {limit:?} (a hang)");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Ran {
        what,
        status,
        stdout: std::fs::read_to_string(&out).unwrap_or_default(),
        stderr: String::from_utf8_lossy(&std::fs::read(&err).unwrap_or_default()).into_owned(),
    }
}

/// The clauses of an error message said more than once (splitting on ": ").
fn repeated(message: &str) -> Vec<String> {
    let clauses: Vec<&str> = message.split(": ").map(str::trim).collect();
    let mut twice = Vec::new();
    for (i, c) in clauses.iter().enumerate() {
        if !c.is_empty() && clauses[..i].contains(c) && !twice.contains(&c.to_string()) {
            twice.push(c.to_string());
        }
    }
    twice
}

/// The general checks: a clean end (0 or 1, not a signal), no panic or abort text, and every
/// error line says each clause once and starts with `error: `.
fn check(r: &Ran) {
    let code = r.status.code();
    assert!(
        matches!(code, Some(0 | 1)),
        "{}: ended with {:?} (a crash or abort)\n{}",
        r.what,
        r.status,
        r.stderr
    );
    for bad in [
        "panicked",
        "overflowed its stack",
        "RUST_BACKTRACE",
        "SIGSEGV",
    ] {
        assert!(
            !r.stderr.contains(bad),
            "{}: '{bad}' in its output\n{}",
            r.what,
            r.stderr
        );
    }
    if code == Some(1) {
        let errors: Vec<&str> = r
            .stderr
            .lines()
            .filter(|l| l.starts_with("error: "))
            .collect();
        assert!(
            !errors.is_empty(),
            "{}: failed without an 'error: ' line\n{}",
            r.what,
            r.stderr
        );
        for line in errors {
            let twice = repeated(line);
            assert!(
                twice.is_empty(),
                "{}: says {twice:?} twice in\n{line}",
                r.what
            );
        }
    }
}

/// The corpus copied into `dir` (its recipes and character files pointing at this
/// repository's assets), and its files relative to `dir`, sorted.
fn corpus(dir: &Path) -> Vec<PathBuf> {
    let from = repo().join("tests/fixtures/hostile");
    let mut files = Vec::new();
    for kind in [
        "models",
        "throng",
        "recipes",
        "characters",
        "scripts",
        "lod",
    ] {
        let entries = std::fs::read_dir(from.join(kind))
            .unwrap_or_else(|e| panic!("{}: {e}", from.join(kind).display()));
        std::fs::create_dir_all(dir.join(kind)).unwrap();
        for e in entries {
            let path = e.unwrap().path();
            let name = Path::new(kind).join(path.file_name().unwrap());
            let bytes = std::fs::read(&path).unwrap();
            let bytes = if path.extension().is_some_and(|x| x == "toml") {
                String::from_utf8(bytes)
                    .unwrap()
                    .replace("@REPO@", &repo().display().to_string().replace('\\', "/"))
                    .into_bytes()
            } else {
                bytes
            };
            std::fs::write(dir.join(&name), bytes).unwrap();
            files.push(name);
        }
    }
    files.sort();
    assert!(files.len() >= 60, "only {} corpus files", files.len());
    files
}

fn os(args: &[&str]) -> Vec<OsString> {
    args.iter().map(OsString::from).collect()
}

/// The commands run on corpus file `f` (relative to the run folder).
fn commands(f: &Path) -> Vec<Vec<OsString>> {
    let file = f.display().to_string();
    let kind = f.components().next().unwrap().as_os_str().to_string_lossy();
    let stem = f.file_stem().unwrap().to_string_lossy().into_owned();
    let out = format!("out/{kind}-{stem}.throng");
    let png = format!("out/{kind}-{stem}.png");
    let repo = repo().display().to_string();
    let play = format!("{repo}/assets/mannequin-play.toml");
    let fixture = format!("{repo}/tests/fixtures/format-1.1.throng");
    match kind.as_ref() {
        "models" => vec![
            os(&["inspect", &file]),
            os(&["bake", &file, "-o", &out]),
            os(&["pose", &file]),
        ],
        "throng" => vec![
            os(&["inspect", &file]),
            os(&["inspect", &file, "--json"]),
            os(&[
                "render",
                "--bake",
                &file,
                "--instances",
                "1",
                "--size",
                "64x64",
                "--out",
                &png,
            ]),
        ],
        "recipes" => vec![os(&["bake", &file])],
        "characters" => vec![
            os(&["pose", "--character", &file]),
            os(&["play", &file, "--script", &play]),
        ],
        "scripts" => vec![os(&[
            "play",
            &format!("{repo}/assets/mannequin.toml"),
            "--script",
            &file,
        ])],
        "lod" => vec![os(&[
            "demo",
            "--bake",
            &fixture,
            "--lod-config",
            &file,
            "--headless",
            "--frames",
            "1",
            "--screenshot",
            &png,
        ])],
        other => panic!("no commands for corpus folder '{other}'"),
    }
}

#[test]
fn every_command_on_every_corpus_file_ends_cleanly_and_says_its_cause_once() {
    let dir = common::temp_dir("hostile-corpus");
    let files = corpus(&dir);
    std::fs::create_dir_all(dir.join("out")).unwrap();
    let mut runs = 0;
    // Every missing cause, so that one run shows them all.
    let mut unsaid = Vec::new();
    for f in &files {
        let expected = EXPECTED
            .iter()
            .find(|(name, _)| Path::new(name) == f)
            .map(|(_, e)| *e);
        for args in commands(f) {
            let r = run(&dir, &args);
            check(&r);
            runs += 1;
            if let Some(e) = expected {
                let said = format!("{}{}", r.stdout, r.stderr).to_lowercase();
                if !said.contains(e) {
                    unsaid.push(format!("{}: does not say '{e}':\n{}", r.what, r.stderr));
                }
            }
        }
    }
    assert!(unsaid.is_empty(), "{}", unsaid.join("\n"));
    // Nothing the refused runs were given was replaced by half a file: no temporary is left.
    let left: Vec<_> = std::fs::read_dir(dir.join("out"))
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".tmp"))
        .collect();
    assert!(left.is_empty(), "temporaries left: {left:?}");
    eprintln!("{runs} runs on {} corpus files", files.len());
    let _ = std::fs::remove_dir_all(&dir);
}

/// A character file whose named trees chain `depth` deep: `[trees.tN] tree = "tN+1"`.
fn chain(depth: usize) -> String {
    let mut text = format!(
        "model = {:?}\ninitial = \"s\"\n[states.s]\ntree = \"t0\"\n",
        repo().join("assets/mannequin.glb").display().to_string()
    );
    for i in 0..depth {
        text += &format!("[trees.t{i}]\ntree = \"t{}\"\n", i + 1);
    }
    text += &format!("[trees.t{depth}]\nclip = \"walk\"\n");
    text
}

#[test]
fn deep_tree_chains_end_cleanly() {
    let dir = common::temp_dir("hostile-deep");
    for depth in [8_000, 100_000] {
        let file = dir.join(format!("deep-{depth}.toml"));
        std::fs::write(&file, chain(depth)).unwrap();
        for args in [
            vec![
                OsString::from("pose"),
                "--character".into(),
                file.clone().into(),
            ],
            vec![
                OsString::from("play"),
                file.clone().into(),
                "--script".into(),
                repo().join("assets/mannequin-play.toml").into(),
            ],
        ] {
            check(&run(&dir, &args));
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A glTF whose `depth` nodes chain one below the other, all joints of one skin.
fn node_chain(depth: usize) -> String {
    let mut nodes: Vec<String> = (0..depth - 1)
        .map(|i| format!("{{\"children\":[{}]}}", i + 1))
        .collect();
    nodes.push("{}".to_string());
    nodes[0] = "{\"children\":[1],\"skin\":0}".to_string();
    let joints: Vec<String> = (0..depth).map(|i| i.to_string()).collect();
    format!(
        "{{\"asset\":{{\"version\":\"2.0\"}},\"scene\":0,\"scenes\":[{{\"nodes\":[0]}}],\"nodes\":[{}],\"skins\":[{{\"joints\":[{}]}}]}}",
        nodes.join(","),
        joints.join(",")
    )
}

#[test]
fn deep_node_chains_end_cleanly() {
    // 65,535 joints is the most a skeleton holds (its joints are u16 indices); 200,000 is
    // refused as too many. Choosing the joints walked every node's ancestors (quadratic: the
    // 200,000 chain ran for minutes) and inspect's indentation overflowed `format!`'s width.
    let dir = common::temp_dir("hostile-nodes");
    for depth in [65_535, 200_000] {
        let file = dir.join(format!("chain-{depth}.gltf"));
        std::fs::write(&file, node_chain(depth)).unwrap();
        let out = dir.join("out.throng");
        for args in [
            vec![OsString::from("inspect"), file.clone().into()],
            vec![OsString::from("pose"), file.clone().into()],
            vec![
                OsString::from("bake"),
                file.clone().into(),
                "-o".into(),
                out.clone().into(),
            ],
        ] {
            let r = run(&dir, &args);
            check(&r);
            if depth > 65_535 {
                assert!(
                    r.stderr.contains("at most 65535"),
                    "{}: {}",
                    r.what,
                    r.stderr
                );
            } else {
                assert_eq!(r.status.code(), Some(0), "{}: {}", r.what, r.stderr);
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn runtime_flags_out_of_range_are_refused_once() {
    let dir = common::temp_dir("hostile-flags");
    let fixture = repo().join("tests/fixtures/format-1.1.throng");
    let mannequin = repo().join("assets/mannequin.glb");
    let character = repo().join("assets/mannequin.toml");
    let folder = dir.join("a-folder");
    std::fs::create_dir_all(&folder).unwrap();
    let cases: Vec<(Vec<OsString>, &str)> = vec![
        (
            vec![
                "render".into(),
                "--bake".into(),
                fixture.clone().into(),
                "--instances".into(),
                "10000000".into(),
                "--out".into(),
                dir.join("x.png").into(),
            ],
            "200000",
        ),
        (
            vec![
                "render".into(),
                "--bake".into(),
                folder.clone().into(),
                "--out".into(),
                dir.join("x.png").into(),
            ],
            "is a folder",
        ),
        (
            vec![
                "bake".into(),
                mannequin.clone().into(),
                "-o".into(),
                folder.clone().into(),
            ],
            "is a folder",
        ),
        (
            vec![
                "pose".into(),
                "--character".into(),
                character.into(),
                "--param".into(),
                "speed=1e39".into(),
            ],
            "out of range",
        ),
    ];
    for (args, says) in cases {
        let r = run(&dir, &args);
        check(&r);
        assert_eq!(r.status.code(), Some(1), "{}", r.what);
        assert!(
            r.stderr.to_lowercase().contains(says),
            "{}: does not say '{says}'\n{}",
            r.what,
            r.stderr
        );
    }
    // Nothing was written into the folder given as an output.
    assert_eq!(std::fs::read_dir(&folder).unwrap().count(), 0);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A refusal is a look at a file's metadata. A hang (a FIFO opened for reading, `/dev/zero`
/// read to its end) runs forever, so any bound tells; 10 s leaves a debug build on a loaded
/// machine room to start.
const REFUSE_LIMIT: Duration = Duration::from_secs(10);

/// The hostile inputs: a FIFO without a writer, a folder, a link to `/dev/zero` and a sparse
/// file one byte over its kind's limit, each with what its message must say (lower-cased).
const HOSTILE: [(&str, &str); 4] = [
    ("fifo", "is a fifo"),
    ("folder", "is a folder"),
    ("zero", "is a device"),
    ("big", "over the"),
];

/// Makes the [`HOSTILE`] inputs `NAME.EXT` in `dir` for each extension, each kind's big one
/// over its limit, and the files that name them: `recipe-model-NAME.toml` (a recipe naming
/// the model), `recipe-char-NAME.toml` (naming the character file) and `char-NAME.toml` (a
/// character file naming the model).
#[cfg(unix)]
fn hostile_inputs(dir: &Path) {
    use throng::input::{MODEL_LIMIT, TEXT_LIMIT, THRONG_LIMIT};
    for (ext, limit) in [
        ("toml", TEXT_LIMIT),
        ("glb", MODEL_LIMIT),
        ("throng", THRONG_LIMIT),
    ] {
        let at = |name: &str| dir.join(format!("{name}.{ext}"));
        let made = Command::new("mkfifo").arg(at("fifo")).status();
        assert!(made.is_ok_and(|s| s.success()), "mkfifo (coreutils) failed");
        std::fs::create_dir(at("folder")).unwrap();
        std::os::unix::fs::symlink("/dev/zero", at("zero")).unwrap();
        // Sparse: no disk is spent on it.
        std::fs::File::create(at("big"))
            .and_then(|f| f.set_len(limit + 1))
            .unwrap();
    }
    let character = std::fs::read_to_string(repo().join("assets/mannequin.toml")).unwrap();
    assert!(
        character.contains("\nmodel = "),
        "assets/mannequin.toml names no model"
    );
    for (name, _) in HOSTILE {
        let recipe = |source: &str| {
            format!("output = \"out/r.throng\"\n[[characters]]\nname = \"c\"\n{source}\n")
        };
        let model = format!("model = \"{name}.glb\"");
        std::fs::write(
            dir.join(format!("recipe-model-{name}.toml")),
            recipe(&model),
        )
        .unwrap();
        let char_file = format!("character = \"{name}.toml\"");
        std::fs::write(
            dir.join(format!("recipe-char-{name}.toml")),
            recipe(&char_file),
        )
        .unwrap();
        let named: String = character
            .lines()
            .map(|l| {
                if l.starts_with("model = ") {
                    model.clone()
                } else {
                    l.to_string()
                }
            })
            .collect::<Vec<_>>()
            .join("\n");
        std::fs::write(dir.join(format!("char-{name}.toml")), named).unwrap();
    }
}

/// Every command on every kind of input it reads, for hostile input `n`: the file each run
/// must name, and its arguments.
fn hostile_commands(n: &str) -> Vec<(String, Vec<OsString>)> {
    let repo = repo().display().to_string();
    let fixture = format!("{repo}/tests/fixtures/format-1.1.throng");
    let character = format!("{repo}/assets/mannequin.toml");
    let (glb, toml, throng) = (
        format!("{n}.glb"),
        format!("{n}.toml"),
        format!("{n}.throng"),
    );
    let recipe_model = format!("recipe-model-{n}.toml");
    let recipe_char = format!("recipe-char-{n}.toml");
    let char_model = format!("char-{n}.toml");
    let bench = ["bench", "--bake", &fixture, "--quick", "--out", "out/bench"];
    let runs: Vec<(&String, Vec<&str>)> = vec![
        (&glb, vec!["inspect", &glb]),
        (&glb, vec!["bake", &glb, "-o", "out/m.throng"]),
        (&glb, vec!["pose", &glb]),
        (&toml, vec!["bake", &toml, "-o", "out/r.throng"]),
        (&glb, vec!["bake", &recipe_model]),
        (&toml, vec!["bake", &recipe_char]),
        (&toml, vec!["pose", "--character", &toml]),
        (&glb, vec!["pose", "--character", &char_model]),
        (&toml, vec!["play", &character, "--script", &toml]),
        (&toml, [&bench[..], &["--config", &toml]].concat()),
        (&toml, [&bench[..], &["--recipe", &toml]].concat()),
        (
            &toml,
            vec![
                "demo",
                "--bake",
                &fixture,
                "--lod-config",
                &toml,
                "--headless",
                "--frames",
                "1",
                "--screenshot",
                "out/d.png",
            ],
        ),
        // Without --bake the demo would first bake the built-in crowd into the cache: the
        // presets are read before that.
        (
            &toml,
            vec!["demo", "--lod-config", &toml, "--headless", "--frames", "1"],
        ),
        (&throng, vec!["inspect", &throng]),
        (
            &throng,
            vec!["render", "--bake", &throng, "--out", "out/x.png"],
        ),
        (&throng, vec!["export-texture", &throng, "out/x.png"]),
    ];
    runs.into_iter()
        .map(|(file, args)| (file.clone(), os(&args)))
        .collect()
}

#[cfg(unix)]
#[test]
fn inputs_that_are_not_files_or_too_large_get_one_message_at_once() {
    let dir = common::temp_dir("hostile-inputs");
    hostile_inputs(&dir);
    std::fs::create_dir_all(dir.join("out")).unwrap();
    let mut slowest = Duration::ZERO;
    let mut runs = 0;
    for (name, says) in HOSTILE {
        for (file, args) in hostile_commands(name) {
            let start = Instant::now();
            let r = run_within(&dir, &args, REFUSE_LIMIT);
            slowest = slowest.max(start.elapsed());
            runs += 1;
            check(&r);
            assert_eq!(r.status.code(), Some(1), "{}: {}", r.what, r.stderr);
            let errors: Vec<&str> = r
                .stderr
                .lines()
                .filter(|l| l.starts_with("error: "))
                .collect();
            assert_eq!(errors.len(), 1, "{}: one message\n{}", r.what, r.stderr);
            let line = errors[0].to_lowercase();
            assert!(
                line.contains(says) && line.contains(&file),
                "{}: does not say '{file}' and '{says}'\n{}",
                r.what,
                r.stderr
            );
        }
    }
    // Nothing was written: no output, no temporary, no folder of a report.
    let written: Vec<_> = std::fs::read_dir(dir.join("out"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert!(written.is_empty(), "written: {written:?}");
    assert!(!dir.join("cache").exists(), "nothing baked into the cache");
    eprintln!("{runs} refusals, the slowest in {slowest:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_closed_pipe_ends_a_listing_quietly() {
    // `throng pose F --positions | head -c 1`: the reader goes away after one byte, while
    // throng still has megabytes to print (far more than a pipe holds, so it meets the closed
    // pipe for sure).
    let mut child = Command::new(env!("CARGO_BIN_EXE_throng"))
        .arg("pose")
        .arg(repo().join("assets/mannequin.glb"))
        .arg("--positions")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0u8; 1];
    std::io::Read::read_exact(&mut stdout, &mut first).unwrap();
    drop(stdout);
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !stderr.contains("panicked") && !stderr.contains("Broken pipe"),
        "{stderr}"
    );
    // Ended by SIGPIPE, as `head` expects of a Unix tool (or, had it finished first, cleanly).
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        assert!(
            out.status.success() || out.status.signal() == Some(13),
            "{:?}",
            out.status
        );
    }
}
