//! A policy component (`wit/toolhost.wit`'s `policy-component` world): loaded once,
//! linked like a tool, and run in a fresh instance for each call it looks at (both its
//! looks, before and after; or, when it is set to reuse them, in an instance that
//! served earlier calls and ended well), each look under its own limits.

use std::sync::{Arc, Mutex};

use serde_json::{Number, Value};
use wasmtime::Store;
use wasmtime::component::{ComponentExportIndex, ComponentType, Instance, Lift, Lower};

use super::fields::{self, Field};
use super::{PolicyCall, PolicyComponent, Verdict};
use crate::invoke::{Recipe, WarmPool, Warmer, new_store, within};
use crate::load::{Cache, optimized_code};
use crate::mutex::lock;
use crate::runtime::Runtime;
use crate::sandbox::{CallState, Grants, Limits};

/// The interface a policy component exports.
const INTERFACE: &str = "toolhost:tool/policy@0.3.0";

/// The largest policy component file read.
const MAX_BYTES: u64 = 256 << 20;

/// The most instances kept for reuse per policy (one per call running at once).
const MAX_REUSED: usize = 8;

/// An instance of a policy component and its store, for both looks at one call (no
/// instance serves two calls).
pub(crate) struct Held {
    store: Store<CallState>,
    instance: Instance,
}

/// A loaded policy component.
pub(crate) struct ComponentPolicy {
    warm: Arc<WarmPool>,
    before: ComponentExportIndex,
    after: ComponentExportIndex,
    /// Instances that ended their calls well, for later calls (`reuse_instances`).
    reused: Option<Mutex<Vec<Held>>>,
}

impl ComponentPolicy {
    /// Reads, compiles (or takes from `cache`) and links the policy component
    /// `setting` names, to run as `name`; else why it cannot be used.
    pub(crate) fn load(
        runtime: &Runtime,
        warmer: &Warmer,
        name: &str,
        setting: &PolicyComponent,
        cache: Option<&Cache>,
    ) -> Result<ComponentPolicy, String> {
        let bytes =
            crate::sys::read_regular_file(&setting.path, MAX_BYTES).map_err(|e| format!("cannot read it: {e}"))?;
        let component = optimized_code(runtime, &bytes, cache)?;
        let interface = component.get_export_index(None, INTERFACE).ok_or_else(|| {
            format!(
                "it exports no `{INTERFACE}`: a policy component is built for the `policy-component` world of wit/toolhost.wit"
            )
        })?;
        let function = |name: &str| {
            component
                .get_export_index(Some(&interface), name)
                .ok_or_else(|| format!("its `{INTERFACE}` has no function `{name}`"))
        };
        let (before, after) = (function("before")?, function("after")?);
        let pre = runtime.prepare(&component).map_err(|e| format!("cannot be linked: {e}"))?;
        let mut grants = Grants::default();
        grants.env.clone_from(&setting.env);
        let recipe = Recipe { component: name.into(), pre, grants, limits: setting.limits };
        let reused = setting.reuse.then(|| Mutex::new(Vec::new()));
        let policy = ComponentPolicy { warm: warmer.pool(runtime, recipe), before, after, reused };
        runtime.block_on(policy.check_types())?;
        Ok(policy)
    }

    /// Fails unless both functions have the types this host calls them with.
    async fn check_types(&self) -> Result<(), String> {
        let recipe = self.warm.recipe();
        let mut store = new_store(recipe, None).map_err(|e| e.to_string())?;
        let instance =
            recipe.pre.instantiate_async(&mut store).await.map_err(|e| format!("cannot be started: {e:#}"))?;
        let wrong = |e: wasmtime::Error| format!("its functions do not match `{INTERFACE}`: {e:#}");
        instance.get_typed_func::<(WitCall,), (WitVerdict,)>(&mut store, self.before).map_err(wrong)?;
        instance.get_typed_func::<(WitCall, Vec<WitField>), (WitVerdict,)>(&mut store, self.after).map_err(wrong)?;
        Ok(())
    }

    /// An instance for the looks at one call (fresh, unless one is kept for reuse),
    /// its guest code yielding at every epoch tick (each look's time limit is the
    /// timeout around it).
    pub(crate) async fn instance(&self) -> Result<Held, String> {
        if let Some(mut held) = self.reused.as_ref().and_then(|reused| lock(reused).pop()) {
            held.store.set_epoch_deadline(1);
            return Ok(held);
        }
        let (mut store, ready) = match self.warm.take() {
            Some(fresh) => (fresh.store, Some(fresh.instance)),
            None => (new_store(self.warm.recipe(), None).map_err(|e| e.to_string())?, None),
        };
        store.set_epoch_deadline(1);
        store.epoch_deadline_async_yield_and_update(1);
        let instance = match ready {
            Some(instance) => instance,
            None => self.warm.recipe().pre.instantiate_async(&mut store).await.map_err(|e| format!("{e:#}"))?,
        };
        Ok(Held { store, instance })
    }

    /// Keeps `held` for a later call when instances are reused and its looks ended
    /// `well`; else hands it back to be dropped off the call's path.
    pub(crate) fn finish(&self, held: Held, well: bool) {
        if let Some(reused) = self.reused.as_ref().filter(|_| well) {
            let mut reused = lock(reused);
            if reused.len() < MAX_REUSED {
                reused.push(held);
                return;
            }
        }
        self.warm.finish(held.store, true);
    }

    /// What the policy says of `call` before its tool runs.
    pub(crate) async fn before(&self, held: &mut Held, call: &PolicyCall<'_>) -> Result<Verdict, String> {
        let Held { store, instance } = held;
        let said = within(self.limits().time, async {
            let func = instance.get_typed_func::<(WitCall,), (WitVerdict,)>(&mut *store, self.before)?;
            wasmtime::Result::Ok(func.call_async(&mut *store, (WitCall::of(call),)).await?.0)
        })
        .await;
        self.verdict(self.said(said)?, call.arguments)
    }

    /// What the policy says of `result` (see [`super::Policy::after`]).
    pub(crate) async fn after(
        &self,
        held: &mut Held,
        call: &PolicyCall<'_>,
        result: &Value,
    ) -> Result<Verdict, String> {
        let Held { store, instance } = held;
        let fields = fields::flatten(result).into_iter().map(WitField::from).collect();
        let said = within(self.limits().time, async {
            let func = instance.get_typed_func::<(WitCall, Vec<WitField>), (WitVerdict,)>(&mut *store, self.after)?;
            wasmtime::Result::Ok(func.call_async(&mut *store, (WitCall::of(call), fields)).await?.0)
        })
        .await;
        self.verdict(self.said(said)?, result)
    }

    fn limits(&self) -> &Limits {
        &self.warm.recipe().limits
    }

    /// What the policy returned, or why it returned nothing.
    fn said(&self, outcome: Option<wasmtime::Result<WitVerdict>>) -> Result<WitVerdict, String> {
        match outcome {
            None => Err(format!("it ran past its time limit of {} ms", self.limits().time.as_millis())),
            Some(Err(error)) => Err(format!("it stopped: {error:#}")),
            Some(Ok(verdict)) => Ok(verdict),
        }
    }

    /// `said` as a verdict on `value` (a rewrite applied to it).
    fn verdict(&self, said: WitVerdict, value: &Value) -> Result<Verdict, String> {
        Ok(match said {
            WitVerdict::Allow => Verdict::Allow,
            WitVerdict::Deny(message) => Verdict::Deny(message),
            WitVerdict::Rewrite(rewrites) => {
                let rewrites = rewrites.into_iter().map(Field::try_from).collect::<Result<Vec<_>, String>>()?;
                let limit = self.limits().result_bytes;
                Verdict::Rewrite(fields::rewrite(value, rewrites, limit).map_err(|e| e.to_string())?)
            }
        })
    }
}

// The interface's types as wasmtime lowers and lifts them.

/// `policy.scalar`.
#[derive(ComponentType, Lower, Lift)]
#[component(variant)]
enum Scalar {
    #[component(name = "null")]
    Null,
    #[component(name = "boolean")]
    Boolean(bool),
    #[component(name = "integer")]
    Integer(i64),
    #[component(name = "number")]
    Number(f64),
    #[component(name = "text")]
    Text(String),
}

/// `policy.field`.
#[derive(ComponentType, Lower, Lift)]
#[component(record)]
struct WitField {
    path: String,
    value: Scalar,
}

impl From<Field> for WitField {
    fn from(field: Field) -> WitField {
        let value = match field.value {
            Value::Bool(b) => Scalar::Boolean(b),
            Value::Number(n) => match n.as_i64() {
                Some(i) => Scalar::Integer(i),
                None => Scalar::Number(n.as_f64().unwrap_or(f64::NAN)),
            },
            Value::String(text) => Scalar::Text(text),
            // Never an array or object: fields are scalars.
            _ => Scalar::Null,
        };
        WitField { path: field.path, value }
    }
}

impl TryFrom<WitField> for Field {
    type Error = String;

    fn try_from(field: WitField) -> Result<Field, String> {
        let value = match field.value {
            Scalar::Null => Value::Null,
            Scalar::Boolean(b) => Value::Bool(b),
            Scalar::Integer(i) => Value::from(i),
            Scalar::Number(n) => Value::Number(
                Number::from_f64(n)
                    .ok_or_else(|| format!("it put {n}, which JSON has no number for, at {:?}", field.path))?,
            ),
            Scalar::Text(text) => Value::String(text),
        };
        Ok(Field { path: field.path, value })
    }
}

/// `policy.call`.
#[derive(ComponentType, Lower)]
#[component(record)]
struct WitCall {
    tool: String,
    caller: Option<String>,
    arguments: Vec<WitField>,
}

impl WitCall {
    fn of(call: &PolicyCall<'_>) -> WitCall {
        WitCall {
            tool: call.tool.to_string(),
            caller: call.caller.map(str::to_string),
            arguments: fields::flatten(call.arguments).into_iter().map(WitField::from).collect(),
        }
    }
}

/// `policy.verdict`.
#[derive(ComponentType, Lift)]
#[component(variant)]
enum WitVerdict {
    #[component(name = "allow")]
    Allow,
    #[component(name = "deny")]
    Deny(String),
    #[component(name = "rewrite")]
    Rewrite(Vec<WitField>),
}
