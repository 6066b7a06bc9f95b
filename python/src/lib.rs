//! `twinpage._native`: runs a twinpage command in Python's process, the GIL
//! released, so a caller's other threads go on and the command uses every core.
//! The Python layer (`twinpage/__init__.py`) turns DataFrames into the commands'
//! files and their outputs back into DataFrames; the commands are the binary's own,
//! so a pair gets the same score from Python as from the command line.

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;

/// The binary's allocator, for the binary's speed: parsing pages allocates many small
/// nodes on every core at once (Python's own objects keep Python's allocator).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

create_exception!(
    _native,
    CommandError,
    PyException,
    "A twinpage command failed; the message is the command line's."
);

/// run(args: list[str]) -> None
///
/// Runs `twinpage ARGS...` (without the program name) in this process. Raises
/// CommandError with the command line's message when the command fails.
#[pyfunction]
fn run(py: Python<'_>, args: Vec<String>) -> PyResult<()> {
    py.allow_threads(|| twinpage_cli::run_args(args))
        .map_err(|e| CommandError::new_err(format!("{e:#}")))
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // Ctrl-C in Python (a notebook's interrupt) must raise KeyboardInterrupt, not
    // end the process as the command line does.
    twinpage_render::leave_interrupts_to_host();
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add("CommandError", m.py().get_type::<CommandError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
