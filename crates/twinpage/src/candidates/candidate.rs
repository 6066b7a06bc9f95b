//! A candidate pair: what every method's search returns.

/// A candidate pair: two document numbers (`a < b`) and what the method saw.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Candidate {
    pub a: u32,
    pub b: u32,
    /// Values of the method's evidence columns, in
    /// [`MethodKind::evidence`](super::method::MethodKind::evidence) order; none
    /// for a pair its records alone found ([`record_pairs`](super::records::record_pairs)).
    pub evidence: Vec<String>,
}
