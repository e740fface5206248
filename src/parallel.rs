//! Work spread over the machine's cores, with results in the order of the work: what a
//! run prints never depends on which thread finished first.

use std::sync::atomic::{AtomicUsize, Ordering};

/// How many cores this process may use, asked once: the standard library reads the
/// cgroup's files each time it is asked (seven system calls), and a description of a
/// thousand files would ask for each.
pub(crate) fn cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, std::num::NonZero::get))
}

/// `job` of each item of `items`, on as many threads as there are cores (no more than
/// items), each thread taking the next item when it is done with one. A result is `None`
/// only when the thread that took its item stopped (a panic); the caller decides what
/// that means (run the item again, or report it). When no thread can be made, the calling
/// thread does all the work. (It does none otherwise: a file's tree allocated on the
/// calling thread and freed on another makes a description of a thousand files slower.
/// [`map_in_order_here`] is for work that leaves no such tree.)
pub(crate) fn map_in_order<T: Sync, R: Send>(
    items: &[T],
    job: impl Fn(&T) -> R + Sync,
) -> Vec<Option<R>> {
    spread(items, job, false)
}

/// [`map_in_order`] with the calling thread as one of the threads: one thread fewer to
/// start (which can take milliseconds on a busy machine) for work whose results the
/// caller keeps, such as findings and their text.
pub(crate) fn map_in_order_here<T: Sync, R: Send>(
    items: &[T],
    job: impl Fn(&T) -> R + Sync,
) -> Vec<Option<R>> {
    spread(items, job, true)
}

/// [`map_in_order`], with the calling thread as one of the workers when `here`.
fn spread<T: Sync, R: Send>(
    items: &[T],
    job: impl Fn(&T) -> R + Sync,
    here: bool,
) -> Vec<Option<R>> {
    let workers = cores().min(items.len());
    if workers <= 1 {
        return items.iter().map(|item| Some(job(item))).collect();
    }
    let next = AtomicUsize::new(0);
    let work = || {
        let mut mine = Vec::new();
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(item) = items.get(i) else { break };
            mine.push((i, job(item)));
        }
        mine
    };
    let done: Vec<Vec<(usize, R)>> = std::thread::scope(|scope| {
        let helpers: Vec<_> = (0..workers - usize::from(here))
            .filter_map(|_| std::thread::Builder::new().spawn_scoped(scope, work).ok())
            .collect();
        if helpers.is_empty() {
            return vec![work()];
        }
        // A panic here loses only this thread's items, as one on a helper does.
        let own = if here {
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(work)).unwrap_or_default()
        } else {
            Vec::new()
        };
        // Every helper is joined here, so a panic in one loses only its own items.
        helpers
            .into_iter()
            .map(|h| h.join().unwrap_or_default())
            .chain([own])
            .collect()
    });
    let mut slots: Vec<Option<R>> = std::iter::repeat_with(|| None).take(items.len()).collect();
    for (i, result) in done.into_iter().flatten() {
        slots[i] = Some(result);
    }
    slots
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_come_in_the_order_of_the_items() {
        let items: Vec<u64> = (0..1000).collect();
        let squares = map_in_order(&items, |&i| {
            // Uneven work, so that threads finish out of order.
            if i % 7 == 0 {
                std::thread::yield_now();
            }
            i * i
        });
        let expected: Vec<Option<u64>> = items.iter().map(|&i| Some(i * i)).collect();
        assert_eq!(squares, expected);
        assert_eq!(map_in_order_here(&items, |&i| i * i), expected);
        assert!(map_in_order(&[] as &[u8], |_| 1).is_empty());
        assert!(map_in_order_here(&[] as &[u8], |_| 1).is_empty());
    }

    #[test]
    fn a_panicking_item_loses_only_the_items_of_its_thread() {
        if cores() < 2 {
            // One core: the calling thread does all the work, and a panic is its own.
            return;
        }
        let items: Vec<u32> = (0..200).collect();
        for here in [false, true] {
            let results = spread(
                &items,
                |&i| {
                    assert!(i != 7, "item 7 fails");
                    i
                },
                here,
            );
            assert_eq!(results[7], None);
            // Every other item either came back right or was lost with its thread.
            for (i, result) in results.iter().enumerate() {
                assert!(result.is_none_or(|r| r as usize == i));
            }
        }
    }
}
