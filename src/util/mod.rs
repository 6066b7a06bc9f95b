//! Small tools every layer uses: stable hashes, disjoint sets, files written
//! whole or not at all, progress on a terminal, and declared parameters. Nothing here knows what a
//! document, a signal or a model is.

pub mod hash;
pub mod output;
pub mod params;
pub mod progress;
pub mod union_find;

pub use output::write_atomically;
pub use progress::Progress;
pub use union_find::UnionFind;
