//! `Cancellation`: what the JavaScript half hands a call so that an `AbortSignal`
//! can stop it (the tool's instance is dropped at its next epoch tick).

use std::sync::Mutex;

use napi_derive::napi;
use tokio::sync::oneshot;

/// Stops the call it is given to when `cancel()` is called.
#[napi]
pub struct Cancellation {
    sender: Mutex<Option<oneshot::Sender<()>>>,
    receiver: Mutex<Option<oneshot::Receiver<()>>>,
}

#[napi]
impl Cancellation {
    /// A cancellation not yet fired.
    #[napi(constructor)]
    #[allow(clippy::new_without_default, reason = "a napi constructor")]
    pub fn new() -> Cancellation {
        let (sender, receiver) = oneshot::channel();
        Cancellation { sender: Mutex::new(Some(sender)), receiver: Mutex::new(Some(receiver)) }
    }

    /// Stops the call (nothing when it ended, or was never started).
    #[napi]
    pub fn cancel(&self) {
        if let Some(sender) = self.sender.lock().ok().and_then(|mut sender| sender.take()) {
            let _ = sender.send(());
        }
    }
}

impl Cancellation {
    /// What resolves when `cancel()` is called; never, for a cancellation already
    /// used by another call, or none.
    pub(crate) fn fired(cancellation: Option<&Cancellation>) -> impl Future<Output = ()> + Send + 'static {
        let receiver = cancellation.and_then(|c| c.receiver.lock().ok().and_then(|mut receiver| receiver.take()));
        async move {
            // The sender dropped unsent (the Cancellation was collected) is no cancellation.
            let fired = match receiver {
                Some(receiver) => receiver.await.is_ok(),
                None => false,
            };
            if !fired {
                std::future::pending::<()>().await;
            }
        }
    }
}
