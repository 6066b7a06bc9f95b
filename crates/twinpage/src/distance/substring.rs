//! The longest common substring of two token sequences, by a suffix automaton.

use std::collections::hash_map::{Entry, HashMap};

use super::tokens::shorter_first;

/// Length in tokens of the longest common substring (contiguous run of tokens).
///
/// A suffix automaton of the shorter sequence, walked by the longer one: O(n + m) time
/// and O(min(n, m)) memory. Sequences must be shorter than 2^31 tokens.
pub fn longest_common_substring(a: &[u32], b: &[u32]) -> usize {
    let (short, long) = shorter_first(a, b);
    SuffixAutomaton::new(short).longest_match(long)
}

/// Suffix automaton over `u32` tokens: the smallest automaton accepting every substring
/// of a text, at most 2n states and 3n transitions, built online (Blumer et al. 1985).
///
/// Tokens are arbitrary hashes, so states cannot hold arrays indexed by token: all
/// transitions live in one hash map keyed by (state, token). Cloning a state copies its
/// transitions, which the map cannot list, so each state also keeps its outgoing tokens.
struct SuffixAutomaton {
    /// Length of the longest substring that ends in each state.
    len: Vec<usize>,
    /// Suffix link of each state; the root's is `NO_STATE`.
    link: Vec<usize>,
    /// Outgoing tokens of each state; the targets are in `next`.
    tokens: Vec<Vec<u32>>,
    next: HashMap<u64, usize>,
    /// State of the whole text read so far.
    last: usize,
}

const ROOT: usize = 0;
const NO_STATE: usize = usize::MAX;

impl SuffixAutomaton {
    fn new(text: &[u32]) -> Self {
        let states = 2 * text.len() + 1;
        let mut automaton = Self {
            len: Vec::with_capacity(states),
            link: Vec::with_capacity(states),
            tokens: Vec::with_capacity(states),
            next: HashMap::with_capacity(2 * text.len()),
            last: ROOT,
        };
        automaton.add_state(0, NO_STATE);
        for &token in text {
            automaton.extend(token);
        }
        automaton
    }

    fn add_state(&mut self, len: usize, link: usize) -> usize {
        self.len.push(len);
        self.link.push(link);
        self.tokens.push(Vec::new());
        self.len.len() - 1
    }

    /// Appends one token to the text.
    fn extend(&mut self, token: u32) {
        let cur = self.add_state(self.len[self.last] + 1, ROOT);
        // Each suffix of the old text without a `token` transition gets one to `cur`. The
        // first suffix that already has one ends the walk, and its target (split if it
        // also holds longer substrings) is `cur`'s suffix link; without one, the root is.
        let mut p = self.last;
        while p != NO_STATE {
            match self.next.entry(key(p, token)) {
                Entry::Occupied(target) => {
                    let q = *target.get();
                    self.link[cur] = if self.len[p] + 1 == self.len[q] {
                        q
                    } else {
                        self.split(p, q, token)
                    };
                    break;
                }
                Entry::Vacant(target) => {
                    target.insert(cur);
                    self.tokens[p].push(token);
                }
            }
            p = self.link[p];
        }
        self.last = cur;
    }

    /// `q` also holds substrings longer than `len[p] + 1`: moves the shorter ones, which
    /// `p` and its suffixes reach through `token`, into a clone of `q`, and returns it.
    fn split(&mut self, mut p: usize, q: usize, token: u32) -> usize {
        let clone = self.add_state(self.len[p] + 1, self.link[q]);
        let tokens = self.tokens[q].clone();
        for &t in &tokens {
            let target = self.next[&key(q, t)];
            self.next.insert(key(clone, t), target);
        }
        self.tokens[clone] = tokens;
        while p != NO_STATE {
            match self.next.get_mut(&key(p, token)) {
                Some(target) if *target == q => *target = clone,
                _ => break,
            }
            p = self.link[p];
        }
        self.link[q] = clone;
        clone
    }

    /// Longest substring of the automaton's text that also occurs in `other`. Walks
    /// `other`, keeping the longest suffix of what was read that is still a substring;
    /// when the next token cannot extend it, shortens it along suffix links.
    fn longest_match(&self, other: &[u32]) -> usize {
        let (mut state, mut matched, mut best) = (ROOT, 0, 0);
        for &token in other {
            loop {
                if let Some(&target) = self.next.get(&key(state, token)) {
                    state = target;
                    matched += 1;
                    break;
                }
                if state == ROOT {
                    matched = 0;
                    break;
                }
                state = self.link[state];
                matched = self.len[state];
            }
            best = best.max(matched);
        }
        best
    }
}

/// Packs (state, token) into one map key; states stay below 2^32 for texts shorter than
/// 2^31 tokens.
fn key(state: usize, token: u32) -> u64 {
    ((state as u64) << 32) | u64::from(token)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::distance::testing::Lcg;

    /// Textbook O(n·m) longest common substring: longest common suffix of every prefix
    /// pair.
    fn naive_longest_common_substring(a: &[u32], b: &[u32]) -> usize {
        let mut best = 0;
        let mut prev = vec![0; b.len() + 1];
        for x in a {
            let mut cur = vec![0; b.len() + 1];
            for (j, y) in b.iter().enumerate() {
                if x == y {
                    cur[j + 1] = prev[j] + 1;
                    best = best.max(cur[j + 1]);
                }
            }
            prev = cur;
        }
        best
    }

    #[test]
    fn longest_common_substring_small_cases() {
        assert_eq!(longest_common_substring(&[], &[]), 0);
        assert_eq!(longest_common_substring(&[1, 2], &[]), 0);
        assert_eq!(longest_common_substring(&[1, 2], &[3, 4]), 0);
        assert_eq!(longest_common_substring(&[5], &[5]), 1);
        // 1234 and 92347 share 234.
        assert_eq!(longest_common_substring(&[1, 2, 3, 4], &[9, 2, 3, 4, 7]), 3);
        // 12121 and 21213 share 2121 (a clone state is needed to find it).
        assert_eq!(
            longest_common_substring(&[1, 2, 1, 2, 1], &[2, 1, 2, 1, 3]),
            4
        );
        // 1112 and 1111: the run 111.
        assert_eq!(longest_common_substring(&[1, 1, 1, 2], &[1, 1, 1, 1]), 3);
        // Symmetric: the automaton is built on the shorter input either way.
        assert_eq!(
            longest_common_substring(&[9, 2, 3, 4, 7, 8], &[1, 2, 3, 4]),
            3
        );
    }

    #[test]
    fn longest_common_substring_matches_brute_force() {
        let mut rng = Lcg(3);
        for _ in 0..2000 {
            let alphabet = 1 + rng.below(4);
            let a = rng.sequence(40, alphabet);
            let b = rng.sequence(40, alphabet);
            let expected = naive_longest_common_substring(&a, &b);
            assert_eq!(longest_common_substring(&a, &b), expected, "{a:?} {b:?}");
        }
    }
}
