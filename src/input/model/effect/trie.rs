//! A trie of phrases, walked from the start of each word of a text: the phrases of
//! [`super::phrases`] all open with a word, so a phrase is looked for only where a word
//! starts, and no phrase starts inside a word ("th*is idempotent*" says nothing).
//!
//! Matching is leftmost-longest, in ASCII lower case, with a line break or tab read as a
//! space (a description wrapped at "already\nexists" says "already exists"), over the
//! text as written. The trie is one table, `node × byte class → node`: a word that opens
//! no phrase is left after a step or two, and the table is built in one pass over the
//! phrases. The starts of words are found sixteen bytes at a time, and a word whose first
//! two bytes open no phrase is passed over after one look.

use wide::u8x16;

/// Phrases, as a table of transitions over classes of folded bytes.
pub(super) struct Trie {
    /// Each byte's class: its folded form's place among the bytes that phrases hold, or
    /// `0` when no phrase holds it.
    class: [u8; 256],
    /// How many classes there are (the width of a row of `next`).
    classes: usize,
    /// `next[node * classes + class]`: the node a byte leads to, or `0` (the root, which
    /// no byte leads back to) when it leads nowhere. Two bytes a step keep the table
    /// small enough to stay in the processor's cache.
    next: Vec<u16>,
    /// Per node: the phrase that ends there, plus one, or `0`.
    ends: Vec<u32>,
    /// `opens[first * classes + second]`: whether a phrase can start with these two
    /// bytes' classes (one that ends after the first byte included), so that most words
    /// are passed over after one look.
    opens: Vec<bool>,
}

/// A byte as phrases are matched: ASCII lower case, any ASCII whitespace a space.
fn fold(b: u8) -> u8 {
    if b.is_ascii_whitespace() {
        b' '
    } else {
        b.to_ascii_lowercase()
    }
}

impl Trie {
    /// The trie of `phrases`; phrase `i` is reported as `i`, and of equal phrases the
    /// first.
    pub(super) fn new<'p>(phrases: impl IntoIterator<Item = &'p str> + Clone) -> Trie {
        // Class 0 is "in no phrase"; every byte a phrase holds gets its own.
        let mut class_of_folded = [0u8; 256];
        let mut classes = 1usize;
        for b in phrases.clone().into_iter().flat_map(str::bytes).map(fold) {
            if class_of_folded[usize::from(b)] == 0 && classes < 256 {
                class_of_folded[usize::from(b)] = classes as u8;
                classes += 1;
            }
        }
        let mut class = [0u8; 256];
        for (b, slot) in (0..=u8::MAX).zip(class.iter_mut()) {
            *slot = class_of_folded[usize::from(fold(b))];
        }
        let mut next = vec![0u16; classes];
        let mut ends = vec![0u32];
        'phrases: for (index, phrase) in (1u32..).zip(phrases) {
            let mut node = 0usize;
            for b in phrase.bytes() {
                let at = node * classes + usize::from(class[usize::from(b)]);
                node = match next[at] {
                    0 => {
                        // More nodes than a step can name: the phrase is left out (the
                        // phrase lists' test finds every phrase, so theirs fit).
                        let Ok(new) = u16::try_from(ends.len()) else {
                            continue 'phrases;
                        };
                        ends.push(0);
                        next.resize(next.len() + classes, 0);
                        next[at] = new;
                        usize::from(new)
                    }
                    known => usize::from(known),
                };
            }
            if node != 0 && ends[node] == 0 {
                ends[node] = index;
            }
        }
        let mut opens = vec![false; classes * classes];
        for first in 0..classes {
            let one = usize::from(next[first]);
            if one == 0 {
                continue;
            }
            for second in 0..classes {
                opens[first * classes + second] =
                    ends[one] != 0 || next[one * classes + second] != 0;
            }
        }
        Trie {
            class,
            classes,
            next,
            ends,
            opens,
        }
    }

    /// The trie of the phrases of `lists`, with each phrase's list's tag (phrase `i` is
    /// reported as `i`, and of equal phrases the first).
    pub(super) fn of_lists<T: Copy>(lists: &[(&[&str], T)]) -> (Trie, Vec<T>) {
        let tags = lists
            .iter()
            .flat_map(|(list, tag)| list.iter().map(|_| *tag))
            .collect();
        let trie = Trie::new(lists.iter().flat_map(|(list, _)| list.iter().copied()));
        (trie, tags)
    }

    /// The node `b` leads to from `node` (`0`, the root, to start), or `None` where no
    /// phrase goes on with it: a word is looked up one byte at a time.
    pub(super) fn step(&self, node: u16, b: u8) -> Option<u16> {
        let class = usize::from(self.class[usize::from(b)]);
        self.next
            .get(usize::from(node) * self.classes + class)
            .copied()
            .filter(|&next| next != 0)
    }

    /// The phrase that ends at `node`, if one does.
    pub(super) fn ends_at(&self, node: u16) -> Option<u32> {
        self.ends
            .get(usize::from(node))
            .and_then(|&phrase| phrase.checked_sub(1))
    }

    /// The longest phrase that starts at `at`, with the byte after it.
    fn longest_at(&self, bytes: &[u8], at: usize) -> Option<(u32, usize)> {
        let mut node = 0usize;
        let mut best = None;
        for (end, &b) in (at + 1..).zip(bytes.get(at..)?) {
            let class = usize::from(self.class[usize::from(b)]);
            match self.next.get(node * self.classes + class) {
                Some(&next) if next != 0 => node = usize::from(next),
                _ => break,
            }
            if let Some(&phrase) = self.ends.get(node).filter(|&&p| p != 0) {
                best = Some((phrase - 1, end));
            }
        }
        best
    }

    /// The phrases of `text`, leftmost-longest and not overlapping, each as its number
    /// and the byte where it starts.
    pub(super) fn find_iter<'t>(&'t self, text: &'t str) -> Phrases<'t> {
        Phrases {
            trie: self,
            bytes: text.as_bytes(),
            chunk: 0,
            starts: 0,
            carry: false,
            resume: 0,
        }
    }

    /// Whether a phrase may start at `at`, a word's start: its first two bytes' classes
    /// open one (a word's last byte, a phrase's last byte or not).
    fn opens_at(&self, bytes: &[u8], at: usize) -> bool {
        let class = |i: usize| {
            bytes
                .get(i)
                .map_or(0, |&b| usize::from(self.class[usize::from(b)]))
        };
        self.opens
            .get(class(at) * self.classes + class(at + 1))
            .copied()
            .unwrap_or(false)
    }
}

/// Bytes read at a time for the starts of words.
const CHUNK: usize = 16;

/// The starts of words in `chunk` (its bits, lowest first), a word starting at a letter
/// that no letter or digit comes before; `carry`: the byte before the chunk is a letter
/// or digit, and becomes whether its last byte is.
fn word_starts(chunk: &[u8; CHUNK], carry: &mut bool) -> u32 {
    let v = u8x16::new(*chunk);
    let within =
        |v: u8x16, low: u8, high: u8| v.max(u8x16::splat(low)).min(u8x16::splat(high)).simd_eq(v);
    let letters = within(v | u8x16::splat(0x20), b'a', b'z').to_bitmask();
    let words = letters | within(v, b'0', b'9').to_bitmask();
    let after_word = (words << 1) | u32::from(*carry);
    *carry = words & (1 << (CHUNK - 1)) != 0;
    letters & !after_word
}

/// The phrases of a text, as [`Trie::find_iter`] finds them.
pub(super) struct Phrases<'t> {
    trie: &'t Trie,
    bytes: &'t [u8],
    /// Where the next chunk starts.
    chunk: usize,
    /// The word starts of the chunk before `chunk` not yet looked at.
    starts: u32,
    carry: bool,
    /// Where the last phrase found ends: no phrase starts before it.
    resume: usize,
}

impl Iterator for Phrases<'_> {
    type Item = (u32, usize);

    fn next(&mut self) -> Option<(u32, usize)> {
        loop {
            while self.starts != 0 {
                let at = self.chunk - CHUNK + self.starts.trailing_zeros() as usize;
                self.starts &= self.starts - 1;
                if at < self.resume || !self.trie.opens_at(self.bytes, at) {
                    continue;
                }
                if let Some((phrase, end)) = self.trie.longest_at(self.bytes, at) {
                    self.resume = end;
                    return Some((phrase, at));
                }
            }
            let rest = self.bytes.get(self.chunk..).filter(|r| !r.is_empty())?;
            let mut chunk = [b' '; CHUNK];
            let taken = rest.len().min(CHUNK);
            chunk[..taken].copy_from_slice(&rest[..taken]);
            self.starts = word_starts(&chunk, &mut self.carry);
            self.chunk += CHUNK;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Trie;

    fn found(trie: &Trie, text: &str) -> Vec<(u32, usize)> {
        trie.find_iter(text).collect()
    }

    #[test]
    fn the_longest_phrase_from_the_leftmost_word_start_is_found() {
        let phrases = ["is idempotent", "idempotent", "is not idempotent", "sends"];
        let trie = Trie::new(phrases);
        assert_eq!(found(&trie, "This operation is idempotent."), vec![(0, 15)]);
        assert_eq!(found(&trie, "It IS NOT\nidempotent"), vec![(2, 3)]);
        // Inside a word no phrase starts: "this idempotent" holds no "is idempotent".
        assert_eq!(found(&trie, "this idempotent"), vec![(1, 5)]);
        // A hyphen ends a word: "non-idempotent" holds "idempotent".
        assert_eq!(found(&trie, "non-idempotent"), vec![(1, 4)]);
        assert_eq!(found(&trie, "resends; 2sends sends"), vec![(3, 16)]);
        assert_eq!(found(&trie, ""), vec![]);
        let short = Trie::new(["a", "ab", "a"]);
        assert_eq!(found(&short, "a b ab"), vec![(0, 0), (1, 4)]);
    }

    #[test]
    fn a_phrase_that_fails_late_gives_way_to_a_shorter_one() {
        let trie = Trie::new(["will be sent", "will be notified", "be notified"]);
        assert_eq!(found(&trie, "owners will be notified"), vec![(1, 7)]);
        assert_eq!(
            found(&trie, "owners will be told, then be notified"),
            vec![(2, 26)]
        );
        // A phrase ends where it ends, even inside a word.
        assert_eq!(found(&trie, "it will be sent2day"), vec![(0, 3)]);
    }

    #[test]
    fn words_are_found_across_the_chunks_they_straddle() {
        let trie = Trie::new(["sends", "a new", "x"]);
        // Every offset around the 16-byte chunk boundaries, after a space, a letter, a
        // digit, punctuation and a multi-byte character.
        for pad in 0..40 {
            for before in [" ", "q", "7", "-", "é"] {
                let text = format!("{}{before}sends a new x", "z".repeat(pad));
                let at = pad + before.len();
                let expected = if before == " " || before == "-" || before == "é" {
                    vec![(0, at), (1, at + 6), (2, at + 12)]
                } else {
                    vec![(1, at + 6), (2, at + 12)]
                };
                assert_eq!(found(&trie, &text), expected, "{text:?}");
            }
        }
    }
}
