//! Weighing an operation's cues into one effect, or *unknown*.

use super::cues::{self, Facts};
use super::found::{Found, Kind, weight};
use super::phrases::Seen;
use super::{Confidence, Cue, Inferred, Repeat};
use crate::input::model::Method;

/// The effect of the operation `facts` describes; `seen` holds the texts of its
/// description already read.
pub(crate) fn infer(facts: &Facts<'_>, seen: &mut Seen) -> Inferred {
    if let Some(declared) = &facts.declared {
        return Inferred::declared(declared.clone());
    }
    decide(facts.method, cues::gather(facts, seen))
}

/// Whether the request reads or writes, then, for a write, whether a repeat repeats it.
fn decide(method: Method, found: Vec<Found>) -> Inferred {
    let sum = |pred: &dyn Fn(&Found) -> bool| -> u32 {
        found
            .iter()
            .filter(|f| pred(f))
            .map(|f| u32::from(f.cue.weight))
            .sum()
    };
    let action = |f: &Found| f.kind == Kind::Action;
    // A safe method is a protocol's promise: it weighs like a summary's verb here.
    let safe = method.is_safe();
    let method_reads = if safe { u32::from(weight::SUMMARY) } else { 0 };
    let read = sum(&|f| action(f) && f.cue.says == Repeat::Read) + method_reads;
    let write = sum(&|f| action(f) && f.cue.says != Repeat::Read);
    // A statement that the request changes nothing ("The generated notes are not saved
    // anywhere") decides over verbs, as a statement of idempotence does below, unless a
    // statement of a write ("sends an email", "is not idempotent") stands against it.
    let stated = |f: &Found, read: bool| {
        f.cue.weight >= weight::STATED && (f.cue.says == Repeat::Read) == read
    };
    let stated_read = found.iter().any(|f| action(f) && stated(f, true));
    let stated_write = found.iter().any(|f| stated(f, false));
    let writes = match (read, write) {
        _ if stated_read && !stated_write => false,
        (0, 0) => !safe,
        (_, 0) => false,
        (0, _) => true,
        // A safe method that its words call a write: the heavier side wins.
        (r, w) if safe && w != r => w > r,
        // A write's words and a read's: a write wins a tie, since a write called a read
        // is the costliest mistake; a read that outweighs them is still unknown.
        (r, w) if !safe && w >= r => true,
        _ => return unknown(&found, |f| action(f)),
    };
    if !writes {
        let support: Vec<&Found> = found
            .iter()
            .filter(|f| action(f) && f.cue.says == Repeat::Read)
            .collect();
        let against = write > 0;
        return settled(Repeat::Read, &support, against, method.is_safe());
    }
    // A write: weigh what says idempotent against what says a repeat repeats.
    let stated = |says| sum(&|f| f.cue.weight >= weight::STATED && f.cue.says == says);
    let (stated_idempotent, stated_not) =
        (stated(Repeat::Idempotent), stated(Repeat::NonIdempotent));
    let on_write = |f: &Found| f.cue.says != Repeat::Read;
    let idempotent = sum(&|f| on_write(f) && f.cue.says == Repeat::Idempotent);
    let not = sum(&|f| on_write(f) && f.cue.says == Repeat::NonIdempotent);
    let (idempotent, not) = match Repeat::of_method(method) {
        Repeat::Idempotent => (idempotent + u32::from(weight::METHOD), not),
        Repeat::NonIdempotent => (idempotent, not + u32::from(weight::METHOD)),
        Repeat::Read => (idempotent, not),
    };
    let repeat = if stated_idempotent > 0 && stated_not == 0 {
        Repeat::Idempotent
    } else if stated_not > 0 && stated_idempotent == 0 {
        Repeat::NonIdempotent
    } else if idempotent > not {
        Repeat::Idempotent
    } else if not > idempotent {
        Repeat::NonIdempotent
    } else {
        return unknown(&found, on_write);
    };
    let support: Vec<&Found> = found.iter().filter(|f| f.cue.says == repeat).collect();
    let against = found.iter().any(|f| on_write(f) && f.cue.says != repeat);
    if support.is_empty() {
        // The method alone decided.
        return Inferred {
            repeat: Some(repeat),
            confidence: Confidence::Low,
            cues: Vec::new(),
        };
    }
    let method_agrees = Repeat::of_method(method) == repeat;
    settled(repeat, &support, against, method_agrees)
}

/// The effect `repeat`, supported by `support` (and by the method, when it agrees), with
/// a confidence from how many agree and whether any disagrees.
fn settled(repeat: Repeat, support: &[&Found], against: bool, method_agrees: bool) -> Inferred {
    let cues = strongest(support.iter().map(|f| &f.cue));
    let agreeing = cues.len() + usize::from(method_agrees);
    let confidence = if cues.is_empty() {
        Confidence::Low
    } else if !against && (agreeing >= 2 || cues[0].weight >= weight::STATED) {
        Confidence::High
    } else {
        Confidence::Medium
    };
    Inferred {
        repeat: Some(repeat),
        confidence,
        cues,
    }
}

/// Unknown: the strongest cue of each side among those `pred` keeps.
fn unknown(found: &[Found], pred: impl Fn(&Found) -> bool) -> Inferred {
    let mut sides: Vec<Cue> = Vec::new();
    for repeat in [Repeat::NonIdempotent, Repeat::Idempotent, Repeat::Read] {
        if let Some(best) = found
            .iter()
            .filter(|f| pred(f) && f.cue.says == repeat)
            .max_by_key(|f| f.cue.weight)
        {
            sides.push(best.cue.clone());
        }
    }
    Inferred {
        repeat: None,
        confidence: Confidence::Low,
        cues: sides,
    }
}

/// The cues, heaviest first (in the order found among equals), one per source.
fn strongest<'a>(cues: impl Iterator<Item = &'a Cue>) -> Vec<Cue> {
    let mut list: Vec<&Cue> = cues.collect();
    list.sort_by_key(|c| std::cmp::Reverse(c.weight));
    let mut out: Vec<Cue> = Vec::with_capacity(list.len());
    for cue in list {
        if !out
            .iter()
            .any(|c| c.source == cue.source && c.words == cue.words)
        {
            out.push(cue.clone());
        }
    }
    out
}
