//! The embedder (the `semantic` feature): makes the vectors of each new registry's
//! tools on a thread of its own, so that no search, call or reload waits for the
//! model. Until a registry's vectors are made, its searches rank by words alone.

use std::sync::Arc;
use std::sync::mpsc::{Receiver, Sender, channel};

use crate::resolve::Registry;
use crate::search::EmbeddingModel;

/// The sending end of the embedder's thread; the thread ends when this is dropped
/// (with its host), once the registry it is embedding is done.
pub(super) struct Embedder {
    to_embed: Sender<Arc<Registry>>,
}

impl Embedder {
    /// Starts the thread that embeds with `model`.
    pub(super) fn start(model: Arc<EmbeddingModel>) -> Embedder {
        let (to_embed, registries) = channel();
        let started =
            std::thread::Builder::new().name("toolhost-embedder".into()).spawn(move || embed_each(&model, &registries));
        if let Err(error) = started {
            tracing::warn!("searching by words alone: the embedder's thread did not start: {error}");
        }
        Embedder { to_embed }
    }

    /// Has `registry`'s vectors made (after those of the registry before it, unless a
    /// newer one comes first).
    pub(super) fn embed(&self, registry: Arc<Registry>) {
        // The thread is gone only if it never started: said then.
        let _ = self.to_embed.send(registry);
    }
}

/// Embeds the newest registry waiting, then forgets the vectors of tools it no longer
/// has, until the host is dropped.
fn embed_each(model: &EmbeddingModel, registries: &Receiver<Arc<Registry>>) {
    while let Ok(mut registry) = registries.recv() {
        while let Ok(newer) = registries.try_recv() {
            registry = newer;
        }
        let started = std::time::Instant::now();
        match registry.embedded(model) {
            Ok(index) => {
                model.forget_all_but(index);
                tracing::debug!("the vectors of {} tools made in {:?}", registry.len(), started.elapsed());
            }
            Err(error) => tracing::warn!("searching by words alone: {error}"),
        }
    }
}
