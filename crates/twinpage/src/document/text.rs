//! Words, shingles and fingerprints of a text.
//!
//! Words are lower-cased Unicode words (any apostrophe in them written `'`), hashed to
//! `u32` so that the edit distances compare integers instead of strings (and stay fast
//! on long bodies). Tokens that look like session ids or other machine noise are
//! dropped here, once, so that no distance test sees them: the seed keeps
//! ever-changing content away from them.

use unicode_segmentation::UnicodeSegmentation;
use unicode_width::UnicodeWidthChar;

use twinpage_util::hash::{fnv1a, fnv1a_continue, mix64};

/// Number of words in a shingle (an N-word phrase).
pub const SHINGLE_WORDS: usize = 4;

/// Marks that end a sentence, in the scripts the test pages write (full-width ones for
/// Chinese and Japanese).
pub const SENTENCE_ENDS: [char; 7] = ['.', '!', '?', '…', '。', '！', '？'];

/// What a wide letter counts in Latin letters: a Chinese or Japanese character carries
/// about what three Latin letters do.
pub const LETTERS_PER_WIDE_CHAR: usize = 3;

/// True for a letter written wide: a Chinese character, kana, Hangul (not wide
/// punctuation or emoji).
pub fn is_wide_letter(c: char) -> bool {
    c.width() == Some(2) && c.is_alphabetic()
}

/// The length of a text in Latin letters: a wide letter counts
/// [`LETTERS_PER_WIDE_CHAR`], any other character one.
pub fn letters(text: &str) -> usize {
    text.chars().map(letters_of).sum()
}

/// [`letters`] without the white space.
pub fn written_letters(text: &str) -> usize {
    text.chars()
        .filter(|c| !c.is_whitespace())
        .map(letters_of)
        .sum()
}

fn letters_of(c: char) -> usize {
    if is_wide_letter(c) {
        LETTERS_PER_WIDE_CHAR
    } else {
        1
    }
}

/// The id of a (lower-cased) word.
pub fn word_id(word: &str) -> u32 {
    fnv1a(word.as_bytes()) as u32
}

/// Lower-cased words of a text, without machine noise.
pub fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    written_words(text).map(spelled)
}

/// Apostrophes other than the typewriter's `'` that a word is written with: the right
/// single quotation mark and the modifier letter; the Unicode word rules keep both
/// inside a word (`l’État`, `don’t`).
const OTHER_APOSTROPHES: [char; 2] = ['\u{2019}', '\u{2bc}'];

/// A word as compared: lower-cased, its apostrophes written as the typewriter's. Sites
/// write one text with either (WordPress turns `'` into `’` as it shows a post), so a
/// copy on another site may write the other in every elided or contracted word, and
/// a French article's phrases would then be other phrases.
fn spelled(word: &str) -> String {
    let lower = word.to_lowercase();
    if lower.contains(OTHER_APOSTROPHES) {
        lower.replace(OTHER_APOSTROPHES, "'")
    } else {
        lower
    }
}

/// Lower-cased words of a text, and whether each is written with a capital (a name):
/// one segmentation for [`number_places`] and [`name_places`].
pub fn words_and_capitals(text: &str) -> (Vec<String>, Vec<bool>) {
    written_words(text)
        .map(|w| {
            let capital = w.chars().next().is_some_and(char::is_uppercase);
            (spelled(w), capital)
        })
        .unzip()
}

/// The Unicode words of a text as written, without machine noise.
///
/// The text is cut at ASCII white space first: no word spans it, and the segmenter
/// takes its ASCII fast path on every piece that is ASCII, where on the whole text it
/// would look up the word-break class of every character (segmentation was a tenth of
/// the time spent reading a page). `pieces_split_as_the_whole_text` checks that the
/// words are the same.
fn written_words(text: &str) -> impl Iterator<Item = &str> + '_ {
    text.split_ascii_whitespace()
        .flat_map(UnicodeSegmentation::unicode_words)
        .filter(|w| !is_noise(w))
}

/// How many words a text has ([`words`] without making them).
pub fn word_count(text: &str) -> usize {
    written_words(text).count()
}

/// Words a line holds to be prose rather than an item of a menu or a list.
const SENTENCE_WORDS: usize = 8;

/// How many words a text writes in lines of prose: lines of eight words or
/// more that end a sentence ([`SENTENCE_ENDS`]). A menu line may be long, but ends no
/// sentence; an article is mostly such lines.
pub fn prose_words(text: &str) -> usize {
    text.lines()
        .filter(|line| line.contains(SENTENCE_ENDS))
        .map(word_count)
        .filter(|&n| n >= SENTENCE_WORDS)
        .sum()
}

/// Words of prose ([`prose_words`]) that make an article.
pub const ARTICLE_WORDS: usize = 50;

/// Whether `text` holds an article: [`ARTICLE_WORDS`] of its words or more in lines of
/// prose. Two shells of one app serve the same menu whatever page a script fills in;
/// one page served at two addresses serves the same article.
pub fn article(text: &str) -> bool {
    prose_words(text) >= ARTICLE_WORDS
}

/// [`word_count`], counting no further than `limit`: enough to tell a short text, without
/// splitting the whole of a long one.
pub fn word_count_to(text: &str, limit: usize) -> usize {
    written_words(text).take(limit).count()
}

/// Word ids of a text, in order.
pub fn word_ids(text: &str) -> Vec<u32> {
    words(text).map(|w| word_id(&w)).collect()
}

/// The ids of the distinct words of a text, ascending: a set to compare.
pub fn word_set(text: &str) -> Vec<u32> {
    let mut ids = word_ids(text);
    ids.sort_unstable();
    ids.dedup();
    ids
}

/// Word ids of words already split.
pub fn ids_of(words: &[String]) -> Vec<u32> {
    words.iter().map(|w| word_id(w)).collect()
}

/// Session ids, hashes and tracking codes: long tokens mixing letters and digits.
/// Short mixed tokens (model numbers such as `rx100`, `a7iii`) are facts and stay.
fn is_noise(word: &str) -> bool {
    let len = word.chars().count();
    if len < 12 {
        return false;
    }
    let digits = word.chars().filter(char::is_ascii_digit).count();
    digits > 0 && digits < len
}

/// Numbers written in the text (prices, model numbers, dates): the key facts that
/// tell two otherwise identical product or event pages apart. Sorted, deduplicated.
pub fn number_set(words: &[String]) -> Vec<u64> {
    let mut numbers: Vec<u64> = words
        .iter()
        .filter(|w| w.chars().any(|c| c.is_ascii_digit()))
        .map(|w| fnv1a(w.as_bytes()))
        .collect();
    numbers.sort_unstable();
    numbers.dedup();
    numbers
}

/// Where a text writes its numbers: each number (its word id) keyed by its place, the
/// nearest words before and after it that are not numbers, sorted.
///
/// Another version of the same page writes the same numbers in the same places; a page
/// that changed its figures (next month's report, another product's sheet) writes other
/// numbers in them, while a block of text added or removed brings places of its own. Runs
/// of numbers (a date as `12 03 2020`) share one place.
pub fn number_places(words: &[String], ids: &[u32]) -> Vec<(u64, u32)> {
    let is_number: Vec<bool> = words
        .iter()
        .map(|w| w.chars().any(|c| c.is_ascii_digit()))
        .collect();
    places(ids, &is_number)
}

/// Where a text writes its names, as [`number_places`] does for numbers: the words
/// written with a capital (`capitals`, from [`words_and_capitals`]), keyed by the
/// nearest words before and after them written without one. The same story about
/// other people (another court case, another match) keeps the sentences and replaces
/// the names in them.
///
/// A capital alone does not make a name: German writes every noun with one, and any
/// language its sentences' first words and title-case headings. Those words are common
/// ones (`common`: in many documents of the idf corpus), and all are written as one
/// value, [`COMMON_WORD`], so that a common word put for another in one place (a
/// synonym: `Menschen` for `Leute`) counts as kept, while a rare word there (another
/// surname, another town) counts as replaced.
pub fn name_places(
    capitals: &[bool],
    ids: &[u32],
    common: impl Fn(u32) -> bool,
) -> Vec<(u64, u32)> {
    let mut places = places(ids, capitals);
    for (_, id) in &mut places {
        if common(*id) {
            *id = COMMON_WORD;
        }
    }
    places.sort_unstable();
    places
}

/// The value [`name_places`] writes for every common word.
pub const COMMON_WORD: u32 = u32::MAX;

/// The marked words of a word sequence keyed by their place (the nearest unmarked
/// words before and after), sorted; runs of marked words share one place.
fn places(ids: &[u32], marked: &[bool]) -> Vec<(u64, u32)> {
    const EDGE: u32 = u32::MAX;
    let mut next_word = vec![EDGE; ids.len()];
    let mut next = EDGE;
    for i in (0..ids.len()).rev() {
        next_word[i] = next;
        if !marked[i] {
            next = ids[i];
        }
    }
    let mut previous = EDGE;
    let mut places = Vec::new();
    for (i, &id) in ids.iter().enumerate() {
        if marked[i] {
            places.push((
                mix64(u64::from(previous) << 32 | u64::from(next_word[i])),
                id,
            ));
        } else {
            previous = id;
        }
    }
    places.sort_unstable();
    places
}

/// Hashes of the `SHINGLE_WORDS`-word shingles of a word sequence, sorted and
/// deduplicated. A text shorter than one shingle is one shingle of all its words.
pub fn shingles(ids: &[u32]) -> Vec<u64> {
    word_shingles(ids, SHINGLE_WORDS)
}

/// Hashes of the `words`-word shingles of a word sequence, sorted and deduplicated
/// (Broder's shingles; the candidate generators choose their own width).
pub fn word_shingles(ids: &[u32], words: usize) -> Vec<u64> {
    if ids.is_empty() {
        return Vec::new();
    }
    let width = words.max(1).min(ids.len());
    let mut out: Vec<u64> = ids
        .windows(width)
        .map(|w| {
            w.iter()
                .fold(0xcbf2_9ce4_8422_2325u64, |h, &id| mix64(h ^ u64::from(id)))
        })
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// The distinct word ids of a word sequence, sorted, widened to `u64` for the set tests.
pub fn vocabulary(ids: &[u32]) -> Vec<u64> {
    let mut out: Vec<u64> = ids.iter().map(|&id| u64::from(id)).collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// Charikar's random-hyperplane fingerprint: each word votes ±1 on each of 64 bits
/// (the bits of its mixed hash), once per occurrence, so frequent words weigh more;
/// the sign of each sum is a bit. Similar texts get fingerprints at small Hamming
/// distance.
pub fn simhash(ids: &[u32]) -> u64 {
    simhash_seeded(ids, 0)
}

/// [`simhash`] with the word hashes drawn from another family (`mix64(id ^ seed)`):
/// independent 64-bit slices of a wider Charikar fingerprint. Seed 0 is [`simhash`].
pub fn simhash_seeded(ids: &[u32], seed: u64) -> u64 {
    simhash_of_hashes(ids.iter().map(|&id| mix64(u64::from(id) ^ seed)))
}

/// Charikar's fingerprint of features given by their 64-bit hashes, each voting
/// once (word shingles, say).
///
/// Counts the ones of each bit instead of summing ±1 (a bit is set when more than
/// half of the features have it), eight bits at a time: each byte of a hash is
/// spread into eight one-byte counters of a `u64`, which are emptied into wide
/// counters before they can overflow. Every sketch of a crawl carries a
/// fingerprint, so it is worth the table.
pub fn simhash_of_hashes(hashes: impl Iterator<Item = u64>) -> u64 {
    let mut ones = [0u64; 64];
    let mut bytes = [0u64; 8];
    let empty = |bytes: &mut [u64; 8], ones: &mut [u64; 64]| {
        for (k, lane) in bytes.iter_mut().enumerate() {
            for (i, one) in ones[8 * k..8 * k + 8].iter_mut().enumerate() {
                *one += *lane >> (8 * i) & 0xff;
            }
            *lane = 0;
        }
    };
    let mut features = 0u64;
    for h in hashes {
        for (k, lane) in bytes.iter_mut().enumerate() {
            *lane += SPREAD_BITS[(h >> (8 * k) & 0xff) as usize];
        }
        features += 1;
        if features.is_multiple_of(255) {
            empty(&mut bytes, &mut ones);
        }
    }
    empty(&mut bytes, &mut ones);
    ones.iter()
        .enumerate()
        .filter(|(_, &o)| 2 * o > features)
        .fold(0u64, |acc, (bit, _)| acc | 1 << bit)
}

/// Each byte value with its eight bits spread into the low bits of eight bytes.
const SPREAD_BITS: [u64; 256] = {
    let mut table = [0u64; 256];
    let mut value = 0;
    while value < 256 {
        let mut bit = 0;
        while bit < 8 {
            table[value] |= ((value as u64 >> bit) & 1) << (8 * bit);
            bit += 1;
        }
        value += 1;
    }
    table
};

/// Word frequencies, sorted by word id.
pub fn frequencies(ids: &[u32]) -> Vec<(u32, u32)> {
    let mut sorted = ids.to_vec();
    sorted.sort_unstable();
    let mut out: Vec<(u32, u32)> = Vec::new();
    for id in sorted {
        match out.last_mut() {
            Some((last, count)) if *last == id => *count += 1,
            _ => out.push((id, 1)),
        }
    }
    out
}

/// [`fnv1a`] of [`normalise_space`]`(text)`, without building it.
pub fn normalised_hash(text: &str) -> u64 {
    let mut words = text.split_whitespace();
    let first = fnv1a(words.next().unwrap_or("").as_bytes());
    words.fold(first, |hash, word| {
        fnv1a_continue(fnv1a_continue(hash, b" "), word.as_bytes())
    })
}

/// Collapses runs of whitespace to one space and trims: the form in which two texts
/// that differ only in layout compare equal.
pub fn normalise_space(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_lowercased_and_noise_dropped() {
        let w: Vec<String> = words("The RX100 costs 450 dollars; sid=a8f3k29dk2j3l4k5").collect();
        assert_eq!(w, ["the", "rx100", "costs", "450", "dollars", "sid"]);
    }

    #[test]
    fn a_word_is_the_same_with_any_apostrophe() {
        let typewriter = "L'État n'a pas dit qu'il don't know";
        for other in ['\u{2019}', '\u{2bc}'] {
            let typeset = typewriter.replace('\'', &other.to_string());
            assert_eq!(word_ids(&typeset), word_ids(typewriter), "{other}");
            assert_eq!(words_and_capitals(&typeset), words_and_capitals(typewriter));
        }
        assert_eq!(words("l'État").collect::<Vec<_>>(), ["l'état"]);
    }

    #[test]
    fn shingles_of_five_words_are_two() {
        let ids = [1, 2, 3, 4, 5];
        assert_eq!(shingles(&ids).len(), 2);
        assert_eq!(shingles(&[7, 8]).len(), 1);
        assert!(shingles(&[]).is_empty());
        // Repeated phrases count once.
        assert_eq!(shingles(&[1, 2, 3, 4, 1, 2, 3, 4]).len(), 4);
    }

    #[test]
    fn simhash_is_the_sign_of_the_votes() {
        // The definition, summed the slow way, on texts long enough to empty the
        // byte counters several times.
        let votes = |ids: &[u32], seed: u64| {
            let mut sums = [0i64; 64];
            for &id in ids {
                let h = mix64(u64::from(id) ^ seed);
                for (bit, sum) in sums.iter_mut().enumerate() {
                    *sum += if h >> bit & 1 == 1 { 1 } else { -1 };
                }
            }
            (0..64)
                .filter(|&b| sums[b] > 0)
                .fold(0u64, |acc, b| acc | 1 << b)
        };
        for (len, seed) in [(0, 0), (1, 3), (254, 0), (255, 7), (1000, 0), (5000, 11)] {
            let ids: Vec<u32> = (0..len).map(|i| (mix64(i) % 97) as u32).collect();
            assert_eq!(simhash_seeded(&ids, seed), votes(&ids, seed), "{len} words");
        }
    }

    #[test]
    fn simhash_of_same_words_in_any_order_is_equal() {
        assert_eq!(simhash(&[1, 2, 3, 3]), simhash(&[3, 2, 3, 1]));
        assert_eq!(simhash(&[]), 0);
        // One word alone: its fingerprint is its mixed hash.
        assert_eq!(simhash(&[42]), mix64(42));
    }

    #[test]
    fn frequencies_count_each_word() {
        assert_eq!(frequencies(&[5, 1, 5, 5]), vec![(1, 1), (5, 3)]);
    }

    #[test]
    fn numbers_are_keyed_by_the_words_around_them() {
        let split = |t: &str| -> (Vec<String>, Vec<u32>) {
            let w: Vec<String> = words(t).collect();
            let ids = ids_of(&w);
            (w, ids)
        };
        let (w, ids) = split("sales rose 12 percent to 450 units on 12 03 2020");
        let places = number_places(&w, &ids);
        assert_eq!(places.len(), 5);
        // The date's three numbers share the place between "on" and the end.
        let date_place = places.iter().find(|p| p.1 == word_id("2020")).unwrap().0;
        assert_eq!(places.iter().filter(|p| p.0 == date_place).count(), 3);
        // A changed figure keeps its place; the same figure elsewhere is another place.
        let place_of = |t: &str| {
            let (w, ids) = split(t);
            number_places(&w, &ids)[0].0
        };
        assert_eq!(
            place_of("sales rose 12 percent"),
            place_of("sales rose 15 percent")
        );
        assert_ne!(
            place_of("sales rose 12 percent"),
            place_of("costs 12 percent")
        );
        assert!(number_places(&[], &[]).is_empty());
    }

    #[test]
    fn names_are_keyed_by_the_words_around_them() {
        let place_of = |t: &str| {
            let (words, capitals) = words_and_capitals(t);
            name_places(&capitals, &ids_of(&words), |_| false)
        };
        let (a, b) = (
            place_of("the court heard Anna Weber on monday"),
            place_of("the court heard Peter Braun on monday"),
        );
        assert_eq!(a.len(), 2);
        assert_eq!(a[0].0, b[0].0);
        assert_ne!(a, b);
        assert!(place_of("no names here").is_empty());
    }

    /// Common words written with a capital (German nouns) are one value: a synonym in
    /// their place is no other name, a rare word there is.
    #[test]
    fn common_capitalised_words_are_no_names() {
        let common = [word_id("menschen"), word_id("leute")];
        let place_of = |t: &str| {
            let (words, capitals) = words_and_capitals(t);
            name_places(&capitals, &ids_of(&words), |id| common.contains(&id))
        };
        let original = place_of("dort leben Menschen seit jahren");
        assert_eq!(original, place_of("dort leben Leute seit jahren"));
        assert_ne!(original, place_of("dort leben Hartleys seit jahren"));
    }

    #[test]
    fn numbers_are_a_set() {
        let of = |t: &str| number_set(&words(t).collect::<Vec<_>>());
        assert_eq!(of("Model 450, price 450 and 99 dollars").len(), 2);
        assert!(of("no digits here").is_empty());
    }

    #[test]
    fn the_normalised_hash_is_the_hash_of_the_normalised_text() {
        for text in ["", "  ", "one", " two  words\n", "a\tb  c \u{a0} d"] {
            assert_eq!(
                normalised_hash(text),
                fnv1a(normalise_space(text).as_bytes())
            );
        }
    }

    proptest::proptest! {
        /// Cutting at ASCII white space before segmenting finds the words the whole
        /// text has: letters, digits and the characters the word-break rules join or
        /// break on (`.` `,` `'` `:` `_`), accents, combining marks, joiners, emoji,
        /// other scripts and every kind of white space.
        #[test]
        fn pieces_split_as_the_whole_text(
            chars in proptest::collection::vec(proptest::sample::select(vec![
                'a', 'Z', 'e', '1', '9', '.', ',', ';', '\'', ':', '_', '-', '"', '/',
                ' ', '\t', '\n', '\r', '\x0b', '\x0c', '\u{a0}', '\u{2009}',
                '\u{e9}', '\u{301}', '\u{200d}', '\u{200b}', '\u{ad}', '\u{2019}',
                '\u{1f600}', '\u{1f1e9}', '\u{1f1ea}', '\u{4e2d}', '\u{30ab}', '\u{416}',
                '\u{5d0}', '\u{661}', '\u{e01}', '\u{a9}', '\u{ff0c}',
            ]), 0..60)
        ) {
            let text: String = chars.into_iter().collect();
            let whole: Vec<&str> = text.unicode_words().filter(|w| !is_noise(w)).collect();
            let pieces: Vec<&str> = written_words(&text).collect();
            proptest::prop_assert_eq!(whole, pieces);
        }
    }
}
