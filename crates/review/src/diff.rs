//! The core-content texts of a pair with their differences marked, word by word.

use std::time::Duration;

use serde::Serialize;
use similar::{ChangeTag, TextDiff};

/// Longest text compared, in bytes: a diff is quadratic at worst, and a reviewer
/// reads the start of a page, not 4 MB of it.
const MAX_TEXT: usize = 100_000;

/// A run of words that both texts share, or that only one of them has.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Segment {
    /// `same`, `a` (only in A) or `b` (only in B).
    pub side: &'static str,
    pub text: String,
}

/// Word-level differences between `a` and `b`, adjacent words of one side merged.
pub fn word_diff(a: &str, b: &str) -> Vec<Segment> {
    let (a, b) = (cut(a), cut(b));
    let diff = TextDiff::configure()
        .timeout(Duration::from_secs(2))
        .diff_words(a, b);
    let mut segments: Vec<Segment> = Vec::new();
    for change in diff.iter_all_changes() {
        let side = match change.tag() {
            ChangeTag::Equal => "same",
            ChangeTag::Delete => "a",
            ChangeTag::Insert => "b",
        };
        match segments.last_mut() {
            Some(last) if last.side == side => last.text.push_str(change.value()),
            _ => segments.push(Segment {
                side,
                text: change.value().to_string(),
            }),
        }
    }
    segments
}

/// `text` cut at [`MAX_TEXT`] on a character boundary.
fn cut(text: &str) -> &str {
    if text.len() <= MAX_TEXT {
        return text;
    }
    let mut end = MAX_TEXT;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_what_each_side_alone_has() {
        let segments = word_diff("the cat sat on the mat", "the cat lay on the mat today");
        let only = |side| -> String {
            segments
                .iter()
                .filter(|s| s.side == side)
                .map(|s| s.text.trim())
                .collect::<Vec<_>>()
                .join("|")
        };
        assert_eq!(only("a"), "sat");
        assert_eq!(only("b"), "lay|today");
        let rebuilt_a: String = segments
            .iter()
            .filter(|s| s.side != "b")
            .map(|s| s.text.as_str())
            .collect();
        assert_eq!(rebuilt_a, "the cat sat on the mat");
    }

    #[test]
    fn long_texts_are_cut_on_a_character_boundary() {
        let long = "é".repeat(MAX_TEXT);
        assert!(cut(&long).len() <= MAX_TEXT);
        assert!(!word_diff(&long, "x").is_empty());
    }
}
