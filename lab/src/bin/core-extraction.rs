//! How well the core content is found, on pages annotated by others: does the text
//! the signals compare hold a page's article and leave out its template?
//!
//! `cargo run --release -p twinpage-lab --bin core-extraction -- [--data ../shared/data/web-pages] [--list]`
//! `cargo run --release -p twinpage-lab --bin core-extraction -- --page FILE` (one page's core)
//!
//! Two sets, neither written for twinpage:
//!
//! - trafilatura's evaluation (`trafilatura-eval/evaldata.json`, 990 pages of news,
//!   blogs and shops in many languages): for each page, snippets a person marked as
//!   article (`with`) and as boilerplate (`without`). A `with` snippet found in the
//!   core is a true positive, one missing a false negative; a `without` snippet found
//!   is a false positive. Precision, recall and F1 as trafilatura's own benchmark
//!   computes them, so the figures compare with those it publishes for extractors.
//! - Mozilla Readability's test pages (`readability/*/source.html`, each with the
//!   `expected.html` Readability.js gives): word precision and recall of the core
//!   against the expected article's words, a multiset, averaged over the pages.
//!
//! Each line also gives the pages written mostly in wide (East Asian) characters
//! apart, where an extractor's character counts fit worst. `--list` prints every page
//! whose score is below 1, with the snippets it missed or kept.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use twinpage::document::attributes::page_text;
use twinpage::document::decode::{as_read, read_body};
use twinpage::document::text::{is_wide_letter, words};

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let value = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
    };
    if let Some(page) = value("--page") {
        println!("{}", page_text(&read_body(Path::new(page))?, true));
        return Ok(());
    }
    let data =
        value("--data").map_or_else(|| PathBuf::from("../shared/data/web-pages"), PathBuf::from);
    let list = args.iter().any(|a| a == "--list");
    snippets(&data.join("trafilatura-eval"), list)?;
    expected_articles(&data.join("readability"), list)
}

/// Counts of snippets found and missed, as trafilatura's evaluation keeps them.
#[derive(Default)]
struct Snippets {
    true_positive: usize,
    false_negative: usize,
    false_positive: usize,
    true_negative: usize,
}

impl Snippets {
    fn add(&mut self, other: &Snippets) {
        self.true_positive += other.true_positive;
        self.false_negative += other.false_negative;
        self.false_positive += other.false_positive;
        self.true_negative += other.true_negative;
    }

    fn line(&self, name: &str, pages: usize) -> String {
        let precision = ratio(self.true_positive, self.true_positive + self.false_positive);
        let recall = ratio(self.true_positive, self.true_positive + self.false_negative);
        let right = self.true_positive + self.true_negative;
        let all = right + self.false_positive + self.false_negative;
        format!(
            "{name:<26} {pages:>4} pages  precision {precision:.3}  recall {recall:.3}  F1 {:.3}  accuracy {:.3}",
            f1(precision, recall),
            ratio(right, all)
        )
    }
}

fn snippets(dir: &Path, list: bool) -> Result<()> {
    let path = dir.join("evaldata.json");
    let eval: HashMap<String, serde_json::Value> = serde_json::from_str(
        &std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?,
    )?;
    let mut pages: Vec<_> = eval.into_iter().collect();
    pages.sort_by(|a, b| a.0.cmp(&b.0));
    let (mut all, mut wide) = (Snippets::default(), Snippets::default());
    let (mut all_pages, mut wide_pages) = (0, 0);
    for (url, page) in &pages {
        let file = dir
            .join("eval")
            .join(page["file"].as_str().unwrap_or_default());
        let Ok(body) = read_body(&file) else {
            continue; // the set lists some pages it does not ship
        };
        let core = squeeze(&page_text(&body, true));
        let (found, missing) = found_and_missed(&page["with"], &core);
        let (kept, left_out) = found_and_missed(&page["without"], &core);
        let counts = Snippets {
            true_positive: found.len(),
            false_negative: missing.len(),
            false_positive: kept.len(),
            true_negative: left_out.len(),
        };
        if list && !(missing.is_empty() && kept.is_empty()) {
            println!(
                "  {url} ({}): {} of {} article snippets missing, {} of {} boilerplate snippets kept",
                page["file"].as_str().unwrap_or_default(),
                missing.len(),
                found.len() + missing.len(),
                kept.len(),
                kept.len() + left_out.len()
            );
            missing.iter().for_each(|s| println!("    missing: {s}"));
            kept.iter().for_each(|s| println!("    kept: {s}"));
        }
        all.add(&counts);
        all_pages += 1;
        if mostly_wide(&core) {
            wide.add(&counts);
            wide_pages += 1;
        }
    }
    println!("trafilatura evaluation snippets");
    println!("{}", all.line("all pages", all_pages));
    println!("{}", wide.line("wide-character pages", wide_pages));
    Ok(())
}

/// The snippets the text holds, and those it lacks (white space squeezed). A snippet
/// keeps the soft hyphens of the page it was copied from, which no reader sees and the
/// core does not keep either.
fn found_and_missed<'a>(
    snippets: &'a serde_json::Value,
    text: &str,
) -> (Vec<&'a str>, Vec<&'a str>) {
    strings(snippets).partition(|snippet| text.contains(&squeeze(&as_read(snippet.to_string()))))
}

fn strings(value: &serde_json::Value) -> impl Iterator<Item = &str> {
    value
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(serde_json::Value::as_str)
}

/// Mean word precision and recall against an expected article.
#[derive(Default)]
struct Overlap {
    precision: f64,
    recall: f64,
    pages: usize,
}

impl Overlap {
    fn add(&mut self, precision: f64, recall: f64) {
        self.precision += precision;
        self.recall += recall;
        self.pages += 1;
    }

    fn line(&self, name: &str) -> String {
        let n = self.pages.max(1) as f64;
        let (precision, recall) = (self.precision / n, self.recall / n);
        format!(
            "{name:<26} {:>4} pages  precision {precision:.3}  recall {recall:.3}  F1 {:.3}",
            self.pages,
            f1(precision, recall)
        )
    }
}

fn expected_articles(dir: &Path, list: bool) -> Result<()> {
    let mut cases: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|case| case.join("source.html").is_file() && case.join("expected.html").is_file())
        .collect();
    cases.sort();
    let (mut all, mut wide) = (Overlap::default(), Overlap::default());
    for case in &cases {
        let core = page_text(&read_body(&case.join("source.html"))?, true);
        let expected = page_text(&read_body(&case.join("expected.html"))?, false);
        let (precision, recall) = word_overlap(&core, &expected);
        if list && precision.min(recall) < 1.0 {
            println!(
                "  {}: precision {precision:.3} recall {recall:.3}",
                case.file_name().unwrap_or_default().to_string_lossy()
            );
        }
        all.add(precision, recall);
        if mostly_wide(&expected) {
            wide.add(precision, recall);
        }
    }
    println!("Readability test pages, words of the expected article");
    println!("{}", all.line("all pages"));
    println!("{}", wide.line("wide-character pages"));
    Ok(())
}

/// Precision and recall of the words of `found` against those of `expected`, each word
/// counted as often as it occurs.
fn word_overlap(found: &str, expected: &str) -> (f64, f64) {
    let mut wanted: HashMap<String, usize> = HashMap::new();
    for word in words(expected) {
        *wanted.entry(word).or_default() += 1;
    }
    let wanted_total: usize = wanted.values().sum();
    let (mut found_total, mut common) = (0, 0);
    for word in words(found) {
        found_total += 1;
        if let Some(left) = wanted.get_mut(&word).filter(|left| **left > 0) {
            *left -= 1;
            common += 1;
        }
    }
    (ratio(common, found_total), ratio(common, wanted_total))
}

/// True when most written characters of the text are wide letters (Chinese, Japanese,
/// Korean).
fn mostly_wide(text: &str) -> bool {
    let written: Vec<char> = text.chars().filter(|c| c.is_alphanumeric()).collect();
    let wide = written.iter().filter(|c| is_wide_letter(**c)).count();
    2 * wide > written.len()
}

fn squeeze(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn ratio(part: usize, whole: usize) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 / whole as f64
    }
}

fn f1(precision: f64, recall: f64) -> f64 {
    if precision + recall == 0.0 {
        0.0
    } else {
        2.0 * precision * recall / (precision + recall)
    }
}
