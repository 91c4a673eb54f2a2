//! The `throng` binary: parse arguments, run the command, report errors.

use std::process::ExitCode;

fn main() -> ExitCode {
    // Rust ignores SIGPIPE, so a closed pipe (`throng inspect F | head`) makes the next print
    // panic with "failed printing to stdout". Ending quietly on it, as Unix tools do, is right
    // for a command-line program; nothing throng writes through a pipe is a file to protect
    // (files go through the atomic writer).
    #[cfg(unix)]
    // SAFETY: called first in main, before any other thread exists; SIG_DFL is a valid
    // disposition for SIGPIPE.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    // Without a Wayland session (no XDG_RUNTIME_DIR), Mesa's Vulkan device-select layer makes
    // libwayland print "error: XDG_RUNTIME_DIR is invalid or not set in the environment." on
    // every Vulkan run that succeeds; switch the layer off then (see
    // throng::render::driver_env). The loader reads this when Vulkan is first used.
    // SAFETY: still first in main, before any other thread exists.
    unsafe { throng::render::driver_env::quiet_drivers() };
    // The main thread as one of rayon's workers (as many as there are cores, this one
    // included), not a third thread that waits beside two. A crowd update's parallel pass
    // then wakes one worker where it woke two at once, and after a frame of software
    // rendering the scheduler often put those two on the same core (counted: the step pass's
    // jobs by worker and core in `throng bench`), which made the passes up to 1.7 times
    // slower. Fails only when a pool exists already, which cannot happen this early.
    let _ = rayon::ThreadPoolBuilder::new()
        .use_current_thread()
        .build_global();
    match throng::internal::run_command_line() {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err}");
            ExitCode::FAILURE
        }
    }
}
