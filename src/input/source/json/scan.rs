//! Finding the next byte that matters in JSON text, several bytes at a time: where a
//! string's plain part ends, and where whitespace ends. (Text already checked is passed
//! over 64 bytes at a time: see `super::blocks`.) A string's plain part is looked at
//! sixteen bytes at a time first.

use wide::u8x16;

/// Eight spaces, as one little-endian word.
pub(super) const SPACES: u64 = u64::from_ne_bytes([b' '; 8]);
/// One in every byte of a word.
const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
/// The high bit of every byte of a word.
const HIGHS: u64 = u64::from_ne_bytes([0x80; 8]);

/// The offset in `rest` (the text after a string's opening quote) of the first byte that
/// ends its plain part: a quote, a backslash or a control character; `rest.len()` when
/// there is none. Eight bytes at a time: in each word, the lowest byte flagged by the
/// classic "has a zero byte" / "has a byte less than" tests is exact (a false flag only
/// ever sits above a true one), so the first stop is found without looking byte by byte.
pub(super) fn string_stop(rest: &[u8]) -> usize {
    let mut at = 0;
    // Sixteen bytes a step while they last (descriptions are long strings): a control
    // character is one that `max(b, 0x1f)` leaves at `0x1f`.
    while let Some(chunk) = rest.get(at..at + 16) {
        let v = u8x16::new(chunk.try_into().unwrap_or([0; 16]));
        let stops = v.simd_eq(u8x16::splat(b'"'))
            | v.simd_eq(u8x16::splat(b'\\'))
            | v.max(u8x16::splat(0x1f)).simd_eq(u8x16::splat(0x1f));
        let mask = stops.to_bitmask();
        if mask != 0 {
            return at + mask.trailing_zeros() as usize;
        }
        at += 16;
    }
    while let Some(word) = rest.get(at..at + 8) {
        let word = u64::from_le_bytes(word.try_into().unwrap_or([0; 8]));
        let quote = word ^ (ONES * u64::from(b'"'));
        let backslash = word ^ (ONES * u64::from(b'\\'));
        let zero = |x: u64| x.wrapping_sub(ONES) & !x;
        let flags =
            (zero(quote) | zero(backslash) | word.wrapping_sub(ONES * 0x20) & !word) & HIGHS;
        if flags != 0 {
            return at + flags.trailing_zeros() as usize / 8;
        }
        at += 8;
    }
    rest[at..]
        .iter()
        .position(|&b| b == b'"' || b == b'\\' || b < 0x20)
        .map_or(rest.len(), |i| at + i)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_string_stops_where_a_byte_by_byte_look_would() {
        let naive = |rest: &[u8]| {
            rest.iter()
                .position(|&b| b == b'"' || b == b'\\' || b < 0x20)
                .unwrap_or(rest.len())
        };
        // Every stop byte at every offset of words and tails, after plain ASCII, after
        // multi-byte characters (high bytes must not look like stops), and after an
        // earlier stop of another kind.
        for len in 0..40 {
            for stop in [b'"', b'\\', 0x00, 0x1f, b'\n'] {
                for filler in ["a", "é", "\u{7f}", " ", "!", "#", "[", "]"] {
                    let plain = filler.repeat(len);
                    let mut text = plain.clone().into_bytes();
                    text.push(stop);
                    text.extend_from_slice(b"\"x\\\t");
                    assert_eq!(string_stop(&text), naive(&text), "{text:?}");
                    assert_eq!(string_stop(plain.as_bytes()), plain.len());
                }
            }
        }
        for (before, after) in [(b'"', 0x01u8), (0x01, b'"'), (b'\\', b'"'), (0x1f, b'\\')] {
            for gap in 0..10 {
                let mut text = vec![b'a'; 3];
                text.push(before);
                text.extend(std::iter::repeat_n(b'b', gap));
                text.push(after);
                assert_eq!(string_stop(&text), 3);
                assert_eq!(string_stop(&text[4..]), naive(&text[4..]));
            }
        }
    }
}
