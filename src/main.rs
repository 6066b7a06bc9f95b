//! The `twinpage` command. Everything it does lives in the library; the
//! commands in [`cli`] parse arguments, call it and print.

mod cli;

fn main() -> std::process::ExitCode {
    cli::run()
}
