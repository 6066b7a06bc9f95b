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
//! - [`review`]: the undecided pairs queued for people, and the next model;
//! - [`evaluate`]: models and the classic detectors judged on labelled pairs;
//! - [`report`]: those judgements drawn into one self-contained HTML page.
//!
//! Scoring the shipped example pairs with the shipped fetched-only model:
//!
//! ```
//! use twinpage::model::Model;
//! use twinpage::pipeline::{self, Batch};
//!
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
pub mod distance;
pub mod document;
pub mod evaluate;
pub mod model;
pub mod pipeline;
pub mod render;
pub mod report;
pub mod review;
pub mod signals;
pub mod util;
