//! The `twinpage` command; everything it does lives in the library.

fn main() -> std::process::ExitCode {
    twinpage::cli::run()
}
