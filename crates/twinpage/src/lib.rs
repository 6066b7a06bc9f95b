//! twinpage decides whether two web documents are duplicates: the same core content
//! behind different navigation, ads, titles, URLs or formats.
//!
//! The data flows one way, one module per idea of the method, each using only
//! those before it:
//!
//! - [`util`]: stable hashes, union-find, atomic output, progress, declared parameters;
//! - [`distance`]: the distance algorithms (edit, substring, sets, compression);
//! - [`document`]: pair files (read and written), bodies, the attributes of a body;
//! - [`signals`]: the tests of the method and the signal vector they make;
//! - [`render`]: the rendered (synthetic) body, from a real headless Chromium;
//! - [`candidates`]: the pairs worth scoring in a whole corpus (simhash, minhash, …);
//! - [`model`]: an estimator over the vector, its calibrated confidence, the decision;
//! - [`pipeline`]: a batch of pair files through all of it, on every core;
//! - [`evaluate`]: models and the classic detectors judged on labelled pairs;
//! - [`dedupe`]: from a crawl to its duplicates: candidates, scores, clusters that
//!   do not chain, the page to keep.
//!
//! Above it, in crates of their own: `twinpage-review` (the undecided pairs queued
//! for people, and the next model), `twinpage-report` (judgements drawn into one
//! self-contained HTML page) and the `twinpage` command.
//!
//! Scoring the shipped example pairs with the shipped fetched-only model:
//!
//! ```
//! use twinpage::model::Model;
//! use twinpage::pipeline::{self, Batch};
//!
//! # std::env::set_current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))?;
//! let model = Model::load("models/fetched-only.json".as_ref())?;
//! // No render settings: fetched bodies only, as this model was trained.
//! let batch = Batch::load(&["examples/pairs.csv".into()], None)?;
//! let outcomes = pipeline::score(&batch, &model);
//! for (pair, outcome) in batch.pairs().zip(&outcomes) {
//!     let outcome = outcome.as_ref().expect("the example documents are readable");
//!     println!(
//!         "{}: {} (p_duplicate {:.2})",
//!         pair.location(),
//!         outcome.decision.as_str(),
//!         outcome.p_duplicate
//!     );
//! }
//! assert_eq!(outcomes.len(), 17);
//! # Ok::<(), anyhow::Error>(())
//! ```

pub mod candidates;
pub mod dedupe;
pub mod distance;
pub mod document;
pub mod evaluate;
pub mod model;
pub mod pipeline;
pub mod signals;

/// The renderer is a crate of its own, below this one (it knows no document, only
/// pages to serve Chromium); re-exported so a user of the core needs one dependency.
pub use twinpage_render as render;
/// Tools every layer uses, shared with the renderer.
pub use twinpage_util as util;
