//! `twinpage report`: one self-contained HTML file that shows how one or two
//! models do on labelled pairs: curves with the thresholds marked, reliability,
//! the trade-off behind the precision target, confusion and per-group tables
//! with errors highlighted, what the model looks at, the classic detectors on
//! the same pairs, and the worst mistakes with the command that explains each.
//!
//! Everything is inline (SVG drawn by `charts.rs`, CSS); the page runs no script
//! and loads nothing, and says so in its Content-Security-Policy.

//!
//! This file is only the crate's face: `page.rs` lays the page out, `charts.rs`
//! draws its plots, `run.rs` lays out the page of a `dedupe` run.

pub mod charts;
mod page;
mod run;

pub use page::{html, ModelReport, Report};
pub use run::run_page;
