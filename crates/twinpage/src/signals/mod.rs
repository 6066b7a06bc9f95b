//! Signals: the tests of Table 2, each comparing one attribute of two bodies and
//! giving one number, gathered into the signal vector the model reads.
//!
//! A signal is a name, a one-line meaning and a function of a [`BodyPair`]. The
//! lists in [`distance`], [`simple`], [`query`], [`growth`] (fetched against
//! rendered, per side), [`metadata`], [`record`] (fields of record pages) and
//! [`contrast`] (the words the titles disagree on, for the model to weigh) fix the
//! order of the vector; [`names`] is that order, and a model file records it so that a model is
//! never applied to a vector laid out differently.
//!
//! Missing values (no title, unparseable URL, no metadata) are [`MISSING`] = -1:
//! every real value is ≥ 0, so the tree can send "missing" its own way, and no NaN
//! ever reaches it (linfa-trees aborts on NaN).

pub mod contrast;
pub mod distance;
pub mod growth;
pub mod layout;
pub mod metadata;
pub mod query;
pub mod record;
pub mod rendered;
pub mod signal;
pub mod simple;
#[cfg(test)]
pub(crate) mod testing;
pub mod vector;

pub use layout::{Layout, FETCHED, RENDERED};
pub use query::Query;
pub use signal::{BodyPair, Signal, MISSING};
pub use vector::{described, names, vector, PairBodies};
