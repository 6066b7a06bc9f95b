//! twinpage decides whether two web documents are duplicates: the same core content
//! behind different navigation, ads, titles, URLs or formats.
//!
//! The data flows one way, one module per idea of the method:
//! [`document`] (pair files, bodies, attributes) → [`signals`] (the tests, the
//! signal vector) → [`model`] (a calibrated decision tree, thresholds) → decisions
//! ([`batch`] runs a whole pair file through them) → [`review`] (a queue of the
//! undecided pairs, labelled in a web page) → [`retrain`] (the next model, with
//! the reviewers' labels). [`cli`] is the thin command layer.

pub mod batch;
pub mod candidates;
pub mod cli;
pub mod distance;
pub mod document;
pub mod model;
pub mod render;
pub mod retrain;
pub mod review;
pub mod signals;
pub mod util;
