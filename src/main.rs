//! The `throng` binary: parse arguments, run the command, report errors.

use std::process::ExitCode;

fn main() -> ExitCode {
    match throng::cli::run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {}", throng::cli::error_report(&err));
            ExitCode::FAILURE
        }
    }
}
