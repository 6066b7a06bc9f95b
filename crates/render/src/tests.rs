//! These tests drive the real Chromium (the headless shell, `/usr/bin/chromium`, or
//! TWINPAGE_CHROMIUM).

use crate::cache::RenderCache;
use crate::options::{RenderOptions, ServePolicy};
use crate::process::processes_mentioning;
use crate::rendered::Rendered;
use crate::renderer::Renderer;
use std::io::Write;
use std::net::TcpListener;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// A folder holding the given files.
fn site(files: &[(&str, &[u8])]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temporary folder");
    for (name, content) in files {
        std::fs::write(dir.path().join(name), content).expect("write a test file");
    }
    dir
}

fn renderer(deadline_secs: u64, tabs: usize) -> Renderer {
    start(RenderOptions {
        deadline: Duration::from_secs(deadline_secs),
        tabs,
        ..RenderOptions::default()
    })
}

fn start(options: RenderOptions) -> Renderer {
    Renderer::start(options).expect("Chromium starts (apt-get install -y chromium-headless-shell)")
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(bytes).expect("gzip in memory");
    encoder.finish().expect("gzip in memory")
}

/// Loads until the deadline: every script writes the next one, so the parser never
/// finishes, `load` never fires and the network is never idle.
const ENDLESS_PAGE: &[u8] = b"<!doctype html><html><body><p>kept from before the hang</p>\
    <script src=\"chain.js\"></script><p>never parsed</p></body></html>";
const CHAIN_JS: &[u8] =
    b"document.write('<script src=\"chain.js?' + Math.random() + '\"><\\/script>');";

const PLAIN_PAGE: &[u8] = b"<!doctype html><html><body><p>an ordinary page</p></body></html>";

#[test]
fn script_inserted_paragraphs_are_in_the_rendered_body() {
    let page = br#"<!doctype html><html><head><title>t</title></head><body>
        <p>served paragraph</p>
        <script>
          document.body.insertAdjacentHTML('beforeend', '<p>inserted at load</p>');
          setTimeout(() => document.body.insertAdjacentHTML('beforeend',
                                                             '<p>inserted after 300 ms</p>'), 300);
        </script></body></html>"#;
    let dir = site(&[("page.html", page)]);
    let document = dir.path().join("page.html");
    let rendered = renderer(10, 1).render(&document).expect("renders");
    for text in [
        "served paragraph",
        "inserted at load",
        "inserted after 300 ms",
    ] {
        assert!(
            rendered.synthetic_body.contains(text),
            "{text} missing from the DOM"
        );
        assert!(
            rendered.visible_text.contains(text),
            "{text} missing from innerText"
        );
    }
    assert!(rendered.synthetic_body.starts_with("<!DOCTYPE html><html>"));
    assert!(!rendered.cut_off);
    assert!(
        rendered.screenshot_png.is_empty(),
        "no screenshot unless asked"
    );

    let screenshots = RenderOptions {
        tabs: 1,
        screenshots: true,
        ..RenderOptions::default()
    };
    let shot = start(screenshots).render(&document).expect("renders");
    assert!(shot.screenshot_png.starts_with(b"\x89PNG\r\n\x1a\n"));
    assert_eq!(shot.visible_text, rendered.visible_text);
}

#[test]
fn a_page_finds_nothing_that_the_pages_before_it_in_its_tab_left() {
    // Each writes what it found, then leaves cookies, storage and a window behind.
    let page = br#"<!doctype html><html><body><p id="found"></p><script>
          document.getElementById('found').textContent = 'found cookies [' + document.cookie +
            '] storage [' + Object.keys(localStorage).join() + '] session [' +
            Object.keys(sessionStorage).join() + ']';
          document.cookie = 'left=1; path=/';
          document.cookie = 'shared=1; domain=localhost; path=/';
          localStorage.setItem('left', '1');
          sessionStorage.setItem('left', '1');
          window.open('about:blank#left-open');
        </script></body></html>"#;
    let dir = site(&[("one.html", page), ("two.html", page)]);
    let renderer = renderer(10, 1);
    for name in ["one.html", "two.html", "one.html"] {
        let rendered = renderer.render(&dir.path().join(name)).expect("renders");
        assert!(
            rendered
                .visible_text
                .contains("found cookies [] storage [] session []"),
            "{name}: {}",
            rendered.visible_text
        );
    }
}

#[test]
fn content_that_waits_for_frames_or_fades_in_is_visible() {
    // Frameworks schedule work on animation frames; lazy sections appear when an
    // intersection observer (run in a frame) sees them; text fades in by CSS, the
    // Web Animations API or a script stepping on animation frames. A renderer that
    // saved CPU by making no frames (the headless shell can) would lose all of it.
    let page = br#"<!doctype html><html><head><style>
          @keyframes fade { from { opacity: 0 } to { opacity: 1 } }
          .css { animation: fade 200ms forwards; opacity: 0 }
        </style></head><body><p>served</p><div id="lazy">placeholder</div>
        <p class="css">faded in by css</p>
        <p id="waapi" style="opacity: 0">faded in by web animations</p>
        <p id="stepped" style="opacity: 0">faded in on animation frames</p>
        <script>
          requestAnimationFrame(() => requestAnimationFrame(() =>
            document.body.insertAdjacentHTML('beforeend', '<p>two frames later</p>')));
          new IntersectionObserver((seen) => {
            if (seen[0].isIntersecting) document.getElementById('lazy').textContent = 'seen section';
          }).observe(document.getElementById('lazy'));
          document.getElementById('waapi').animate([{ opacity: 0 }, { opacity: 1 }],
                                                   { duration: 200, fill: 'forwards' });
          const stepped = document.getElementById('stepped'), start = performance.now();
          const step = (now) => {
            stepped.style.opacity = Math.min(1, (now - start) / 200);
            if (now - start < 200) requestAnimationFrame(step);
          };
          requestAnimationFrame(step);
        </script></body></html>"#;
    let dir = site(&[("page.html", page)]);
    let rendered = renderer(10, 1)
        .render(&dir.path().join("page.html"))
        .expect("renders");
    let seen = &rendered.visible_text;
    for text in [
        "served",
        "two frames later",
        "seen section",
        "faded in by css",
        "faded in by web animations",
        "faded in on animation frames",
    ] {
        assert!(seen.contains(text), "{text} missing: {seen}");
    }
    assert!(!seen.contains("placeholder"));
    assert!(
        rendered.hidden_text_share < 0.01,
        "{}",
        rendered.hidden_text_share
    );
}

#[test]
fn a_utf8_page_without_a_declared_charset_renders_as_it_is_read() {
    // Long enough for the statistical guess to see UTF-8; no <meta charset>.
    let text = "Größe und Gemüse über Straßen: schöne Brücken, grüne Wälder. ".repeat(8);
    let page = format!("<!doctype html><html><body><p>{text}</p></body></html>");
    let dir = site(&[("page.html", page.as_bytes())]);
    let rendered = renderer(10, 1)
        .render(&dir.path().join("page.html"))
        .expect("renders");
    assert!(
        rendered.visible_text.contains("Größe und Gemüse"),
        "{}",
        rendered.visible_text
    );
}

#[test]
fn a_gzipped_page_fetches_its_sibling_file() {
    let page = br#"<!doctype html><html><body><div id="out">waiting</div><script>
        fetch('data.json').then(response => response.json()).then(data => {
          document.getElementById('out').textContent = data.message;
        });
        </script></body></html>"#;
    let data = br#"{"message": "content from the sibling file"}"#;
    let dir = site(&[("page.html.gz", &gzip(page)), ("data.json", data)]);
    let rendered = renderer(10, 1)
        .render(&dir.path().join("page.html.gz"))
        .expect("renders");
    assert!(rendered
        .visible_text
        .contains("content from the sibling file"));
    assert!(!rendered.visible_text.contains("waiting"));
    assert!(!rendered.cut_off);
}

#[test]
fn content_a_startup_timer_fetches_is_rendered_and_a_timer_loop_does_not_hold_the_render() {
    // An app shell that asks for its article after a pause (the network is quiet
    // longer than the render waits for it), and a ticker that re-arms itself forever.
    let page = br#"<!doctype html><html><body><div id="out">Please wait</div>
        <p id="ticks">0</p><script>
        document.addEventListener('DOMContentLoaded', () => setTimeout(() => {
          fetch('article.json').then(r => r.json()).then(data => {
            document.getElementById('out').textContent = data.text;
          });
        }, 900));
        (function tick() {
          const ticks = document.getElementById('ticks');
          ticks.textContent = Number(ticks.textContent) + 1;
          setTimeout(tick, 300);
        })();
        </script></body></html>"#;
    let data = br#"{"text": "the article the shell fetched"}"#;
    let dir = site(&[("page.html", page), ("article.json", data)]);
    let rendered = renderer(10, 1)
        .render(&dir.path().join("page.html"))
        .expect("renders");
    let seen = &rendered.visible_text;
    assert!(seen.contains("the article the shell fetched"), "{seen}");
    assert!(
        !rendered.cut_off,
        "the ticker held the render to its deadline"
    );
}

#[test]
fn a_page_cannot_read_the_dotfiles_beside_it() {
    let page = br#"<!doctype html><html><body><div id="out">read:</div><script>
        for (const name of ['.env', '.ssh/id_rsa', 'data.json']) {
          fetch(name).then(r => r.ok ? r.text() : 'refused ' + name).then(text => {
            document.getElementById('out').textContent += ' ' + text;
          });
        }
        </script></body></html>"#;
    let dir = site(&[
        ("page.html", page),
        (".env", b"API_TOKEN=dotenv-secret"),
        ("data.json", b"sibling-content"),
    ]);
    std::fs::create_dir(dir.path().join(".ssh")).expect("creates .ssh");
    std::fs::write(dir.path().join(".ssh/id_rsa"), "ssh-private-key").expect("writes a key");
    let rendered = renderer(10, 1)
        .render(&dir.path().join("page.html"))
        .expect("renders");
    let seen = &rendered.visible_text;
    assert!(seen.contains("sibling-content"), "{seen}");
    assert!(
        seen.contains("refused .env") && seen.contains("refused .ssh/id_rsa"),
        "{seen}"
    );
    assert!(!rendered.synthetic_body.contains("secret") && !seen.contains("private"));
}

#[test]
fn serving_none_gives_a_page_nothing_but_itself() {
    let page = br#"<!doctype html><html><body><div id="out">read:</div><script>
        fetch('data.json').then(r => r.ok ? r.text() : 'refused ' + r.status).then(text => {
          document.getElementById('out').textContent += ' ' + text;
        });
        </script></body></html>"#;
    let dir = site(&[("page.html", page), ("data.json", b"sibling-content")]);
    let renderer = start(RenderOptions {
        tabs: 1,
        serve: ServePolicy::DocumentOnly,
        ..RenderOptions::default()
    });
    let rendered = renderer
        .render(&dir.path().join("page.html"))
        .expect("renders");
    let seen = &rendered.visible_text;
    assert!(seen.contains("refused 404"), "{seen}");
    assert!(!rendered.synthetic_body.contains("sibling-content"));
}

#[test]
fn a_page_that_never_finishes_loading_is_cut_off_and_the_next_render_works() {
    let dir = site(&[
        ("endless.html", ENDLESS_PAGE),
        ("chain.js", CHAIN_JS),
        ("plain.html", PLAIN_PAGE),
    ]);
    let renderer = renderer(2, 1);
    let started = Instant::now();
    let endless = renderer
        .render(&dir.path().join("endless.html"))
        .expect("renders");
    let took = started.elapsed();
    assert!(endless.cut_off);
    assert!(endless.visible_text.contains("kept from before the hang"));
    assert!(
        took >= Duration::from_secs(2) && took < Duration::from_secs(8),
        "took {took:?}"
    );

    let plain = renderer
        .render(&dir.path().join("plain.html"))
        .expect("renders");
    assert!(!plain.cut_off);
    assert!(plain.visible_text.contains("an ordinary page"));
}

#[test]
fn a_page_that_sends_itself_elsewhere_while_loading_renders_its_own_content() {
    // Common on real pages: a head script "upgrading" a page it thinks was served over
    // http, or sending it to its canonical host; rarer, a form sent while loading. Such
    // a navigation cannot leave the tab; the page must still parse, load and be
    // measured, not hang to the deadline.
    let upgrade = br#"<!doctype html><html><head><script>
        if (document.location.protocol != "https:") {
          document.location = document.URL.replace(/^http:/i, "https:");
        }</script></head><body><p>the article under an upgrade script</p></body></html>"#;
    let canonical = br#"<!doctype html><html><head><script>
        location.href = "https://www.example.com/the-canonical-address";
        </script></head><body><p>the article under a canonical-host script</p></body></html>"#;
    let submitted = br#"<!doctype html><html><body>
        <form id="f" action="https://tracker.example/hit" method="post"></form>
        <script>document.getElementById("f").submit();</script>
        <p>the article under a form sent by script</p></body></html>"#;
    let clicked = br#"<!doctype html><html><body>
        <form action="https://tracker.example/hit"><button id="b">go</button></form>
        <script>document.getElementById("b").click();</script>
        <p>the article under a form sent by a click</p></body></html>"#;
    let pages: [(&str, &[u8], &str); 4] = [
        (
            "upgrade.html",
            upgrade,
            "the article under an upgrade script",
        ),
        (
            "canonical.html",
            canonical,
            "the article under a canonical-host script",
        ),
        (
            "submitted.html",
            submitted,
            "the article under a form sent by script",
        ),
        (
            "clicked.html",
            clicked,
            "the article under a form sent by a click",
        ),
    ];
    let files: Vec<(&str, &[u8])> = pages.iter().map(|(name, page, _)| (*name, *page)).collect();
    let dir = site(&files);
    let renderer = renderer(5, 1);
    for (name, _, text) in pages {
        let started = Instant::now();
        let rendered = renderer.render(&dir.path().join(name)).expect("renders");
        assert!(rendered.visible_text.contains(text), "{name}: {rendered:?}");
        assert!(!rendered.cut_off, "{name} waited for its deadline");
        assert!(started.elapsed() < Duration::from_secs(4), "{name}");
    }
}

#[test]
fn a_script_that_never_yields_is_interrupted_and_the_page_kept() {
    let page = b"<!doctype html><html><body><p>written before the loop</p>\
        <script>setTimeout(() => { for (;;) {} }, 100);</script></body></html>";
    let dir = site(&[("busy.html", page), ("plain.html", PLAIN_PAGE)]);
    let renderer = renderer(2, 1);
    let busy = renderer
        .render(&dir.path().join("busy.html"))
        .expect("renders");
    assert!(busy.visible_text.contains("written before the loop"));
    let plain = renderer
        .render(&dir.path().join("plain.html"))
        .expect("renders");
    assert!(plain.visible_text.contains("an ordinary page"));
}

#[test]
fn a_page_refuses_other_hosts_itself_and_still_loads_its_siblings() {
    // Requests to other hosts are refused in the page (its policy), so the tens a
    // real page makes never cost a round trip through the browser and twinpage.
    let page = br#"<!doctype html><html><body><ul id="out"></ul>
        <script>
          const report = text => document.getElementById('out')
              .insertAdjacentHTML('beforeend', '<li>' + text + '</li>');
          document.addEventListener('securitypolicyviolation',
              event => report('refused ' + event.blockedURI));
          fetch('data.txt').then(r => r.text()).then(text => report('sibling ' + text));
          const image = new Image();
          image.src = 'http://images.example.net/a.png';
          const script = document.createElement('script');
          script.src = 'https://cdn.example.org/app.js';
          document.body.appendChild(script);
        </script></body></html>"#;
    let dir = site(&[("page.html", page), ("data.txt", b"arrived")]);
    let rendered = renderer(10, 1)
        .render(&dir.path().join("page.html"))
        .expect("renders");
    let seen = &rendered.visible_text;
    assert!(seen.contains("sibling arrived"), "{seen}");
    // The page is https: its http image is upgraded (mixed content), then refused.
    assert!(
        seen.contains("refused https://images.example.net/a.png"),
        "{seen}"
    );
    assert!(
        seen.contains("refused https://cdn.example.org/app.js"),
        "{seen}"
    );
    assert!(
        !seen.contains("refused https://t"),
        "its own origin was refused: {seen}"
    );
}

#[test]
fn nothing_gets_out_but_the_pages_own_files() {
    // Another loopback port stands for "outside": it must see no connection at all.
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind a loopback port");
    listener
        .set_nonblocking(true)
        .expect("nonblocking listener");
    let port = listener.local_addr().expect("local address").port();
    let page = format!(
        r#"<!doctype html><html><body><h1>outcomes</h1><ul id="out"></ul>
        <form id="form" method="post" action="http://10.1.2.3/submit"><input name="q" value="1"></form>
        <script>
          const report = (name, outcome) => document.getElementById('out')
              .insertAdjacentHTML('beforeend', '<li>' + name + ': ' + outcome + '</li>');
          const probe = (name, url) => fetch(url)
              .then(() => report(name, 'reached'), () => report(name, 'failed'));
          probe('hostname', 'http://example.com/x');
          probe('listener', 'http://127.0.0.1:{port}/x');
          probe('localhost', 'http://localhost:{port}/x');
          const image = new Image();
          image.onload = () => report('image', 'reached');
          image.onerror = () => report('image', 'failed');
          image.src = 'http://93.184.216.34/a.png';
          const socket = new WebSocket('ws://127.0.0.1:{port}/');
          socket.onopen = () => report('websocket', 'reached');
          socket.onerror = () => report('websocket', 'failed');
          setTimeout(() => document.getElementById('form').submit(), 100);
        </script></body></html>"#
    );
    let dir = site(&[("probe.html", page.as_bytes())]);
    let renderer = renderer(10, 1);
    let (connections, stop) = (AtomicUsize::new(0), AtomicBool::new(false));
    let rendered = std::thread::scope(|scope| {
        scope.spawn(|| {
            while !stop.load(Ordering::SeqCst) {
                match listener.accept() {
                    Ok(_) => _ = connections.fetch_add(1, Ordering::SeqCst),
                    Err(_) => std::thread::sleep(Duration::from_millis(5)),
                }
            }
        });
        let rendered = renderer.render(&dir.path().join("probe.html"));
        stop.store(true, Ordering::SeqCst);
        rendered.expect("renders")
    });
    assert_eq!(
        connections.load(Ordering::SeqCst),
        0,
        "a request reached port {port}"
    );
    // The form's POST elsewhere was answered "no content": the tab stayed on the page.
    assert!(
        rendered.visible_text.contains("outcomes"),
        "{}",
        rendered.visible_text
    );
    for probe in ["hostname", "listener", "localhost", "image", "websocket"] {
        let line = format!("{probe}: failed");
        assert!(
            rendered.visible_text.contains(&line),
            "{line} missing: {}",
            rendered.visible_text
        );
    }
    assert!(!rendered.visible_text.contains("reached"));
}

#[test]
fn hidden_keyword_stuffing_shows_as_hidden_text() {
    let stuffing = "cheap flights hotel deals ".repeat(40);
    let stuffed = format!(
        "<!doctype html><html><body><p>A short article about travelling by train.</p>\
         <div style=\"display:none\">{stuffing}</div>\
         <span style=\"visibility:hidden\">{stuffing}</span></body></html>"
    );
    let clean = b"<!doctype html><html><body><p>A short article about travelling by train.</p>\
        <script>var notText = 'script source is not page text';</script></body></html>";
    let dir = site(&[("stuffed.html", stuffed.as_bytes()), ("clean.html", clean)]);
    let documents = [
        dir.path().join("stuffed.html"),
        dir.path().join("clean.html"),
    ];
    let results = renderer(10, 2).render_all(&documents, &|| {});
    let stuffed = results[0].as_ref().expect("renders");
    let clean = results[1].as_ref().expect("renders");
    assert!(
        stuffed.hidden_text_share > 0.3,
        "{}",
        stuffed.hidden_text_share
    );
    assert!(
        clean.hidden_text_share < 0.05,
        "{}",
        clean.hidden_text_share
    );
    assert!(!stuffed.visible_text.contains("cheap flights"));
}

#[test]
fn a_page_hidden_whole_until_another_hosts_script_runs_is_measured_as_a_reader_sees_it() {
    // Anti-flicker snippets: the script that would show the page comes from another
    // host (refused), or a timer shows it after seconds a render does not wait.
    let hidden_root = br#"<!doctype html><html><head>
        <style>html{visibility:hidden;opacity:0;transition:opacity 1s}</style>
        <script src="https://cdn.example.org/show-the-page.js"></script></head>
        <body><p>an article behind a stylesheet that hides the page</p></body></html>"#;
    let async_hide = br#"<!doctype html><html class="async-hide"><head>
        <style>.async-hide{opacity:0 !important}</style>
        <script>setTimeout(() => document.documentElement.className = '', 4000);</script>
        </head><body><p>an article behind a class that hides the page</p></body></html>"#;
    let dir = site(&[("root.html", hidden_root), ("class.html", async_hide)]);
    let documents = [dir.path().join("root.html"), dir.path().join("class.html")];
    let results = renderer(10, 2).render_all(&documents, &|| {});
    for (result, text) in results.iter().zip([
        "an article behind a stylesheet that hides the page",
        "an article behind a class that hides the page",
    ]) {
        let rendered = result.as_ref().expect("renders");
        assert!(rendered.visible_text.contains(text), "{rendered:?}");
        assert!(rendered.hidden_text_share < 0.05, "{rendered:?}");
        assert!(rendered.text_area > 0.0, "{rendered:?}");
        // The synthetic body is the page's DOM, not what measuring did to it.
        assert!(!rendered.synthetic_body.contains("style="), "{rendered:?}");
    }
    let class = results[1].as_ref().expect("renders");
    assert!(class
        .synthetic_body
        .contains(r#"<html class="async-hide">"#));
}

#[test]
fn text_hidden_by_layout_or_colour_is_not_visible_text() {
    let hiders = [
        "position:absolute;left:-9999px;top:-9999px;width:800px",
        "text-indent:-10000px;overflow:hidden;height:1px;white-space:nowrap",
        "font-size:0;line-height:0",
        "color:#ffffff;background-color:#ffffff;font-size:2px",
        "color:#fefefe",
        "position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)",
        "height:0;overflow:hidden",
        "opacity:0.01",
    ];
    let blocks: String = hiders
        .iter()
        .map(|style| format!("<div style=\"{style}\">cheap flights hotel deals</div>"))
        .collect();
    let stuffed = format!(
        "<!doctype html><html><body><p>A short article about travelling by train.</p>\
         {blocks}</body></html>"
    );
    // Light text on a dark page is seen, however close it is to white.
    let dark = b"<!doctype html><html><body style=\"background:#111\">\
        <p style=\"color:#fff\">Night trains run twice a week.</p></body></html>";
    let dir = site(&[("stuffed.html", stuffed.as_bytes()), ("dark.html", dark)]);
    let documents = [
        dir.path().join("stuffed.html"),
        dir.path().join("dark.html"),
    ];
    let results = renderer(10, 2).render_all(&documents, &|| {});
    let stuffed = results[0].as_ref().expect("renders");
    let dark = results[1].as_ref().expect("renders");
    assert!(stuffed.visible_text.contains("travelling by train"));
    assert!(
        !stuffed.visible_text.contains("cheap"),
        "{:?}",
        stuffed.visible_text
    );
    assert!(stuffed.synthetic_body.contains("cheap flights"));
    assert!(
        stuffed.hidden_text_share > 0.7,
        "{}",
        stuffed.hidden_text_share
    );
    assert!(dark.visible_text.contains("Night trains"));
    assert!(dark.hidden_text_share < 0.05, "{}", dark.hidden_text_share);
}

#[test]
fn a_big_image_covers_the_page_and_text_does_not() {
    const PIXEL: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
    let picture = format!(
        "<!doctype html><html><body style=\"margin:0\">\
         <img src=\"data:image/png;base64,{PIXEL}\" width=\"800\" height=\"600\"><p>caption</p>\
         </body></html>"
    );
    let drawing = b"<!doctype html><html><body style=\"margin:0\">\
        <svg width=\"800\" height=\"600\"><rect width=\"800\" height=\"600\" fill=\"teal\"/></svg>\
        </body></html>";
    let text = format!(
        "<!doctype html><html><body>{}</body></html>",
        "<p>Only words on this page, line after line of them.</p>".repeat(10)
    );
    let dir = site(&[
        ("picture.html", picture.as_bytes()),
        ("drawing.html", drawing),
        ("text.html", text.as_bytes()),
    ]);
    let documents = ["picture.html", "drawing.html", "text.html"].map(|name| dir.path().join(name));
    let done = AtomicUsize::new(0);
    let results = renderer(10, 2).render_all(&documents, &|| {
        done.fetch_add(1, Ordering::SeqCst);
    });
    assert_eq!(done.load(Ordering::SeqCst), 3);
    let [picture, drawing, text] = [0, 1, 2].map(|i| results[i].as_ref().expect("renders"));
    assert_eq!(picture.image_count, 1);
    assert!(picture.image_area > 0.3, "{}", picture.image_area);
    assert!(drawing.image_area > 0.3, "{}", drawing.image_area);
    assert_eq!(drawing.image_count, 0);
    assert!(text.image_area < 0.01, "{}", text.image_area);
    assert!(
        text.text_area > 0.01 && text.text_area > picture.text_area,
        "{}",
        text.text_area
    );
}

#[test]
fn the_cache_round_trips_and_keys_follow_the_content() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let cache =
        RenderCache::open(&dir.path().join("render"), ServePolicy::Siblings).expect("opens");
    let key_of = |bytes: &[u8]| cache.key(blake3::hash(bytes).as_bytes());
    let key = key_of(b"<p>one</p>");
    assert_eq!(key, key_of(b"<p>one</p>"));
    assert_ne!(key, key_of(b"<p>two</p>"));
    assert!(cache.get(&key).is_none());
    let rendered = Rendered {
        synthetic_body: "<html><body><p>one</p></body></html>".into(),
        visible_text: "one".into(),
        image_count: 2,
        image_area: 0.25,
        text_area: 0.125,
        hidden_text_share: 0.5,
        cut_off: true,
        screenshot_png: b"\x89PNG not really".to_vec(),
    };
    cache.put(&key, &rendered).expect("stores");
    assert_eq!(
        cache.screenshot(&key).as_deref(),
        Some(&rendered.screenshot_png[..])
    );
    let without_screenshot = Rendered {
        screenshot_png: Vec::new(),
        ..rendered
    };
    assert_eq!(cache.get(&key), Some(without_screenshot));
    let json = std::fs::read_to_string(
        dir.path()
            .join("render")
            .join(&key[..2])
            .join(format!("{key}.json")),
    )
    .expect("the JSON entry");
    assert!(
        !json.contains("screenshot"),
        "the screenshot is a file of its own"
    );
}

#[test]
fn a_listed_cache_finds_what_was_there_when_it_was_listed() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let folder = dir.path().join("render");
    let cache = RenderCache::open(&folder, ServePolicy::Siblings).expect("opens");
    let key_of = |bytes: &[u8]| cache.key(blake3::hash(bytes).as_bytes());
    let (rendered_key, failed_key, later_key) = (key_of(b"one"), key_of(b"two"), key_of(b"3"));
    let rendered = Rendered {
        synthetic_body: "<p>one</p>".into(),
        visible_text: "one".into(),
        image_count: 0,
        image_area: 0.0,
        text_area: 0.5,
        hidden_text_share: 0.0,
        cut_off: false,
        screenshot_png: Vec::new(),
    };
    cache.put(&rendered_key, &rendered).expect("stores");
    cache.put_failure(&failed_key, "deadline").expect("stores");
    let listed = RenderCache::open(&folder, ServePolicy::Siblings)
        .and_then(RenderCache::listed)
        .expect("lists");
    cache.put(&later_key, &rendered).expect("stores");
    assert_eq!(listed.get(&rendered_key), Some(rendered));
    assert_eq!(listed.failure(&failed_key).as_deref(), Some("deadline"));
    assert!(listed.failure(&rendered_key).is_none());
    assert!(listed.get(&later_key).is_none(), "stored after the listing");
    assert!(
        cache.get(&later_key).is_some(),
        "an unlisted cache reads the disk"
    );
}

/// The process group of `pid` while it lives (not a zombie). The headless shell's
/// zygotes and renderers do not name the profile on their command line, but stay in
/// their browser's group.
fn live_group(pid: i32) -> Option<i32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // After the parenthesised name: state, parent, process group.
    let (_, rest) = stat.rsplit_once(')')?;
    let mut fields = rest.split_whitespace();
    let state = fields.next()?;
    (state != "Z")
        .then(|| fields.nth(1)?.parse().ok())
        .flatten()
}

/// Live processes in any of `groups`.
fn in_groups(groups: &[i32]) -> Vec<i32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|entry| entry.file_name().to_str()?.parse::<i32>().ok())
        .filter(|&pid| live_group(pid).is_some_and(|group| groups.contains(&group)))
        .collect()
}

/// The processes of the browsers named by `marker` and of their groups that are still
/// alive after up to 3 s.
fn survivors(marker: &str, groups: &[i32]) -> Vec<i32> {
    let started = Instant::now();
    loop {
        let mut alive = processes_mentioning(marker);
        alive.extend(in_groups(groups));
        if alive.is_empty() || started.elapsed() > Duration::from_secs(3) {
            return alive;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_crashed_browser_is_replaced_and_no_process_outlives_the_renderer() {
    let dir = site(&[
        ("endless.html", ENDLESS_PAGE),
        ("chain.js", CHAIN_JS),
        ("one.html", PLAIN_PAGE),
        ("two.html", PLAIN_PAGE),
    ]);
    let renderer = renderer(3, 1);
    let marker = renderer.marker();
    let browser_groups = || -> Vec<i32> {
        processes_mentioning(&marker)
            .into_iter()
            .filter_map(live_group)
            .collect()
    };
    let mut groups = browser_groups();
    assert!(
        in_groups(&groups).len() > 2,
        "a browser and its children run"
    );
    let documents = ["endless.html", "one.html", "two.html"].map(|name| dir.path().join(name));
    let results = std::thread::scope(|scope| {
        // Crash the browser while it renders the first page: kill its main process.
        scope.spawn(|| {
            std::thread::sleep(Duration::from_secs(1));
            for pid in processes_mentioning(&marker) {
                let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
                if !String::from_utf8_lossy(&cmdline).contains("--type=") {
                    // SAFETY: kill(2) on a pid just read from /proc.
                    unsafe { libc::kill(pid, libc::SIGKILL) };
                }
            }
        });
        renderer.render_all(&documents, &|| {})
    });
    assert!(
        results[0].is_err(),
        "the page whose browser died is an error"
    );
    for result in &results[1..] {
        assert!(result
            .as_ref()
            .expect("renders")
            .visible_text
            .contains("an ordinary page"));
    }
    groups.extend(browser_groups());
    drop(renderer);
    assert_eq!(
        survivors(&marker, &groups),
        Vec::<i32>::new(),
        "Chromium processes outlived the renderer"
    );
}

#[test]
fn a_missing_chromium_says_how_to_install_it() {
    let options = RenderOptions {
        chromium: PathBuf::from("/nonexistent/chromium"),
        ..RenderOptions::default()
    };
    let error = Renderer::start(options).err().expect("no browser there");
    assert!(
        error.to_string().contains("apt-get install -y chromium"),
        "{error}"
    );
}

/// The crawl fixtures (`tests/crawls/`, written by wget and warcio).
fn crawl_fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/crawls")
        .join(name)
}

#[test]
fn a_page_from_a_crawl_runs_the_script_archived_with_it_and_a_lone_copy_does_not() {
    use crate::replay::ReplayOf;
    let mut app = None;
    let unzipped = tempfile::tempdir().expect("temporary folder");
    let read = |input: PathBuf, each: &mut dyn FnMut(twinpage_crawl::Page)| {
        twinpage_crawl::read_crawl(&[input], unzipped.path(), |page| {
            each(page);
            Ok(())
        })
        .expect("the crawl reads")
    };
    let crawl = read(crawl_fixture("wget.warc.gz"), &mut |page| {
        if page.url.ends_with("/app.html") {
            app = Some(page);
        }
    });
    let app = app.expect("the crawl holds app.html");
    // The page's own script is `/static/app.js?v=123`, archived beside it.
    assert!(String::from_utf8_lossy(&app.body).contains("/static/app.js?v=123"));
    let dir = site(&[("app.html", &app.body)]);
    let document = dir.path().join("app.html");
    let replay = ReplayOf {
        url: app.url.clone(),
        archive: std::sync::Arc::new(twinpage_crawl::Index::new(&crawl)),
        archive_id: "wget.warc.gz".into(),
    };
    let renderer = renderer(10, 1);
    let replayed = renderer.replay(&document, &replay).expect("replays");
    assert!(
        replayed
            .visible_text
            .contains("Old rail bridge to close for six weeks"),
        "{}",
        replayed.visible_text
    );
    // The same crawl gzipped as one stream (`gzip crawl.warc`), whose script is
    // read from the copy unzipped once.
    let one_stream = unzipped.path().join("one-stream.warc.gz");
    let mut gzip = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    std::io::Write::write_all(
        &mut gzip,
        &std::fs::read(crawl_fixture("wget-plain.warc")).unwrap(),
    )
    .unwrap();
    std::fs::write(&one_stream, gzip.finish().unwrap()).unwrap();
    let crawl = read(one_stream, &mut |_| {});
    assert!(crawl.files[0].unzipped().is_some(), "{:?}", crawl.files);
    let one_stream = ReplayOf {
        archive: std::sync::Arc::new(twinpage_crawl::Index::new(&crawl)),
        archive_id: "one-stream.warc.gz".into(),
        ..replay.clone()
    };
    let replayed = renderer.replay(&document, &one_stream).expect("replays");
    assert!(
        replayed.visible_text.contains("Old rail bridge to close"),
        "{}",
        replayed.visible_text
    );
    let lone = renderer.render(&document).expect("renders");
    assert!(
        !lone.visible_text.contains("Old rail bridge") && lone.visible_text.contains("Loading"),
        "{}",
        lone.visible_text
    );
    drop(renderer);
    // Through `supply`, as a run gets rendered bodies: the replayed render and the
    // lone one are cached apart, so neither stands in for the other.
    let cache = tempfile::tempdir().expect("temporary folder");
    let visible = |replays: crate::Replays| {
        let settings = crate::RenderSettings {
            cache: cache.path().to_path_buf(),
            options: RenderOptions::default(),
            retry_failed: false,
            replays,
        };
        let request = crate::Request {
            document: &document,
            stored: None,
            content_hash: None,
        };
        match crate::supply(&[request], &settings)
            .expect("supplies")
            .0
            .remove(0)
        {
            crate::RenderedBody::Measured(rendered) => rendered.visible_text,
            _ => panic!("not rendered"),
        }
    };
    let replays = crate::Replays::new([(document.clone(), replay.clone())].into());
    for _ in 0..2 {
        assert!(visible(replays.clone()).contains("Old rail bridge"));
        assert!(!visible(crate::Replays::default()).contains("Old rail bridge"));
    }
}

/// A page that fills ArrayBuffers gets none beyond its browser's memory ceiling
/// (it took Chromium to 7.4 GB with 24 of 256 MB). Once it lets them go the page
/// is measured; one that holds on to them is measured only if what is left is
/// enough, else its render fails with the reason.
#[test]
fn a_page_gets_no_memory_beyond_the_ceiling() {
    let page = b"<!doctype html><html><body><p>filling buffers</p><script>\
        const kept = []; try { for (let i = 0; i < 12; i++) { \
        const b = new ArrayBuffer(256 * 1024 * 1024); new Uint8Array(b).fill(1); kept.push(b); } \
        } catch (e) {} document.body.insertAdjacentHTML('beforeend', \
        '<p>allocated ' + kept.length + '</p>'); kept.length = 0;</script></body></html>";
    let dir = site(&[("page.html", page)]);
    let renderer = start(RenderOptions {
        tabs: 1,
        memory_per_process: 1 << 30,
        ..RenderOptions::default()
    });
    let rendered = renderer
        .render(&dir.path().join("page.html"))
        .expect("renders");
    let allocated: usize = rendered
        .visible_text
        .split("allocated ")
        .nth(1)
        .and_then(|n| n.trim().parse().ok())
        .expect("the page said how many buffers it got");
    assert!(allocated <= 3, "{allocated} buffers of 256 MB within 1 GiB");
}

/// A page gets no window but its own: 1,000 popups took 5.1 GB and 46.7 s
/// against a 10 s deadline.
#[test]
fn popups_are_refused_and_the_deadline_holds() {
    let page = b"<!doctype html><html><body><p>popups</p><script>let n = 0; \
        for (let i = 0; i < 1000; i++) { if (window.open('about:blank', '_blank')) n++; } \
        document.body.insertAdjacentHTML('beforeend', '<p>opened ' + n + '</p>');\
        </script></body></html>";
    let dir = site(&[("page.html", page)]);
    let started = Instant::now();
    let rendered = renderer(10, 1)
        .render(&dir.path().join("page.html"))
        .expect("renders");
    assert!(
        rendered.visible_text.contains("opened 0"),
        "{}",
        rendered.visible_text
    );
    // Within its 10 s deadline, and a margin for a machine busy with other tests.
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "{:?}",
        started.elapsed()
    );
}
