//! Passing over a list or mapping of text already checked, 64 bytes at a time.
//!
//! The parse that reads ahead of its check (see `super::super::validation`) only measures
//! what the model never reads: where each deferred subtree ends. Most of GitHub's 13 MB is
//! such subtrees, and it is full of short strings; finding them one stop at a time costs a
//! call per string. Here, as in simdjson's first stage, each block of 64 bytes becomes
//! bit masks (quotes, backslashes, opening and closing brackets) with vector compares; the
//! escaped characters and the bytes inside strings are worked out with a few word
//! operations for the whole block, and only the brackets outside strings are looked at one
//! by one, and only in the block where the subtree may end.
//!
//! Text that is not valid JSON gives some end within the text, never a panic: the caller
//! keeps what it measured only once the check of the text passed.

use wide::u8x16;

/// Bytes in a block.
const BLOCK: usize = 64;

/// Where the list or mapping opening at `bytes[0]` ends: the offset just past its closing
/// bracket (`bytes.len()` when it does not close).
pub(super) fn container_end(bytes: &[u8]) -> usize {
    let mut depth: i64 = 0;
    let mut escapes = Escapes::default();
    // All ones when the block starts inside a string.
    let mut in_string: u64 = 0;
    let mut padded = [b' '; BLOCK];
    for (index, chunk) in bytes.chunks(BLOCK).enumerate() {
        let block: &[u8; BLOCK] = if let Ok(block) = chunk.try_into() {
            block
        } else {
            // The last, short block, padded with spaces (which are nothing to a scan).
            padded[..chunk.len()].copy_from_slice(chunk);
            &padded
        };
        let masks = Masks::of(block);
        let escaped = escapes.next(masks.backslash);
        let quotes = masks.quote & !escaped;
        let inside = prefix_xor(quotes) ^ in_string;
        in_string = 0u64.wrapping_sub(inside >> 63);
        let open = masks.open & !inside;
        let close = masks.close & !inside;
        let closes = i64::from(close.count_ones());
        if closes < depth {
            // The subtree cannot end in this block.
            depth += i64::from(open.count_ones()) - closes;
            continue;
        }
        let mut brackets = open | close;
        while brackets != 0 {
            let at = brackets.trailing_zeros();
            if open >> at & 1 == 1 {
                depth += 1;
            } else {
                depth -= 1;
                if depth == 0 {
                    return (index * BLOCK + at as usize + 1).min(bytes.len());
                }
            }
            brackets &= brackets - 1;
        }
    }
    bytes.len()
}

/// A block's bytes of each kind, one bit per byte (bit `i` for byte `i`).
struct Masks {
    quote: u64,
    backslash: u64,
    /// `{` and `[`.
    open: u64,
    /// `}` and `]`.
    close: u64,
}

impl Masks {
    fn of(block: &[u8; BLOCK]) -> Masks {
        let mut masks = Masks {
            quote: 0,
            backslash: 0,
            open: 0,
            close: 0,
        };
        for (lane, bytes) in block.chunks_exact(16).enumerate() {
            let bytes: [u8; 16] = bytes.try_into().unwrap_or([b' '; 16]);
            let v = u8x16::new(bytes);
            // Clearing 0x20 makes `{` `[` alike, and `}` `]`.
            let folded = v & u8x16::splat(0xDF);
            let bits = |m: u8x16| u64::from(m.to_bitmask()) << (16 * lane);
            masks.quote |= bits(v.simd_eq(u8x16::splat(b'"')));
            masks.backslash |= bits(v.simd_eq(u8x16::splat(b'\\')));
            masks.open |= bits(folded.simd_eq(u8x16::splat(b'[')));
            masks.close |= bits(folded.simd_eq(u8x16::splat(b']')));
        }
        masks
    }
}

/// Which characters a backslash escapes, block after block (simdjson's `find_escaped`):
/// in a run of backslashes, every second one escapes the character after it.
#[derive(Default)]
struct Escapes {
    /// 1 when the first byte of the next block is escaped.
    carry: u64,
}

impl Escapes {
    /// The escaped bytes of a block whose backslashes are `backslash`.
    fn next(&mut self, backslash: u64) -> u64 {
        const EVEN: u64 = 0x5555_5555_5555_5555;
        // An escaped backslash starts no escape.
        let backslash = backslash & !self.carry;
        let follows = backslash << 1 | self.carry;
        // Runs starting on an odd bit, added to the backslashes, carry past the run's end;
        // the runs that start on an even bit are left as they are.
        let odd_starts = backslash & !EVEN & !follows;
        let (even_runs, overflow) = odd_starts.overflowing_add(backslash);
        self.carry = u64::from(overflow);
        (EVEN ^ (even_runs << 1)) & follows
    }
}

/// Each bit set to the parity of the bits at and below it: the bytes from an opening
/// quote up to (not including) its closing one.
fn prefix_xor(mut bits: u64) -> u64 {
    for shift in [1, 2, 4, 8, 16, 32] {
        bits ^= bits << shift;
    }
    bits
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Byte by byte: which bytes a backslash escapes.
    fn escaped_naively(text: &[u8]) -> Vec<bool> {
        let mut out = vec![false; text.len()];
        let mut i = 0;
        while i < text.len() {
            if text[i] == b'\\' && i + 1 < text.len() {
                out[i + 1] = true;
                i += 2;
            } else {
                i += 1;
            }
        }
        out
    }

    /// A small generator of bytes, the same on every run.
    fn bytes(seed: u64, len: usize, alphabet: &[u8]) -> Vec<u8> {
        let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        (0..len)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                alphabet[(state % alphabet.len() as u64) as usize]
            })
            .collect()
    }

    #[test]
    fn escapes_are_found_across_blocks_as_byte_by_byte() {
        for seed in 0..2000 {
            let text = bytes(seed, 64 * 4, b"\\\\\\a\"");
            let mut escapes = Escapes::default();
            let mut found = Vec::new();
            for block in text.chunks(BLOCK) {
                let backslash = block
                    .iter()
                    .enumerate()
                    .fold(0u64, |m, (i, &b)| m | u64::from(b == b'\\') << i);
                let escaped = escapes.next(backslash);
                found.extend((0..block.len()).map(|i| escaped >> i & 1 == 1));
            }
            // The last byte's escape, if any, is the next block's.
            let mut expected = escaped_naively(&text);
            if let Some(last) = expected.last_mut() {
                *last = found[text.len() - 1];
            }
            assert_eq!(found, expected, "{}", String::from_utf8_lossy(&text));
        }
    }

    /// Byte by byte: where the container opening at `text[0]` ends in valid JSON.
    fn end_naively(text: &[u8]) -> usize {
        let (mut depth, mut inside, mut escaped) = (0, false, false);
        for (i, &b) in text.iter().enumerate() {
            if inside {
                match (escaped, b) {
                    (true, _) => escaped = false,
                    (false, b'\\') => escaped = true,
                    (false, b'"') => inside = false,
                    _ => {}
                }
                continue;
            }
            match b {
                b'"' => inside = true,
                b'{' | b'[' => depth += 1,
                b'}' | b']' => {
                    depth -= 1;
                    if depth == 0 {
                        return i + 1;
                    }
                }
                _ => {}
            }
        }
        text.len()
    }

    #[test]
    fn a_container_ends_where_a_byte_by_byte_look_says() {
        // Strings full of brackets, quotes and backslash runs of every length, at every
        // offset of a block, nested at every depth.
        let mut checked = 0;
        for seed in 0..3000 {
            let inner = bytes(seed, (seed % 150) as usize, b"ab\\\\{}[] :,");
            // Make the inner bytes a string body: escape what must be, as JSON writes it.
            let mut string = Vec::new();
            let mut run = 0;
            for &b in &inner {
                string.push(b);
                run = if b == b'\\' { run + 1 } else { 0 };
            }
            if run % 2 == 1 {
                string.push(b'\\');
            }
            let body = String::from_utf8_lossy(&string).replace("\\\"", "");
            let pad = " ".repeat((seed % 70) as usize);
            let depth = (seed % 4) as usize + 1;
            let text = format!(
                "{}{pad}\"{body}\", {{\"k\\\"]\": [1, \"{body}\"]}}{}, \"tail]\"",
                "[".repeat(depth),
                "]".repeat(depth)
            );
            let end = end_naively(text.as_bytes());
            assert_eq!(container_end(text.as_bytes()), end, "{text}");
            checked += usize::from(end < text.len());
        }
        assert!(
            checked > 2900,
            "most samples close before their tail: {checked}"
        );
    }

    #[test]
    fn text_that_does_not_close_ends_at_its_end_and_never_panics() {
        for text in ["", "[", "{\"a\": [", "[\"]", "[\"\\", "]]]", "[\"\\\"]\""] {
            assert_eq!(container_end(text.as_bytes()), end_naively(text.as_bytes()));
        }
        let long = format!("[{}", "\"x\", ".repeat(100));
        assert_eq!(container_end(long.as_bytes()), long.len());
    }
}
