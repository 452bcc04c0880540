//! Turns to be handled, shared fairly: the requests beyond those handled at once wait
//! in a queue of their caller's, and a turn that frees goes to the waiting callers in
//! turn (round robin), so one caller's flood waits behind its own requests, not in
//! front of another caller's. tokio's semaphore serves its waiters first come, first
//! served, which is what a flood exploits: hence this, written here.

use std::collections::hash_map::Entry;
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::{Notify, oneshot};

use crate::mutex::lock;

/// The turns of a server's requests.
pub(super) struct Turns {
    shared: Arc<Shared>,
}

struct Shared {
    state: Mutex<State>,
    /// Told whenever every turn is free again (for a shutdown's drain).
    all_free: Notify,
    max: usize,
    max_queued: usize,
    timeout: Duration,
}

#[derive(Default)]
struct State {
    /// Turns nobody holds.
    free: usize,
    /// Each waiting caller's requests, first come first.
    queues: HashMap<String, VecDeque<Waiter>>,
    /// The callers with requests waiting, the next to be given a turn first.
    order: VecDeque<String>,
    /// Requests waiting, in every queue.
    waiting: usize,
    next_waiter: u64,
}

/// A request waiting for a turn.
struct Waiter {
    id: u64,
    /// Where its turn is sent; a waiter gone (its client left) drops the turn, which
    /// passes it on.
    turn: oneshot::Sender<Turn>,
}

/// A turn held: passed to the next waiting request, or freed, when dropped.
pub(super) struct Turn {
    /// `None` once the turn is freed (so that dropping it passes nothing on).
    shared: Option<Arc<Shared>>,
}

impl Drop for Turn {
    fn drop(&mut self) {
        if let Some(shared) = self.shared.take() {
            shared.pass_on();
        }
    }
}

impl Turns {
    /// `max` turns at once; at most `max_queued` requests waiting, each for at most `timeout`.
    pub(super) fn new(max: usize, max_queued: usize, timeout: Duration) -> Turns {
        let state = State { free: max, ..State::default() };
        let shared = Shared { state: Mutex::new(state), all_free: Notify::new(), max, max_queued, timeout };
        Turns { shared: Arc::new(shared) }
    }

    /// A turn for a request of the caller `caller_of` names: at once if one is free
    /// and nobody waits (without asking `caller_of`); else once that caller's earlier
    /// requests have had theirs and each other waiting caller one, within the
    /// timeout. `None` when the queue is full or the wait too long.
    pub(super) async fn take(&self, caller_of: impl FnOnce() -> String) -> Option<Turn> {
        let caller;
        let (id, mut given) = {
            let mut state = lock(&self.shared.state);
            if state.free > 0 && state.waiting == 0 {
                state.free -= 1;
                return Some(Turn { shared: Some(self.shared.clone()) });
            }
            if state.waiting >= self.shared.max_queued {
                return None;
            }
            caller = caller_of();
            state.enqueue(caller.clone())
        };
        if let Ok(Ok(turn)) = tokio::time::timeout(self.shared.timeout, &mut given).await {
            return Some(turn);
        }
        // Waited too long. A turn sent meanwhile (once out of the queue, the waiter
        // was sent one: turns are sent under the lock) is dropped, and so passed on.
        let mut state = lock(&self.shared.state);
        if !state.dequeue(&caller, id) {
            drop(state);
            given.close();
            drop(given.try_recv());
        }
        None
    }

    /// Whether no request holds a turn now.
    pub(super) fn all_free_now(&self) -> bool {
        lock(&self.shared.state).free == self.shared.max
    }

    /// Waits until no request holds a turn, or `deadline` has passed; whether none does.
    pub(super) async fn all_free(&self, deadline: Duration) -> bool {
        let wait = async {
            loop {
                let freed = self.shared.all_free.notified();
                if lock(&self.shared.state).free == self.shared.max {
                    return;
                }
                freed.await;
            }
        };
        tokio::time::timeout(deadline, wait).await.is_ok()
    }
}

impl Shared {
    /// A turn freed: to the next waiting caller's first request, else free.
    fn pass_on(self: &Arc<Self>) {
        let mut state = lock(&self.state);
        let mut turn = Turn { shared: Some(self.clone()) };
        while let Some(waiter) = state.next_waiter() {
            match waiter.turn.send(turn) {
                Ok(()) => return,
                // Its client left: the turn comes back, for the next one.
                Err(back) => turn = back,
            }
        }
        // Nobody waits: the turn is freed, not passed on again.
        turn.shared = None;
        state.free += 1;
        if state.free == self.max {
            self.all_free.notify_waiters();
        }
    }
}

impl State {
    /// Puts a request of `caller` at the back of its queue (and the caller at the
    /// back of the order, if it had none waiting): its number, and where its turn comes.
    fn enqueue(&mut self, caller: String) -> (u64, oneshot::Receiver<Turn>) {
        let (turn, given) = oneshot::channel();
        let id = self.next_waiter;
        self.next_waiter += 1;
        let waiter = Waiter { id, turn };
        match self.queues.entry(caller) {
            Entry::Occupied(mut queue) => queue.get_mut().push_back(waiter),
            Entry::Vacant(none) => {
                self.order.push_back(none.key().clone());
                none.insert(VecDeque::from([waiter]));
            }
        }
        self.waiting += 1;
        (id, given)
    }

    /// Takes waiter `id` of `caller` out of the queue; whether it was still in it.
    fn dequeue(&mut self, caller: &str, id: u64) -> bool {
        let Some(queue) = self.queues.get_mut(caller) else { return false };
        let Some(at) = queue.iter().position(|waiter| waiter.id == id) else { return false };
        queue.remove(at);
        self.waiting -= 1;
        if queue.is_empty() {
            self.queues.remove(caller);
            self.order.retain(|waiting| waiting != caller);
        }
        true
    }

    /// The next caller's first waiting request, out of the queue; that caller goes
    /// to the back of the order if it has more.
    fn next_waiter(&mut self) -> Option<Waiter> {
        let caller = self.order.pop_front()?;
        let queue = self.queues.get_mut(&caller)?;
        let waiter = queue.pop_front();
        if queue.is_empty() {
            self.queues.remove(&caller);
        } else {
            self.order.push_back(caller);
        }
        self.waiting -= 1;
        waiter
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::task::Poll;

    /// The order in which requests of `callers`, queued in that order behind one turn
    /// held, get theirs (each holds it a moment).
    async fn order_served(turns: &Arc<Turns>, callers: &[&'static str]) -> Vec<&'static str> {
        let held = turns.take(|| "first".to_string()).await.expect("a free turn");
        let served = Arc::new(Mutex::new(Vec::new()));
        let mut waiting = Vec::new();
        for &caller in callers {
            let (mine, served) = (turns.clone(), served.clone());
            waiting.push(tokio::spawn(async move {
                let turn = mine.take(|| caller.to_string()).await.expect("a turn within the timeout");
                lock(&served).push(caller);
                tokio::task::yield_now().await;
                drop(turn);
            }));
            // Queued before the next one is.
            while lock(&turns.shared.state).waiting < waiting.len() {
                tokio::task::yield_now().await;
            }
        }
        drop(held);
        for waiter in waiting {
            waiter.await.expect("the waiter");
        }
        Arc::try_unwrap(served).expect("one owner").into_inner().expect("not poisoned")
    }

    #[tokio::test]
    async fn a_callers_flood_waits_behind_its_own_requests_not_in_front_of_anothers() {
        let turns = Arc::new(Turns::new(1, 100, Duration::from_secs(10)));
        let served = order_served(&turns, &["flood", "flood", "flood", "flood", "quiet", "flood"]).await;
        assert_eq!(served, ["flood", "quiet", "flood", "flood", "flood", "flood"]);
        assert!(turns.all_free(Duration::from_secs(1)).await);
    }

    #[tokio::test]
    async fn beyond_the_queue_or_the_timeout_there_is_no_turn_and_none_is_lost() {
        let turns = Turns::new(1, 1, Duration::from_millis(50));
        let held = turns.take(|| "a".to_string()).await.expect("a free turn");
        assert!(turns.take(|| "b".to_string()).await.is_none(), "waited past the timeout");
        let mut queued = Box::pin(turns.take(|| "b".to_string()));
        assert!(futures_poll_once(queued.as_mut()).await.is_none());
        assert!(turns.take(|| "c".to_string()).await.is_none(), "the queue holds one");
        drop(queued);
        drop(held);
        // The turn was not lost to the waiter that left.
        assert!(turns.take(|| "d".to_string()).await.is_some());
        assert!(turns.all_free(Duration::from_secs(1)).await);
    }

    /// Polls `future` once: its output if it is ready.
    async fn futures_poll_once<F: Future + Unpin>(mut future: F) -> Option<F::Output> {
        std::future::poll_fn(|cx| {
            Poll::Ready(match std::pin::Pin::new(&mut future).poll(cx) {
                Poll::Ready(output) => Some(output),
                Poll::Pending => None,
            })
        })
        .await
    }
}
