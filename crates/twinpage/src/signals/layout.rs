//! Which bodies a signal vector covers, and the prefixes of their signal names.

/// Prefix of the signals computed on the fetched body.
pub const FETCHED: &str = "fetched.";
/// Prefix of the signals computed on the rendered (synthetic) body.
pub const RENDERED: &str = "rendered.";

/// Which bodies a signal vector covers. A model is trained on one layout and
/// refuses vectors of the other.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// Fetched-body signals only (`--no-render`).
    Fetched,
    /// Fetched-body signals, then rendered-body signals.
    FetchedAndRendered,
}

impl Layout {
    /// The layout a list of signal names was made with.
    pub fn of(names: &[String]) -> Layout {
        if names.iter().any(|n| n.starts_with(RENDERED)) {
            Layout::FetchedAndRendered
        } else {
            Layout::Fetched
        }
    }

    pub fn describe(self) -> &'static str {
        match self {
            Layout::Fetched => "fetched-body signals only",
            Layout::FetchedAndRendered => "fetched- and rendered-body signals",
        }
    }
}
