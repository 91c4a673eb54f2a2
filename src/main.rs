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
    match throng::cli::run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {}", throng::cli::error_report(&err));
            ExitCode::FAILURE
        }
    }
}
