//! Approval from JavaScript: the options' `approval`, whose `ask` the host calls before
//! each call that needs a person's yes (the JavaScript half wraps the user's
//! `ask(tool, arguments)` so that it always returns a Promise of a boolean).

use std::sync::Arc;
use std::time::Duration;

use futures::future::{BoxFuture, FutureExt as _};
use napi::Status;
use napi::bindgen_prelude::Promise;
use napi::threadsafe_function::ThreadsafeFunction;
use napi_derive::napi;
use serde_json::{Value, json};
use toolhost::{CallObserver, Elicitation, ElicitationAnswer};

/// `({tool, arguments}) => Promise<boolean>`, callable from any thread; weak, so that
/// it never keeps the process alive by itself.
type Ask = ThreadsafeFunction<Value, Promise<bool>, Value, Status, false, true>;

/// Which tools ask a person before each call, and the function that asks.
#[napi(object, object_to_js = false)]
pub struct ApprovalOptions {
    /// Asks the person; resolves to `true` to let the call run.
    #[napi(ts_type = "(request: { tool: string; arguments: any }) => Promise<boolean>")]
    pub ask: Ask,
    /// The tools whose hints say they may destroy something ask (default `true`).
    pub destructive: Option<bool>,
    /// And the tools whose names match these patterns (`"send_*"`).
    pub tools: Option<Vec<String>>,
    /// How long a call waits for the answer, in milliseconds (default two minutes).
    pub wait_ms: Option<u32>,
}

/// The library's `Approval` that `options` describe, and the observer that asks.
pub(crate) fn approval(options: ApprovalOptions) -> (toolhost::Approval, Arc<dyn CallObserver>) {
    let mut approval = match options.destructive.unwrap_or(true) {
        true => toolhost::Approval::destructive_tools(),
        false => toolhost::Approval::default(),
    };
    approval = approval.tools(options.tools.unwrap_or_default());
    if let Some(ms) = options.wait_ms {
        approval = approval.wait(Duration::from_millis(ms.into()));
    }
    (approval, Arc::new(Asker { ask: Arc::new(options.ask) }))
}

/// The observer of a host's calls that asks the JavaScript function.
struct Asker {
    ask: Arc<Ask>,
}

impl CallObserver for Asker {
    fn approve(&self, tool: &str, arguments: &Value, _question: Elicitation) -> BoxFuture<'static, ElicitationAnswer> {
        let (ask, request) = (self.ask.clone(), json!({"tool": tool, "arguments": arguments}));
        async move {
            let said = match ask.call_async(request).await {
                Ok(promise) => promise.await,
                Err(error) => Err(error),
            };
            match said {
                Ok(true) => ElicitationAnswer::Accept(json!({"approve": true})),
                Ok(false) => ElicitationAnswer::Decline,
                // It threw or rejected (the JavaScript half has warned): dismissed.
                Err(_) => ElicitationAnswer::Cancel,
            }
        }
        .boxed()
    }
}
