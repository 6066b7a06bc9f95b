//! Pages with nothing of their own: what a reader sees is a wall in front of the
//! document (cookie consent, sign-in, a bot check, "enable JavaScript", a page that
//! says it was not found) or nothing at all.
//!
//! Two different documents behind the same wall look alike to every test: the
//! privacy policy and the terms of a site both render as its consent dialog, two
//! paywalled articles as one subscription offer. Such a pair must never be called
//! duplicate on the strength of the wall they share (`pipeline::score` sends it to
//! review, saying which wall). A wall is recognised by what the page *shows*: short
//! visible text (a wall hides the rest, or the server sent nothing else) made of a
//! wall's phrases. A page whose own text is long, with a small cookie banner below,
//! has no wall. A script's placeholder ("Loading…") is a wall when it is all the
//! page's core holds: the script that fills it never ran (a page stored without its
//! scripts), and every page of that app shows the same.

use super::attributes::Document;

/// What stands in front of a page's own content.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wall {
    /// No visible text at all (an empty render, an app that never started).
    Empty,
    /// A cookie or privacy consent dialog.
    Consent,
    /// A sign-in or subscription wall.
    Login,
    /// A bot check (captcha, "checking your browser").
    Challenge,
    /// "Enable JavaScript to run this app."
    NoScript,
    /// A script's placeholder ("Loading…") in place of the content.
    Loading,
    /// An error or "page not found" page served in place of the document.
    NotFound,
}

/// What every wall's `decided_by` starts with.
pub const WALL_PREFIX: &str = "wall:";

impl Wall {
    /// The `decided_by` of a pair sent to review because both sides show this wall.
    pub fn decided_by(self) -> &'static str {
        match self {
            Wall::Empty => "wall:empty",
            Wall::Consent => "wall:consent",
            Wall::Login => "wall:login",
            Wall::Challenge => "wall:challenge",
            Wall::NoScript => "wall:no-script",
            Wall::Loading => "wall:loading",
            Wall::NotFound => "wall:not-found",
        }
    }
}

/// A page showing more words than this has content of its own, whatever else it shows.
const MAX_WALL_WORDS: usize = 320;
/// Fewer words than this and a page shows nothing.
const MIN_CONTENT_WORDS: usize = 5;

/// A core of fewer words than this that writes a placeholder holds nothing else.
const PLACEHOLDER_CORE_WORDS: usize = 20;

/// What a script shows where the content will be (lower case; English, German,
/// French, Spanish, Russian): a page shows the [`Wall::Loading`] wall when its core
/// writes one of them and little else.
const PLACEHOLDERS: &[&str] = &[
    "loading…",
    "loading...",
    "loading ...",
    "please wait…",
    "please wait...",
    "wird geladen",
    "lädt…",
    "lädt...",
    "chargement…",
    "chargement...",
    "chargement en cours",
    "cargando…",
    "cargando...",
    "загрузка…",
    "загрузка...",
];

/// A wall's phrases (lower case; English, German, French, Spanish, Russian): a page
/// shows it when it shows one of the phrases that only a wall says, and one of
/// those that go with it (none needed when `with` is empty).
struct Phrases {
    wall: Wall,
    only: &'static [&'static str],
    with: &'static [&'static str],
}

const WALLS: &[Phrases] = &[
    Phrases {
        wall: Wall::Challenge,
        only: &[
            "checking your browser",
            "verify you are human",
            "are you a robot",
            "captcha",
            "ddos protection",
            "enable javascript and cookies",
            "unusual traffic from your",
            "security check to access",
            "bot protection",
            "complete the security check",
        ],
        with: &[],
    },
    Phrases {
        wall: Wall::NoScript,
        only: &[
            "enable javascript",
            "javascript is disabled",
            "javascript is required",
            "requires javascript",
            "turn on javascript",
            "javascript aktivieren",
            "activer javascript",
            "activa javascript",
            "включите javascript",
        ],
        with: &[],
    },
    Phrases {
        wall: Wall::Consent,
        only: &[
            "accept all",
            "reject all",
            "manage preferences",
            "manage options",
            "cookie settings",
            "privacy settings",
            "legitimate interest",
            "alle akzeptieren",
            "tout accepter",
            "aceptar todo",
            "принять все",
        ],
        with: &[
            "cookie",
            "consent",
            "privacy",
            "datenschutz",
            "confidentialité",
            "privacidad",
        ],
    },
    Phrases {
        wall: Wall::Login,
        only: &[
            "continue reading",
            "keep reading",
            "members only",
            "subscribers only",
            "for subscribers",
            "already a subscriber",
            "already a member",
            "to read this article",
            "to read the full",
            "register to read",
            "create a free account to",
            "weiterlesen",
            "pour lire la suite",
            "seguir leyendo",
            "продолжить чтение",
        ],
        with: &[
            "sign in",
            "log in",
            "subscribe",
            "password",
            "anmelden",
            "abonn",
            "se connecter",
            "suscr",
            "войти",
            "подпис",
        ],
    },
    Phrases {
        wall: Wall::NotFound,
        only: &[
            "page not found",
            "error 404",
            "404 error",
            "404 not found",
            "page you requested",
            "page you are looking for",
            "page you were looking for",
            "page doesn't exist",
            "page does not exist",
            "page cannot be found",
            "page could not be found",
            "page no longer exists",
            "seite nicht gefunden",
            "page introuvable",
            "página no encontrada",
            "страница не найдена",
        ],
        with: &[],
    },
];

/// The wall a page shows instead of its own content, if any.
pub fn recognise(doc: &Document) -> Option<Wall> {
    let words = doc.visible_words.len();
    if words > MAX_WALL_WORDS {
        return None;
    }
    let shown = format!("{} {}", doc.title, doc.visible_text).to_lowercase();
    let says = |phrases: &[&str]| phrases.iter().any(|p| shown.contains(p));
    let wall = WALLS
        .iter()
        .find(|w| says(w.only) && (w.with.is_empty() || says(w.with)))
        .map(|w| w.wall);
    wall.or_else(|| placeholder(doc).then_some(Wall::Loading))
        .or((words < MIN_CONTENT_WORDS).then_some(Wall::Empty))
}

/// Whether a page's core is a script's placeholder and little else (the word count
/// first: most cores are long, and need not be lower-cased).
fn placeholder(doc: &Document) -> bool {
    doc.core_words.len() < PLACEHOLDER_CORE_WORDS && {
        let core = doc.core_text.to_lowercase();
        PLACEHOLDERS.iter().any(|p| core.contains(p))
    }
}

/// The wall two documents share, if both show one (not necessarily the same: two
/// walls of different kinds are no more two documents' content than one).
pub fn shared(a: &Document, b: &Document) -> Option<Wall> {
    let (wall_a, wall_b) = (recognise(a)?, recognise(b)?);
    Some(if wall_a == wall_b {
        wall_a
    } else {
        wall_a.min_kind(wall_b)
    })
}

impl Wall {
    /// Of two walls, the one named for the pair: anything over emptiness.
    fn min_kind(self, other: Wall) -> Wall {
        if self == Wall::Empty {
            other
        } else {
            self
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::decode::decode_bytes;
    use crate::document::IdfTable;

    fn page(html: &str) -> Document {
        let body = decode_bytes(html.as_bytes(), html.len(), false);
        Document::from_body(&body, IdfTable::shipped())
    }

    #[test]
    fn walls_are_told_by_what_the_page_shows() {
        let consent = page(
            "<title>Privacy</title><div>We use cookies to improve your experience. \
             Accept all or reject all, or manage preferences.</div>",
        );
        assert_eq!(recognise(&consent), Some(Wall::Consent));
        let login = page(
            "<p>The council met on Tuesday.</p><p>Subscribe or sign in to continue reading.</p>",
        );
        assert_eq!(recognise(&login), Some(Wall::Login));
        assert_eq!(recognise(&page("<p> </p>")), Some(Wall::Empty));
        let missing = page("<title>Page not found</title><p>Sorry, we looked everywhere.</p>");
        // A short page with a subscribe link in its menu is no wall.
        let short = page(
            "<nav>Home | Subscribe | Newsletter subscriber area</nav><p>Maudlin: sentimental.</p>",
        );
        assert_eq!(recognise(&short), None);
        assert_eq!(recognise(&missing), Some(Wall::NotFound));
        // A long article with a cookie banner below it has content of its own.
        let words = "harbour ferry terminal reopens after rebuild ".repeat(80);
        let article = page(&format!(
            "<p>{words}</p><div>We use cookies. Accept all or reject all.</div>"
        ));
        assert_eq!(recognise(&article), None);
        assert_eq!(shared(&consent, &page("<p></p>")), Some(Wall::Consent));
        // An app whose script never ran shows its placeholder where the article goes;
        // a page that loads its comments below an article of its own does not.
        let shell = page(
            "<header><a href=\"/\">Marktplatz Kurier</a><nav><a>News</a> <a>Topics</a></nav></header>\
             <main><div id=\"root\">Loading…</div></main><footer>© 2024 Marktplatz Kurier</footer>",
        );
        assert_eq!(recognise(&shell), Some(Wall::Loading));
        let story = "The harbour ferry terminal reopens after its rebuild this spring. ".repeat(6);
        let with_comments = page(&format!(
            "<article><h1>Ferry</h1><p>{story}</p></article><div id=\"comments\">Loading comments...</div>"
        ));
        assert_eq!(recognise(&with_comments), None);
        assert_eq!(shared(&consent, &article), None);
    }
}
