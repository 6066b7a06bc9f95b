//! Candidate generation: finding the pairs worth classifying in a whole corpus
//! without comparing every document with every other (METHOD.md, second part).
//!
//! A corpus is streamed ([`corpus`]); each document is parsed once and reduced to
//! a small sketch ([`sketch`]): a Charikar fingerprint ([`simhash`]), Broder
//! supershingles ([`minhash`]) or Pugh's list fingerprints ([`pugh`]). Pairs come
//! from sorting sketches, never from all pairs: permuted tables for Hamming
//! distance, sorted (key, document) runs for shared supershingles and list
//! fingerprints. [`combined`] is Henzinger's Broder-then-Charikar method, [`index`]
//! keeps fingerprints on disk for the crawler's online and batch modes,
//! [`records`] pairs record pages (catalogues' products, papers) by what their records
//! share, and [`cluster`] turns decided pairs into clusters. [`method`] is the seam every
//! method plugs into; [`places`] orders pairs equally near by their URLs.

pub mod candidate;
pub mod cluster;
pub mod combined;
pub mod corpus;
pub mod index;
pub mod lsh;
pub mod method;
pub mod minhash;
pub mod places;
pub mod pugh;
pub mod records;
pub mod sharing;
pub mod simhash;
pub mod sketch;

pub use candidate::Candidate;
pub use method::{method_named, Method, MethodKind, PairStream, Sketch, METHODS};
pub use sharing::{agreeing, binomial, combinations, pairs_sharing, sharing};
