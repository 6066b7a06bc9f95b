//! Small tools every layer uses: stable hashes, disjoint sets, files written
//! whole or not at all, progress on a terminal, declared parameters, and a body's
//! bytes read bounded. Nothing here knows what a document, a signal or a model is;
//! it is its own crate because the renderer, below the core, needs it too.

pub mod body;
pub mod choice;
pub mod hash;
pub mod output;
pub mod params;
pub mod process;
pub mod progress;
pub mod union_find;

pub use choice::Choice;
pub use output::{write_atomically, written_beside, Written};
pub use process::process_is_gone;
pub use progress::Progress;
pub use union_find::UnionFind;
