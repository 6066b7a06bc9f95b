//! An index that lasts: 64-bit Charikar fingerprints and min-hash signatures on
//! disk, checked by the crawler's online mode (each new document against every
//! earlier one) and its batch mode (many new documents at once, against the stored
//! ones and among themselves).
//!
//! Layout of an index folder:
//!
//! ```text
//! manifest.json              {"format":"twinpage-index","version":2,"fingerprint":"simhash64",
//!                             "minhash":{"hashes":128,"shingle_words":3},"text":"core"}
//! segments/NAME.docs.csv     url,html,rendered of each stored document (absolute paths)
//! segments/NAME.minhash      their min-hash signatures (`lsh`: 16-bit values, four to
//!                            8 bytes little-endian), same order
//! segments/NAME.fp           their fingerprints, 8 bytes little-endian each, same order
//! segments/NAME.records      their record keys (`super::records`), same order: for each,
//!                            how many (4 bytes), then the keys (8 bytes each), little-endian
//! ```
//!
//! A segment without `.records` (written before records were kept) holds no record.
//! Each `index add` writes one segment; the `.fp` file is written last, so a
//! segment without one is an interrupted add: opening the index says so. Segments are found
//! by listing the folder, so slices added at the same time from several machines
//! never overwrite each other. A segment's name is its slice and a hash of its
//! contents: adding the same documents twice is noticed. The permuted tables are
//! rebuilt in memory when the index is opened (a second or two per million
//! documents), so the Hamming distance is chosen per query; so are the LSH bands,
//! so the Jaccard threshold is too (the signature's shape is the index's).
//!
//! Slices: `--shard i/N` keeps the documents whose URL's FNV-1a 64-bit hash is
//! `i` modulo `N`: a deterministic split that any scheduler can run in parallel.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};

use rayon::prelude::*;

use super::candidate::Candidate;
use super::corpus::DocInfo;
use super::lsh::{self, BandTables, Lsh};
use super::method::Sketch;
use super::places::Places;
use super::records::record_pairs_of_new;
use super::simhash;
use super::sketch::{union, TextChoice};
use twinpage_util::hash::fnv1a;
use twinpage_util::write_atomically;

/// The index format this build reads and writes.
pub const VERSION: u32 = 2;
const FORMAT: &str = "twinpage-index";
const FINGERPRINT: &str = "simhash64";

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Manifest {
    pub format: String,
    pub version: u32,
    pub fingerprint: String,
    pub minhash: MinhashShape,
    pub text: TextChoice,
}

/// The shape of the stored min-hash signatures.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq)]
pub struct MinhashShape {
    pub hashes: usize,
    pub shingle_words: usize,
}

impl MinhashShape {
    /// `u64`s a stored signature takes.
    pub fn signature_len(&self) -> usize {
        lsh::signature_len(self.hashes)
    }
}

impl Default for MinhashShape {
    fn default() -> Self {
        let params = lsh::Params::default();
        MinhashShape {
            hashes: params.hashes,
            shingle_words: params.shingle_words,
        }
    }
}

/// How new documents are matched with stored ones.
pub enum Matching<'a> {
    /// Fingerprints within this Hamming distance.
    Hamming(u32),
    /// Signatures whose estimated Jaccard reaches the method's threshold.
    Jaccard(&'a Lsh),
}

/// A deterministic slice of documents: `i/N`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    pub index: u64,
    pub count: u64,
}

impl std::str::FromStr for Shard {
    type Err = String;

    fn from_str(s: &str) -> Result<Shard, String> {
        let bad = || format!("`{s}` is not a slice: write i/N with 0 ≤ i < N, e.g. 0/4");
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let (index, count): (u64, u64) = (
            i.trim().parse().map_err(|_| bad())?,
            n.trim().parse().map_err(|_| bad())?,
        );
        if count == 0 || index >= count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

impl Shard {
    pub fn all() -> Shard {
        Shard { index: 0, count: 1 }
    }

    pub fn contains(&self, url: &str) -> bool {
        fnv1a(url.as_bytes()) % self.count == self.index
    }

    fn tag(&self) -> String {
        if self.count == 1 {
            "all".into()
        } else {
            format!("{}of{}", self.index, self.count)
        }
    }
}

/// An opened index: every stored document, its fingerprint and its signature.
#[derive(Debug)]
pub struct Index {
    pub dir: PathBuf,
    pub manifest: Manifest,
    pub docs: Vec<DocInfo>,
    pub fingerprints: Vec<u64>,
    /// The signatures, one after the other ([`MinhashShape::signature_len`] each).
    pub signatures: Vec<u64>,
    /// Each stored document's record keys (empty when it is no record).
    pub record_keys: Vec<Vec<u64>>,
    /// Stored documents of segments written before records were kept.
    pub without_records: usize,
    pub segments: Vec<String>,
}

impl Index {
    /// Opens an index, creating an empty one (for `text`) when the folder has none.
    pub fn open_or_create(dir: &Path, text: TextChoice) -> Result<Index> {
        if !dir.join("manifest.json").exists() {
            std::fs::create_dir_all(dir.join("segments"))
                .with_context(|| format!("cannot create index folder {}", dir.display()))?;
            let manifest = Manifest {
                format: FORMAT.into(),
                version: VERSION,
                fingerprint: FINGERPRINT.into(),
                minhash: MinhashShape::default(),
                text,
            };
            write_atomically(&dir.join("manifest.json"), |w| {
                serde_json::to_writer_pretty(&mut *w, &manifest)?;
                Ok(w.write_all(b"\n")?)
            })?;
        }
        let index = Index::open(dir)?;
        if index.manifest.text != text {
            bail!(
                "index {} fingerprints {:?} text, not {text:?}: drop --text or use another index",
                dir.display(),
                index.manifest.text
            );
        }
        Ok(index)
    }

    /// Opens an existing index, checking its format version.
    pub fn open(dir: &Path) -> Result<Index> {
        let path = dir.join("manifest.json");
        let raw = std::fs::read_to_string(&path).with_context(|| {
            format!(
                "{} is not an index (no manifest.json); `twinpage index add` makes one",
                dir.display()
            )
        })?;
        let value: serde_json::Value = serde_json::from_str(&raw)
            .with_context(|| format!("{}: not valid JSON", path.display()))?;
        let version = value.get("version").and_then(|v| v.as_u64());
        if value.get("format").and_then(|f| f.as_str()) != Some(FORMAT)
            || version != Some(u64::from(VERSION))
        {
            bail!(
                "{}: index format version {} but this twinpage reads version {VERSION}; rebuild the index \
                 with `twinpage index add --index NEW_DIR --docs …` from the original docs files",
                path.display(),
                version.map_or("unknown".into(), |v| v.to_string())
            );
        }
        let manifest: Manifest = serde_json::from_value(value)
            .with_context(|| format!("{}: unexpected manifest", path.display()))?;
        if manifest.fingerprint != FINGERPRINT {
            bail!(
                "{}: the index holds `{}` fingerprints, this twinpage makes `{FINGERPRINT}`; use another --index",
                path.display(),
                manifest.fingerprint
            );
        }
        let mut index = Index {
            dir: dir.to_path_buf(),
            manifest,
            docs: Vec::new(),
            fingerprints: Vec::new(),
            signatures: Vec::new(),
            record_keys: Vec::new(),
            without_records: 0,
            segments: Vec::new(),
        };
        for name in segment_names(dir)? {
            index.load_segment(&name)?;
        }
        Ok(index)
    }

    fn segment_path(&self, name: &str, suffix: &str) -> PathBuf {
        self.dir.join("segments").join(format!("{name}{suffix}"))
    }

    fn load_segment(&mut self, name: &str) -> Result<()> {
        let fp_path = self.segment_path(name, ".fp");
        let bytes = std::fs::read(&fp_path)
            .with_context(|| format!("cannot read {}", fp_path.display()))?;
        let docs_path = self.segment_path(name, ".docs.csv");
        let mut reader = csv::Reader::from_path(&docs_path)
            .with_context(|| format!("cannot read {}", docs_path.display()))?;
        let mut docs = Vec::new();
        for record in reader.records() {
            let r = record.with_context(|| format!("{}: damaged", docs_path.display()))?;
            docs.push(DocInfo {
                url: r[0].to_string(),
                html: r[1].to_string(),
                rendered: r[2].to_string(),
                extra: Vec::new(),
            });
        }
        let minhash_path = self.segment_path(name, ".minhash");
        let signatures = std::fs::read(&minhash_path)
            .with_context(|| format!("cannot read {}", minhash_path.display()))?;
        let signature_bytes = 8 * self.manifest.minhash.signature_len();
        if bytes.len() != docs.len() * 8 || signatures.len() != docs.len() * signature_bytes {
            bail!(
                "segment {name} of index {} is damaged: {} documents but {} bytes of fingerprints and {} of \
                 signatures; delete segments/{name}.* and add those documents again",
                self.dir.display(),
                docs.len(),
                bytes.len(),
                signatures.len()
            );
        }
        let record_keys = self.load_record_keys(name, docs.len())?;
        self.fingerprints.extend(words(&bytes));
        self.signatures.extend(words(&signatures));
        self.record_keys.extend(record_keys);
        self.docs.extend(docs);
        self.segments.push(name.to_string());
        Ok(())
    }

    /// The record keys of a segment's `count` documents (none when it has no `.records`).
    fn load_record_keys(&mut self, name: &str, count: usize) -> Result<Vec<Vec<u64>>> {
        let path = self.segment_path(name, ".records");
        let bytes = match std::fs::read(&path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                self.without_records += count;
                return Ok(vec![Vec::new(); count]);
            }
            Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
        };
        decode_record_keys(&bytes, count).with_context(|| {
            format!(
                "segment {name} of index {} is damaged ({}); delete segments/{name}.* and add those \
                 documents again",
                self.dir.display(),
                path.display()
            )
        })
    }

    /// The LSH of the index's signatures at `threshold`.
    pub fn lsh(&self, threshold: f64) -> Result<Lsh> {
        let shape = self.manifest.minhash;
        Lsh::new(lsh::Params {
            threshold,
            hashes: shape.hashes,
            shingle_words: shape.shingle_words,
        })
    }

    /// Stores documents with their sketches (by [`Index::lsh`]: the fingerprint
    /// and the signature) and record keys as a new segment. Returns false (and
    /// stores nothing) when the very same segment is already there.
    pub fn add(
        &mut self,
        docs: &[DocInfo],
        sketches: &[Sketch],
        record_keys: &[Vec<u64>],
        shard: Shard,
    ) -> Result<bool> {
        if record_keys.len() != docs.len() {
            bail!("{} documents but {} records", docs.len(), record_keys.len());
        }
        let len = self.manifest.minhash.signature_len();
        if let Some(s) = sketches.iter().find(|s| s.values.len() != len) {
            bail!(
                "a signature of {} values, not {len}: sketch with the index's lsh",
                s.values.len()
            );
        }
        let fingerprints: Vec<u64> = sketches.iter().map(|s| s.simhash).collect();
        let signatures: Vec<u64> = sketches
            .iter()
            .flat_map(|s| s.values.iter().copied())
            .collect();
        let mut csv_bytes = Vec::new();
        {
            let mut csv = csv::Writer::from_writer(&mut csv_bytes);
            csv.write_record(["url", "html", "rendered"])?;
            for d in docs {
                csv.write_record([&d.url, &d.html, &d.rendered])?;
            }
            csv.flush()?;
        }
        let fp_bytes: Vec<u8> = fingerprints.iter().flat_map(|f| f.to_le_bytes()).collect();
        let minhash_bytes: Vec<u8> = signatures.iter().flat_map(|f| f.to_le_bytes()).collect();
        let mut hasher = blake3::Hasher::new();
        hasher
            .update(&csv_bytes)
            .update(&fp_bytes)
            .update(&minhash_bytes);
        let name = format!("{}-{}", shard.tag(), &hasher.finalize().to_hex()[..16]);
        if self.segments.contains(&name) {
            return Ok(false);
        }
        write_atomically(&self.segment_path(&name, ".docs.csv"), |w| {
            Ok(w.write_all(&csv_bytes)?)
        })?;
        write_atomically(&self.segment_path(&name, ".minhash"), |w| {
            Ok(w.write_all(&minhash_bytes)?)
        })?;
        write_atomically(&self.segment_path(&name, ".records"), |w| {
            Ok(w.write_all(&encode_record_keys(record_keys))?)
        })?;
        write_atomically(&self.segment_path(&name, ".fp"), |w| {
            Ok(w.write_all(&fp_bytes)?)
        })?;
        self.docs.extend(docs.iter().cloned());
        self.fingerprints.extend(fingerprints);
        self.signatures.extend(signatures);
        self.record_keys.extend(record_keys.iter().cloned());
        self.segments.push(name);
        Ok(true)
    }
}

impl Index {
    /// Stored documents that match each new document (`new_docs` with absolute
    /// paths, `new` their sketches by [`Index::lsh`]): candidates with `a` = the
    /// new document's number and `b` = `new.len()` + the stored one's. A stored
    /// document that is the new one itself (same URL and body file) is not
    /// reported. With `within_batch`, pairs among the new documents too (`b` <
    /// `new.len()`). With `new_records` (the new documents' record keys), also
    /// the pairs of records that a search of every record, stored and new, finds
    /// for the new ones ([`record_pairs_of_new`]). Sorted.
    pub fn matches(
        &self,
        new_docs: &[DocInfo],
        new: &[Sketch],
        new_records: Option<&[Vec<u64>]>,
        matching: &Matching,
        within_batch: bool,
    ) -> Result<Vec<Candidate>> {
        let offset = new.len() as u32;
        let stored: Vec<Vec<(u32, Vec<String>)>> = match matching {
            Matching::Hamming(hamming) => {
                let layout = simhash::Layout::new(*hamming)?;
                let tables = simhash::Tables::build(self.fingerprints.clone(), layout);
                query_each(new, |s| {
                    let found = tables.query(s.simhash).into_iter();
                    found.map(|(id, d)| (id, vec![d.to_string()])).collect()
                })
            }
            Matching::Jaccard(lsh) => {
                let tables = BandTables::build(lsh, &self.signatures);
                query_each(new, |s| tables.query(s))
            }
        };
        let mut out: Vec<Candidate> = Vec::new();
        for (i, found) in stored.into_iter().enumerate() {
            for (id, evidence) in found {
                if !self.is_stored_as(id, &new_docs[i]) {
                    let (a, b) = (i as u32, offset + id);
                    out.push(Candidate { a, b, evidence });
                }
            }
        }
        if within_batch {
            out.extend(match matching {
                Matching::Hamming(hamming) => {
                    let layout = simhash::Layout::new(*hamming)?;
                    let pairs = simhash::sketch_pairs(new, &layout, |s| s.simhash).into_iter();
                    let evidence = |d: u32| vec![d.to_string()];
                    pairs
                        .map(|(a, b, d)| Candidate {
                            a,
                            b,
                            evidence: evidence(d),
                        })
                        .collect()
                }
                Matching::Jaccard(lsh) => super::method::Method::pairs(*lsh, new)?,
            });
        }
        out.sort();
        Ok(match new_records {
            Some(keys) => union(out, self.record_matches(new_docs, keys, within_batch)),
            None => out,
        })
    }

    /// Whether stored document `id` is `doc` itself (same URL and body file).
    fn is_stored_as(&self, id: u32, doc: &DocInfo) -> bool {
        let stored = &self.docs[id as usize];
        stored.url == doc.url && stored.html == doc.html
    }

    /// The record pairs of [`Index::matches`], numbered as its pairs are.
    fn record_matches(
        &self,
        new_docs: &[DocInfo],
        new_keys: &[Vec<u64>],
        within_batch: bool,
    ) -> Vec<Candidate> {
        let keys: Vec<&[u64]> = new_keys
            .iter()
            .chain(&self.record_keys)
            .map(Vec::as_slice)
            .collect();
        let places = Places::of(new_docs.iter().chain(&self.docs).map(|d| d.url.as_str()));
        let new = new_docs.len();
        let mut pairs = record_pairs_of_new(&keys, &places, new, within_batch);
        pairs.retain(|p| {
            let stored = (p.b as usize).checked_sub(new);
            stored.is_none_or(|id| !self.is_stored_as(id as u32, &new_docs[p.a as usize]))
        });
        pairs
    }
}

/// `query` of each new document with words, on all cores.
fn query_each(
    new: &[Sketch],
    query: impl Fn(&Sketch) -> Vec<(u32, Vec<String>)> + Sync,
) -> Vec<Vec<(u32, Vec<String>)>> {
    new.par_iter()
        .map(|s| if s.words > 0 { query(s) } else { Vec::new() })
        .collect()
}

/// The bytes of a segment's `.records`: for each document, how many keys, then the keys.
fn encode_record_keys(record_keys: &[Vec<u64>]) -> Vec<u8> {
    let mut bytes = Vec::new();
    for keys in record_keys {
        bytes.extend((keys.len() as u32).to_le_bytes());
        bytes.extend(keys.iter().flat_map(|k| k.to_le_bytes()));
    }
    bytes
}

/// The record keys of `count` documents from [`encode_record_keys`]'s bytes.
fn decode_record_keys(bytes: &[u8], count: usize) -> Result<Vec<Vec<u64>>> {
    let mut rest = bytes;
    let mut out = Vec::with_capacity(count);
    for _ in 0..count {
        let (len, after) = rest.split_first_chunk::<4>().context("cut short")?;
        let len = u32::from_le_bytes(*len) as usize;
        let keys = after.get(..len * 8).context("cut short")?;
        out.push(words(keys).collect());
        rest = &after[len * 8..];
    }
    if !rest.is_empty() {
        bail!("{} bytes beyond its {count} documents", rest.len());
    }
    Ok(out)
}

/// Little-endian `u64`s of a file's bytes.
fn words(bytes: &[u8]) -> impl Iterator<Item = u64> + '_ {
    bytes
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
}

/// Names of the complete segments of an index, sorted.
fn segment_names(dir: &Path) -> Result<Vec<String>> {
    let folder = dir.join("segments");
    let mut names = Vec::new();
    let entries = match std::fs::read_dir(&folder) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(names),
        Err(e) => return Err(e).with_context(|| format!("cannot list {}", folder.display())),
    };
    let mut listed = Vec::new();
    for entry in entries {
        listed.push(entry?.file_name().to_string_lossy().into_owned());
    }
    for name in &listed {
        if let Some(stem) = name.strip_suffix(".fp") {
            names.push(stem.to_string());
        } else if let Some(stem) = name.strip_suffix(".docs.csv") {
            // The fingerprints are written last: without them, an add was cut short.
            if !listed.contains(&format!("{stem}.fp")) {
                bail!(
                    "{}: segment {stem} has its documents but no fingerprints ({stem}.fp), an `index add` cut short; \
                     delete {stem}.docs.csv and add those documents again",
                    folder.display()
                );
            }
        }
    }
    names.sort();
    Ok(names)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A sketch with fingerprint `fp` and the index's signature length.
    fn sketches(fps: &[u64]) -> Vec<Sketch> {
        let len = MinhashShape::default().signature_len();
        fps.iter()
            .map(|&simhash| Sketch {
                words: 1,
                simhash,
                values: vec![simhash; len],
            })
            .collect()
    }

    fn doc(url: &str) -> DocInfo {
        DocInfo {
            url: url.into(),
            html: format!("/docs/{url}.html"),
            rendered: String::new(),
            extra: vec![],
        }
    }

    #[test]
    fn segments_round_trip_and_repeat_adds_are_noticed() {
        let dir = tempfile::tempdir().unwrap();
        let mut index = Index::open_or_create(dir.path(), TextChoice::Core).unwrap();
        let records = [vec![7, 1 << 40], vec![]];
        let (a_b, c) = ([doc("a"), doc("b")], [doc("c")]);
        assert!(index
            .add(&a_b, &sketches(&[1, 2]), &records, Shard::all())
            .unwrap());
        assert!(!index
            .add(&a_b, &sketches(&[1, 2]), &records, Shard::all())
            .unwrap());
        let half = "1/2".parse().unwrap();
        assert!(index
            .add(&c, &sketches(&[u64::MAX]), &[vec![9]], half)
            .unwrap());
        let reopened = Index::open(dir.path()).unwrap();
        assert_eq!(reopened.docs.len(), 3);
        let mut fps = reopened.fingerprints.clone();
        fps.sort_unstable();
        assert_eq!(fps, [1, 2, u64::MAX]);
        assert_eq!(reopened.signatures.len(), 3 * 32);
        let by_url = |i: &Index| -> Vec<(String, Vec<u64>)> {
            let mut keys: Vec<_> = (i.docs.iter().map(|d| d.url.clone()))
                .zip(i.record_keys.clone())
                .collect();
            keys.sort();
            keys
        };
        let expected = [("a", vec![7, 1 << 40]), ("b", vec![]), ("c", vec![9])];
        let expected: Vec<_> = expected.map(|(u, k)| (u.to_string(), k)).into();
        assert_eq!(by_url(&reopened), expected);
        let e = Index::open_or_create(dir.path(), TextChoice::Visible)
            .unwrap_err()
            .to_string();
        assert!(e.contains("Core"), "{e}");
    }

    #[test]
    fn other_versions_are_refused_with_advice() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("manifest.json"),
            r#"{"format":"twinpage-index","version":99,"fingerprint":"simhash64","text":"core"}"#,
        )
        .unwrap();
        let e = Index::open(dir.path()).unwrap_err().to_string();
        assert!(e.contains("version 99") && e.contains("rebuild"), "{e}");
        let e = Index::open(&dir.path().join("nothing"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("index add"), "{e}");
        std::fs::write(
            dir.path().join("manifest.json"),
            r#"{"format":"twinpage-index","version":2,"fingerprint":"minhash128","minhash":{"hashes":128,"shingle_words":3},"text":"core"}"#,
        )
        .unwrap();
        let e = Index::open(dir.path()).unwrap_err().to_string();
        assert!(e.contains("minhash128") && e.contains(FINGERPRINT), "{e}");
    }

    #[test]
    fn a_segment_without_fingerprints_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let mut index = Index::open_or_create(dir.path(), TextChoice::Core).unwrap();
        index
            .add(&[doc("a")], &sketches(&[1]), &[vec![3]], Shard::all())
            .unwrap();
        let segment = &index.segments[0];
        std::fs::remove_file(index.segment_path(segment, ".fp")).unwrap();
        let e = Index::open(dir.path()).unwrap_err().to_string();
        assert!(
            e.contains(&format!("{segment}.fp")) && e.contains("delete"),
            "{e}"
        );
    }

    #[test]
    fn record_keys_are_read_when_kept_and_named_when_damaged() {
        let dir = tempfile::tempdir().unwrap();
        let mut index = Index::open_or_create(dir.path(), TextChoice::Core).unwrap();
        index
            .add(&[doc("a")], &sketches(&[1]), &[vec![3, 4]], Shard::all())
            .unwrap();
        let records = index.segment_path(&index.segments[0], ".records");
        std::fs::write(&records, [1, 0, 0, 0, 3, 0]).unwrap();
        let e = format!("{:#}", Index::open(dir.path()).unwrap_err());
        assert!(e.contains(".records") && e.contains("cut short"), "{e}");
        // A segment written before records were kept holds none.
        std::fs::remove_file(&records).unwrap();
        let reopened = Index::open(dir.path()).unwrap();
        assert_eq!(reopened.record_keys, [Vec::<u64>::new()]);
        assert_eq!(reopened.without_records, 1);
        assert_eq!(index.without_records, 0);
    }

    #[test]
    fn shards_partition_documents() {
        let shards: Vec<Shard> = (0..4).map(|i| format!("{i}/4").parse().unwrap()).collect();
        for n in 0..200 {
            let url = format!("http://example.org/{n}");
            assert_eq!(shards.iter().filter(|s| s.contains(&url)).count(), 1);
        }
        assert!("4/4".parse::<Shard>().is_err());
        assert!("x".parse::<Shard>().is_err());
    }
}
