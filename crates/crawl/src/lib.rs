//! A crawl as twinpage reads it: WARC files (ISO 28500, 1.0 and 1.1, gzipped per
//! record or plain), ARC files (the format before WARC), WACZ packages, and JSONL of
//! pages.
//!
//! People who need duplicates found hold crawls, not pair files. A crawl gives two
//! things: its **pages** (the HTML responses a crawler got, each with the place it
//! was read from, `FILE#OFFSET` as CDX indexes name a record) and its **captures**
//! (where every archived response is: scripts, styles, fonts, images), which replay
//! rendering needs so that a page runs with its own resources as when it was crawled.
//!
//! A crawl is long, and one bad record must not lose it: a record that cannot be
//! read is reported with its file and byte offset, and every other record is read.
//!
//! This file is only the crate's face:
//! - `warc.rs` reads records with their offsets, and finds the next after a bad one
//!   (an ARC record is read as the WARC record it stands for);
//! - `http.rs` reads the HTTP response a record holds (chunks, content encodings),
//!   as leniently as replay tools: a crawl records what servers sent;
//! - `archive.rs` finds the WARC files of an input (a WARC, or those of a WACZ), and
//!   unzips once a WARC gzipped as one stream, whose records no offset reaches;
//! - `read.rs` turns records into pages and captures, revisits into their payloads;
//! - `index.rs` finds a crawl's response to a URL, as replay tools match it.

mod archive;
mod http;
mod index;
mod read;
mod warc;

pub use archive::{is_wacz, WarcFile};
pub use http::Response;
pub use index::Index;
pub use read::{read_crawl, Capture, Crawl, Page, MAX_RESOURCE_BYTES};
pub use warc::{BadRecord, Record, Records, MAX_BLOCK_BYTES};
