//! Character indices, which YAML markers count, turned into the byte offsets of spans.

/// Turns character indices (what YAML markers count) into byte offsets, walking a cursor
/// that follows the mostly increasing order of events.
pub(super) struct Offsets<'a> {
    pub(super) text: &'a str,
    ascii: bool,
    char_pos: usize,
    byte_pos: usize,
}

impl<'a> Offsets<'a> {
    pub(super) fn new(text: &'a str) -> Offsets<'a> {
        Offsets {
            text,
            ascii: text.is_ascii(),
            char_pos: 0,
            byte_pos: 0,
        }
    }

    pub(super) fn byte(&mut self, index: usize) -> usize {
        if self.ascii {
            return index.min(self.text.len());
        }
        let bytes = self.text.as_bytes();
        while self.char_pos < index && self.byte_pos < bytes.len() {
            // Skip a run of ASCII (one byte, one character) at once, then one character.
            let want = index - self.char_pos;
            let end = (self.byte_pos + want).min(bytes.len());
            let ascii = bytes[self.byte_pos..end]
                .iter()
                .position(|b| !b.is_ascii())
                .unwrap_or(end - self.byte_pos);
            self.byte_pos += ascii;
            self.char_pos += ascii;
            if ascii < want && self.byte_pos < bytes.len() {
                self.byte_pos += utf8_len(bytes[self.byte_pos]);
                self.char_pos += 1;
            }
        }
        while self.char_pos > index && self.byte_pos > 0 {
            self.byte_pos -= 1;
            while !self.text.is_char_boundary(self.byte_pos) {
                self.byte_pos -= 1;
            }
            self.char_pos -= 1;
        }
        self.byte_pos.min(bytes.len())
    }
}

fn utf8_len(first: u8) -> usize {
    match first {
        0xF0..=0xFF => 4,
        0xE0..=0xEF => 3,
        0xC0..=0xDF => 2,
        _ => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn character_indices_become_byte_offsets_in_any_order() {
        let text = "ab é👍 cd\nxyz ☕ end";
        let mut offsets = Offsets::new(text);
        let expected: Vec<usize> = text
            .char_indices()
            .map(|(b, _)| b)
            .chain([text.len()])
            .collect();
        for index in [0, 5, 3, 9, 1, 14, 2, 7, 7, 15, 0, 12] {
            assert_eq!(offsets.byte(index), expected[index], "char {index}");
        }
    }
}
