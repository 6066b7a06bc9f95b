//! The report's charts, drawn with `plotters` into SVG strings.

use anyhow::{anyhow, Result};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use twinpage::evaluate::figures::{Figures, TreeNode};
use twinpage::model::Metrics;

/// Colours of the models, in the order given.
pub const MODEL_COLOURS: [RGBColor; 4] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(148, 103, 189),
];
/// Colour of the classic detectors' points.
const BASELINE: RGBColor = RGBColor(120, 120, 120);
const FONT: &str = "sans-serif";

/// The colour of the `i`-th model as CSS.
pub fn css_colour(i: usize) -> String {
    let RGBColor(r, g, b) = MODEL_COLOURS[i % MODEL_COLOURS.len()];
    format!("rgb({r},{g},{b})")
}

fn colour(i: usize) -> RGBColor {
    MODEL_COLOURS[i % MODEL_COLOURS.len()]
}

/// Runs `paint` on a `width` × `height` SVG and returns the SVG.
fn svg(
    width: u32,
    height: u32,
    paint: impl FnOnce(&DrawingArea<SVGBackend, Shift>) -> Result<()>,
) -> Result<String> {
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, (width, height)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| anyhow!("drawing: {e}"))?;
        paint(&root)?;
        root.present().map_err(|e| anyhow!("drawing: {e}"))?;
    }
    Ok(out)
}

/// plotters' errors carry the backend's; they become text.
fn drawn<T, E: std::fmt::Display>(r: std::result::Result<T, E>) -> Result<T> {
    r.map_err(|e| anyhow!("drawing: {e}"))
}

/// A model's curves, named.
pub struct Named<'a> {
    pub name: &'a str,
    pub figures: &'a Figures,
}

/// The classic detectors' figures: one point each.
pub type Baselines<'a> = &'a [(&'static str, Metrics)];

fn false_positive_rate(m: &Metrics) -> f64 {
    let c = &m.confusion;
    if c.fp + c.tn == 0 {
        0.0
    } else {
        c.fp as f64 / (c.fp + c.tn) as f64
    }
}

/// Which curve: precision against recall, or recall against false positive rate.
#[derive(Clone, Copy, PartialEq)]
pub enum Curve {
    PrecisionRecall,
    Roc,
}

/// Precision–recall or ROC curves of every model, their two thresholds marked
/// (● duplicate, ▲ distinct), and the classic detectors as points.
pub fn curve(kind: Curve, models: &[Named], baselines: Baselines) -> Result<String> {
    let (title, x_desc, y_desc) = match kind {
        Curve::PrecisionRecall => ("Precision–recall", "recall", "precision"),
        Curve::Roc => ("ROC", "false positive rate", "recall (true positive rate)"),
    };
    let xy = |p: &twinpage::evaluate::figures::CurvePoint| match kind {
        Curve::PrecisionRecall => (p.recall, p.precision),
        Curve::Roc => (p.false_positive_rate, p.recall),
    };
    svg(560, 440, |root| {
        let mut chart = drawn(
            ChartBuilder::on(root)
                .caption(title, (FONT, 18))
                .margin(12)
                .x_label_area_size(40)
                .y_label_area_size(52)
                .build_cartesian_2d(0f64..1.0, 0f64..1.02),
        )?;
        drawn(
            chart
                .configure_mesh()
                .x_desc(x_desc)
                .y_desc(y_desc)
                .light_line_style(RGBColor(238, 238, 238))
                .draw(),
        )?;
        if kind == Curve::Roc {
            drawn(chart.draw_series(LineSeries::new(
                [(0.0, 0.0), (1.0, 1.0)],
                RGBColor(200, 200, 200).stroke_width(1),
            )))?;
        }
        for (i, m) in models.iter().enumerate() {
            let c = colour(i);
            let f = m.figures;
            let summary = match kind {
                Curve::PrecisionRecall => format!("AP {:.3}", f.curves.average_precision),
                Curve::Roc => format!("AUC {:.3}", f.curves.roc_auc),
            };
            drawn(chart.draw_series(LineSeries::new(
                f.curves.points.iter().map(xy),
                c.stroke_width(2),
            )))?
            .label(format!("{} ({summary})", m.name))
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 18, y)], c.stroke_width(2)));
            let dup = xy(&f.at_duplicate_threshold);
            let dist = xy(&f.at_distinct_threshold);
            drawn(chart.draw_series([Circle::new(dup, 6, c.filled())]))?
                .label(format!("p ≥ {:.3} (duplicate)", f.thresholds.duplicate))
                .legend(move |(x, y)| Circle::new((x + 9, y), 5, c.filled()));
            drawn(chart.draw_series([TriangleMarker::new(dist, 8, c.filled())]))?
                .label(format!("p > {:.3} (distinct)", f.thresholds.distinct))
                .legend(move |(x, y)| TriangleMarker::new((x + 9, y), 7, c.filled()));
        }
        if !baselines.is_empty() {
            let points = baselines.iter().map(|(_, m)| match kind {
                Curve::PrecisionRecall => (m.recall, m.precision),
                Curve::Roc => (false_positive_rate(m), m.recall),
            });
            drawn(
                chart.draw_series(
                    points
                        .clone()
                        .map(|p| Cross::new(p, 5, BASELINE.stroke_width(2))),
                ),
            )?
            .label("classic detectors")
            .legend(|(x, y)| Cross::new((x + 9, y), 5, BASELINE.stroke_width(2)));
            drawn(
                chart.draw_series(baselines.iter().zip(points).map(|((name, _), p)| {
                    Text::new(name.to_string(), p, (FONT, 10).into_font().color(&BASELINE))
                })),
            )?;
        }
        drawn(
            chart
                .configure_series_labels()
                .position(match kind {
                    Curve::PrecisionRecall => SeriesLabelPosition::LowerLeft,
                    Curve::Roc => SeriesLabelPosition::LowerRight,
                })
                .background_style(WHITE.mix(0.85))
                .border_style(RGBColor(180, 180, 180))
                .label_font((FONT, 12))
                .draw(),
        )?;
        Ok(())
    })
}

/// The reliability diagram of one model: observed share of duplicates against
/// mean confidence per tenth, the diagonal a perfectly calibrated model follows,
/// and the pairs per bin below.
pub fn reliability(index: usize, m: &Named) -> Result<String> {
    let f = m.figures;
    let c = colour(index);
    svg(560, 520, |root| {
        let (top, bottom) = root.split_vertically(380);
        let mut chart = drawn(
            ChartBuilder::on(&top)
                .caption(
                    format!(
                        "Reliability: {} (ECE {:.3})",
                        m.name, f.overall.calibration_error
                    ),
                    (FONT, 18),
                )
                .margin(12)
                .x_label_area_size(36)
                .y_label_area_size(52)
                .build_cartesian_2d(0f64..1.0, 0f64..1.02),
        )?;
        drawn(
            chart
                .configure_mesh()
                .x_desc("mean p_duplicate in the bin")
                .y_desc("observed share of duplicates")
                .light_line_style(RGBColor(238, 238, 238))
                .draw(),
        )?;
        drawn(chart.draw_series(LineSeries::new(
            [(0.0, 0.0), (1.0, 1.0)],
            RGBColor(170, 170, 170).stroke_width(1),
        )))?;
        let points: Vec<(f64, f64, usize)> = f
            .reliability
            .iter()
            .filter_map(|b| Some((b.predicted_mean?, b.observed_share?, b.pairs)))
            .collect();
        drawn(chart.draw_series(LineSeries::new(
            points.iter().map(|&(x, y, _)| (x, y)),
            c.stroke_width(2),
        )))?;
        drawn(
            chart.draw_series(
                points
                    .iter()
                    .map(|&(x, y, _)| Circle::new((x, y), 5, c.filled())),
            ),
        )?;
        drawn(chart.draw_series(points.iter().map(|&(x, y, n)| {
            // Near the right edge the count goes left of its point.
            let h = if x > 0.85 { HPos::Right } else { HPos::Left };
            Text::new(
                format!("n={n}"),
                (x, y),
                (FONT, 11)
                    .into_font()
                    .color(&RGBColor(60, 60, 60))
                    .pos(Pos::new(h, VPos::Bottom)),
            )
        })))?;
        let most = f
            .reliability
            .iter()
            .map(|b| b.pairs)
            .max()
            .unwrap_or(1)
            .max(1);
        let mut counts = drawn(
            ChartBuilder::on(&bottom)
                .margin_left(12)
                .margin_right(12)
                .margin_bottom(8)
                .x_label_area_size(34)
                .y_label_area_size(52)
                .build_cartesian_2d(0f64..1.0, 0f64..(most as f64 * 1.25)),
        )?;
        drawn(
            counts
                .configure_mesh()
                .disable_x_mesh()
                .x_desc("p_duplicate bin: pairs")
                .y_labels(3)
                .light_line_style(RGBColor(238, 238, 238))
                .draw(),
        )?;
        drawn(counts.draw_series(f.reliability.iter().map(|b| {
            Rectangle::new(
                [(b.lower + 0.01, 0.0), (b.upper - 0.01, b.pairs as f64)],
                c.mix(0.6).filled(),
            )
        })))?;
        drawn(counts.draw_series(f.reliability.iter().map(|b| {
            Text::new(
                b.pairs.to_string(),
                ((b.lower + b.upper) / 2.0, b.pairs as f64),
                TextStyle::from((FONT, 11).into_font()).pos(Pos::new(HPos::Center, VPos::Bottom)),
            )
        })))?;
        Ok(())
    })
}

/// Precision of the automatic decisions against the share sent to review, as
/// the precision target moves; each model's own decisions marked.
pub fn trade_off(models: &[Named]) -> Result<String> {
    // Every point drawn, (review share, automatic precision): the curves, with and
    // without the spread limit, and each model as trained.
    let drawn_points: Vec<(f64, f64)> = models
        .iter()
        .flat_map(|m| {
            let f = m.figures;
            let curves = f.trade_off.iter().chain(&f.trade_off_without_spread_limit);
            curves
                .filter_map(|t| Some((t.review_share, t.automatic_precision?)))
                .chain(
                    f.overall
                        .confusion
                        .automatic_accuracy()
                        .map(|p| (f.overall.review_share, p)),
                )
        })
        .collect();
    let lowest = drawn_points.iter().map(|p| p.1).fold(1.0f64, f64::min);
    let floor = ((lowest - 0.01) * 50.0).floor() / 50.0;
    let floor = floor.clamp(0.0, 0.98);
    // Review shares from 0 to a little beyond the largest shown (at least 10 %).
    let widest = drawn_points.iter().map(|p| p.0).fold(0.0f64, f64::max);
    let right = ((widest * 1.1 * 20.0).ceil() / 20.0).clamp(0.1, 1.0);
    svg(560, 440, |root| {
        let mut chart = drawn(
            ChartBuilder::on(root)
                .caption("Trade-off: automatic precision vs review", (FONT, 18))
                .margin(12)
                .x_label_area_size(40)
                .y_label_area_size(56)
                .build_cartesian_2d(0f64..right, floor..1.002),
        )?;
        drawn(
            chart
                .configure_mesh()
                .x_desc("share of pairs sent to review")
                .y_desc("automatic decisions right")
                .light_line_style(RGBColor(238, 238, 238))
                .draw(),
        )?;
        for (i, m) in models.iter().enumerate() {
            let c = colour(i);
            let points: Vec<(f64, f64, f64)> = m
                .figures
                .trade_off
                .iter()
                .filter_map(|t| Some((t.review_share, t.automatic_precision?, t.precision_target)))
                .collect();
            drawn(chart.draw_series(LineSeries::new(
                points.iter().map(|&(x, y, _)| (x, y)),
                c.stroke_width(2),
            )))?
            .label(format!("{}: target 0.80 → 1.00", m.name))
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 18, y)], c.stroke_width(2)));
            drawn(
                chart.draw_series(
                    points
                        .iter()
                        .map(|&(x, y, _)| Circle::new((x, y), 2, c.filled())),
                ),
            )?;
            // A few targets named along the curve.
            let named = [0.8, 0.9, 0.95, 0.98, 0.99, 1.0];
            drawn(
                chart.draw_series(
                    points
                        .iter()
                        .filter(|p| named.iter().any(|t| (p.2 - t).abs() < 1e-9))
                        .map(|&(x, y, t)| {
                            Text::new(
                                format!("{t:.2}"),
                                (x, y),
                                (FONT, 11)
                                    .into_font()
                                    .color(&c)
                                    .pos(Pos::new(HPos::Left, VPos::Top)),
                            )
                        }),
                ),
            )?;
            let free: Vec<(f64, f64)> = m
                .figures
                .trade_off_without_spread_limit
                .iter()
                .filter_map(|t| Some((t.review_share, t.automatic_precision?)))
                .collect();
            drawn(chart.draw_series(DashedLineSeries::new(
                free,
                6,
                4,
                c.mix(0.7).stroke_width(1),
            )))?
            .label(format!("{}: without the spread limit", m.name))
            .legend(move |(x, y)| {
                PathElement::new([(x, y), (x + 18, y)], c.mix(0.5).stroke_width(2))
            });
            let overall = &m.figures.overall;
            if let Some(right) = overall.confusion.automatic_accuracy() {
                drawn(chart.draw_series([Circle::new(
                    (overall.review_share, right),
                    7,
                    c.stroke_width(2),
                )]))?
                .label(format!(
                    "{} as trained (target {:.2})",
                    m.name, m.figures.precision_target
                ))
                .legend(move |(x, y)| Circle::new((x + 9, y), 6, c.stroke_width(2)));
            }
        }
        drawn(
            chart
                .configure_series_labels()
                .position(SeriesLabelPosition::LowerRight)
                .background_style(WHITE.mix(0.85))
                .border_style(RGBColor(180, 180, 180))
                .label_font((FONT, 12))
                .draw(),
        )?;
        Ok(())
    })
}

/// A bar's value with as many digits as its size needs.
fn figure(v: f64) -> String {
    match v.abs() {
        a if a >= 10.0 => format!("{v:.1}"),
        a if a >= 1.0 => format!("{v:.2}"),
        _ => format!("{v:.4}"),
    }
}

/// Horizontal bars, largest on top.
pub fn bars(title: &str, x_desc: &str, index: usize, items: &[(String, f64)]) -> Result<String> {
    let n = items.len().max(1);
    let height = 70 + 22 * n as u32;
    let most = items.iter().map(|i| i.1).fold(0.0f64, f64::max);
    let most = if most > 0.0 { most * 1.15 } else { 1.0 };
    let c = colour(index);
    svg(560, height, |root| {
        let mut chart = drawn(
            ChartBuilder::on(root)
                .caption(title, (FONT, 16))
                .margin(10)
                .x_label_area_size(34)
                .y_label_area_size(240)
                .build_cartesian_2d(0f64..most, (0..n as i32).into_segmented()),
        )?;
        let name_of = |v: &SegmentValue<i32>| match v {
            SegmentValue::CenterOf(k) => items
                .get(n - 1 - *k as usize)
                .map(|i| i.0.clone())
                .unwrap_or_default(),
            _ => String::new(),
        };
        drawn(
            chart
                .configure_mesh()
                .disable_y_mesh()
                .y_labels(n)
                .y_label_formatter(&name_of)
                .y_label_style((FONT, 12))
                .x_labels(5)
                .x_desc(x_desc)
                .light_line_style(RGBColor(238, 238, 238))
                .draw(),
        )?;
        drawn(
            chart.draw_series(items.iter().enumerate().map(|(k, (_, v))| {
                let y = (n - 1 - k) as i32;
                let mut bar = Rectangle::new(
                    [
                        (0.0, SegmentValue::Exact(y)),
                        (*v, SegmentValue::Exact(y + 1)),
                    ],
                    c.mix(0.75).filled(),
                );
                bar.set_margin(3, 3, 0, 0);
                bar
            })),
        )?;
        drawn(
            chart.draw_series(items.iter().enumerate().map(|(k, (_, v))| {
                let y = (n - 1 - k) as i32;
                Text::new(
                    format!(" {}", figure(*v)),
                    (*v, SegmentValue::CenterOf(y)),
                    TextStyle::from((FONT, 11).into_font()).pos(Pos::new(HPos::Left, VPos::Center)),
                )
            })),
        )?;
        Ok(())
    })
}

/// A drawn tree's column (per drawn leaf) and level, in pixels.
const COLUMN_WIDTH: i32 = 150;
const LEVEL_HEIGHT: i32 = 80;

/// The first levels of a tree: each split's test, `<` going left; a leaf's
/// cell, or how many splits lie below what is drawn.
pub fn tree(index: usize, root_node: &TreeNode) -> Result<String> {
    // Columns: the drawn leaves in order; each split sits above the middle of its subtree.
    fn width(n: &TreeNode) -> usize {
        match n {
            TreeNode::Split { left, right, .. } => width(left) + width(right),
            _ => 1,
        }
    }
    fn depth(n: &TreeNode) -> usize {
        match n {
            TreeNode::Split { left, right, .. } => 1 + depth(left).max(depth(right)),
            _ => 1,
        }
    }
    let columns = width(root_node);
    let levels = depth(root_node);
    let w = (columns as i32 * COLUMN_WIDTH).max(300) as u32;
    let h = (levels as i32 * LEVEL_HEIGHT + 30) as u32;
    let c = colour(index);
    svg(w, h, |root| {
        fn draw(
            root: &DrawingArea<SVGBackend, Shift>,
            node: &TreeNode,
            first_column: usize,
            level: i32,
            c: RGBColor,
            parent: Option<(i32, i32)>,
        ) -> Result<()> {
            let (cw, lh) = (COLUMN_WIDTH, LEVEL_HEIGHT);
            let columns = width(node) as i32;
            let x = first_column as i32 * cw + columns * cw / 2;
            let y = 20 + level * lh;
            if let Some((px, py)) = parent {
                drawn(root.draw(&PathElement::new(
                    [(px, py + 18), (x, y - 18)],
                    RGBColor(150, 150, 150).stroke_width(1),
                )))?;
            }
            let (text, sub, fill) = match node {
                TreeNode::Split {
                    signal, threshold, ..
                } => (
                    signal.clone(),
                    format!("< {threshold:.4} ←  → ≥"),
                    c.mix(0.15),
                ),
                TreeNode::Leaf { cell } => (format!("leaf {cell}"), String::new(), WHITE.mix(1.0)),
                TreeNode::More { splits } => (
                    format!("… {splits} more splits"),
                    String::new(),
                    RGBColor(245, 245, 245).mix(1.0),
                ),
            };
            let half = cw / 2 - 6;
            drawn(root.draw(&Rectangle::new(
                [(x - half, y - 18), (x + half, y + 18)],
                fill.filled(),
            )))?;
            drawn(root.draw(&Rectangle::new(
                [(x - half, y - 18), (x + half, y + 18)],
                RGBColor(160, 160, 160).stroke_width(1),
            )))?;
            // Long signal names: the part after the layer's dot, shortened.
            let shown: String = if text.chars().count() > 24 {
                let tail: Vec<char> = text.chars().collect();
                format!("…{}", tail[tail.len() - 23..].iter().collect::<String>())
            } else {
                text
            };
            let style =
                TextStyle::from((FONT, 12).into_font()).pos(Pos::new(HPos::Center, VPos::Center));
            drawn(root.draw(&Text::new(
                shown,
                (x, if sub.is_empty() { y } else { y - 7 }),
                style.clone(),
            )))?;
            if !sub.is_empty() {
                drawn(root.draw(&Text::new(sub, (x, y + 8), style)))?;
            }
            if let TreeNode::Split { left, right, .. } = node {
                draw(root, left, first_column, level + 1, c, Some((x, y)))?;
                let next = first_column + width(left);
                draw(root, right, next, level + 1, c, Some((x, y)))?;
            }
            Ok(())
        }
        draw(root, root_node, 0, 0, c, None)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bars_draw_an_svg_with_every_name() {
        let items = vec![
            ("fetched.a".to_string(), 0.2),
            ("rendered.b".to_string(), 0.05),
        ];
        let svg = bars("importance", "Brier increase", 0, &items).unwrap();
        assert!(svg.starts_with("<svg"));
        assert!(svg.contains("fetched.a") && svg.contains("rendered.b"));
    }

    #[test]
    fn a_tree_is_drawn_with_its_tests() {
        let node = TreeNode::Split {
            signal: "fetched.x".into(),
            threshold: 0.5,
            left: Box::new(TreeNode::Leaf { cell: 0 }),
            right: Box::new(TreeNode::More { splits: 3 }),
        };
        let svg = tree(1, &node).unwrap();
        assert!(svg.contains("fetched.x") && svg.contains("3 more splits"));
    }
}
