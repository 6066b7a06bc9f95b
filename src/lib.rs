//! twinpage decides whether two web documents are duplicates: the same core content
//! behind different navigation, ads, titles, URLs or formats.
//!
//! The data flows one way, one module per idea of the method:
//! [`document`] (pair files, bodies, attributes) → [`signals`] (the tests, the
//! signal vector, on the algorithms of [`distance`]) → [`model`] (a calibrated
//! decision tree, thresholds) → [`pipeline`] (a whole batch of pairs through them,
//! with rendered bodies from [`render`]) → [`review`] (a queue of the undecided
//! pairs, labelled in a web page, and the next model trained with those labels).
//! [`candidates`] finds the pairs worth scoring in a corpus; [`evaluate`] judges
//! models and the classic detectors on labelled pairs; [`util`] holds what every
//! layer shares.

pub mod candidates;
pub mod distance;
pub mod document;
pub mod evaluate;
pub mod model;
pub mod pipeline;
pub mod render;
pub mod review;
pub mod signals;
pub mod util;
