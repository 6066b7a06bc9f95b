//! Pugh's list fingerprints (US 6,658,423): the distinct words of a document are
//! hashed into a few lists, each list is fingerprinted, and two documents are
//! near-duplicates when they share any list fingerprint.
//!
//! An edit (adding or removing every occurrence of one word) changes one list,
//! so with L lists a pair survives up to L - 1 edits if they fall in different
//! lists. The slides suggest running the test several times with other hash
//! functions to trade false positives for recall: `repeats` independent
//! partitions, `lists` lists each. Word order and frequency do not matter.

use anyhow::{bail, Result};

use super::method::{MethodKind, Sharing};
use twinpage_util::hash::mix64;
use twinpage_util::params::Param;

/// Pugh's list fingerprints, one shared.
pub const KIND: MethodKind = MethodKind {
    name: "pugh",
    about:
        "Pugh: distinct words hashed into lists, each list fingerprinted; one shared fingerprint",
    evidence: &["shared_fingerprints"],
    params: &[LISTS, REPEATS],
    build: |values| {
        let params = Params {
            lists: values.get(&LISTS)?,
            repeats: values.get(&REPEATS)?,
        };
        params.check()?;
        let values = move |ids: &[u32]| fingerprints(ids, &params);
        Ok(Box::new(Sharing::new(&KIND, values, 1)))
    },
};

const LISTS: Param = Param {
    name: "pugh-lists",
    value_name: "N",
    help: "pugh: lists per partition",
    default: || Some(Params::default().lists.to_string()),
};

const REPEATS: Param = Param {
    name: "pugh-repeats",
    value_name: "N",
    help: "pugh: independent partitions",
    default: || Some(Params::default().repeats.to_string()),
};

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Params {
    /// Lists per partition.
    pub lists: usize,
    /// Independent partitions (repeats of the test).
    pub repeats: usize,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            lists: 4,
            repeats: 3,
        }
    }
}

impl Params {
    pub fn check(&self) -> Result<()> {
        if self.lists == 0 || self.repeats == 0 {
            bail!("Pugh's test needs at least one list and one repeat");
        }
        Ok(())
    }
}

/// `repeats · lists` fingerprints, by position; 0 for an empty list (never shared).
pub fn fingerprints(ids: &[u32], params: &Params) -> Vec<u64> {
    let mut distinct: Vec<u32> = ids.to_vec();
    distinct.sort_unstable();
    distinct.dedup();
    let mut out = vec![0u64; params.lists * params.repeats];
    for repeat in 0..params.repeats {
        let salt = mix64(0x9e37 + repeat as u64);
        for &id in &distinct {
            let list = (mix64(u64::from(id) ^ salt) % params.lists as u64) as usize;
            let slot = &mut out[repeat * params.lists + list];
            // Words arrive sorted, so the fold is an order-fixed hash of the list.
            *slot = mix64(*slot ^ mix64(u64::from(id)));
        }
    }
    for v in &mut out {
        if *v == 0 {
            continue;
        }
        *v |= 1; // keep a non-empty list distinguishable from an empty one
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::candidates::sharing::agreeing;

    #[test]
    fn one_edit_changes_one_list_per_repeat() {
        let params = Params::default();
        let words: Vec<u32> = (0..200).collect();
        let mut edited = words.clone();
        edited.retain(|&w| w != 17); // remove every occurrence of one word
        let (a, b) = (
            fingerprints(&words, &params),
            fingerprints(&edited, &params),
        );
        assert_eq!(agreeing(&a, &b), params.repeats * (params.lists - 1));
        // Order and frequency do not matter.
        let mut shuffled: Vec<u32> = words.iter().rev().copied().collect();
        shuffled.extend(0..50);
        assert_eq!(fingerprints(&shuffled, &params), a);
    }

    #[test]
    fn unrelated_documents_share_nothing_and_empty_lists_never_match() {
        let params = Params::default();
        let a = fingerprints(&(0..100).collect::<Vec<_>>(), &params);
        let b = fingerprints(&(1000..1100).collect::<Vec<_>>(), &params);
        assert_eq!(agreeing(&a, &b), 0);
        let tiny = fingerprints(&[1], &params);
        let other = fingerprints(&[2], &params);
        assert_eq!(tiny.iter().filter(|&&v| v != 0).count(), params.repeats);
        assert_eq!(agreeing(&tiny, &other), 0);
    }
}
