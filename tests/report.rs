//! `twinpage report` end to end: the HTML file it writes for two models, by kind,
//! with the classic detectors, opened in a real headless Chromium: every chart is
//! an SVG that lays out, the page runs no script and logs no error, and a
//! screenshot of it is kept in the test's output folder.

mod chromium;
mod common;

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use base64::Engine as _;
use headless_chrome::protocol::cdp::types::Event;
use headless_chrome::protocol::cdp::Page;

/// Every `step`-th pair of the web test split, its paths made absolute so the
/// copy can live anywhere. The first pair's label is flipped: both models then have
/// a mistake for the report to show (on the sample as it is they may have none).
fn sample_of_test_split(out: &Path, step: usize) -> usize {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("training-data/web");
    let mut reader = csv::Reader::from_path(root.join("test.csv")).unwrap();
    let headers = reader.headers().unwrap().clone();
    let paths: Vec<usize> = ["html_a", "html_b", "rendered_a", "rendered_b"]
        .iter()
        .map(|c| headers.iter().position(|h| h == *c).unwrap())
        .collect();
    let label = headers.iter().position(|h| h == "label").unwrap();
    let mut writer = csv::Writer::from_path(out).unwrap();
    writer.write_record(&headers).unwrap();
    let mut kept = 0;
    for (i, record) in reader.records().enumerate() {
        if i % step != 0 {
            continue;
        }
        let record = record.unwrap();
        let row: Vec<String> = record
            .iter()
            .enumerate()
            .map(|(c, v)| {
                if paths.contains(&c) && !v.is_empty() {
                    root.join(v).display().to_string()
                } else if c == label && kept == 0 {
                    if v == "1" { "0" } else { "1" }.to_string()
                } else {
                    v.to_string()
                }
            })
            .collect();
        writer.write_record(&row).unwrap();
        kept += 1;
    }
    writer.flush().unwrap();
    kept
}

#[test]
fn the_report_of_two_models_renders_in_chromium_without_a_script_or_an_error() {
    // A fixed folder under target/, so the screenshot can be looked at after the run.
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("report-test");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let pairs = dir.join("sample.csv");
    let kept = sample_of_test_split(&pairs, 6);
    assert!(kept > 100, "{kept} pairs");
    let html = dir.join("report.html");
    let out = common::twinpage()
        .args(["report", "--pairs"])
        .arg(&pairs)
        .args([
            "--model",
            "models/default.json",
            "--model",
            "models/fetched-only.json",
            "--by",
            "kind",
            "--baselines",
            "--out",
        ])
        .arg(&html)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "report failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let page = std::fs::read_to_string(&html).unwrap();
    // Self-contained: no script, nothing fetched from elsewhere.
    assert!(!page.contains("<script"), "the report carries a script");
    for outside in ["http://", "https://", "src=", "<link"] {
        let found = page
            .match_indices(outside)
            // The SVG namespace is a name, not something fetched.
            .filter(|(i, _)| !page[*i..].starts_with("http://www.w3.org/2000/svg"))
            .count();
        assert_eq!(found, 0, "the report refers to `{outside}`");
    }
    for part in [
        "id=\"curves\"",
        "id=\"trade-off\"",
        "id=\"reliability\"",
        "id=\"confusion\"",
        "id=\"groups\"",
        "id=\"signals\"",
        "id=\"baselines\"",
        "id=\"mistakes\"",
        "twinpage explain --pairs",
        "models/fetched-only.json --no-render",
        "ECE",
    ] {
        assert!(page.contains(part), "the report lacks {part}");
    }
    // No temporary file left beside it.
    let left: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert!(left.is_empty(), "temporary files left: {left:?}");

    let browser = chromium::browser(Some((1280, 900)));
    let tab = browser.new_tab().unwrap();
    tab.enable_log().unwrap().enable_runtime().unwrap();
    let problems: Arc<Mutex<Vec<String>>> = Arc::default();
    let seen = Arc::clone(&problems);
    tab.add_event_listener(Arc::new(move |event: &Event| {
        let problem = match event {
            Event::RuntimeExceptionThrown(e) => {
                Some(format!("exception: {}", e.params.exception_details.text))
            }
            Event::LogEntryAdded(e) => {
                let entry = &e.params.entry;
                let level = format!("{:?}", entry.level);
                (level == "Error").then(|| format!("log error: {}", entry.text))
            }
            Event::RuntimeConsoleAPICalled(e) => {
                let kind = format!("{:?}", e.params.Type);
                (kind == "Error").then(|| format!("console error: {:?}", e.params.args))
            }
            _ => None,
        };
        if let Some(p) = problem {
            seen.lock().unwrap().push(p);
        }
    }))
    .unwrap();
    let url = format!("file://{}", html.display());
    tab.navigate_to(&url)
        .unwrap()
        .wait_until_navigated()
        .unwrap();
    let number = |js: &str| {
        tab.evaluate(js, false)
            .unwrap()
            .value
            .and_then(|v| v.as_f64())
            .unwrap_or(-1.0)
    };
    assert_eq!(number("document.scripts.length"), 0.0);
    // PR, ROC, trade-off, two reliability diagrams, two importance and two split
    // charts at least; every one laid out with a size.
    let svgs = number("document.querySelectorAll('svg').length");
    assert!(svgs >= 9.0, "{svgs} SVGs");
    let empty = number(
        "[...document.querySelectorAll('svg')].filter(s => { const r = s.getBoundingClientRect(); \
         return r.width < 100 || r.height < 100 || s.querySelectorAll('text').length == 0; }).length",
    );
    assert_eq!(empty, 0.0, "SVGs without size or text");
    let charted = number(
        "[...document.querySelectorAll('svg')].filter(s => s.querySelectorAll('polyline, path, rect, circle').length > 3).length",
    );
    assert_eq!(charted, svgs, "SVGs without drawing");
    // The page's width holds its content: nothing pushes it sideways.
    assert!(number("document.documentElement.scrollWidth") <= 1280.0);

    // The listener hears errors: a probe is its only one.
    tab.evaluate("console.error('probe')", false).unwrap();
    std::thread::sleep(Duration::from_millis(300));
    let problems = problems.lock().unwrap().clone();
    assert_eq!(
        problems.len(),
        1,
        "errors while showing the report: {problems:?}"
    );
    assert!(problems[0].contains("probe"), "{problems:?}");

    let height = number("document.documentElement.scrollHeight");
    assert!(height > 2000.0, "page height {height}");
    let shot = tab
        .call_method(Page::CaptureScreenshot {
            format: Some(Page::CaptureScreenshotFormatOption::Png),
            quality: None,
            clip: Some(Page::Viewport {
                x: 0.0,
                y: 0.0,
                width: 1280.0,
                height,
                scale: 1.0,
            }),
            from_surface: Some(true),
            capture_beyond_viewport: Some(true),
            optimize_for_speed: None,
        })
        .unwrap()
        .data;
    let png = base64::engine::general_purpose::STANDARD
        .decode(shot)
        .unwrap();
    assert!(png.starts_with(b"\x89PNG"));
    let shot_path = dir.join("report.png");
    std::fs::write(&shot_path, &png).unwrap();
    eprintln!("screenshot: {}", shot_path.display());
}
