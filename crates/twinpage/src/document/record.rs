//! Record understanding: the fields of a page that describes one thing (a product, a
//! paper, a song, a restaurant) rather than telling a story.
//!
//! Two shop pages are the same product when they name the same model, not when their
//! words overlap, so record pairs need their fields side by side. Fields are read, in
//! this order of trust, from JSON-LD, from schema.org `itemprop` attributes, from
//! label–value rows (`<table>` `th`/`td` or two `td`s, `<dl>` `dt`/`dd`, or a table
//! written across: a row of labels over one row of values) and from `Label: value`
//! lines of the visible text (BibTeX's `label = {value},` too). A label names a
//! [`Field`] when it is one of the usual words for it, or when its words say which
//! (`field_of`: another site writes `Author(s)`, `Publication year` or `Song_Name`);
//! other labels are kept out. Fields are also read from the citation `<meta>` tags of
//! paper pages. What is read by a label's words, after a dash or an equals sign, or from
//! those tags only adds to a page that is a record by the usual words or by its length
//! (a byline's `Author` does not make an article a record). A short page (a name and a
//! line of description) is a record without fields; a longer page with no recognised
//! field, or with the text of an article, is not ([`Record::read`] gives None) and its
//! record signals are missing.

use dom_query::{Document as Dom, NodeRef};
use serde_json::Value;

use super::text;

/// A page with more words than this is an article with a table, not a record.
const MAX_RECORD_WORDS: usize = 500;
/// A page this short is read as a record even without labelled fields: a name and a
/// line of description (Abt-Buy's shops) still name a product.
const SHORT_PAGE_WORDS: usize = 300;
/// Values longer than this (characters) are cut: a field is a name, not a story.
const MAX_VALUE_CHARS: usize = 2_000;

/// What a record says about the thing it describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    Name,
    Brand,
    /// Model or part number (MPN, SKU, GTIN).
    Model,
    Price,
    Category,
    Description,
    Authors,
    Venue,
    Year,
}

/// The fields of a record page (each the first value found for it).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Record {
    pub name: Option<String>,
    pub brand: Option<String>,
    pub model: Option<String>,
    pub price: Option<f64>,
    pub category: Option<String>,
    pub description: Option<String>,
    pub authors: Option<String>,
    pub venue: Option<String>,
    pub year: Option<u32>,
    /// The identifiers of the name and model fields (see [`codes`]), sorted.
    pub codes: Vec<String>,
    /// The record's visible text, and the same lower-cased with everything but letters
    /// and digits removed: where the other side's codes are looked for, whatever the
    /// spacing.
    pub text: String,
    pub compact_text: String,
    /// The quantities (number and unit) of the text.
    pub quantities: Vec<Quantity>,
}

/// The field a label names, if any: one of the usual words for it ([`usual_field`]),
/// or a short label whose words say which ([`FIELD_WORDS`]); and whether it was one of
/// the usual words, the only labels that make a page a record.
fn field_of(label: &str) -> Option<(Field, bool)> {
    usual_field(label)
        .map(|field| (field, true))
        .or_else(|| field_by_words(label).map(|field| (field, false)))
}

/// What parts a line's label from its value: a colon, a dash between spaces, or an
/// equals sign between spaces (BibTeX's `author = {…},`).
const LINE_SEPARATORS: [&str; 4] = [":", " \u{2014} ", " \u{2013} ", " = "];

/// Fields found on a page: those that make it a record, and those that only add to one
/// (read by a label's words, after a dash, or from citation tags).
struct Found {
    evidence: Vec<(Field, String)>,
    more: Vec<(Field, String)>,
}

impl Found {
    /// Keeps `value` when `label` names a field: as evidence when the label is one of
    /// the usual words and `plain` (after a colon or in a table, not after a dash).
    fn read(&mut self, label: &str, value: String, plain: bool) {
        let Some((field, usual)) = field_of(label) else {
            return;
        };
        let list = if usual && plain {
            &mut self.evidence
        } else {
            &mut self.more
        };
        list.push((field, value));
    }
}

/// Labels of more words than this are text, not labels.
const MAX_LABEL_WORDS: usize = 4;

/// The words that make a label name a field, in the order they are tried: `Publication
/// year` is a year, `Album_Name` a venue, `Manufacturer part number` a model, `Source`
/// (a bibliographic database's word for the journal) a venue. Words
/// joined by `+` (`published+in`) must follow each other in the label.
const FIELD_WORDS: &[(Field, &str)] = &[
    (Field::Venue, "published+in appeared+in part+of"),
    (
        Field::Year,
        "year yr date released release published issued",
    ),
    (Field::Price, "price cost msrp"),
    (
        Field::Model,
        "model modelno mpn sku gtin ean upc isbn asin part+number part+no item+number \
         item+no product+id product+code item+code",
    ),
    (
        Field::Authors,
        "author authors writer writers written+by creator creators",
    ),
    (
        Field::Brand,
        "brand manufacturer maker make mfr brewery brewer factory artist artists performer",
    ),
    (
        Field::Venue,
        "venue journal conference proceedings booktitle album publisher publication magazine source",
    ),
    (
        Field::Category,
        "category categories subcategory type genre style cuisine department",
    ),
    (
        Field::Description,
        "description details listing about summary abstract overview features",
    ),
    (
        Field::Name,
        "name title product song track beer headline item",
    ),
];

/// The field of [`FIELD_WORDS`] a label of a few words names: its words split at
/// anything but letters and digits (`Song_Name`, `Author(s)`) and where a capital
/// follows a small letter (schema.org's `isPartOf`, `productID`), `#` read as `number`.
fn field_by_words(label: &str) -> Option<Field> {
    let label = split_camel_case(label)
        .to_lowercase()
        .replace('#', " number ");
    let words: Vec<&str> = label
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    if words.is_empty() || words.len() > MAX_LABEL_WORDS {
        return None;
    }
    let says = |entry: &str| {
        let entry: Vec<&str> = entry.split('+').collect();
        words.windows(entry.len()).any(|w| w == entry.as_slice())
    };
    FIELD_WORDS
        .iter()
        .find(|(_, entries)| entries.split_whitespace().any(says))
        .map(|&(field, _)| field)
}

/// `label` with a space where a capital follows a small letter.
fn split_camel_case(label: &str) -> String {
    let mut out = String::with_capacity(label.len() + 4);
    let mut after_small = false;
    for c in label.chars() {
        if after_small && c.is_uppercase() {
            out.push(' ');
        }
        after_small = c.is_lowercase();
        out.push(c);
    }
    out
}

/// The field a label names when it is one of the usual words for it (schema.org's
/// property names among them); `label` is compared lower-cased, without a trailing colon.
fn usual_field(label: &str) -> Option<Field> {
    let label = label.trim().trim_end_matches(':').trim().to_lowercase();
    Some(match label.as_str() {
        "name" | "title" | "product" | "product name" | "song" | "beer" => Field::Name,
        "brand" | "manufacturer" | "maker" | "make" | "brewery" | "artist" => Field::Brand,
        "model" | "model number" | "model no" | "model no." | "modelno" | "mpn" | "sku"
        | "part number" | "part no" | "part no." | "item model number" | "productid"
        | "product id" | "gtin" | "gtin13" | "gtin12" | "gtin8" | "ean" | "upc" | "isbn" => {
            Field::Model
        }
        "price" | "list price" | "our price" => Field::Price,
        "category" | "type" | "genre" | "style" | "cuisine" => Field::Category,
        "description" | "details" | "listing" | "about" | "summary" => Field::Description,
        "authors" | "author" | "by" | "creator" => Field::Authors,
        "venue" | "journal" | "conference" | "published in" | "album" | "publisher" => Field::Venue,
        "year" | "released" | "release date" | "date published" | "datepublished" | "date" => {
            Field::Year
        }
        _ => return None,
    })
}

impl Record {
    /// Whether two records give the same year; None unless both give one.
    pub fn same_year(&self, other: &Record) -> Option<bool> {
        Some(self.year? == other.year?)
    }

    /// Reads the record of a parsed page from the fields of its head (its JSON-LD and
    /// citation tags, read by [`json_ld_fields`] and [`meta_fields`] before scripts and
    /// the head are removed), its markup and `visible_text`
    /// of `words` words ([`text::words`]). None when the page is not a record.
    pub fn read(
        json_ld: Vec<(Field, String)>,
        citations: Vec<(Field, String)>,
        dom: &Dom,
        title: &str,
        visible_text: &str,
        words: usize,
    ) -> Option<Record> {
        // A page nobody sees a word of (a script that never ran) is no record, nor is a
        // long one; they are told apart before any field is looked for.
        if words == 0 || words > MAX_RECORD_WORDS {
            return None;
        }
        let mut found = Found {
            evidence: json_ld,
            more: citations,
        };
        itemprops(dom, &mut found.evidence);
        label_value_rows(dom, &mut found);
        label_value_lines(visible_text, &mut found);
        if found.evidence.is_empty() && words > SHORT_PAGE_WORDS {
            return None;
        }
        let mut record = Record::default();
        for (field, value) in found.evidence.into_iter().chain(found.more) {
            record.set(field, &value);
        }
        if record.name.is_none() {
            let heading = text::normalise_space(&dom.select_matcher(css!("h1")).first().text());
            let name = if heading.is_empty() { title } else { &heading };
            record.name = (!name.is_empty()).then(|| name.to_string());
        }
        let named = [record.name.as_deref(), record.model.as_deref()];
        record.codes = codes(
            &named
                .iter()
                .flatten()
                .copied()
                .collect::<Vec<_>>()
                .join(" "),
        );
        record.text = text::normalise_space(visible_text);
        record.compact_text = compact(&record.text);
        record.quantities = quantities(&record.text);
        Some(record)
    }

    /// Keeps the first value of each field.
    fn set(&mut self, field: Field, value: &str) {
        let value: String = text::normalise_space(value)
            .chars()
            .take(MAX_VALUE_CHARS)
            .collect();
        if value.is_empty() {
            return;
        }
        let keep = |slot: &mut Option<String>| {
            slot.get_or_insert(value.clone());
        };
        match field {
            Field::Name => keep(&mut self.name),
            Field::Brand => keep(&mut self.brand),
            Field::Model => keep(&mut self.model),
            Field::Category => keep(&mut self.category),
            Field::Description => keep(&mut self.description),
            Field::Authors => keep(&mut self.authors),
            Field::Venue => keep(&mut self.venue),
            Field::Price => {
                if self.price.is_none() {
                    self.price = price(&value);
                }
            }
            Field::Year => {
                if self.year.is_none() {
                    self.year = year(&value);
                }
            }
        }
    }
}

/// Fields of the JSON-LD blocks (schema.org `Product`, `ScholarlyArticle`, …) among
/// a page's `scripts`.
pub fn json_ld_fields(scripts: &[NodeRef]) -> Vec<(Field, String)> {
    let json_ld = css!("script[type='application/ld+json']");
    let mut fields = Vec::new();
    for script in scripts.iter().filter(|s| json_ld.match_element(*s)) {
        if let Ok(value) = serde_json::from_str::<Value>(&script.text()) {
            json_ld_value(&value, &mut fields, 0);
        }
    }
    fields
}

fn json_ld_value(value: &Value, fields: &mut Vec<(Field, String)>, depth: usize) {
    if depth > 8 {
        return;
    }
    match value {
        Value::Array(items) => items
            .iter()
            .for_each(|item| json_ld_value(item, fields, depth + 1)),
        Value::Object(object) => {
            for (key, inner) in object {
                let field = match key.as_str() {
                    "offers" | "@graph" | "mainEntity" => {
                        json_ld_value(inner, fields, depth + 1);
                        continue;
                    }
                    "isPartOf" => Some(Field::Venue),
                    other => usual_field(other),
                };
                if let Some(field) = field {
                    if let Some(text) = json_text(inner) {
                        fields.push((field, text));
                    }
                }
            }
        }
        _ => {}
    }
}

/// The text of a JSON-LD value: a string or number, an object's `name`, or a list's
/// items joined (authors).
fn json_text(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Object(object) => object.get("name").and_then(json_text),
        Value::Array(items) => {
            let parts: Vec<String> = items.iter().filter_map(json_text).collect();
            (!parts.is_empty()).then(|| parts.join(", "))
        }
        _ => None,
    }
}

/// Fields of schema.org microdata: `itemprop` names the field, `content` (or the
/// element's text) holds the value.
fn itemprops(dom: &Dom, fields: &mut Vec<(Field, String)>) {
    for element in dom.select_matcher(css!("[itemprop]")).iter() {
        let Some(field) = element.attr("itemprop").and_then(|name| usual_field(&name)) else {
            continue;
        };
        let value = element
            .attr("content")
            .map_or_else(|| element.text().to_string(), |c| c.to_string());
        fields.push((field, value));
    }
}

/// Fields of label–value rows: `<tr>` with a `th` and a `td` (or two `td`s), `<dt>`
/// followed by its `<dd>`; and of a table written across ([`label_value_columns`]).
fn label_value_rows(dom: &Dom, found: &mut Found) {
    for row in dom.select_matcher(css!("tr")).iter() {
        let cells = row.select_matcher(css!("th, td"));
        if cells.length() != 2 {
            continue;
        }
        let mut cells = cells.iter();
        if let (Some(label), Some(value)) = (cells.next(), cells.next()) {
            // Two `th`s head the columns of a table written across.
            if !value.is("th") {
                found.read(&label.text(), value.text().to_string(), true);
            }
        }
    }
    label_value_columns(dom, found);
    for term in dom.select_matcher(css!("dt")).iter() {
        let value = term.next_sibling();
        if value.is("dd") {
            found.read(&term.text(), value.text().to_string(), true);
        }
    }
}

/// Fields of a table written across: a row of `th` labels over a single row of values,
/// cell under cell. A table of more rows lists several things, not one.
fn label_value_columns(dom: &Dom, found: &mut Found) {
    let cells = |row: &NodeRef, name: &str| -> Option<Vec<String>> {
        let cells = row.element_children();
        cells
            .iter()
            .all(|cell| cell.has_name(name))
            .then(|| cells.iter().map(|cell| cell.text().to_string()).collect())
    };
    for table in dom.select_matcher(css!("table")).iter() {
        let rows = table.select_matcher(css!("tr"));
        let [head, values] = rows.nodes() else {
            continue;
        };
        let (Some(labels), Some(values)) = (cells(head, "th"), cells(values, "td")) else {
            continue;
        };
        if labels.len() < 2 || labels.len() != values.len() {
            continue;
        }
        for (label, value) in labels.iter().zip(values) {
            found.read(label, value, true);
        }
    }
}

/// Fields of `Label: value` lines of the visible text (or `Label — value` and
/// `label = {value},`, which only add to a record: a dash parts many a headline, an
/// equals sign many a line of code).
fn label_value_lines(visible_text: &str, found: &mut Found) {
    for line in visible_text.lines() {
        let split = LINE_SEPARATORS
            .iter()
            .find_map(|&sep| Some((line.split_once(sep)?, sep)));
        let Some(((label, value), sep)) = split else {
            continue;
        };
        if label.len() <= 24 {
            let value = match sep {
                " = " => unbraced(value),
                _ => value.to_string(),
            };
            found.read(label, value, sep == ":");
        }
    }
}

/// A value without the braces, quotes and closing comma BibTeX writes around it
/// (`{Efficient {SQL} Queries},` is `Efficient SQL Queries`); other values as they are.
fn unbraced(value: &str) -> String {
    let value = value.trim();
    let inner = value.strip_suffix(',').unwrap_or(value).trim();
    if inner.starts_with(['{', '"']) {
        inner.replace(['{', '}'], "").trim_matches('"').to_string()
    } else {
        value.to_string()
    }
}

/// The field of a paper's citation `<meta>` tag (Google Scholar's `citation_*`) or of a
/// product's Open Graph `product:*` one. (Dublin Core's `DC.*` tags are left out: many a
/// blog's software writes them on every post.)
fn meta_field(name: &str) -> Option<Field> {
    Some(match name.to_lowercase().as_str() {
        "citation_title" => Field::Name,
        "citation_author" => Field::Authors,
        "citation_journal_title"
        | "citation_conference_title"
        | "citation_inbook_title"
        | "citation_book_title"
        | "citation_publisher" => Field::Venue,
        "citation_publication_date" | "citation_date" | "citation_year" => Field::Year,
        "product:brand" => Field::Brand,
        "product:price:amount" => Field::Price,
        "product:mfr_part_no" | "product:retailer_item_id" => Field::Model,
        _ => return None,
    })
}

/// Fields of a page's citation `<meta>` tags (`meta_field`); a paper's
/// `citation_author` tags, one an author, make one authors field.
pub fn meta_fields(metas: &[NodeRef]) -> Vec<(Field, String)> {
    let mut fields = Vec::new();
    let mut authors = Vec::new();
    for meta in metas {
        let name = meta.attr("name").or_else(|| meta.attr("property"));
        let Some(field) = name.and_then(|n| meta_field(&n)) else {
            continue;
        };
        let value = meta.attr("content").unwrap_or_default().to_string();
        match field {
            Field::Authors => authors.push(value),
            _ => fields.push((field, value)),
        }
    }
    if !authors.is_empty() {
        fields.push((Field::Authors, authors.join(", ")));
    }
    fields
}

/// The first number of a price (`$1,299.00`, `1299,00 €`, `EUR 45`).
pub fn price(value: &str) -> Option<f64> {
    let start = value.find(|c: char| c.is_ascii_digit())?;
    let digits: String = value[start..]
        .chars()
        .take_while(|c| c.is_ascii_digit() || matches!(c, ',' | '.'))
        .collect();
    // A comma followed by exactly two digits at the end is a decimal comma.
    let normalised = match digits.rsplit_once(',') {
        Some((whole, cents)) if cents.len() == 2 && !whole.contains('.') => {
            format!("{}.{cents}", whole.replace(',', ""))
        }
        _ => digits.replace(',', ""),
    };
    normalised
        .trim_end_matches('.')
        .parse::<f64>()
        .ok()
        .filter(|p| p.is_finite())
}

/// The first four-digit year (1800–2099) of a value.
pub fn year(value: &str) -> Option<u32> {
    value
        .split(|c: char| !c.is_ascii_digit())
        .filter(|part| part.len() == 4)
        .filter_map(|part| part.parse::<u32>().ok())
        .find(|y| (1800..2100).contains(y))
}

/// Lower-case letters and digits of a text, nothing else.
pub fn compact(text: &str) -> String {
    text.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// The identifiers of a text: tokens (split at spaces, commas, brackets and quotes)
/// that mix letters and digits, or are five or more digits without a decimal point,
/// normalised by dropping case and `-`, `/`, `.`, `_`; a token with `/` also gives its
/// parts (`DSCW55/B` is `dscw55b` and `dscw55`). Quantities with a unit (`16GB`,
/// `7.2MP`) are not identifiers: see [`quantities`]. Sorted, without repeats.
pub fn codes(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for token in text.split(|c: char| c.is_whitespace() || ",;()[]{}\"'|".contains(c)) {
        let parts = std::iter::once(token).chain(token.split('/').filter(|_| token.contains('/')));
        for part in parts {
            if let Some(code) = code(part) {
                out.push(code);
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

fn code(token: &str) -> Option<String> {
    if quantity(token).is_some() {
        return None;
    }
    let normal: String = token
        .chars()
        .filter(|c| !matches!(c, '-' | '/' | '.' | '_'))
        .flat_map(char::to_lowercase)
        .collect();
    if normal.len() < 3 || !normal.chars().all(char::is_alphanumeric) {
        return None;
    }
    let letters = normal.chars().any(char::is_alphabetic);
    let digits = normal.chars().filter(char::is_ascii_digit).count();
    let long_number = !letters && digits >= 5 && !token.contains('.');
    (letters && digits > 0 || long_number).then_some(normal)
}

/// A quantity: a number and its unit, normalised to a base unit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Quantity {
    pub unit: &'static str,
    pub value: f64,
}

/// Units by their spellings, with the factor to the base unit.
const UNITS: &[(&str, &str, f64)] = &[
    ("kb", "byte", 1e3),
    ("mb", "byte", 1e6),
    ("gb", "byte", 1e9),
    ("tb", "byte", 1e12),
    ("mp", "megapixel", 1.0),
    ("megapixel", "megapixel", 1.0),
    ("megapixels", "megapixel", 1.0),
    ("mm", "metre", 1e-3),
    ("cm", "metre", 1e-2),
    ("in", "metre", 0.0254),
    ("inch", "metre", 0.0254),
    ("\"", "metre", 0.0254),
    ("w", "watt", 1.0),
    ("watt", "watt", 1.0),
    ("watts", "watt", 1.0),
    ("kw", "watt", 1e3),
    ("mhz", "hertz", 1e6),
    ("ghz", "hertz", 1e9),
    ("hz", "hertz", 1.0),
    ("x", "zoom", 1.0),
    ("mah", "charge", 1.0),
    ("v", "volt", 1.0),
    ("lbs", "kilogram", 0.4536),
    ("lb", "kilogram", 0.4536),
    ("kg", "kilogram", 1.0),
    ("g", "kilogram", 1e-3),
    ("oz", "kilogram", 0.02835),
    ("ml", "litre", 1e-3),
    ("l", "litre", 1.0),
];

/// The quantity a token writes (`16GB`, `7.2mp`, `42"`, `1,000W`), if it is one.
pub fn quantity(token: &str) -> Option<Quantity> {
    let token = token.trim_matches(|c: char| matches!(c, '(' | ')' | ',' | ';'));
    let split = token.find(|c: char| !(c.is_ascii_digit() || matches!(c, '.' | ',')))?;
    let (number, unit) = token.split_at(split);
    if number.is_empty() || !number.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    let value: f64 = number.replace(',', "").trim_end_matches('.').parse().ok()?;
    let unit = unit.trim_start_matches('-').to_lowercase();
    let &(_, base, factor) = UNITS.iter().find(|(spelling, _, _)| *spelling == unit)?;
    Some(Quantity {
        unit: base,
        value: value * factor,
    })
}

/// The quantities of a text: single tokens (`16GB`) and a number followed by its unit
/// (`16 GB`). Sorted by unit, then value.
pub fn quantities(text: &str) -> Vec<Quantity> {
    let tokens: Vec<&str> = text.split_whitespace().collect();
    let mut out: Vec<Quantity> = Vec::new();
    for (i, token) in tokens.iter().enumerate() {
        if let Some(q) = quantity(token) {
            out.push(q);
        } else if token.chars().all(|c| c.is_ascii_digit() || c == '.') {
            if let Some(q) = tokens
                .get(i + 1)
                .and_then(|unit| quantity(&format!("{token}{unit}")))
            {
                out.push(q);
            }
        }
    }
    out.sort_by(|a, b| a.unit.cmp(b.unit).then(a.value.total_cmp(&b.value)));
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(html: &str) -> Option<Record> {
        let dom = Dom::from(html);
        let title = text::normalise_space(&dom.select_matcher(css!("title")).text());
        let json_ld = json_ld_fields(dom.select_matcher(css!("script")).nodes());
        let citations = meta_fields(dom.select_matcher(css!("meta")).nodes());
        let visible = dom
            .select_matcher(css!("body"))
            .formatted_text()
            .to_string();
        Record::read(
            json_ld,
            citations,
            &dom,
            &title,
            &visible,
            text::words(&visible).count(),
        )
    }

    #[test]
    fn identifiers_are_normalised_and_units_are_not_identifiers() {
        assert_eq!(
            codes("Sony Cyber-shot DSC-W55 7.2MP Digital Camera"),
            ["dscw55"]
        );
        assert_eq!(codes("Sony DSCW55/B camera"), ["dscw55", "dscw55b"]);
        assert_eq!(codes("Punch 17100 v. 3.0 (2009)"), ["17100"]);
        assert_eq!(codes("16GB 1,000W 42\" 3x"), Vec::<String>::new());
        assert_eq!(codes("KDL-40V4100 kdl40v4100"), ["kdl40v4100"]);
    }

    #[test]
    fn quantities_are_normalised_to_base_units() {
        assert_eq!(
            quantity("16GB"),
            Some(Quantity {
                unit: "byte",
                value: 16e9
            })
        );
        assert_eq!(quantity("7.2mp").map(|q| q.value), Some(7.2));
        assert_eq!(quantity("2TB").map(|q| q.value), Some(2e12));
        assert_eq!(quantity("1,000W").map(|q| q.value), Some(1000.0));
        assert!((quantity("42\"").unwrap().value - 1.0668).abs() < 1e-9);
        assert_eq!(quantity("DSC-W55"), None);
        let found = quantities("a 2 TB disk and 16 GB of memory, 2000GB free");
        assert_eq!(
            found.iter().map(|q| q.value).collect::<Vec<_>>(),
            [16e9, 2e12]
        );
    }

    #[test]
    fn prices_and_years() {
        assert_eq!(price("$1,299.00"), Some(1299.0));
        assert_eq!(price("1299,00 €"), Some(1299.0));
        assert_eq!(price("EUR 45"), Some(45.0));
        assert_eq!(price("call us"), None);
        assert_eq!(year("VLDB 2003, pp. 12-20"), Some(2003));
        assert_eq!(year("12345"), None);
    }

    #[test]
    fn fields_from_a_table_and_a_definition_list() {
        let table = record(
            "<html><head><title>Shop: camera</title></head><body><h1>Sony Cyber-shot DSC-W55</h1>\
             <table><tr><th>Manufacturer</th><td>Sony</td></tr>\
             <tr><th>Price</th><td>$129.99</td></tr><tr><td>Colour</td><td>Black</td></tr></table>\
             </body></html>",
        )
        .expect("a record");
        assert_eq!(table.name.as_deref(), Some("Sony Cyber-shot DSC-W55"));
        assert_eq!(table.brand.as_deref(), Some("Sony"));
        assert_eq!(table.price, Some(129.99));
        assert_eq!(table.codes, ["dscw55"]);
        assert!(table.compact_text.contains("sonycybershotdscw55"));

        let list = record(
            "<html><body><h1>Efficient joins</h1><dl><dt>Authors</dt><dd>A. Smith, B. Jones</dd>\
             <dt>Venue</dt><dd>VLDB</dd><dt>Year</dt><dd>2003</dd></dl></body></html>",
        )
        .expect("a record");
        assert_eq!(list.authors.as_deref(), Some("A. Smith, B. Jones"));
        assert_eq!(list.venue.as_deref(), Some("VLDB"));
        assert_eq!(list.year, Some(2003));
    }

    #[test]
    fn fields_from_itemprop_json_ld_and_lines() {
        let micro = record(
            "<html><body><div itemscope><span itemprop=name>Nikon D80</span>\
             <meta itemprop=mpn content='25412'><span itemprop=brand>Nikon</span></div></body></html>",
        )
        .expect("a record");
        assert_eq!(micro.name.as_deref(), Some("Nikon D80"));
        assert_eq!(micro.model.as_deref(), Some("25412"));
        assert_eq!(micro.codes, ["25412", "d80"]);

        let ld = record(
            r#"<html><head><script type="application/ld+json">
            {"@type": "Product", "name": "Canon EOS 40D", "brand": {"@type": "Brand", "name": "Canon"},
             "mpn": "2652B003", "offers": {"@type": "Offer", "price": "899.00"}}
            </script></head><body><p>Canon EOS 40D</p></body></html>"#,
        )
        .expect("a record");
        assert_eq!(ld.brand.as_deref(), Some("Canon"));
        assert_eq!(ld.model.as_deref(), Some("2652B003"));
        assert_eq!(ld.price, Some(899.0));
        assert_eq!(ld.codes, ["2652b003", "40d"]);

        let lines = record("<html><body><pre>Brand: Apple\nModel: MB467LL/A</pre></body></html>")
            .expect("a record");
        assert_eq!(lines.brand.as_deref(), Some("Apple"));
        assert_eq!(lines.codes, ["mb467ll", "mb467lla"]);
    }

    #[test]
    fn labels_read_by_their_words() {
        let read = |label| field_of(label).map(|(field, _)| field);
        assert_eq!(read("Author(s):"), Some(Field::Authors));
        assert_eq!(read("Publication year"), Some(Field::Year));
        assert_eq!(read("Published in"), Some(Field::Venue));
        assert_eq!(read("Song_Name"), Some(Field::Name));
        assert_eq!(read("Album_Name"), Some(Field::Venue));
        assert_eq!(read("Brew_Factory_Name"), Some(Field::Brand));
        assert_eq!(read("Item #"), Some(Field::Model));
        assert_eq!(read("isPartOf"), Some(Field::Venue));
        assert_eq!(read("Source title"), Some(Field::Venue));
        // Read by its words only: a news page's `Source: Reuters` never makes a record.
        assert_eq!(field_of("Source"), Some((Field::Venue, false)));
        assert_eq!(read("productID"), Some(Field::Model));
        assert_eq!(read("brandName"), Some(Field::Brand));
        assert_eq!(read("Manufacturer part number"), Some(Field::Model));
        assert_eq!(read("Retail price (USD)"), Some(Field::Price));
        assert_eq!(read("Tech specs"), None);
        assert_eq!(read("The name of this rose in the old books"), None);
    }

    #[test]
    fn a_record_written_in_other_words() {
        let paper = record(
            "<html><body><div>Booktitle: SIGMOD Conference</div>\
             <div>Paper title: Efficient query processing over XML streams</div>\
             <div>Publication year: 2003</div><div>Author(s): M. Franklin, Y. Diao</div>\
             </body></html>",
        )
        .expect("a short page is a record");
        assert_eq!(
            paper.name.as_deref(),
            Some("Efficient query processing over XML streams")
        );
        assert_eq!(paper.authors.as_deref(), Some("M. Franklin, Y. Diao"));
        assert_eq!(paper.venue.as_deref(), Some("SIGMOD Conference"));
        assert_eq!(paper.year, Some(2003));

        let cited = record(
            "<html><head><meta name=citation_title content='Efficient joins'>\
             <meta name=citation_author content='A. Smith'><meta name=citation_author content='B. Jones'>\
             <meta name=citation_conference_title content=VLDB>\
             <meta name=citation_publication_date content=2003/09/01></head>\
             <body><h1>Efficient joins</h1><p>A. Smith and B. Jones.</p></body></html>",
        )
        .expect("a record");
        assert_eq!(cited.authors.as_deref(), Some("A. Smith, B. Jones"));
        assert_eq!(cited.venue.as_deref(), Some("VLDB"));
        assert_eq!(cited.year, Some(2003));

        // A byline read by its words does not make an article a record.
        let story = format!(
            "<html><body><pre>Written by: A. Smith</pre><p>{}</p></body></html>",
            "story ".repeat(400)
        );
        assert_eq!(record(&story), None);
    }

    #[test]
    fn a_record_written_across_a_table_or_as_bibtex() {
        let across = record(
            "<html><body><table><tr><th>Product title</th><th>Vendor</th><th>Price (USD)</th><th>mpn</th></tr>\
             <tr><td>Sony DSC-W55 camera</td><td>Sony</td><td>$129.99</td><td>DSCW55</td></tr></table></body></html>",
        )
        .expect("a record");
        assert_eq!(across.name.as_deref(), Some("Sony DSC-W55 camera"));
        assert_eq!(across.price, Some(129.99));
        assert_eq!(across.model.as_deref(), Some("DSCW55"));
        assert_eq!(across.brand, None, "`Vendor` stays unread");
        // A table of several rows lists several things: none of its cells is a field.
        let listing = record(
            "<html><body><table><tr><th>Title</th><th>Year</th></tr>\
             <tr><td>First</td><td>2001</td></tr><tr><td>Second</td><td>2002</td></tr></table></body></html>",
        )
        .expect("a short page is a record");
        assert_eq!(listing.year, None);
        // Two header cells are no label and value.
        let headed = record(
            "<html><body><table><tr><th>Title</th><th>Year</th></tr></table><h1>A paper</h1></body></html>",
        )
        .expect("a short page is a record");
        assert_eq!(headed.name.as_deref(), Some("A paper"));

        let bibtex = record(
            "<html><body><pre>@inproceedings{franklin03,\n  title = {Efficient {XML} Stream Queries},\n  \
             author = {M. Franklin and Y. Diao},\n  booktitle = \"SIGMOD Conference\",\n  year = 2003\n}</pre></body></html>",
        )
        .expect("a record");
        assert_eq!(bibtex.name.as_deref(), Some("Efficient XML Stream Queries"));
        assert_eq!(bibtex.authors.as_deref(), Some("M. Franklin and Y. Diao"));
        assert_eq!(bibtex.venue.as_deref(), Some("SIGMOD Conference"));
        assert_eq!(bibtex.year, Some(2003));
    }

    #[test]
    fn an_article_is_not_a_record() {
        let story = format!("<html><body><p>{}</p></body></html>", "story ".repeat(400));
        assert_eq!(record(&story), None);
        assert_eq!(record("<html><body></body></html>"), None);
        let short =
            record("<html><body><h1>Belkin CushTop F8N044-SLV</h1><p>Silver.</p></body></html>")
                .expect("a short page is a record");
        assert_eq!(short.codes, ["f8n044slv"]);
        let long = format!(
            "<html><body><table><tr><th>Price</th><td>3</td></tr></table><p>{}</p></body></html>",
            "word ".repeat(600)
        );
        assert_eq!(record(&long), None);
    }
}
