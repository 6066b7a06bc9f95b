//! The seam for another candidate method: what a method does, and the methods
//! there are.
//!
//! A [`Method`] reduces a document's words to a small [`Sketch`], says whether
//! two sketches make a candidate pair ([`Method::judge`], the definition), and
//! finds every such pair of a corpus without comparing all pairs
//! ([`Method::pairs`], the search, which must return exactly what `judge`
//! accepts). A new method is one new file that implements it and declares a
//! [`MethodKind`], plus its line in [`METHODS`]; its parameters become
//! flags of `candidates`, `baseline` and the rest by themselves.

use anyhow::{bail, Result};
use rayon::prelude::*;

use super::candidate::Candidate;
use super::sharing::{agreeing, sharing};
use super::{combined, lsh, minhash, pugh, simhash};
use crate::document::text;
use twinpage_util::params::{Param, ParamValues};

/// Every candidate method, the default first: a new method is one line here.
pub const METHODS: &[MethodKind] = &[
    lsh::KIND,
    simhash::KIND,
    minhash::KIND,
    combined::KIND,
    pugh::KIND,
];

/// The method called `name`.
pub fn method_named(name: &str) -> Result<&'static MethodKind> {
    match METHODS.iter().find(|m| m.name == name) {
        Some(kind) => Ok(kind),
        None => {
            let known: Vec<&str> = METHODS.iter().map(|m| m.name).collect();
            bail!("no candidate method `{name}` (known: {})", known.join(", "))
        }
    }
}

/// What a method keeps of a document: a few numbers, never its text.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Sketch {
    /// Words of the text; 0 means the document takes part in no pair.
    pub words: u32,
    /// The 64-bit Charikar fingerprint, which every sketch carries (the index
    /// stores it whatever method found the pairs).
    pub simhash: u64,
    /// The method's own values (supershingles, list fingerprints, …).
    pub values: Vec<u64>,
}

impl Sketch {
    /// The sketch of a word sequence with the method's `values`.
    pub fn new(ids: &[u32], values: Vec<u64>) -> Sketch {
        Sketch {
            words: ids.len().min(u32::MAX as usize) as u32,
            simhash: text::simhash(ids),
            values,
        }
    }
}

/// A candidate generator with its parameters set.
pub trait Method: Send + Sync {
    /// The kind it is: its name and evidence columns.
    fn kind(&self) -> &'static MethodKind;
    /// What the method keeps of a document's word ids.
    fn sketch(&self, ids: &[u32]) -> Sketch;
    /// Whether two documents with words are a candidate pair, and the evidence.
    fn judge(&self, a: &Sketch, b: &Sketch) -> Option<Vec<String>>;
    /// Every candidate pair among `sketches` (document number = position; those
    /// without words take part in none), sorted: exactly the pairs `judge` accepts.
    fn pairs(&self, sketches: &[Sketch]) -> Result<Vec<Candidate>>;
    /// The pairs of [`Method::pairs`] as streams to be drained at once on many
    /// threads, each pair in one stream, in no order: a caller that keeps only some
    /// of them never holds them all (n near-copies make n(n-1)/2 pairs). By default
    /// one stream of [`Method::pairs`].
    fn pair_streams<'s>(&'s self, sketches: &'s [Sketch]) -> Result<Vec<PairStream<'s>>> {
        Ok(vec![Box::new(self.pairs(sketches)?.into_iter())])
    }
    /// How alike a pair's evidence says its documents are, higher for closer: by
    /// default its first evidence value (a Jaccard estimate, shared values).
    fn closeness(&self, evidence: &[String]) -> f64 {
        let first = evidence.first().and_then(|v| v.parse().ok());
        first.unwrap_or(f64::NEG_INFINITY)
    }
}

/// Candidate pairs as a search makes them (see [`Method::pair_streams`]).
pub type PairStream<'s> = Box<dyn Iterator<Item = Candidate> + Send + 's>;

/// Every pair of `streams`, sorted, drained on all cores.
pub fn drain_sorted(streams: Vec<PairStream<'_>>) -> Vec<Candidate> {
    let mut pairs: Vec<Candidate> = streams.into_par_iter().flat_map_iter(|s| s).collect();
    pairs.par_sort_unstable();
    pairs
}

/// A method as the command line offers it.
pub struct MethodKind {
    pub name: &'static str,
    /// What it is, for `--help`.
    pub about: &'static str,
    /// The columns of evidence each pair carries.
    pub evidence: &'static [&'static str],
    pub params: &'static [Param],
    /// The method with the values given (defaults for the rest), checked.
    pub build: fn(&ParamValues) -> Result<Box<dyn Method>>,
}

/// A method whose documents are candidates when their sketch values agree in at
/// least `min_shared` positions: Broder's supershingles, Pugh's list fingerprints.
pub struct Sharing<F> {
    kind: &'static MethodKind,
    /// The sketch values of a document's word ids.
    values: F,
    min_shared: usize,
}

impl<F: Fn(&[u32]) -> Vec<u64> + Send + Sync> Sharing<F> {
    pub fn new(kind: &'static MethodKind, values: F, min_shared: usize) -> Sharing<F> {
        Sharing {
            kind,
            values,
            min_shared,
        }
    }
}

impl<F: Fn(&[u32]) -> Vec<u64> + Send + Sync> Method for Sharing<F> {
    fn kind(&self) -> &'static MethodKind {
        self.kind
    }

    fn sketch(&self, ids: &[u32]) -> Sketch {
        Sketch::new(ids, (self.values)(ids))
    }

    fn judge(&self, a: &Sketch, b: &Sketch) -> Option<Vec<String>> {
        let n = agreeing(&a.values, &b.values);
        (n >= self.min_shared).then(|| vec![n.to_string()])
    }

    fn pairs(&self, sketches: &[Sketch]) -> Result<Vec<Candidate>> {
        Ok(sharing(sketches, self.min_shared))
    }
}

/// Whether `a` and `b` are a candidate pair by `method`: the definition the
/// search reproduces, and the method as a stand-alone detector.
pub fn judge(method: &dyn Method, a: &Sketch, b: &Sketch) -> Option<Vec<String>> {
    if a.words == 0 || b.words == 0 {
        return None;
    }
    method.judge(a, b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// Word sequences: some random, some copies with a few words changed.
    fn texts(seed: u64) -> Vec<Vec<u32>> {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let mut out: Vec<Vec<u32>> = (0..60)
            .map(|_| {
                (0..rng.random_range(20..120))
                    .map(|_| rng.random_range(0..400))
                    .collect()
            })
            .collect();
        for i in 0..40 {
            let mut copy = out[i].clone();
            for _ in 0..rng.random_range(0..4) {
                let at = rng.random_range(0..copy.len());
                copy[at] = rng.random_range(0..400);
            }
            out.push(copy);
        }
        out.push(Vec::new());
        out
    }

    /// Every registered method, with its defaults and with a few values changed.
    fn methods() -> Vec<Box<dyn Method>> {
        let with = |name: &str, values: &[(&str, &str)]| {
            let mut given = ParamValues::default();
            for (param, value) in values {
                given.set(param, *value);
            }
            (method_named(name).unwrap().build)(&given).unwrap()
        };
        let mut out: Vec<Box<dyn Method>> = METHODS.iter().map(|m| with(m.name, &[])).collect();
        out.push(with("simhash", &[("hamming", "6")]));
        out.push(with("combined", &[("union-hamming", "4")]));
        out
    }

    #[test]
    fn every_method_finds_exactly_the_pairs_its_judge_accepts() {
        for method in methods() {
            let sketches: Vec<Sketch> = texts(3).iter().map(|t| method.sketch(t)).collect();
            let found = method.pairs(&sketches).unwrap();
            let mut brute = Vec::new();
            for a in 0..sketches.len() {
                for b in a + 1..sketches.len() {
                    if let Some(evidence) = judge(method.as_ref(), &sketches[a], &sketches[b]) {
                        let (a, b) = (a as u32, b as u32);
                        brute.push(Candidate { a, b, evidence });
                    }
                }
            }
            assert_eq!(found, brute, "{}", method.kind().name);
            assert!(
                !found.is_empty(),
                "{} found nothing to compare",
                method.kind().name
            );
            for pair in &found {
                assert_eq!(pair.evidence.len(), method.kind().evidence.len());
            }
        }
    }

    #[test]
    fn parameters_are_checked_and_named() {
        let build = |name: &str, param: &str, value: &str| {
            let mut given = ParamValues::default();
            given.set(param, value);
            (method_named(name).unwrap().build)(&given)
                .err()
                .map(|e| e.to_string())
        };
        assert!(build("simhash", "hamming", "13")
            .unwrap()
            .contains("too large"));
        assert!(build("minhash", "supershingles", "5")
            .unwrap()
            .contains("84 min-hashes"));
        assert!(build("pugh", "pugh-lists", "x")
            .unwrap()
            .contains("--pugh-lists x"));
        assert!(method_named("nearest").is_err());
    }
}
