//! The model: an estimator over the signal vector, the calibrated confidence of
//! each of its cells, the two thresholds of the decision policy, and the file
//! that keeps them.
//!
//! [`estimator`] is the seam where kinds of estimator plug in ([`tree`] is the
//! first); [`calibration`] turns any estimator's cells into a confidence;
//! [`decision`] turns a confidence into a decision; [`train`] fits all three on
//! labelled pairs split by group, after [`contrast`] has learned what the titles'
//! differing words say; [`metrics`] measures them; [`reader`] is the seam where a
//! second judge of record pairs (a fine-tuned transformer) joins the forest. A model file records
//! the signal names in vector order, and loading one whose names differ from the
//! running code's is an error, because a model applied to a vector laid out
//! differently gives confident nonsense.

pub mod calibration;
pub mod contrast;
pub mod decision;
pub mod estimator;
pub mod explanation;
mod file;
pub mod forest;
pub mod kinds;
pub mod metrics;
#[allow(clippy::module_inception)]
mod model;
pub mod reader;
pub mod shift;
pub mod train;
pub mod tree;

pub use calibration::Calibration;
pub use contrast::Contrast;
pub use decision::{
    Decision, DecisionPolicy, Judgement, Thresholds, EVEN_CUT, MIN_DUPLICATE_CONFIDENCE,
};
pub use estimator::{Committee, Contributions, Estimator, Learner};
pub use explanation::{ExplainedPath, ExplainedStep, Explanation, ScoreParts, SignalPart};
pub use forest::ForestParams;
pub use kinds::{estimator_named, KINDS};
pub use metrics::{Confusion, Metrics};
pub use model::{Model, SignalImportance, TrainingInfo, FORMAT};
pub use reader::{PairReader, ReaderEntry};
pub use shift::{Missing, Shift};
pub use train::LabelledPairs;
pub use tree::TreeParams;
