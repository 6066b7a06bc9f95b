//! Henzinger's combined method: Broder first, Charikar second.
//!
//! Supershingles find candidates cheaply but coarsely (2 of 6 groups agree); a
//! Charikar fingerprint can be tuned much finer, so each Broder pair is kept only
//! when its 384-bit fingerprints agree in at least 372 bits (the patent's
//! figures; about 97 %). The patent reports higher precision than either method
//! alone. For recall, the pairs of a strict 64-bit Charikar set (Hamming distance
//! at most `union_hamming`, found by permuted tables) can be joined in.

use std::collections::BTreeMap;

use anyhow::{bail, Result};

use super::sketch::Sketch;
use super::{minhash, simhash, Candidate};
use crate::distance::hamming;

/// Evidence columns of a combined pair.
pub const EVIDENCE: [&str; 4] = [
    "shared_supershingles",
    "charikar_agreeing_bits",
    "hamming",
    "found_by",
];

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Params {
    pub broder: minhash::Params,
    /// Width of the confirming Charikar fingerprint, in 64-bit words (6 = 384 bits).
    pub charikar_words: usize,
    /// Agreeing bits the confirmation needs.
    pub min_agreeing: u32,
    /// Also keep every pair within this 64-bit Hamming distance (the recall union).
    pub union_hamming: Option<u32>,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            broder: minhash::Params::default(),
            charikar_words: 6,
            min_agreeing: 372,
            union_hamming: None,
        }
    }
}

impl Params {
    pub fn check(&self) -> Result<()> {
        self.broder.check()?;
        let bits = 64 * self.charikar_words as u32;
        if self.charikar_words == 0 || self.min_agreeing > bits {
            bail!(
                "{} agreeing bits asked of a {bits}-bit fingerprint",
                self.min_agreeing
            );
        }
        if let Some(k) = self.union_hamming {
            simhash::Layout::new(k)?;
        }
        Ok(())
    }
}

/// Which part of the method found a pair.
fn found_by(broder: bool, union: bool) -> &'static str {
    match (broder, union) {
        (true, true) => "both",
        (true, false) => "broder+charikar",
        _ => "charikar",
    }
}

fn evidence(a: &Sketch, b: &Sketch, broder: bool, union: bool) -> Vec<String> {
    vec![
        minhash::shared(&a.supershingles, &b.supershingles).to_string(),
        simhash::agreeing_bits(&a.wide, &b.wide).to_string(),
        hamming(a.simhash, b.simhash).to_string(),
        found_by(broder, union).to_string(),
    ]
}

fn confirmed(a: &Sketch, b: &Sketch, params: &Params) -> bool {
    minhash::shared(&a.supershingles, &b.supershingles) >= params.broder.min_shared
        && simhash::agreeing_bits(&a.wide, &b.wide) >= params.min_agreeing
}

fn in_union(a: &Sketch, b: &Sketch, params: &Params) -> bool {
    params
        .union_hamming
        .is_some_and(|k| hamming(a.simhash, b.simhash) <= k)
}

/// The method on one pair.
pub fn judge(a: &Sketch, b: &Sketch, params: &Params) -> Option<Vec<String>> {
    let (broder, union) = (confirmed(a, b, params), in_union(a, b, params));
    (broder || union).then(|| evidence(a, b, broder, union))
}

/// Every pair the method finds among `sketches`, sorted.
pub fn pairs(sketches: &[Sketch], params: &Params) -> Result<Vec<Candidate>> {
    let vectors: Vec<Vec<u64>> = sketches
        .iter()
        .map(|s| {
            if s.words > 0 {
                s.supershingles.clone()
            } else {
                Vec::new()
            }
        })
        .collect();
    let mut found: BTreeMap<(u32, u32), (bool, bool)> =
        super::pairs_sharing(&vectors, params.broder.min_shared)
            .into_iter()
            .filter(|&(a, b, _)| confirmed(&sketches[a as usize], &sketches[b as usize], params))
            .map(|(a, b, _)| ((a, b), (true, false)))
            .collect();
    if let Some(k) = params.union_hamming {
        for (a, b, _) in super::sketch::simhash_pairs(sketches, &simhash::Layout::new(k)?) {
            found.entry((a, b)).or_insert((false, false)).1 = true;
        }
    }
    Ok(found
        .into_iter()
        .map(|((a, b), (broder, union))| Candidate {
            a,
            b,
            evidence: evidence(&sketches[a as usize], &sketches[b as usize], broder, union),
        })
        .collect())
}
