//! The candidate commands end to end: candidates → score → cluster on a tiny
//! corpus, the index's online and batch modes, baselines, errors and help.

use std::fs;

use assert_cmd::Command;

mod common;
use common::{in_order, twinpage};

/// Exit code, stdout and stderr of a run.
fn outcome(cmd: &mut Command) -> (Option<i32>, String, String) {
    let out = cmd.output().unwrap();
    let text = |b: Vec<u8>| String::from_utf8_lossy(&b).into_owned();
    (out.status.code(), text(out.stdout), text(out.stderr))
}

fn run_ok(cmd: &mut Command) -> (String, String) {
    let (code, stdout, stderr) = outcome(cmd);
    assert_eq!(code, Some(0), "failed: {stderr}");
    (stdout, stderr)
}

fn run_fails(cmd: &mut Command, expected: i32) -> String {
    let (code, stdout, stderr) = outcome(cmd);
    assert_eq!(code, Some(expected), "stdout: {stdout} stderr: {stderr}");
    stderr
}

const ARTICLE: &str = "Volunteers counted more than four hundred swifts nesting under the eaves of the \
    old grammar school this summer, the highest number since records began in 1986. The colony \
    returns from Africa every May and leaves in early August. Ornithologists credit the new nest \
    boxes fitted during the roof repairs, which replaced gaps lost when the building was insulated. \
    The school plans a camera so pupils can watch the chicks from their classrooms next year.";

const OTHER: &str =
    "The county library will open on Sundays from October after a trial in the spring \
    drew twice the expected visitors. Extra hours will be staffed by new part-time posts funded \
    by the parish councils. The reading room, closed since the flood two winters ago, reopens \
    with restored oak tables and a children's corner donated by a local joinery firm.";

const UNRELATED: &str = "Tide tables for the estuary change next month: the harbour master \
    moves the low-water mark after the dredging, and anglers should check the new \
    times posted at the slipway before launching small boats on the evening ebb.";

fn page(title: &str, nav: &str, body: &str) -> String {
    format!(
        "<!doctype html><html><head><meta charset=utf-8><title>{title}</title></head><body>\
         <nav><a href='/'>Home</a> {nav}</nav><article><h1>{title}</h1><p>{body}</p></article>\
         <footer>Copyright the site.</footer></body></html>"
    )
}

/// docs.csv with two copies of one article (different templates), another
/// article and an empty page, plus a labelled pair file over them.
fn corpus() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fs::write(d.join("a.html"), page("Bridge closed", "News", ARTICLE)).unwrap();
    fs::write(
        d.join("a-mirror.html"),
        page("Bridge closed", "Sport Weather", ARTICLE),
    )
    .unwrap();
    fs::write(d.join("b.html"), page("Bakery opens", "News", OTHER)).unwrap();
    fs::write(d.join("empty.html"), "<html><body></body></html>").unwrap();
    fs::write(
        d.join("docs.csv"),
        "url,html,crawl\nhttp://news.example/a,a.html,1\nhttp://mirror.example/a,a-mirror.html,2\n\
         http://news.example/b,b.html,3\nhttp://news.example/e,empty.html,4\n",
    )
    .unwrap();
    fs::write(
        d.join("labelled.csv"),
        "url_a,url_b,html_a,html_b,label\nu,v,a.html,a-mirror.html,1\nu,w,a.html,b.html,0\n",
    )
    .unwrap();
    dir
}

#[test]
fn lsh_finds_an_edited_copy_that_broders_parameters_miss() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let text = format!("{ARTICLE} {OTHER}");
    let edited = text
        .replacen("swifts", "martins", 1)
        .replacen("Sundays", "Saturdays", 1);
    fs::write(d.join("a.html"), page("Swifts", "News", &text)).unwrap();
    fs::write(d.join("b.html"), page("Swifts", "News", &edited)).unwrap();
    fs::write(d.join("c.html"), page("Other", "News", UNRELATED)).unwrap();
    let docs = d.join("docs.csv");
    fs::write(&docs, "url,html\nu:a,a.html\nu:b,b.html\nu:c,c.html\n").unwrap();
    let pairs_by = |method: &str| {
        let (out, _) = run_ok(
            twinpage()
                .args(["candidates", "--method", method, "--docs"])
                .arg(&docs),
        );
        out.lines().skip(1).map(str::to_string).collect::<Vec<_>>()
    };
    let found = pairs_by("lsh");
    assert_eq!(found.len(), 1, "{found:?}");
    // Paths are absolute on stdout (the output is not beside docs.csv).
    assert!(found[0].starts_with("u:a,u:b,"), "{found:?}");
    assert!(found[0].contains("b.html,lsh,"), "{found:?}");
    let estimate: f64 = found[0].rsplit(',').next().unwrap().parse().unwrap();
    assert!((0.7..1.0).contains(&estimate), "{estimate}");
    assert!(pairs_by("minhash").is_empty());
}

#[test]
fn both_texts_find_what_the_core_content_or_the_visible_text_finds_alone() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // The same article: as a page's article, and as a list of links the extractor
    // drops (its core content is another, short story) - a pair by visible text only.
    let sentences: String = ARTICLE
        .split(". ")
        .enumerate()
        .map(|(i, s)| format!("<li><a href='/s{i}'>{s}.</a></li>"))
        .collect();
    let listed = format!("<ul>{sentences}</ul><article><p>{UNRELATED}</p></article>");
    fs::write(d.join("a.html"), page("Swifts", "News", ARTICLE)).unwrap();
    fs::write(
        d.join("b.html"),
        page("Swifts", "News", "").replace("<article>", &format!("{listed}<article>")),
    )
    .unwrap();
    // Another article behind two long, different menus: a pair by core content, and
    // by visible text only just.
    let menu = |site: &str| -> String {
        (0..40)
            .map(|i| format!("<a href='/{i}'>{site} section {i} listings</a> "))
            .collect()
    };
    fs::write(d.join("c.html"), page("Library", &menu("Gazette"), OTHER)).unwrap();
    fs::write(d.join("d.html"), page("Library", &menu("Courier"), OTHER)).unwrap();
    let docs = d.join("docs.csv");
    fs::write(
        &docs,
        "url,html\nu:a,a.html\nu:b,b.html\nu:c,c.html\nu:d,d.html\n",
    )
    .unwrap();
    let pairs_by = |text: &str| {
        let (out, _) = run_ok(
            twinpage()
                .args(["candidates", "--no-render", "--text", text, "--docs"])
                .arg(&docs),
        );
        out.lines()
            .skip(1)
            .map(|row| {
                let fields: Vec<&str> = row.split(',').collect();
                format!("{}-{} {}", fields[0], fields[1], fields[5])
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(pairs_by("core"), ["u:c-u:d 1.000"]);
    let visible = pairs_by("visible");
    assert!(visible[0].starts_with("u:a-u:b "), "{visible:?}");
    assert!(visible[1].starts_with("u:c-u:d 0."), "{visible:?}");
    // Found by either text; a pair found by both has its core content's evidence.
    assert_eq!(pairs_by("both"), [visible[0].as_str(), "u:c-u:d 1.000"]);
}

/// A page whose fetched body is an empty application shell: its script writes
/// `text` into the page when it runs.
fn shell(text: &str) -> String {
    format!(
        "<!doctype html><html><head><meta charset=utf-8><title>App</title></head>\
         <body><div id=app></div><script>document.getElementById('app').innerHTML = \
         '<article><p>' + {text:?} + '</p></article>';</script></body></html>"
    )
}

/// Two shells of one article and one of another, as docs.csv in `d`.
fn shells(d: &std::path::Path) -> std::path::PathBuf {
    fs::write(d.join("a.html"), shell(ARTICLE)).unwrap();
    fs::write(
        d.join("b.html"),
        shell(&ARTICLE.replacen("swifts", "martins", 1)),
    )
    .unwrap();
    fs::write(d.join("c.html"), shell(OTHER)).unwrap();
    let docs = d.join("docs.csv");
    fs::write(&docs, "url,html\nu:a,a.html\nu:b,b.html\nu:c,c.html\n").unwrap();
    docs
}

#[test]
fn script_built_pages_are_found_by_their_rendered_text_stored_or_cached() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let docs = shells(d);
    let cache = d.join("cache");
    let candidates = |extra: &[&str]| {
        run_ok(
            twinpage()
                .args(["candidates", "--docs"])
                .arg(&docs)
                .arg("--cache")
                .arg(&cache)
                .args(extra),
        )
    };
    // The fetched shells hold no article text: nothing to find.
    let (out, err) = candidates(&[]);
    assert_eq!(out.lines().count(), 1, "{out}");
    assert!(
        err.contains("0 fingerprinted rendered, 3 without text"),
        "{err}"
    );
    // Rendered in a real Chromium, the two copies are one candidate pair ...
    let (out, err) = candidates(&["--render-missing"]);
    assert!(err.contains("3 fingerprinted rendered"), "{err}");
    let rows: Vec<&str> = out.lines().skip(1).collect();
    assert_eq!(rows.len(), 1, "{out}");
    assert!(rows[0].starts_with("u:a,u:b,"), "{out}");
    // ... and a later run (which renders nothing) finds them in the render cache.
    let (again, err) = candidates(&[]);
    assert!(err.contains("3 fingerprinted rendered"), "{err}");
    assert_eq!(again, out);
    // A stored render named by docs.csv is used as it is.
    let stored = format!(
        r#"{{"synthetic_body":{body:?},"visible_text":{text:?},"image_count":0,"image_area":0.0,"text_area":0.1,"hidden_text_share":0.0,"cut_off":false}}"#,
        body = format!("<html><body><article><p>{OTHER}</p></article></body></html>"),
        text = OTHER,
    );
    fs::write(d.join("a.render.json"), stored).unwrap();
    fs::write(
        &docs,
        "url,html,rendered\nu:a,a.html,a.render.json\nu:b,b.html,\nu:c,c.html,\n",
    )
    .unwrap();
    let (out, _) = candidates(&[]);
    let rows: Vec<&str> = out.lines().skip(1).collect();
    assert_eq!(rows.len(), 1, "{out}");
    assert!(rows[0].starts_with("u:a,u:c,"), "{out}");
}

#[test]
fn candidates_feed_score_and_score_feeds_cluster() {
    let dir = corpus();
    let d = dir.path();
    for method in ["simhash", "minhash", "combined", "pugh", "lsh"] {
        let pairs = d.join(format!("pairs-{method}.csv"));
        run_ok(
            twinpage()
                .args(["candidates", "--method", method, "--docs"])
                .arg(d.join("docs.csv"))
                .arg("--out")
                .arg(&pairs),
        );
        let text = fs::read_to_string(&pairs).unwrap();
        let mut lines = text.lines();
        let header = lines.next().unwrap();
        assert!(
            header.starts_with("url_a,url_b,html_a,html_b,method,"),
            "{header}"
        );
        assert!(header.ends_with("crawl_a,crawl_b"), "{header}");
        let rows: Vec<&str> = lines.collect();
        assert_eq!(rows.len(), 1, "{method}: {text}");
        assert!(
            rows[0]
                .starts_with("http://news.example/a,http://mirror.example/a,a.html,a-mirror.html,"),
            "{text}"
        );
    }
    let scored = d.join("scored.csv");
    run_ok(
        twinpage()
            .args([
                "score",
                "--no-render",
                "--model",
                "models/fetched-only.json",
                "--pairs",
            ])
            .arg(d.join("pairs-simhash.csv"))
            .arg("--out")
            .arg(&scored),
    );
    let clusters = d.join("clusters.csv");
    run_ok(
        twinpage()
            .args(["cluster", "--scored"])
            .arg(&scored)
            .arg("--out")
            .arg(&clusters),
    );
    let text = fs::read_to_string(&clusters).unwrap();
    assert!(text.starts_with("cluster,size,status,url,html\n"), "{text}");
    assert_eq!(text.lines().count(), 3, "{text}");
    assert!(text.lines().skip(1).all(|l| l.contains(",2,ok,")), "{text}");
}

#[test]
fn index_finds_earlier_documents_online_and_in_batches() {
    let dir = corpus();
    let d = dir.path();
    let index = d.join("index");
    // The first two documents go in; the mirror is reported against the first.
    fs::write(
        d.join("first.csv"),
        "url,html\nhttp://news.example/a,a.html\nhttp://news.example/b,b.html\n",
    )
    .unwrap();
    fs::write(
        d.join("second.csv"),
        "url,html\nhttp://mirror.example/a,a-mirror.html\n",
    )
    .unwrap();
    // A failed first add leaves no index folder behind.
    run_fails(
        twinpage()
            .args(["index", "add", "--index"])
            .arg(&index)
            .arg("--docs")
            .arg(d.join("no-such-docs.csv")),
        1,
    );
    assert!(!index.exists(), "a failed add left {}", index.display());
    run_ok(
        twinpage()
            .args(["index", "add", "--index"])
            .arg(&index)
            .arg("--docs")
            .arg(d.join("first.csv")),
    );
    let found = d.join("found.csv");
    run_ok(
        twinpage()
            .args(["index", "query", "--index"])
            .arg(&index)
            .arg("--docs")
            .arg(d.join("second.csv"))
            .arg("--out")
            .arg(&found),
    );
    let text = fs::read_to_string(&found).unwrap();
    assert_eq!(text.lines().count(), 2, "{text}");
    assert!(
        text.contains("http://mirror.example/a,http://news.example/a,"),
        "{text}"
    );
    assert!(
        text.lines()
            .next()
            .unwrap()
            .contains("method,estimated_jaccard"),
        "{text}"
    );
    // The same index answers by fingerprint distance too.
    let (by_simhash, _) = run_ok(
        twinpage()
            .args(["index", "query", "--method", "simhash", "--index"])
            .arg(&index)
            .arg("--docs")
            .arg(d.join("second.csv")),
    );
    assert!(
        by_simhash
            .lines()
            .next()
            .unwrap()
            .contains("method,hamming"),
        "{by_simhash}"
    );
    assert!(
        by_simhash.contains("http://mirror.example/a,http://news.example/a,"),
        "{by_simhash}"
    );
    // Slices of the same documents concatenate to the whole answer.
    let mut sliced = 0;
    for i in 0..3 {
        let out = d.join(format!("slice{i}.csv"));
        run_ok(
            twinpage()
                .args(["index", "query", "--shard", &format!("{i}/3"), "--index"])
                .arg(&index)
                .arg("--docs")
                .arg(d.join("docs.csv"))
                .arg("--out")
                .arg(&out),
        );
        sliced += fs::read_to_string(&out).unwrap().lines().count() - 1;
    }
    assert_eq!(sliced, 1, "the mirror against the stored article, once");
    // A damaged version is refused with advice, exit 1.
    fs::write(
        index.join("manifest.json"),
        r#"{"format":"twinpage-index","version":0,"fingerprint":"simhash64","text":"core"}"#,
    )
    .unwrap();
    let err = run_fails(
        twinpage()
            .args(["index", "query", "--index"])
            .arg(&index)
            .arg("--docs")
            .arg(d.join("second.csv")),
        1,
    );
    assert!(err.contains("rebuild"), "{err}");
}

#[test]
fn baseline_prints_the_evaluate_report() {
    let dir = corpus();
    let (out, _) = run_ok(
        twinpage()
            .args(["baseline", "--method", "a12", "--pairs"])
            .arg(dir.path().join("labelled.csv")),
    );
    assert!(
        out.contains("baseline A12 3+5") && out.contains("precision 1.0000  recall 1.0000"),
        "{out}"
    );
    let (out, _) = run_ok(
        twinpage()
            .args(["baseline", "--method", "all", "--pairs"])
            .arg(dir.path().join("labelled.csv")),
    );
    assert!(
        out.contains("A0 MD5") && out.contains("simhash") && out.contains("A10 Opt Freq"),
        "{out}"
    );
}

#[test]
fn a_folder_with_a_fifo_and_a_link_loop_ends_and_names_the_fifo() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fs::write(d.join("a.html"), page("Bridge closed", "News", ARTICLE)).unwrap();
    fs::create_dir(d.join("sub")).unwrap();
    fs::write(
        d.join("sub/b.html"),
        page("Bridge closed", "Sport", ARTICLE),
    )
    .unwrap();
    std::os::unix::fs::symlink(d, d.join("sub/loop")).unwrap();
    // Two documents through the loop: one candidate pair, not thousands.
    let (out, _) = run_ok(twinpage().args(["candidates", "--docs"]).arg(d));
    assert_eq!(out.lines().count(), 2, "{out}");
    let fifo = std::ffi::CString::new(d.join("c.html").into_os_string().into_encoded_bytes());
    assert_eq!(unsafe { libc::mkfifo(fifo.unwrap().as_ptr(), 0o600) }, 0);
    let err = run_fails(
        twinpage()
            .args(["candidates", "--docs"])
            .arg(d)
            .timeout(std::time::Duration::from_secs(20)),
        1,
    );
    assert!(
        err.contains("c.html") && err.contains("not a regular file"),
        "{err}"
    );
    // Written to a file, so that the skipped list goes beside it (not into the cwd).
    let listed = tempfile::tempdir().unwrap();
    let out = listed.path().join("pairs.csv");
    run_ok(
        twinpage()
            .args(["candidates", "--skip-bad", "--docs"])
            .arg(d)
            .arg("--out")
            .arg(&out)
            .timeout(std::time::Duration::from_secs(20)),
    );
    assert_eq!(fs::read_to_string(&out).unwrap().lines().count(), 2);
    let skipped = fs::read_to_string(listed.path().join("pairs.csv.skipped.csv")).unwrap();
    assert!(skipped.contains("c.html"), "{skipped}");
}

#[test]
fn errors_name_the_row_and_every_command_has_help() {
    let dir = corpus();
    let d = dir.path();
    fs::write(d.join("bad.csv"), "url,html\nhttp://x/,a.html\nhttp://y/\n").unwrap();
    let err = run_fails(
        twinpage()
            .args(["candidates", "--docs"])
            .arg(d.join("bad.csv")),
        1,
    );
    assert!(err.contains("bad.csv:3"), "{err}");
    fs::write(d.join("missing.csv"), "url,html\nhttp://x/,nowhere.html\n").unwrap();
    let err = run_fails(
        twinpage()
            .args(["candidates", "--docs"])
            .arg(d.join("missing.csv")),
        1,
    );
    assert!(
        err.contains("missing.csv:2") && err.contains("--skip-bad"),
        "{err}"
    );
    run_fails(
        twinpage().args([
            "index", "query", "--shard", "3/3", "--index", "x", "--docs", "y",
        ]),
        2,
    );
    run_fails(
        twinpage().args(["candidates", "--docs", "x", "--method", "nope"]),
        2,
    );
    for cmd in [
        &["candidates"][..],
        &["index", "add"],
        &["index", "query"],
        &["cluster"],
        &["baseline"],
    ] {
        let (out, _) = run_ok(twinpage().args(cmd).arg("--help"));
        assert!(out.contains("Usage"), "{cmd:?}");
    }
}

/// Real record pages of a benchmark no model here was trained on, DBLP against
/// Google Scholar: each page's URL and body, and the pairs of URLs labelled
/// duplicate (in order).
struct ScholarPages {
    pages: std::collections::BTreeMap<String, std::path::PathBuf>,
    duplicates: std::collections::BTreeSet<(String, String)>,
}

impl ScholarPages {
    fn read() -> ScholarPages {
        let er = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("training-data/er");
        let mut reader = csv::Reader::from_path(er.join("valid.csv")).unwrap();
        let headers = reader.headers().unwrap().clone();
        let col = |name: &str| headers.iter().position(|h| h == name).unwrap();
        let mut scholar = ScholarPages {
            pages: Default::default(),
            duplicates: Default::default(),
        };
        for row in reader.records().map(Result::unwrap) {
            if &row[col("dataset")] != "Structured/DBLP-GoogleScholar" {
                continue;
            }
            let [a, b] = ["a", "b"].map(|side| {
                let url = row[col(&format!("url_{side}"))].to_string();
                let html = er.join(&row[col(&format!("html_{side}"))]);
                scholar.pages.insert(url.clone(), html);
                url
            });
            if &row[col("label")] == "1" {
                scholar.duplicates.insert(in_order(a, b));
            }
        }
        assert!(
            scholar.duplicates.len() >= 20 && scholar.pages.len() > 100,
            "{}",
            scholar.pages.len()
        );
        scholar
    }

    /// A docs file of the pages each of `groups` takes, one group after the other.
    fn docs(&self, path: &std::path::Path, groups: &[&dyn Fn(&str) -> bool]) {
        let mut w = csv::Writer::from_path(path).unwrap();
        w.write_record(["url", "html"]).unwrap();
        for keep in groups {
            for (url, html) in self.pages.iter().filter(|(url, _)| keep(url)) {
                w.write_record([url.as_str(), &html.display().to_string()])
                    .unwrap();
            }
        }
        w.flush().unwrap();
    }
}

/// The pairs of a pair file (first two columns, in order) with the method that
/// found each (`records` when records alone found the pair).
fn pairs_in(file: &std::path::Path) -> std::collections::BTreeMap<(String, String), String> {
    let mut reader = csv::Reader::from_path(file).unwrap();
    let method = reader.headers().unwrap().iter().position(|h| h == "method");
    let method = method.expect("a method column");
    let rows = reader.records().map(Result::unwrap);
    rows.map(|r| (in_order(r[0].into(), r[1].into()), r[method].into()))
        .collect()
}

/// Two catalogues' pages of one paper share little text (another title's spelling,
/// authors abridged, a venue written out): fingerprints of their text find few of
/// them, what their records share (rare words of the names, identifiers) finds them,
/// as `candidates --records` and `dedupe` find them.
#[test]
fn catalogue_pages_of_one_record_are_found_by_what_their_records_share() {
    let scholar = ScholarPages::read();
    let dir = tempfile::tempdir().unwrap();
    let docs = dir.path().join("docs.csv");
    scholar.docs(&docs, &[&|_| true]);
    let found = |file: &std::path::Path| -> usize {
        let pairs = pairs_in(file);
        scholar
            .duplicates
            .iter()
            .filter(|p| pairs.contains_key(p))
            .count()
    };
    let candidates = |records: bool| -> usize {
        let out = dir.path().join(format!("candidates-{records}.csv"));
        let mut cmd = twinpage();
        cmd.args(["candidates", "--no-render", "--text", "both", "--docs"])
            .arg(&docs)
            .arg("--out")
            .arg(&out);
        if records {
            cmd.arg("--records");
        }
        run_ok(&mut cmd);
        found(&out)
    };
    let (by_text, with_records) = (candidates(false), candidates(true));
    let all = scholar.duplicates.len();
    assert!(by_text * 2 < all, "{by_text} of {all} by text alone");
    assert!(with_records * 10 >= all * 9, "{with_records} of {all}");
    // dedupe reads the records too.
    let run = dir.path().join("run");
    run_ok(
        twinpage()
            .args(["dedupe", "--no-render", "--until", "candidates", "--out"])
            .arg(&run)
            .arg(&docs),
    );
    assert_eq!(found(&run.join("candidates.csv")), with_records);
}

/// A crawler's index finds the record pairs of the pages it is given as a run over
/// every page would: half the catalogue pages stored, the other half added. (The
/// run reads the stored pages first, the index its new ones: of records equally
/// near, both keep those of the first URLs.)
#[test]
fn an_index_pairs_new_record_pages_as_a_run_over_all_pages_does() {
    let scholar = ScholarPages::read();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let later = |url: &str| url.bytes().map(u32::from).sum::<u32>() % 2 == 1;
    let first = |url: &str| !later(url);
    scholar.docs(&d.join("all.csv"), &[&first, &later]);
    scholar.docs(&d.join("first.csv"), &[&first]);
    scholar.docs(&d.join("later.csv"), &[&later]);
    let index = d.join("index");
    // The pairs an index command writes; its warnings go to `said`.
    let said = std::cell::RefCell::new(String::new());
    let index_run = |args: &[&str], docs: &str, out: &str| {
        let mut cmd = twinpage();
        cmd.args(["index"]).args(args).arg("--index").arg(&index);
        let (_, stderr) = run_ok(
            cmd.arg("--docs")
                .arg(d.join(docs))
                .arg("--out")
                .arg(d.join(out)),
        );
        *said.borrow_mut() = stderr;
        pairs_in(&d.join(out))
    };
    index_run(&["add", "--no-render"], "first.csv", "first-pairs.csv");
    let by_text = index_run(&["query", "--no-render"], "later.csv", "by-text.csv");
    let queried = index_run(&["query", "--no-render", "--records"], "later.csv", "q.csv");
    let added = index_run(
        &["add", "--no-render", "--records"],
        "later.csv",
        "added.csv",
    );
    run_ok(
        twinpage()
            .args(["candidates", "--no-render", "--records", "--docs"])
            .arg(d.join("all.csv"))
            .arg("--out")
            .arg(d.join("all-pairs.csv")),
    );
    let touching_later = |(a, b): &&(String, String)| later(a) || later(b);
    // Every pair records alone found over all pages, that takes a later page.
    let over_all = pairs_in(&d.join("all-pairs.csv"));
    let by_records = |pairs: &std::collections::BTreeMap<(String, String), String>| {
        let pairs = pairs.iter().filter(|(_, method)| *method == "records");
        pairs.map(|(pair, _)| pair.clone()).collect::<Vec<_>>()
    };
    let expected: Vec<_> = by_records(&over_all)
        .into_iter()
        .filter(|p| touching_later(&p))
        .collect();
    assert!(expected.len() > 20, "{expected:?}");
    let missed: Vec<_> = expected
        .iter()
        .filter(|p| !added.contains_key(*p))
        .collect();
    assert!(missed.is_empty(), "{missed:?}");
    let unexpected: Vec<_> = by_records(&added)
        .into_iter()
        .filter(|p| !over_all.contains_key(p))
        .collect();
    assert!(unexpected.is_empty(), "{unexpected:?}");
    assert!(queried.keys().all(|p| added.contains_key(p)));
    let found = |pairs: &std::collections::BTreeMap<_, _>| {
        let duplicates = scholar.duplicates.iter().filter(touching_later);
        duplicates.filter(|p| pairs.contains_key(*p)).count()
    };
    let all = scholar.duplicates.iter().filter(touching_later).count();
    assert!(found(&by_text) * 2 < all, "{} of {all}", found(&by_text));
    assert!(found(&added) * 10 >= all * 9, "{} of {all}", found(&added));
    // A later page itself is not its own pair once stored.
    let again = index_run(
        &["query", "--no-render", "--records"],
        "later.csv",
        "again.csv",
    );
    assert!(again.keys().all(|(a, b)| a != b), "{again:?}");
    // Segments written before records were kept are said to be paired by text alone.
    for entry in fs::read_dir(index.join("segments")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "records") {
            fs::remove_file(path).unwrap();
        }
    }
    index_run(
        &["query", "--no-render", "--records"],
        "later.csv",
        "old.csv",
    );
    let stderr = said.borrow();
    let stored = scholar.pages.len();
    assert!(
        stderr.contains(&format!("{stored} stored documents were added before")),
        "{stderr}"
    );
}
