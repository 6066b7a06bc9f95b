//! CSS selectors compiled once per process, for the attribute readers.

/// A CSS selector compiled once per process, as a `&'static Matcher` for
/// `select_matcher`: every page of a crawl is asked the same few selectors, and
/// compiling one costs more than matching it on a small page.
macro_rules! css {
    ($selector:expr) => {{
        static MATCHER: std::sync::LazyLock<dom_query::Matcher> = std::sync::LazyLock::new(|| {
            dom_query::Matcher::new($selector).expect("a valid CSS selector")
        });
        &*MATCHER
    }};
}
