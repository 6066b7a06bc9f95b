//! Rendered-only tests: what a browser's layout tells about two rendered bodies
//! (how much of the page is images and text, how much text hides), beyond the
//! tests that run again on the synthetic bodies.

use super::signal::{flag, BodyPair, Signal, MISSING};
use crate::document::attributes::RenderedAttributes;

pub const SIGNALS: &[Signal] = &[
    Signal {
        name: "image_area_difference",
        meaning: "|difference| of the shares of the rendered pages covered by images",
        compute: |p| difference(p, |r| r.image_area),
    },
    Signal {
        name: "text_area_difference",
        meaning: "|difference| of the shares of the rendered pages covered by text",
        compute: |p| difference(p, |r| r.text_area),
    },
    Signal {
        name: "hidden_text_difference",
        meaning: "|difference| of the shares of DOM text a reader does not see (invisible keyword stuffing on one side)",
        compute: |p| difference(p, |r| r.hidden_text_share),
    },
    Signal {
        name: "cut_off",
        meaning: "1 when either page hit the render deadline before it settled",
        compute: |p| match (p.a.rendered, p.b.rendered) {
            (Some(a), Some(b)) => flag(a.cut_off || b.cut_off),
            _ => MISSING,
        },
    },
];

fn difference(p: &BodyPair, field: fn(&RenderedAttributes) -> f64) -> f64 {
    match (&p.a.rendered, &p.b.rendered) {
        (Some(a), Some(b)) => (field(a) - field(b)).abs(),
        _ => MISSING,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::Document;
    use crate::signals::testing::signal;

    fn rendered(image_area: f64, hidden: f64, cut_off: bool) -> Document {
        Document {
            rendered: Some(RenderedAttributes {
                image_area,
                text_area: 0.5,
                hidden_text_share: hidden,
                cut_off,
            }),
            ..Document::default()
        }
    }

    fn run(a: &Document, b: &Document, name: &str) -> f64 {
        signal(SIGNALS, name, (a, b), ("", ""))
    }

    #[test]
    fn differences_by_hand() {
        let (a, b) = (rendered(0.5, 0.0, false), rendered(0.125, 0.75, true));
        assert_eq!(run(&a, &b, "image_area_difference"), 0.375);
        assert_eq!(run(&a, &b, "text_area_difference"), 0.0);
        assert_eq!(run(&a, &b, "hidden_text_difference"), 0.75);
        assert_eq!(run(&a, &b, "cut_off"), 1.0);
        assert_eq!(run(&a, &a, "cut_off"), 0.0);
        assert_eq!(
            run(&a, &Document::default(), "image_area_difference"),
            MISSING
        );
    }
}
