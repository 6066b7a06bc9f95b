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

use super::candidate::Candidate;
use super::method::{Method, MethodKind, Sketch};
use super::sharing::{agreeing, pairs_sharing};
use super::{minhash, simhash};
use crate::distance::hamming;
use twinpage_util::params::Param;

/// Broder's pairs confirmed by a wide Charikar fingerprint.
pub const KIND: MethodKind = MethodKind {
    name: "combined",
    about: "Henzinger: minhash pairs confirmed by a 384-bit Charikar fingerprint, optionally \
            joined with the pairs within a 64-bit Hamming distance",
    evidence: &[
        "shared_supershingles",
        "charikar_agreeing_bits",
        "hamming",
        "found_by",
    ],
    params: &[
        minhash::BRODER[0],
        minhash::BRODER[1],
        minhash::BRODER[2],
        minhash::BRODER[3],
        MIN_AGREEING,
        UNION_HAMMING,
    ],
    build: |values| {
        let params = Params {
            broder: minhash::Params::from_values(values)?,
            min_agreeing: values.get(&MIN_AGREEING)?,
            union_hamming: values.optional(&UNION_HAMMING)?,
            ..Params::default()
        };
        Ok(Box::new(Combined::new(params)?))
    },
};

const MIN_AGREEING: Param = Param {
    name: "min-agreeing",
    value_name: "BITS",
    help: "combined: agreeing bits of the 384-bit Charikar fingerprints that confirm a Broder pair",
    default: || Some(Params::default().min_agreeing.to_string()),
};

const UNION_HAMMING: Param = Param {
    name: "union-hamming",
    value_name: "K",
    help: "combined: also keep every pair within this 64-bit Hamming distance (recall union)",
    default: || None,
};

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

/// The combined method with its parameters.
pub struct Combined {
    params: Params,
    /// The tables of the recall union, if asked for.
    union: Option<simhash::Layout>,
}

impl Combined {
    pub fn new(params: Params) -> Result<Combined> {
        params.broder.check()?;
        let bits = 64 * params.charikar_words as u32;
        if params.charikar_words == 0 || params.min_agreeing > bits {
            bail!(
                "{} agreeing bits asked of a {bits}-bit fingerprint",
                params.min_agreeing
            );
        }
        let union = params.union_hamming.map(simhash::Layout::new).transpose()?;
        Ok(Combined { params, union })
    }

    /// A sketch's supershingles and wide fingerprint.
    fn parts<'s>(&self, sketch: &'s Sketch) -> (&'s [u64], &'s [u64]) {
        let split = self.params.broder.supershingles.min(sketch.values.len());
        sketch.values.split_at(split)
    }

    fn confirmed(&self, a: &Sketch, b: &Sketch) -> bool {
        let ((shingles_a, wide_a), (shingles_b, wide_b)) = (self.parts(a), self.parts(b));
        agreeing(shingles_a, shingles_b) >= self.params.broder.min_shared
            && simhash::agreeing_bits(wide_a, wide_b) >= self.params.min_agreeing
    }

    fn in_union(&self, a: &Sketch, b: &Sketch) -> bool {
        self.union
            .as_ref()
            .is_some_and(|layout| hamming(a.simhash, b.simhash) <= layout.hamming)
    }

    fn evidence(&self, a: &Sketch, b: &Sketch, broder: bool, union: bool) -> Vec<String> {
        let ((shingles_a, wide_a), (shingles_b, wide_b)) = (self.parts(a), self.parts(b));
        let found_by = match (broder, union) {
            (true, true) => "both",
            (true, false) => "broder+charikar",
            _ => "charikar",
        };
        vec![
            agreeing(shingles_a, shingles_b).to_string(),
            simhash::agreeing_bits(wide_a, wide_b).to_string(),
            hamming(a.simhash, b.simhash).to_string(),
            found_by.to_string(),
        ]
    }
}

impl Method for Combined {
    fn kind(&self) -> &'static MethodKind {
        &KIND
    }

    fn sketch(&self, ids: &[u32]) -> Sketch {
        if ids.is_empty() {
            return Sketch::new(ids, Vec::new());
        }
        let mut values = minhash::supershingles(ids, &self.params.broder);
        values.extend(simhash::wide(ids, self.params.charikar_words));
        Sketch::new(ids, values)
    }

    fn judge(&self, a: &Sketch, b: &Sketch) -> Option<Vec<String>> {
        let (broder, union) = (self.confirmed(a, b), self.in_union(a, b));
        (broder || union).then(|| self.evidence(a, b, broder, union))
    }

    fn pairs(&self, sketches: &[Sketch]) -> Result<Vec<Candidate>> {
        let shingles: Vec<Vec<u64>> = sketches
            .iter()
            .map(|s| {
                if s.words > 0 {
                    self.parts(s).0.to_vec()
                } else {
                    Vec::new()
                }
            })
            .collect();
        let mut found: BTreeMap<(u32, u32), (bool, bool)> =
            pairs_sharing(&shingles, self.params.broder.min_shared)
                .into_iter()
                .filter(|&(a, b, _)| self.confirmed(&sketches[a as usize], &sketches[b as usize]))
                .map(|(a, b, _)| ((a, b), (true, false)))
                .collect();
        if let Some(layout) = &self.union {
            for (a, b, _) in simhash::sketch_pairs(sketches, layout, |s| s.simhash) {
                found.entry((a, b)).or_insert((false, false)).1 = true;
            }
        }
        Ok(found
            .into_iter()
            .map(|((a, b), (broder, union))| Candidate {
                a,
                b,
                evidence: self.evidence(
                    &sketches[a as usize],
                    &sketches[b as usize],
                    broder,
                    union,
                ),
            })
            .collect())
    }
}
