//! Crawls written by real WARC writers (wget 1.21, warcio 1.8, py-wacz 0.6;
//! `tests/crawls/make.sh` makes them), read as warcio reads them.

use std::path::PathBuf;

use serde_json::Value;
use twinpage_crawl::{read_crawl, Page, WarcFile};

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/crawls")
        .join(name)
}

/// A record as an index lists it: type, URL, offset.
type Listed = (String, String, u64);

/// Each record, as warcio indexed the file.
fn expected(name: &str) -> Vec<Listed> {
    let text = std::fs::read_to_string(fixture(&format!("expected/{name}.jsonl"))).unwrap();
    text.lines()
        .map(|line| {
            let v: Value = serde_json::from_str(line).unwrap();
            let url = v["url"].as_str().unwrap_or("").to_string();
            (
                v["type"].as_str().unwrap().to_string(),
                url,
                v["offset"].as_u64().unwrap(),
            )
        })
        .collect()
}

/// Each record as this crate reads the file, and its errors (offset, why).
fn records(name: &str) -> (Vec<Listed>, Vec<(u64, String)>) {
    let [file] = WarcFile::of(&fixture(name)).unwrap().try_into().unwrap();
    let (mut read, mut bad) = (Vec::new(), Vec::new());
    for record in file.records().unwrap() {
        match record {
            Ok(r) => read.push((
                r.kind().to_string(),
                r.target_uri().unwrap_or("").to_string(),
                r.offset,
            )),
            Err(e) => bad.push((e.offset, e.reason)),
        }
    }
    (read, bad)
}

fn pages(inputs: &[&str]) -> (Vec<Page>, twinpage_crawl::Crawl) {
    let inputs: Vec<PathBuf> = inputs.iter().map(|n| fixture(n)).collect();
    let mut pages = Vec::new();
    let unzipped = tempfile::tempdir().unwrap();
    let crawl = read_crawl(&inputs, unzipped.path(), |page| {
        pages.push(page);
        Ok(())
    })
    .unwrap();
    (pages, crawl)
}

fn text(page: &Page) -> String {
    String::from_utf8_lossy(&page.body).into_owned()
}

#[test]
fn every_record_of_wget_and_warcio_files_is_where_warcio_says() {
    for name in [
        "wget.warc.gz",
        "wget-plain.warc",
        "warcio.warc.gz",
        "warcio.warc",
        "warcio-revisit.warc.gz",
    ] {
        let (read, bad) = records(name);
        assert!(bad.is_empty(), "{name}: {bad:?}");
        assert_eq!(read, expected(name), "{name}");
    }
}

#[test]
fn pages_are_the_html_responses_decoded_and_the_rest_is_kept_for_replay() {
    let (pages, crawl) = pages(&["wget.warc.gz"]);
    let urls: Vec<&str> = pages.iter().map(|p| p.url.as_str()).collect();
    // The redirect, the 404, the script, style and image are no pages; the article
    // wget fetched twice (after the redirect) is two captures.
    assert_eq!(
        urls,
        [
            "http://twinpage.test/article.html",
            "http://twinpage.test/article-copy.html",
            "http://twinpage.test/other.html",
            "http://twinpage.test/app.html",
            "http://twinpage.test/article.html",
            "http://twinpage.test/chunked.html",
            "http://twinpage.test/gzip.html",
            "http://twinpage.test/charset-header.html",
            "http://twinpage.test/charset-meta.html",
        ]
    );
    let by_url = |url: &str| pages.iter().find(|p| p.url.ends_with(url)).unwrap();
    assert_eq!(
        by_url("article.html").source,
        format!("{}#967", fixture("wget.warc.gz").display())
    );
    assert!(text(by_url("chunked.html")).contains("Night market returns"));
    assert!(text(by_url("gzip.html")).contains("four hundred trees"));
    assert_eq!(
        by_url("charset-header.html").charset.as_deref(),
        Some("windows-1251")
    );
    assert_eq!(by_url("charset-meta.html").charset, None);
    // The header's charset is kept in the body a file of the page holds: UTF-8 behind a BOM.
    let header_only = by_url("charset-header.html").fetched_body();
    let (encoding, _) = encoding_rs::Encoding::for_bom(&header_only).unwrap();
    assert_eq!(encoding, encoding_rs::UTF_8);
    assert!(String::from_utf8_lossy(&header_only).contains("Городская баня снова открыта"));
    let meta_only = by_url("charset-meta.html");
    assert_eq!(*meta_only.fetched_body(), *meta_only.body);
    assert!(by_url("app.html")
        .date
        .as_deref()
        .is_some_and(|d| d.starts_with("20")));
    let script = crawl
        .captures
        .iter()
        .find(|c| c.url.ends_with("app.js?v=123"))
        .unwrap();
    assert_eq!((script.status, script.offset), (200, 11381));
    assert!(crawl.unreadable.is_empty(), "{:?}", crawl.unreadable);
}

#[test]
fn a_revisit_is_its_original_payload_in_this_file_or_another_and_a_lost_one_is_said() {
    let (pages, crawl) = pages(&["warcio.warc.gz", "warcio-revisit.warc.gz"]);
    let revisits: Vec<&Page> = pages.iter().filter(|p| p.payload_from.is_some()).collect();
    assert_eq!(revisits.len(), 2, "{revisits:?}");
    let original = |url: &str| {
        pages
            .iter()
            .find(|p| p.url == url && p.payload_from.is_none())
            .unwrap()
    };
    for revisit in revisits {
        assert_eq!(revisit.body, original(&revisit.url).body, "{}", revisit.url);
        assert_eq!(
            revisit.payload_from.as_ref(),
            Some(&original(&revisit.url).source)
        );
    }
    let other = pages
        .iter()
        .find(|p| p.url.ends_with("/other.html") && p.payload_from.is_some());
    assert!(other.unwrap().source.contains("warcio-revisit.warc.gz#369"));
    // The resource record is a page too.
    assert!(pages.iter().any(|p| p.url.ends_with("saved/other.html")));
    assert_eq!(crawl.unreadable.len(), 1, "{:?}", crawl.unreadable);
    let lost = &crawl.unreadable[0];
    assert!(
        lost.contains("warcio.warc.gz#18530") && lost.contains("archived-elsewhere.html"),
        "{lost}"
    );
}

#[test]
fn archives_of_other_writers_are_read_as_replay_tools_read_them() {
    // warcio's test data: Webrecorder Platform's WARC of example.com, then the same
    // records gzipped as one member, then with stray bytes and a payload cut short,
    // then the page as ARC, plain and gzipped.
    let read = |name: &str| pages(&[&format!("other-writers/{name}")]);
    let (pages, crawl) = read("example.warc.gz");
    assert!(crawl.unreadable.is_empty(), "{:?}", crawl.unreadable);
    let [original, revisit] = &pages[..] else {
        panic!("{pages:?}")
    };
    // The revisit's own header says Content-Encoding: gzip; its payload is the
    // original's, decoded once.
    assert!(text(original).starts_with("<!doctype html>"));
    assert_eq!(revisit.body, original.body);
    assert_eq!(revisit.payload_from.as_ref(), Some(&original.source));
    // One gzip member for the whole file: read from a copy unzipped once, each
    // record named by its own offset there, and the revisit finds its original.
    let (whole, crawl) = read("example-bad-non-chunked.warc.gz");
    assert!(crawl.unreadable.is_empty(), "{:?}", crawl.unreadable);
    assert_eq!(whole.len(), 2);
    assert!(whole.iter().all(|p| p.body == original.body));
    assert!(crawl.files[0].unzipped().is_some());
    for page in &whole {
        assert!(
            page.source.contains("non-chunked.warc.gz (unzipped)#"),
            "{}",
            page.source
        );
    }
    assert_ne!(whole[0].source, whole[1].source);
    assert_eq!(whole[1].payload_from.as_ref(), Some(&whole[0].source));
    for name in ["example-trunc.warc", "example.arc", "example.arc.gz"] {
        let (pages, crawl) = read(name);
        assert!(
            crawl.unreadable.is_empty(),
            "{name}: {:?}",
            crawl.unreadable
        );
        let [page] = &pages[..] else {
            panic!("{name}: {pages:?}")
        };
        assert_eq!(page.url, "http://example.com/", "{name}");
        assert!(
            text(page).contains("<title>Example Domain</title>"),
            "{name}"
        );
    }
    let (arc, _) = read("example.arc");
    assert_eq!(arc[0].date.as_deref(), Some("2014-02-16T05:02:21Z"));
    assert!(
        arc[0].source.ends_with("example.arc#151"),
        "{}",
        arc[0].source
    );
}

#[test]
fn a_wacz_is_read_as_the_warc_it_holds() {
    let (from_wacz, _) = pages(&["crawl.wacz"]);
    let (from_warc, _) = pages(&["wget.warc.gz"]);
    assert_eq!(from_wacz.len(), from_warc.len());
    for (a, b) in from_wacz.iter().zip(&from_warc) {
        assert_eq!((&a.url, &a.body), (&b.url, &b.body));
        let offset = b.source.rsplit('#').next().unwrap();
        assert!(a.source.contains("crawl.wacz/archive/"), "{}", a.source);
        assert!(
            a.source.ends_with(&format!(".warc.gz#{offset}")),
            "{}",
            a.source
        );
    }
}

#[test]
fn a_truncated_file_and_a_damaged_record_are_named_by_offset_and_the_rest_is_read() {
    let (read, bad) = records("truncated.warc.gz");
    let whole = expected("wget.warc.gz");
    let cut = whole
        .iter()
        .position(|r| r.1.ends_with("other.html") && r.0 == "response")
        .unwrap();
    assert_eq!(read, whole[..cut]);
    assert_eq!(bad.len(), 1);
    assert_eq!(bad[0].0, whole[cut].2);

    let (read, bad) = records("corrupt.warc");
    let whole = expected("wget-plain.warc");
    let damaged = whole.iter().position(|r| r.2 == 13222).unwrap();
    assert_eq!(
        bad.iter().map(|b| b.0).collect::<Vec<_>>(),
        [13222],
        "{bad:?}"
    );
    assert!(bad[0].1.contains("WARC/?!#"), "{}", bad[0].1);
    let after: Vec<_> = whole[damaged + 1..].iter().take(4).cloned().collect();
    assert_eq!(read, [&whole[..damaged], &after[..]].concat());
}

#[test]
fn jsonl_lines_are_pages_and_a_bad_line_is_named() {
    let (pages, crawl) = pages(&["pages.jsonl"]);
    assert_eq!(pages.len(), 3);
    assert!(pages[0].source.ends_with("pages.jsonl:1"));
    assert!(text(&pages[0]).contains("Harbour ferry terminal reopens"));
    assert!(crawl.unreadable.is_empty());
    let (pages, crawl) = self::pages(&["pages-bad.jsonl"]);
    assert_eq!(pages.len(), 3);
    assert_eq!(crawl.unreadable.len(), 1);
    assert!(
        crawl.unreadable[0].contains("pages-bad.jsonl:3"),
        "{:?}",
        crawl.unreadable
    );
}

#[test]
fn replay_finds_a_response_as_replay_tools_match_it() {
    let (_, crawl) = pages(&["wget.warc.gz"]);
    let index = twinpage_crawl::Index::new(&crawl);
    let find = |url: &str| index.find(url).map(|c| c.url.as_str());
    let script = Some("http://twinpage.test/static/app.js?v=123");
    assert_eq!(find("http://twinpage.test/static/app.js?v=123"), script);
    // Another cache-buster, another scheme, the host in capitals: the same script.
    assert_eq!(find("https://TWINPAGE.test/static/app.js?v=999"), script);
    assert_eq!(find("http://twinpage.test/static/missing.js"), None);
    // Kept on disk and read back, it answers the same.
    let dir = tempfile::tempdir().unwrap();
    let saved = dir.path().join("index.json");
    let mut file = std::fs::File::create(&saved).unwrap();
    index.write(&mut file).unwrap();
    drop(file);
    let index = twinpage_crawl::Index::read(&saved).unwrap();
    assert_eq!(
        index
            .find("https://TWINPAGE.test/static/app.js?v=999")
            .map(|c| c.url.as_str()),
        script
    );
    // A redirect is followed inside the archive.
    let (capture, response) = index.response("http://twinpage.test/old-article").unwrap();
    assert_eq!(capture.url, "http://twinpage.test/article.html");
    assert_eq!(response.status, 200);
    assert!(String::from_utf8_lossy(&response.body).contains("Harbour ferry terminal"));
}

/// `gzip crawl.warc`: the whole file as one gzip stream, cut after `keep` bytes.
fn gzipped_as_one_stream(plain: &str, keep: Option<usize>, dir: &std::path::Path) -> PathBuf {
    use std::io::Write;
    let mut gzip = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gzip.write_all(&std::fs::read(fixture(plain)).unwrap())
        .unwrap();
    let mut bytes = gzip.finish().unwrap();
    bytes.truncate(keep.unwrap_or(bytes.len()));
    let path = dir.join(format!("{plain}.gz"));
    std::fs::write(&path, bytes).unwrap();
    path
}

#[test]
fn a_warc_gzipped_as_one_stream_is_read_from_a_copy_unzipped_once() {
    let dir = tempfile::tempdir().unwrap();
    let one_stream = gzipped_as_one_stream("wget-plain.warc", None, dir.path());
    let unzipped = dir.path().join("unzipped");
    let mut pages = Vec::new();
    let crawl = read_crawl(std::slice::from_ref(&one_stream), &unzipped, |page| {
        pages.push(page);
        Ok(())
    })
    .unwrap();
    assert!(crawl.unreadable.is_empty(), "{:?}", crawl.unreadable);
    let plain = crawl.files[0].unzipped().expect("unzipped").to_path_buf();
    assert_eq!(
        std::fs::read(&plain).unwrap(),
        std::fs::read(fixture("wget-plain.warc")).unwrap()
    );
    // The pages of the plain file, each named by its offset in the copy, as a CDX
    // index of the plain file names it.
    let (plain_pages, _) = self::pages(&["wget-plain.warc"]);
    assert_eq!(pages.len(), plain_pages.len());
    for (page, of_plain) in pages.iter().zip(&plain_pages) {
        assert_eq!((&page.url, &page.body), (&of_plain.url, &of_plain.body));
        let offset = |source: &str| source.rsplit('#').next().unwrap().to_string();
        assert_eq!(offset(&page.source), offset(&of_plain.source));
        assert!(
            page.source
                .starts_with(&format!("{} (unzipped)#", one_stream.display())),
            "{}",
            page.source
        );
    }
    // Replay reads a resource at its offset in the copy.
    let index = twinpage_crawl::Index::new(&crawl);
    let (_, script) = index
        .response("http://twinpage.test/static/app.js?v=123")
        .unwrap();
    assert!(String::from_utf8_lossy(&script.body).contains("Old rail bridge"));

    // Cut short: the records before the cut are read, the fault is named by the
    // gzip stream's offset, and the record it cut by its offset in the copy.
    let whole = std::fs::metadata(&one_stream).unwrap().len() as usize;
    let cut = gzipped_as_one_stream("wget-plain.warc", Some(whole * 2 / 3), dir.path());
    let mut read = Vec::new();
    let crawl = read_crawl(std::slice::from_ref(&cut), &unzipped, |page| {
        read.push(page.url);
        Ok(())
    })
    .unwrap();
    assert!(read.len() >= 3 && read.len() < pages.len(), "{read:?}");
    let name = cut.display().to_string();
    assert!(
        crawl.unreadable[0].starts_with(&format!("{name}#0: the gzip stream breaks")),
        "{:?}",
        crawl.unreadable
    );
    assert!(
        crawl.unreadable[1..]
            .iter()
            .all(|u| u.starts_with(&format!("{name} (unzipped)#"))),
        "{:?}",
        crawl.unreadable
    );
}
