//! Documents: pair files (read and written), bodies read and decoded, and the
//! attributes of a body (Table 1 of the seed) that every test compares.
//!
//! Nothing here knows about signals, models or browsers: a body goes in, its
//! attributes come out, from one parse.

// `css!` is used by the modules declared after it.
#[macro_use]
mod css;

pub mod attributes;
mod core_content;
pub mod decode;
pub mod idf;
pub mod pairs;
pub mod record;
pub mod rows;
pub mod text;
pub mod url;
pub mod wall;

pub use attributes::{Document, SCRAP_CORE_WORDS};
pub use idf::IdfTable;
pub use pairs::{Pair, PairFile};
pub use rows::Skipped;
pub use wall::Wall;
