//! The pipeline: a batch of pair files through the stages of the method, on
//! all cores. Documents are read and parsed once ([`documents`]), their rendered
//! bodies supplied from the pair file, the render cache or Chromium, then each
//! pair is screened, turned into its signal vector and scored ([`score`](mod@score)), and
//! the decisions written beside the input columns ([`scored`]).
//!
//! The commands, the review queue and the benchmarks all go through here, so
//! that a pair gets the same vector and the same decision whichever runs it.

pub mod batch;
pub mod cascade;
pub mod documents;
pub mod labelled;
pub mod schedule;
pub mod score;
pub mod scored;

pub use batch::Batch;
pub use cascade::{rendered_stage_decides, score_cascade, CascadeReport, FetchedEvidence};
pub use documents::{render_requests, DocumentSet};
pub use labelled::{
    guarded_by, labelled_by, labelled_pairs, labelled_with_bodies, staged_by, StageGuards, Staged,
};
pub use score::{
    outcome, score, screened, vectors, vectors_in, Guarded, Guards, Outcome, DECIDED_MODEL,
    SCREEN_IDENTICAL,
};
