//! The report page: the figures laid out as HTML around the charts.

use std::fmt::Write as _;

use anyhow::Result;

use crate::charts::{self, css_colour, Curve, Named};
use twinpage::evaluate::figures::{Figures, Mistake};
use twinpage::model::{Confusion, Metrics};

/// One model's figures and how to name it.
pub struct ModelReport {
    /// How the report names it (its file).
    pub name: String,
    pub figures: Figures,
    /// Arguments `explain` needs to judge a pair as this model did
    /// (`--model M`, `--no-render`).
    pub explain_args: Vec<String>,
    /// Pairs left out because their documents could not be read.
    pub skipped: usize,
}

/// What the report shows.
pub struct Report {
    /// The pair files, as given.
    pub pairs: Vec<String>,
    pub models: Vec<ModelReport>,
    /// The classic detectors' figures on the same pairs (`--baselines`), and the
    /// text they fingerprinted.
    pub baselines: Option<(String, Vec<(&'static str, Metrics)>)>,
}

/// Pairs per model shown in the worst-mistakes table.
pub const MISTAKES_SHOWN: usize = 12;
/// Signals shown in the importance and split charts.
const SIGNALS_SHOWN: usize = 15;

/// Escapes text for HTML.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A word for a shell command line, quoted when it needs to be.
pub fn shell_word(s: &str) -> String {
    let plain = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:=@%+,".contains(c));
    if plain {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

const STYLE: &str = r#"
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 24px auto; max-width: 1200px; color: #222; padding: 0 16px; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; }
h2 { border-bottom: 1px solid #ddd; padding-bottom: 4px; margin-top: 2em; }
h3 { margin: 0.4em 0; font-size: 1.05em; }
p.note, .note { color: #555; font-size: 0.92em; max-width: 60em; }
.row { display: flex; flex-wrap: wrap; gap: 20px; align-items: flex-start; }
.cell { flex: 1 1 540px; min-width: 0; overflow-x: auto; }
svg { max-width: 100%; height: auto; display: block; }
table { border-collapse: collapse; font-size: 0.9em; margin: 6px 0 12px; }
th, td { border: 1px solid #ddd; padding: 3px 6px; text-align: right; }
th { background: #f4f4f4; }
td.name, th.name { text-align: left; }
td.right { background: #e3f4e3; }
td.wrong { background: #f8c9c4; font-weight: bold; }
td.review { background: #fdf0cf; }
tr.bad td.name { border-left: 4px solid #d9412b; }
code { font-size: 0.88em; background: #f4f4f4; padding: 1px 4px; border-radius: 3px; word-break: break-all; }
.swatch { display: inline-block; width: 12px; height: 12px; border-radius: 2px; vertical-align: middle; margin-right: 6px; }
dl.facts { display: grid; grid-template-columns: max-content auto; gap: 2px 14px; margin: 6px 0; }
dl.facts dt { color: #555; } dl.facts dd { margin: 0; }
"#;

/// The page's head: its title, the style, and a policy that loads nothing.
pub(crate) fn head(h: &mut String, title: &str) -> Result<()> {
    write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{}</title>\n<style>{STYLE}</style></head>\n<body>\n",
        escape(title)
    )?;
    Ok(())
}

/// The whole page.
pub fn html(report: &Report) -> Result<String> {
    let named: Vec<Named> = report
        .models
        .iter()
        .map(|m| Named {
            name: &m.name,
            figures: &m.figures,
        })
        .collect();
    let baselines: &[(&'static str, Metrics)] =
        report.baselines.as_ref().map_or(&[], |b| b.1.as_slice());
    let mut h = String::new();
    let title = format!(
        "twinpage report: {}",
        report
            .models
            .iter()
            .map(|m| m.name.as_str())
            .collect::<Vec<_>>()
            .join(" vs ")
    );
    head(&mut h, &title)?;
    write!(h, "<h1>{}</h1>\n<p class=\"note\">Pairs: ", escape(&title))?;
    let files: Vec<String> = report
        .pairs
        .iter()
        .map(|p| format!("<code>{}</code>", escape(p)))
        .collect();
    writeln!(
        h,
        "{}. Made by twinpage {}.</p>",
        files.join(", "),
        env!("CARGO_PKG_VERSION")
    )?;

    // Headline figures, one column per model.
    h.push_str("<section id=\"summary\"><h2>Summary</h2><div class=\"row\">");
    for (i, m) in report.models.iter().enumerate() {
        summary(&mut h, i, m)?;
    }
    h.push_str("</div></section>\n");

    h.push_str("<section id=\"curves\"><h2>Precision–recall and ROC</h2>");
    h.push_str(
        "<p class=\"note\">Each curve calls duplicate the pairs at or above a moving threshold on \
         <code>p_duplicate</code>. The model's own thresholds are marked: ● where automatic \
         <em>duplicate</em> decisions start, ▲ the pairs above the <em>distinct</em> threshold; \
         between the two, pairs go to review.",
    );
    if report.baselines.is_some() {
        h.push_str(" ✕ are the classic detectors, which say yes or no: one point each.");
    }
    h.push_str("</p><div class=\"row\">");
    for kind in [Curve::PrecisionRecall, Curve::Roc] {
        write!(
            h,
            "<div class=\"cell\">{}</div>",
            charts::curve(kind, &named, baselines)?
        )?;
    }
    h.push_str("</div></section>\n");

    h.push_str("<section id=\"trade-off\"><h2>Trade-off: choosing the precision target</h2>");
    h.push_str(
        "<p class=\"note\">For each precision target from 0.80 to 1.00, the thresholds training's \
         rule picks on these pairs (the widest whose automatic decisions reach the target, the \
         model's spread limit kept): the share of automatic decisions that are right against the \
         share of pairs sent to people. The dashed line is the same with no spread limit: \
         what the target alone does. The open circle is the model as trained: its thresholds \
         were chosen on its own calibration pairs, so it sits near the curve, not on it. Further \
         right, precision is bought with review work. Retrain with <code>--precision-target</code> \
         to move.</p><div class=\"row\"><div class=\"cell\">",
    );
    h.push_str(&charts::trade_off(&named)?);
    h.push_str("</div><div class=\"cell\">");
    trade_off_table(&mut h, report)?;
    h.push_str("</div></div></section>\n");

    h.push_str("<section id=\"reliability\"><h2>Reliability</h2>");
    h.push_str(
        "<p class=\"note\">Does 0.9 mean 90 %? Pairs by tenth of <code>p_duplicate</code>: the \
         observed share of duplicates against the mean confidence (a calibrated model follows the \
         diagonal), and how many pairs each bin holds. ECE: the pair-weighted mean gap.</p><div class=\"row\">",
    );
    for (i, m) in named.iter().enumerate() {
        write!(
            h,
            "<div class=\"cell\">{}</div>",
            charts::reliability(i, m)?
        )?;
    }
    h.push_str("</div></section>\n");

    h.push_str("<section id=\"confusion\"><h2>Confusion</h2><p class=\"note\">Label against the decision taken. \
        <span class=\"swatch\" style=\"background:#f8c9c4\"></span>wrong automatic decisions \
        <span class=\"swatch\" style=\"background:#fdf0cf\"></span>sent to review \
        <span class=\"swatch\" style=\"background:#e3f4e3\"></span>right.</p><div class=\"row\">");
    for (i, m) in report.models.iter().enumerate() {
        h.push_str("<div class=\"cell\">");
        model_heading(&mut h, i, &m.name)?;
        confusion(&mut h, &m.figures.overall.confusion)?;
        h.push_str("</div>");
    }
    h.push_str("</div></section>\n");

    if let Some(column) = report
        .models
        .first()
        .and_then(|m| m.figures.by.as_ref())
        .map(|b| b.column.clone())
    {
        write!(
            h,
            "<section id=\"groups\"><h2>By {}</h2><p class=\"note\">Rows with a wrong automatic \
             decision are marked; such cells are red, review shares above 25 % yellow. \
             Precision and recall with pairs labelled at the model's F1 cut; “–” where undefined (a group without duplicates).</p><div class=\"row\">",
            escape(&column)
        )?;
        for (i, m) in report.models.iter().enumerate() {
            h.push_str("<div class=\"cell\">");
            model_heading(&mut h, i, &m.name)?;
            groups(&mut h, &column, &m.figures)?;
            h.push_str("</div>");
        }
        h.push_str("</div></section>\n");
    }

    h.push_str("<section id=\"signals\"><h2>What the model looks at</h2>");
    h.push_str(
        "<p class=\"note\">Permutation importance (stored in the model at training: how much the \
         Brier score of the confidence rises on held-out pairs when one signal's values are \
         shuffled), and where the estimator tests each signal.</p><div class=\"row\">",
    );
    for (i, m) in report.models.iter().enumerate() {
        h.push_str("<div class=\"cell\">");
        model_heading(&mut h, i, &m.name)?;
        let importance: Vec<(String, f64)> = m
            .figures
            .importance
            .iter()
            .take(SIGNALS_SHOWN)
            .map(|s| (s.signal.clone(), s.brier_increase))
            .collect();
        if importance.is_empty() {
            h.push_str("<p class=\"note\">This model file records no importance.</p>");
        } else {
            h.push_str(&charts::bars(
                "Permutation importance",
                "Brier score increase",
                i,
                &importance,
            )?);
        }
        h.push_str("</div>");
    }
    h.push_str("</div><div class=\"row\">");
    for (i, m) in report.models.iter().enumerate() {
        h.push_str("<div class=\"cell\">");
        model_heading(&mut h, i, &m.name)?;
        splits(&mut h, i, &m.figures)?;
        h.push_str("</div>");
    }
    h.push_str("</div></section>\n");

    if let Some((text, results)) = &report.baselines {
        write!(
            h,
            "<section id=\"baselines\"><h2>Classic detectors</h2><p class=\"note\">Each candidate \
             method and Yandex signature detector as a stand-alone duplicate detector on the same \
             pairs ({} text), as <code>twinpage baseline --method all</code> runs them; the models' \
             figures at their F1 cut for comparison.</p>",
            escape(text)
        )?;
        baselines_table(&mut h, report, results)?;
        h.push_str("</section>\n");
    }

    h.push_str(
        "<section id=\"mistakes\"><h2>Worst mistakes</h2><p class=\"note\">Wrong automatic \
        decisions first, then pairs sent to review whose confidence leaned the wrong way; the most \
        confident first. The command shows the trees' votes and paths for the pair.</p>",
    );
    for (i, m) in report.models.iter().enumerate() {
        model_heading(&mut h, i, &m.name)?;
        mistakes(&mut h, m)?;
    }
    h.push_str("</section>\n</body></html>\n");
    Ok(h)
}

fn model_heading(h: &mut String, i: usize, name: &str) -> Result<()> {
    write!(
        h,
        "<h3><span class=\"swatch\" style=\"background:{}\"></span>{}</h3>",
        css_colour(i),
        escape(name)
    )?;
    Ok(())
}

fn summary(h: &mut String, i: usize, m: &ModelReport) -> Result<()> {
    let f = &m.figures;
    let o = &f.overall;
    h.push_str("<div class=\"cell\">");
    model_heading(h, i, &m.name)?;
    let auto = o
        .confusion
        .automatic_accuracy()
        .map_or("–".to_string(), |a| format!("{a:.4}"));
    write!(
        h,
        "<dl class=\"facts\">\
         <dt>model</dt><dd><code>{}</code> ({})</dd>\
         <dt>pairs</dt><dd>{}{}</dd>\
         <dt>thresholds</dt><dd>duplicate ≥ {:.4}, distinct ≤ {:.4}, spread ≤ {:.2} (target {:.3})</dd>\
         <dt>automatic decisions right</dt><dd>{auto} (duplicate {:.4}, distinct {:.4})</dd>\
         <dt>sent to review</dt><dd>{:.1} %</dd>\
         <dt>labelled at p ≥ {:.4} (the F1 cut)</dt><dd>precision {:.4}, recall {:.4}, F1 {:.4}, accuracy {:.4}</dd>\
         <dt>ROC AUC, average precision</dt><dd>{:.4}, {:.4}</dd>\
         <dt>calibration error (ECE, 10 bins)</dt><dd>{:.4}</dd>\
         </dl></div>",
        escape(&f.model),
        escape(&f.estimator),
        o.pairs,
        if m.skipped > 0 {
            format!(" ({} skipped: unreadable documents)", m.skipped)
        } else {
            String::new()
        },
        f.thresholds.duplicate,
        f.thresholds.distinct,
        f.thresholds.max_spread,
        f.precision_target,
        o.duplicate_decision_precision,
        o.distinct_decision_precision,
        o.review_share * 100.0,
        f.thresholds.f1_cut,
        o.precision,
        o.recall,
        o.f1,
        o.accuracy,
        f.curves.roc_auc,
        f.curves.average_precision,
        o.calibration_error,
    )?;
    Ok(())
}

fn trade_off_table(h: &mut String, report: &Report) -> Result<()> {
    h.push_str("<table><tr><th>target</th>");
    for (i, m) in report.models.iter().enumerate() {
        write!(
            h,
            "<th colspan=\"4\"><span class=\"swatch\" style=\"background:{}\"></span>{}</th>",
            css_colour(i),
            escape(&m.name)
        )?;
    }
    h.push_str("</tr><tr><th></th>");
    for _ in &report.models {
        h.push_str("<th>dup ≥</th><th>dist ≤</th><th>right</th><th>review</th>");
    }
    h.push_str("</tr>");
    let shown = [0.8, 0.85, 0.9, 0.95, 0.97, 0.98, 0.99, 0.995, 1.0];
    for target in shown {
        write!(h, "<tr><td>{target:.3}</td>")?;
        for m in &report.models {
            let own = (m.figures.precision_target - target).abs() < 1e-9;
            match m
                .figures
                .trade_off
                .iter()
                .find(|t| (t.precision_target - target).abs() < 1e-9)
            {
                Some(t) => write!(
                    h,
                    "<td{b}>{:.3}</td><td{b}>{:.3}</td><td{b}>{}</td><td{b}>{:.1} %</td>",
                    t.duplicate_threshold,
                    t.distinct_threshold,
                    t.automatic_precision
                        .map_or("–".into(), |p| format!("{p:.4}")),
                    t.review_share * 100.0,
                    b = if own { " class=\"review\"" } else { "" },
                )?,
                None => h.push_str("<td colspan=\"4\"></td>"),
            }
        }
        h.push_str("</tr>");
    }
    h.push_str("</table><p class=\"note\">Highlighted: each model's own target.</p>");
    Ok(())
}

fn confusion(h: &mut String, c: &Confusion) -> Result<()> {
    let total = c.total().max(1) as f64;
    let cell = |n: usize, class: &str| {
        format!(
            "<td class=\"{}\">{n}<br><small>{:.1} %</small></td>",
            if n == 0 && class == "wrong" {
                "right"
            } else {
                class
            },
            n as f64 * 100.0 / total
        )
    };
    write!(
        h,
        "<table><tr><th class=\"name\">label \\ decision</th><th>duplicate</th><th>distinct</th><th>review</th></tr>\
         <tr><td class=\"name\">duplicate</td>{}{}{}</tr>\
         <tr><td class=\"name\">distinct</td>{}{}{}</tr></table>",
        cell(c.duplicate_as_duplicate, "right"),
        cell(c.duplicate_as_distinct, "wrong"),
        cell(c.duplicate_as_review, "review"),
        cell(c.distinct_as_duplicate, "wrong"),
        cell(c.distinct_as_distinct, "right"),
        cell(c.distinct_as_review, "review"),
    )?;
    write!(
        h,
        "<table><tr><th class=\"name\">labelled at the F1 cut</th><th>called duplicate</th><th>called distinct</th></tr>\
         <tr><td class=\"name\">duplicate</td><td class=\"right\">{}</td>{}</tr>\
         <tr><td class=\"name\">distinct</td>{}<td class=\"right\">{}</td></tr></table>",
        c.tp,
        cell(c.fn_, "wrong"),
        cell(c.fp, "wrong"),
        c.tn,
    )?;
    Ok(())
}

fn groups(h: &mut String, column: &str, f: &Figures) -> Result<()> {
    let Some(by) = &f.by else { return Ok(()) };
    write!(
        h,
        "<table><tr><th class=\"name\">{}</th><th>pairs</th><th>wrong auto</th><th>auto right</th>\
         <th>review</th><th>precision</th><th>recall</th><th>F1</th><th>ECE</th></tr>",
        escape(column)
    )?;
    let row = |h: &mut String, name: &str, m: &Metrics| -> Result<()> {
        let c = &m.confusion;
        let wrong = c.duplicate_as_distinct + c.distinct_as_duplicate;
        let defined = |ok: bool, x: f64| {
            if ok {
                format!("{x:.3}")
            } else {
                "–".into()
            }
        };
        write!(
            h,
            "<tr{}><td class=\"name\">{}</td><td>{}</td><td class=\"{}\">{wrong}</td><td>{}</td>\
             <td class=\"{}\">{:.1} %</td><td>{}</td><td>{}</td><td>{}</td><td>{:.3}</td></tr>",
            if wrong > 0 { " class=\"bad\"" } else { "" },
            escape(name),
            m.pairs,
            if wrong > 0 { "wrong" } else { "" },
            c.automatic_accuracy()
                .map_or("–".into(), |a| format!("{a:.3}")),
            if m.review_share > 0.25 { "review" } else { "" },
            m.review_share * 100.0,
            defined(c.tp + c.fp > 0, m.precision),
            defined(c.tp + c.fn_ > 0, m.recall),
            defined(c.tp + c.fn_ > 0, m.f1),
            m.calibration_error,
        )?;
        Ok(())
    };
    for (name, m) in &by.groups {
        row(h, name, m)?;
    }
    row(h, "(all)", &f.overall)?;
    h.push_str("</table>");
    Ok(())
}

fn splits(h: &mut String, i: usize, f: &Figures) -> Result<()> {
    if let Some(tree) = &f.tree {
        h.push_str("<p class=\"note\">The tree's first levels (a test's pairs below the threshold go left).</p>");
        h.push_str(&charts::tree(i, tree)?);
    }
    if f.splits.is_empty() {
        return Ok(());
    }
    let shown: Vec<(String, f64)> = f
        .splits
        .iter()
        .take(SIGNALS_SHOWN)
        .map(|s| (s.signal.clone(), s.weight))
        .collect();
    h.push_str(&charts::bars(
        if f.estimator == "forest" {
            "The forest's most used splits"
        } else {
            "The tree's splits"
        },
        "Σ 2^-depth over the splits on the signal",
        i,
        &shown,
    )?);
    h.push_str(
        "<table><tr><th class=\"name\">signal</th><th>splits</th><th>at a root</th>\
         <th>in the first 3 levels</th><th>median threshold</th></tr>",
    );
    for s in f.splits.iter().take(SIGNALS_SHOWN) {
        write!(
            h,
            "<tr><td class=\"name\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{:.4}</td></tr>",
            escape(&s.signal),
            s.splits,
            s.at_root,
            s.near_root,
            s.median_threshold
        )?;
    }
    h.push_str("</table>");
    Ok(())
}

fn baselines_table(
    h: &mut String,
    report: &Report,
    results: &[(&'static str, Metrics)],
) -> Result<()> {
    h.push_str(
        "<table><tr><th class=\"name\">detector</th><th>pairs</th><th>precision</th><th>recall</th>\
         <th>F1</th><th>false positive rate</th><th>false positives</th><th>missed duplicates</th></tr>",
    );
    let best_f1 = report
        .models
        .iter()
        .map(|m| m.figures.overall.f1)
        .fold(0.0f64, f64::max);
    let mut row = |name: String, m: &Metrics| -> Result<()> {
        let c = &m.confusion;
        let fpr = if c.fp + c.tn == 0 {
            0.0
        } else {
            c.fp as f64 / (c.fp + c.tn) as f64
        };
        write!(
            h,
            "<tr><td class=\"name\">{name}</td><td>{}</td><td>{:.4}</td><td>{:.4}</td>\
             <td class=\"{}\">{:.4}</td><td>{fpr:.4}</td><td class=\"{}\">{}</td><td class=\"{}\">{}</td></tr>",
            m.pairs,
            m.precision,
            m.recall,
            if m.f1 >= best_f1 { "right" } else { "" },
            m.f1,
            if c.fp > 0 { "wrong" } else { "" },
            c.fp,
            if c.fn_ > 0 { "wrong" } else { "" },
            c.fn_,
        )?;
        Ok(())
    };
    for (i, m) in report.models.iter().enumerate() {
        row(
            format!(
                "<span class=\"swatch\" style=\"background:{}\"></span>{} (p ≥ {:.2})",
                css_colour(i),
                escape(&m.name),
                m.figures.thresholds.f1_cut
            ),
            &m.figures.overall,
        )?;
    }
    for (name, m) in results {
        row(escape(name), m)?;
    }
    h.push_str("</table>");
    Ok(())
}

/// The `explain` command line for a mistake.
pub fn explain_command(m: &Mistake, explain_args: &[String]) -> String {
    let mut words = vec![
        "twinpage".to_string(),
        "explain".to_string(),
        "--pairs".to_string(),
        shell_word(&m.file),
        "--row".to_string(),
        m.row.to_string(),
    ];
    words.extend(explain_args.iter().map(|a| shell_word(a)));
    words.join(" ")
}

fn mistakes(h: &mut String, m: &ModelReport) -> Result<()> {
    let shown: Vec<&Mistake> = m.figures.mistakes.iter().take(MISTAKES_SHOWN).collect();
    if shown.is_empty() {
        h.push_str("<p>No mistake: every automatic decision is right and every reviewed pair leans the right way.</p>");
        return Ok(());
    }
    let group = m
        .figures
        .by
        .as_ref()
        .map(|b| format!("<th class=\"name\">{}</th>", escape(&b.column)))
        .unwrap_or_default();
    write!(
        h,
        "<table><tr><th class=\"name\">pair</th>{group}<th>label</th><th>p_duplicate</th><th>spread</th>\
         <th>decision</th><th class=\"name\">see why</th></tr>"
    )?;
    for x in shown {
        let group = match (&m.figures.by, &x.group) {
            (Some(_), Some(g)) => format!("<td class=\"name\">{}</td>", escape(g)),
            (Some(_), None) => "<td></td>".into(),
            _ => String::new(),
        };
        write!(
            h,
            "<tr><td class=\"name\">{}</td>{group}<td>{}</td><td>{:.4}</td><td>{:.3}</td>\
             <td class=\"{}\">{}</td><td class=\"name\"><code>{}</code></td></tr>",
            escape(&x.location),
            if x.label { "duplicate" } else { "distinct" },
            x.p_duplicate,
            x.spread,
            if x.automatic { "wrong" } else { "review" },
            x.decision.as_str(),
            escape(&explain_command(x, &m.explain_args)),
        )?;
    }
    h.push_str("</table>");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_quoted_for_the_shell_when_needed() {
        assert_eq!(
            shell_word("training-data/web/test.csv"),
            "training-data/web/test.csv"
        );
        assert_eq!(shell_word("my pairs.csv"), "'my pairs.csv'");
        assert_eq!(shell_word("it's"), r"'it'\''s'");
        assert_eq!(
            escape("<a href=\"x\">&"),
            "&lt;a href=&quot;x&quot;&gt;&amp;"
        );
    }
}
