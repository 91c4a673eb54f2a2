//! Files are written atomically (src/atomic.rs): a bake killed mid-way leaves at most its
//! temporary file beside the target, never half a target, and the next bake to the same target
//! removes that temporary (and any other stale one of that target, but nothing else), even
//! when it finds the output up to date. A target that is one of the command's own inputs (by
//! any name), a FIFO or a device is refused before any work, with every input unchanged.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use throng::format::ThrongFile;

/// The temporary-name prefix of target `name` (see src/atomic.rs).
fn prefix(name: &str) -> String {
    format!(".{name}{}", throng::atomic::TEMP_MARK)
}

/// Names in `dir` that start with `start`, sorted.
fn names_starting(dir: &Path, start: &str) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(start))
        .collect();
    names.sort();
    names
}

/// `throng bake` of the default recipe into `out`, quietly, even if up to date.
fn bake_command(out: &Path) -> Command {
    let recipe = Path::new(env!("CARGO_MANIFEST_DIR")).join("bake/mannequin.toml");
    let mut c = Command::new(env!("CARGO_BIN_EXE_throng"));
    c.arg("bake")
        .arg(recipe)
        .arg("-o")
        .arg(out)
        .args(["-q", "--rebuild"]);
    c
}

/// The target is the old complete file or a complete new bake, never anything between.
fn old_or_complete(out: &Path, old: &[u8]) {
    let bytes = std::fs::read(out).unwrap();
    if bytes != old {
        ThrongFile::open(out).unwrap_or_else(|e| panic!("{}: half a file? {e}", out.display()));
    }
}

#[test]
fn a_killed_bake_leaves_at_most_its_temporary_and_the_next_bake_removes_it() {
    let dir = common::temp_dir("atomic-kill");
    let out = dir.join("m.throng");
    let old = b"the old complete file".to_vec();
    std::fs::write(&out, &old).unwrap();
    // A temporary left by an earlier killed run: PID u32::MAX is above Linux's largest
    // (2^22), so its process is surely gone. Whatever the kill below catches, the next bake
    // must remove this one.
    let planted = format!("{}{}-0", prefix("m.throng"), u32::MAX);
    std::fs::write(dir.join(&planted), b"half a bake").unwrap();
    // Another target's stale temporary, and a file of no scheme: both must stay.
    let others = [
        format!("{}{}-0", prefix("other.throng"), u32::MAX),
        ".m.throng.tmp-notes".to_string(),
    ];
    for name in &others {
        std::fs::write(dir.join(name), b"not ours").unwrap();
    }

    // Kill the bake as soon as its temporary file appears (mid-write); if it never shows
    // (the write was quicker than the polling), kill whatever is left of the run.
    let mut child = bake_command(&out)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let own = format!("{}{}-", prefix("m.throng"), child.id());
    // A debug build bakes the mannequin in seconds; this only bounds a hung run.
    let deadline = Instant::now() + Duration::from_secs(300);
    let mut caught = false;
    while Instant::now() < deadline {
        if !names_starting(&dir, &own).is_empty() {
            caught = true;
            break;
        }
        if child.try_wait().unwrap().is_some() {
            break;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    child.kill().unwrap_or(()); // Already exited is fine.
    let status = child.wait().unwrap();
    eprintln!("killed mid-write: {caught}; exit status {status}");

    // At most the killed run's one temporary, besides the planted ones; the target whole.
    let left = names_starting(&dir, &own);
    assert!(left.len() <= 1, "temporaries left: {left:?}");
    old_or_complete(&out, &old);
    if status.success() {
        // The polling missed the write and the run finished on its own: it removed the stale
        // temporary itself, as the next bake below must when a run is killed.
        assert!(
            !dir.join(&planted).exists(),
            "a finished bake left {planted}"
        );
    } else {
        assert!(
            dir.join(&planted).exists(),
            "a killed bake removed {planted}"
        );
    }

    // The next bake to the same target removes every stale temporary of it.
    let next = bake_command(&out).output().unwrap();
    assert!(
        next.status.success(),
        "{}",
        String::from_utf8_lossy(&next.stderr)
    );
    assert_eq!(
        names_starting(&dir, &prefix("m.throng")),
        Vec::<String>::new()
    );
    let file = ThrongFile::open(&out).unwrap();
    assert!(!file.characters().is_empty());
    for name in &others {
        assert_eq!(
            std::fs::read(dir.join(name)).unwrap(),
            b"not ours",
            "{name}"
        );
    }
}

#[test]
fn gen_mannequin_leaves_only_its_file() {
    let dir: PathBuf = common::temp_dir("atomic-gen");
    let out = dir.join("m.glb");
    let (code, _, err) = common::throng(&["gen-mannequin", "--out", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(names_starting(&dir, ""), ["m.glb"]);
}

/// `throng ARGS` in `dir`: exit code, stdout, stderr.
fn throng_in(dir: &Path, args: &[&str]) -> (Option<i32>, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_throng"))
        .args(args)
        .current_dir(dir)
        .env("XDG_CACHE_HOME", dir.join("cache"))
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.code(), text(&out.stdout), text(&out.stderr))
}

/// Every file in `dir` with its bytes (folders and FIFOs as empty), sorted by name.
fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut all: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap())
        .map(|e| {
            let regular = e.file_type().unwrap().is_file();
            let bytes = if regular {
                std::fs::read(e.path()).unwrap()
            } else {
                Vec::new()
            };
            (e.file_name().to_string_lossy().into_owned(), bytes)
        })
        .collect();
    all.sort();
    all
}

#[cfg(unix)]
#[test]
fn an_output_that_is_one_of_its_inputs_is_refused_with_the_input_unchanged() {
    let dir = common::temp_dir("atomic-own-input");
    std::fs::copy(common::mannequin_path(), dir.join("m.glb")).unwrap();
    let character = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/mannequin.toml"),
    )
    .unwrap()
    .lines()
    .map(|l| {
        if l.starts_with("model = ") {
            "model = \"m.glb\""
        } else {
            l
        }
    })
    .collect::<Vec<_>>()
    .join("\n");
    std::fs::write(dir.join("c.toml"), character).unwrap();
    let recipe = |output: &str, source: &str| {
        format!("output = \"{output}\"\n[[characters]]\nname = \"c\"\n{source}\n")
    };
    let files = [
        ("self.toml", recipe("self.toml", "model = \"m.glb\"")),
        ("model.toml", recipe("m.glb", "model = \"m.glb\"")),
        ("char.toml", recipe("c.toml", "character = \"c.toml\"")),
        ("nested.toml", recipe("m.glb", "character = \"c.toml\"")),
    ];
    for (name, text) in &files {
        std::fs::write(dir.join(name), text).unwrap();
    }
    std::fs::create_dir(dir.join("sub")).unwrap();
    std::fs::hard_link(dir.join("m.glb"), dir.join("hard.glb")).unwrap();
    std::os::unix::fs::symlink("m.glb", dir.join("soft.glb")).unwrap();
    let before = snapshot(&dir);
    let cases: [(&[&str], &str); 8] = [
        (&["bake", "m.glb", "-o", "m.glb"], "the model m.glb"),
        (&["bake", "m.glb", "-o", "sub/../m.glb"], "the model m.glb"),
        (&["bake", "m.glb", "-o", "hard.glb"], "the model m.glb"),
        (&["bake", "m.glb", "-o", "soft.glb"], "the model m.glb"),
        (&["bake", "self.toml"], "the recipe self.toml"),
        (&["bake", "model.toml"], "the model"),
        (&["bake", "char.toml"], "the character file"),
        (&["bake", "nested.toml"], "the model"),
    ];
    for (args, says) in cases {
        let (code, _, err) = throng_in(&dir, args);
        assert_eq!(code, Some(1), "{args:?}: {err}");
        assert!(
            err.contains("is the same file as") && err.contains(says),
            "{args:?}: does not say it is {says}:\n{err}"
        );
        assert_eq!(snapshot(&dir), before, "{args:?} changed a file");
    }
    // A bake, then commands that write beside it, given another name of it as the output.
    let (code, _, err) = throng_in(&dir, &["bake", "-q", "m.glb", "-o", "m.throng"]);
    assert_eq!(code, Some(0), "{err}");
    std::fs::hard_link(dir.join("m.throng"), dir.join("m.png")).unwrap();
    let baked = std::fs::read(dir.join("m.throng")).unwrap();
    for args in [
        &["export-texture", "m.throng", "m.png"][..],
        &["render", "--bake", "m.throng", "--out", "m.png"],
        &[
            "demo",
            "--bake",
            "m.throng",
            "--headless",
            "--screenshot",
            "m.png",
        ],
    ] {
        let (code, _, err) = throng_in(&dir, args);
        assert_eq!(code, Some(1), "{args:?}: {err}");
        assert!(err.contains("the baked file m.throng"), "{args:?}: {err}");
        assert_eq!(std::fs::read(dir.join("m.throng")).unwrap(), baked);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[cfg(unix)]
#[test]
fn gen_mannequin_never_replaces_a_fifo_or_a_device() {
    use std::os::unix::fs::FileTypeExt;
    let dir = common::temp_dir("atomic-gen-special");
    let fifo = dir.join("fifo.glb");
    let made = Command::new("mkfifo").arg(&fifo).status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo (coreutils) failed");
    let (code, _, err) = throng_in(&dir, &["gen-mannequin", "-o", "fifo.glb"]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("fifo.glb: is a FIFO"), "{err}");
    assert!(
        std::fs::symlink_metadata(&fifo)
            .unwrap()
            .file_type()
            .is_fifo()
    );
    // Refused by a look at it, before anything is written: /dev/null stays the device it is
    // (as root, a rename would replace it).
    let (code, _, err) = throng_in(&dir, &["gen-mannequin", "-o", "/dev/null"]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("/dev/null: is a device"), "{err}");
    let null = std::fs::symlink_metadata("/dev/null").unwrap().file_type();
    assert!(null.is_char_device());
    assert_eq!(names_starting(&dir, ""), ["fifo.glb"]);
    assert!(names_starting(Path::new("/dev"), ".null").is_empty());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_bake_that_finds_its_output_up_to_date_removes_stale_temporaries() {
    let dir = common::temp_dir("atomic-up-to-date");
    std::fs::copy(common::mannequin_path(), dir.join("m.glb")).unwrap();
    let (code, _, err) = throng_in(&dir, &["bake", "-q", "m.glb", "-o", "m.throng"]);
    assert_eq!(code, Some(0), "{err}");
    let baked = std::fs::read(dir.join("m.throng")).unwrap();
    // What a killed `bake --rebuild` leaves: a temporary of a process that is surely gone
    // (above Linux's largest PID, 2^22); and one of a live writer (this test stands in).
    let stale = format!("{}{}-0", prefix("m.throng"), u32::MAX);
    let live = format!("{}{}-0", prefix("m.throng"), std::process::id());
    std::fs::write(dir.join(&stale), b"half a bake").unwrap();
    std::fs::write(dir.join(&live), b"being written").unwrap();
    let (code, out, err) = throng_in(&dir, &["bake", "m.glb", "-o", "m.throng"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("is up to date"), "it baked again:\n{out}");
    assert_eq!(names_starting(&dir, &prefix("m.throng")), [live]);
    assert_eq!(std::fs::read(dir.join("m.throng")).unwrap(), baked);
    std::fs::remove_dir_all(&dir).unwrap();
}
