//! Tool calls a model wrote into its reply instead of the API's tool-call field:
//! found by their dialect's marker (`dialects.rs`) outside code (`code.rs`), their
//! JSON located by brackets (`json.rs`) and read with the argument-text repair, their
//! names resolved as a call's are. Only what resolves to exactly one tool is a call;
//! the rest is reported as rejected, with the message a call would get, and nothing
//! inside a rejected span is read again. A bare JSON object is a call only when it is
//! the whole reply. Nothing is guessed: no marker, no call.
//!
//! ```no_run
//! # let host = toolhost::Host::builder().plugin_dir("target/plugins").build()?;
//! let reply = "Let me work that out.\n<tool_call>{\"name\": \"Evaluate\", \"arguments\": {\"expression\": \"6*7\"}}</tool_call>";
//! let extraction = host.extract_calls(reply);
//! for call in &extraction.calls {
//!     println!("{} -> {:?}", call.name, call.request(&host).run().result);
//! }
//! # Ok::<(), toolhost::LoadError>(())
//! ```

mod code;
mod dialects;
mod json;
mod prose;
mod python;
mod typed;

use std::ops::Range;
use std::sync::OnceLock;

use aho_corasick::{AhoCorasick, Input, MatchKind};

use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::bind::{read_json_text, shorten_text};
use crate::error::ToolError;
use crate::resolve::Registry;
use crate::tool::{Repair, ToolCall};
use dialects::{MARKERS, Reply, Unread, Written};

/// How a call was written: the format, named for the models that write it
/// (README "Tool calls written as text" has the table).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Dialect {
    /// `<tool_call>{"name": …, "arguments": …}</tool_call>` (Hermes, Qwen 2.5 and 3,
    /// Granite 3.1 and 4, ERNIE 4.5).
    ToolCallTag,
    /// `<|python_tag|>{"name": …, "parameters": …}` (Llama 3.x).
    PythonTag,
    /// `[TOOL_CALLS][{"name": …, "arguments": …}]` or `[TOOL_CALLS]name[ARGS]{…}`
    /// (Mistral, Magistral, Devstral).
    Mistral,
    /// `<function=name>{…}</function>`, or with `<parameter=key>value</parameter>`
    /// tags (Functionary v3.1, Qwen3-Coder, Seed-OSS, Step 3.5, Nemotron 3).
    FunctionTag,
    /// `Action: name` then `Action Input: {…}`.
    ReAct,
    /// The whole reply is one JSON call object, an array of them (xLAM, Llama 3's
    /// JSON), or `{"tool_calls": […]}` (llama.cpp's generic format).
    BareJson,
    /// `<tool_calls>[…]</tool_calls>`, or one object a line (Jamba, MiniMax-M1,
    /// Hunyuan-A13B, Apriel); `<tools>{…}</tools>` (Qwen2.5-Coder).
    ToolCallsTag,
    /// `<TOOLCALL>[…]</TOOLCALL>` (Nemotron).
    Nemotron,
    /// `[TOOL_REQUEST]{…}[END_TOOL_REQUEST]` (LM Studio).
    LmStudio,
    /// `<longcat_tool_call>{…}</longcat_tool_call>` (LongCat).
    LongCat,
    /// `<|tool_call|>[…]` (Granite 3.0) or `<function_call>{…}` (Granite 20B FC).
    Granite,
    /// `<|action_start|><|plugin|>{…}<|action_end|>` (InternLM 2).
    InternLm,
    /// `functools[…]` (Phi-4-mini, FireFunction v2).
    Functools,
    /// `<|START_ACTION|>[{"tool_name": …, "parameters": …}]<|END_ACTION|>`
    /// (Command R7B, Command A).
    Command,
    /// `<|tools_prefix|>[{"name": {…}}]<|tools_suffix|>` (Apertus).
    Apertus,
    /// `<|function_call|>{…}` or `function call<|role_sep|>{…}` (GigaChat 3).
    GigaChat,
    /// `<|tool_call_begin|>functions.name:0<|tool_call_argument_begin|>{…}<|tool_call_end|>` (Kimi K2),
    /// or K3's `<|open|>call tool="name"<|sep|>…<|close|>call<|sep|>`.
    Kimi,
    /// `<｜tool▁call▁begin｜>…<｜tool▁sep｜>…<｜tool▁call▁end｜>` (DeepSeek V3, R1, V3.1).
    DeepSeek,
    /// `<|channel|>commentary to=functions.name <|constrain|>json<|message|>{…}<|call|>` (gpt-oss).
    Harmony,
    /// `>>>name` then `{…}` (Functionary v3.2).
    Functionary,
    /// `<tool_call>name<arg_key>…</arg_key><arg_value>…</arg_value></tool_call>`
    /// (GLM-4.5 to 4.7, Hunyuan 3).
    Glm,
    /// `<invoke name="…"><parameter name="…">…</parameter></invoke>` and its kin
    /// `<function name="…">`, `<steptml:invoke …>`, `<｜DSML｜invoke …>` (MiniMax-M2,
    /// Qwen3's XML, Step 3, DeepSeek V3.2).
    XmlInvoke,
    /// `[get_weather(city="Paris")]` (Llama 3.2 and 4, LFM2, Olmo 3, ToolACE).
    Pythonic,
    /// `call:name{key:<escape>value<escape>}` (FunctionGemma, Gemma 4).
    Gemma,
    /// `<|tool_call_start|>[{"name": …, "arguments": …}]<|tool_call_end|>` (openPangu).
    OpenPangu,
    /// `<|plamo:begin_tool_request:plamo|>…<|plamo:end_tool_request:plamo|>` (PLaMo 3).
    Plamo,
    /// `<|tool_call:start|>name` then `<|tool_arg:start|>k<|tool_arg:value|>v<|tool_arg:end|>`
    /// pairs, to `<|tool_call:end|>` (Solar Open 2).
    Solar,
    /// `<dots_function_call>{"name": …, "arguments": …}</dots_function_call>` (dots; its
    /// `<invoke name="…">` calls in the same tag are `xml_invoke`).
    Dots,
    /// `<|content_invoke_tool_json|>{"name": …, "args": …}<|end_message|>` (Inkling).
    Inkling,
}

impl Dialect {
    /// The dialect's name, as it is serialised (`tool_call_tag`, `harmony`, …).
    pub fn name(self) -> &'static str {
        match self {
            Dialect::ToolCallTag => "tool_call_tag",
            Dialect::PythonTag => "python_tag",
            Dialect::Mistral => "mistral",
            Dialect::FunctionTag => "function_tag",
            Dialect::ReAct => "react",
            Dialect::BareJson => "bare_json",
            Dialect::ToolCallsTag => "tool_calls_tag",
            Dialect::Nemotron => "nemotron",
            Dialect::LmStudio => "lm_studio",
            Dialect::LongCat => "longcat",
            Dialect::Granite => "granite",
            Dialect::InternLm => "internlm",
            Dialect::Functools => "functools",
            Dialect::Command => "command",
            Dialect::Apertus => "apertus",
            Dialect::GigaChat => "gigachat",
            Dialect::Kimi => "kimi",
            Dialect::DeepSeek => "deepseek",
            Dialect::Harmony => "harmony",
            Dialect::Functionary => "functionary",
            Dialect::Glm => "glm",
            Dialect::XmlInvoke => "xml_invoke",
            Dialect::Pythonic => "pythonic",
            Dialect::Gemma => "gemma",
            Dialect::OpenPangu => "openpangu",
            Dialect::Plamo => "plamo",
            Dialect::Solar => "solar",
            Dialect::Dots => "dots",
            Dialect::Inkling => "inkling",
        }
    }
}

impl Serialize for Dialect {
    /// As its [`Dialect::name`].
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

/// One tool call found in a reply, or one that looked like a call but is not one.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ExtractedCall {
    /// The name as the model wrote it.
    pub name: String,
    /// The registered tool it resolves to (`None` when rejected for its name).
    pub tool: Option<String>,
    /// The arguments, read with the argument-text repair (an object; `{}` when none
    /// were written).
    pub arguments: Value,
    /// Where in the reply it was written (byte offsets).
    pub span: Range<usize>,
    /// How it was written.
    pub dialect: Dialect,
    /// What was repaired to read it (the name, the argument text, a missing tag).
    #[serde(serialize_with = "repairs_json")]
    pub repairs: Vec<Repair>,
    /// Why it is not a call: the corrective message a call would get.
    #[serde(skip_serializing_if = "Option::is_none", serialize_with = "error_json")]
    pub rejected: Option<ToolError>,
}

fn repairs_json<S: serde::Serializer>(repairs: &[Repair], serializer: S) -> Result<S::Ok, S::Error> {
    serializer.collect_seq(repairs.iter().map(Repair::to_json))
}

fn error_json<S: serde::Serializer>(error: &Option<ToolError>, serializer: S) -> Result<S::Ok, S::Error> {
    error.as_ref().map(ToolError::to_json).serialize(serializer)
}

/// What a reply holds: its calls, in the order written, and what was rejected.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Extraction {
    /// The calls, each resolved to one tool.
    pub calls: Vec<ExtractedCall>,
    /// What was written like a call but is not one (an unknown or ambiguous name,
    /// arguments that are not an object), in the order written.
    pub rejected: Vec<ExtractedCall>,
}

impl Extraction {
    /// Whether the reply holds nothing written as a call.
    pub fn is_empty(&self) -> bool {
        self.calls.is_empty() && self.rejected.is_empty()
    }

    /// The calls and the rejected ones together, in the order the reply wrote them.
    pub fn in_order(&self) -> Vec<&ExtractedCall> {
        let mut found: Vec<&ExtractedCall> = self.calls.iter().chain(&self.rejected).collect();
        found.sort_by_key(|call| call.span.start);
        found
    }

    /// A line saying what was found: `2 calls, 1 rejected`, or that nothing was.
    pub fn summary(&self) -> String {
        if self.is_empty() {
            return "no tool call found in the reply".into();
        }
        let calls = if self.calls.len() == 1 { "call" } else { "calls" };
        format!("{} {calls}, {} rejected", self.calls.len(), self.rejected.len())
    }
}

/// The calls written in `text`, resolved against `registry`.
pub(crate) fn extract(registry: &Registry, text: &str) -> Extraction {
    let mut written = written_calls(text);
    if written.is_empty() {
        written = whole_reply(text);
    }
    if written.is_empty() {
        written = prose::calls(text);
    }
    let mut extraction = Extraction::default();
    for call in written {
        let call = resolve(registry, call);
        match call.rejected {
            None => extraction.calls.push(call),
            Some(_) => extraction.rejected.push(call),
        }
    }
    extraction
}

/// Every call written after a marker outside code, in order; each marker's span is
/// passed over whole, so nothing inside one is read twice. A code fence inside a
/// call's span (DeepSeek's arguments are fenced) is the call's, so the code after
/// it is found again from the span's end.
fn written_calls(text: &str) -> Vec<Written> {
    let reply = Reply::new(text);
    let mut code = code::regions(text);
    let mut code_at = 0;
    let mut written = Vec::new();
    let mut from = 0;
    while let Some((at, marker)) = next_marker(text, from) {
        while code.get(code_at).is_some_and(|region| region.end <= at) {
            code_at += 1;
        }
        if let Some(region) = code.get(code_at).filter(|region| region.start <= at) {
            from = region.end;
            continue;
        }
        let found = marker.read(&reply, at);
        from = found.iter().map(|call| call.span.end).max().unwrap_or(at + marker.pattern.len()).max(at + 1);
        if code.get(code_at).is_some_and(|region| region.start < from) {
            code = code::regions_from(text, from);
            code_at = 0;
        }
        written.extend(found);
    }
    written
}

/// The automaton over every marker's pattern (ASCII case ignored; of two at one
/// place, the first listed), built once: finding every marker is one pass over the
/// reply however many dialects there are.
fn automaton() -> &'static AhoCorasick {
    static AUTOMATON: OnceLock<AhoCorasick> = OnceLock::new();
    AUTOMATON.get_or_init(|| {
        AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::LeftmostFirst)
            .build(MARKERS.iter().map(|marker| marker.pattern))
            .expect("the markers make an automaton")
    })
}

/// The first marker at or after `from` (one at a line's start, for those that must be).
fn next_marker(text: &str, from: usize) -> Option<(usize, &'static dialects::Marker)> {
    let mut search = from;
    loop {
        let found = automaton().find(Input::new(text).span(search..text.len()))?;
        let marker = &MARKERS[found.pattern().as_usize()];
        if !marker.line_start || starts_line(text, found.start()) {
            return Some((found.start(), marker));
        }
        search = found.start() + 1;
    }
}

/// Whether only spaces stand between `at` and the start of its line.
fn starts_line(text: &str, at: usize) -> bool {
    let before = text.as_bytes()[..at].iter().rev().find(|&&b| b != b' ' && b != b'\t');
    before.is_none_or(|&b| b == b'\n')
}

/// The calls of a reply that is nothing but calls: one JSON call object, an array
/// of them, `{"tool_calls": […]}` or `{"tool_call": {…}}`, or Python-style calls (a
/// list of them, or of strings that each hold one).
fn whole_reply(text: &str) -> Vec<Written> {
    let start = text.len() - text.trim_start().len();
    let end = start + text.trim().len();
    let is_json = text[start..].starts_with(['{', '[']) && json::value_end(text, start, text.len()) == end;
    let Some((value, repair)) = is_json.then(|| read(&text[start..end])).flatten() else {
        return dialects::pythonic_reply(text);
    };
    let Some(found) = whole_reply_calls(text, start..end, &value) else { return dialects::pythonic_reply(text) };
    let repairs: Vec<Repair> = repair.into_iter().map(|how| Repair::ArgumentText { how }).collect();
    let mut calls = Vec::with_capacity(found.len());
    for (span, object) in found {
        let is_call = ToolCall::looks_like_call(object) && !ToolCall::is_definition(object);
        let Some(found) = ToolCall::from_object(object).filter(|_| is_call) else {
            return Vec::new();
        };
        let mut call = Written::new(span, Dialect::BareJson, found.name, found.arguments);
        call.repairs.clone_from(&repairs);
        calls.push(call);
    }
    calls
}

/// Call objects, each with where it was written.
type CallObjects<'v> = Vec<(Range<usize>, &'v Map<String, Value>)>;

/// The call objects of a whole-reply `value` written at `whole`, each with its span:
/// the reply's for one, each object's own in an array; `None` when they cannot be
/// told apart.
fn whole_reply_calls<'v>(text: &str, whole: Range<usize>, value: &'v Value) -> Option<CallObjects<'v>> {
    let (objects, array_at): (Vec<&Map<String, Value>>, Option<usize>) = match value {
        Value::Array(items) => (items.iter().map(Value::as_object).collect::<Option<_>>()?, Some(whole.start)),
        Value::Object(object) => match (object.get("tool_calls"), object.get("tool_call")) {
            (Some(Value::Array(calls)), _) => {
                let key = text[whole.clone()].find("\"tool_calls\"")? + whole.start;
                (calls.iter().map(Value::as_object).collect::<Option<_>>()?, Some(text[key..].find('[')? + key))
            }
            (_, Some(Value::Object(call))) => (vec![call], None),
            _ => (vec![object], None),
        },
        _ => return None,
    };
    match (objects.len(), array_at) {
        (0, _) => None,
        (1, _) | (_, None) => Some(objects.into_iter().map(|o| (whole.clone(), o)).take(1).collect()),
        (_, Some(at)) => {
            let spans = json::objects_in(text, at + 1..json::value_end(text, at, whole.end));
            (spans.len() == objects.len()).then(|| spans.into_iter().zip(objects).collect())
        }
    }
}

/// JSON text read as argument text is, and the repair it needed, if any.
fn read(text: &str) -> Option<(Value, Option<String>)> {
    read_json_text(text).ok()
}

/// A written call with its name resolved and its arguments read, or rejected.
fn resolve(registry: &Registry, written: Written) -> ExtractedCall {
    let mut call = ExtractedCall {
        name: written.name,
        tool: None,
        arguments: json!({}),
        span: written.span,
        dialect: written.dialect,
        repairs: written.repairs,
        rejected: None,
    };
    let resolved = match registry.resolve(&call.name) {
        Ok(resolved) => resolved,
        Err(error) => {
            call.rejected = Some(error);
            return call;
        }
    };
    if let Some(from) = &resolved.repaired_from {
        call.repairs.push(Repair::ToolName { from: from.clone(), to: resolved.name.clone() });
    }
    let expected_parameters = || registry.spec(&resolved.name).map(crate::tool::ToolSpec::expected_parameters);
    let one_dict = written.unread == Some(Unread::OneDict);
    if one_dict && keys_are_parameters(written.arguments.as_ref(), expected_parameters()) {
        call.repairs.push(Repair::CallText { how: "the arguments read from the one dict they were written as".into() });
    } else if let Some(unread) = &written.unread {
        let problem = unread.sentence(&resolved.name);
        call.rejected = Some(ToolError::InvalidArguments {
            tool: resolved.name.clone(),
            problem,
            expected_parameters: expected_parameters(),
        });
        call.tool = Some(resolved.name);
        return call;
    }
    match arguments(&resolved.name, written.arguments) {
        Ok((arguments, repair)) => {
            call.arguments = match (written.text_values, registry.spec(&resolved.name)) {
                (true, Some(spec)) => typed::values_as_declared(arguments, &spec.parameters_schema()),
                _ => arguments,
            };
            call.repairs.extend(repair);
        }
        Err(problem) => {
            call.rejected = Some(ToolError::InvalidArguments {
                tool: resolved.name.clone(),
                problem,
                expected_parameters: expected_parameters(),
            });
        }
    }
    call.tool = Some(resolved.name);
    call
}

/// Whether every key of `arguments` (an object) names one of `parameters`, as
/// parameter names are matched.
fn keys_are_parameters(arguments: Option<&Value>, parameters: Option<crate::tool::ExpectedParameters>) -> bool {
    let (Some(Value::Object(arguments)), Some(parameters)) = (arguments, parameters) else { return false };
    let names: Vec<&str> = parameters.required.iter().chain(&parameters.optional).map(String::as_str).collect();
    arguments.keys().all(|key| crate::tool::names::match_name(names.iter().copied(), key).one().is_some())
}

/// The arguments to `tool` as an object: given as one, as a string of JSON
/// (repaired), or absent (none); else the sentence saying what is wrong.
fn arguments(tool: &str, written: Option<Value>) -> Result<(Value, Option<Repair>), String> {
    let not_an_object = |other: &Value| crate::bind::not_an_object(tool, other);
    match written {
        None | Some(Value::Null) => Ok((Value::Object(Map::new()), None)),
        Some(object @ Value::Object(_)) => Ok((object, None)),
        Some(Value::String(text)) => match read_json_text(&text) {
            Ok((object @ Value::Object(_), repair)) => {
                Ok((object, repair.map(|how| Repair::ArgumentText { how: how.to_string() })))
            }
            Ok((other, _)) => Err(not_an_object(&other)),
            Err(_) => Err(format!("The arguments for '{tool}' are not JSON: {}.", shorten_text(&text))),
        },
        Some(other) => Err(not_an_object(&other)),
    }
}

#[cfg(test)]
mod tests;
