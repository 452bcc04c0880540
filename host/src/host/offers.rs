//! What plugins offer besides tools, gathered over the snapshot in MCP's shapes:
//! components' (`toolhost:tool/resources` and `/prompts`, each a call of the
//! component's function under its limits) and MCP server plugins' own (asked on their
//! connection). Resources and templates are listed and read (a URI goes to the first
//! plugin, in load order, that lists it or whose template matches it); prompts are
//! listed and got (a name two plugins share is qualified as `plugin.name`); arguments
//! are completed.

use serde_json::{Map, Value, json};
use wasmtime::component::Val;

use super::Host;
use super::snapshot::{ServedComponent, Snapshot};
use crate::error::ToolError;
use crate::invoke::{Invocation, invoke_async};
use crate::load::Offered;
use crate::tool::{Asked, Content, EmbeddedResource, ResourceContents};

/// A plugin that may offer something: a component or a server, by its index in the
/// snapshot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Source {
    Component(usize),
    Server(usize),
}

/// What is listed.
#[derive(Debug, Clone, Copy)]
enum Listing {
    Resources,
    Templates,
    Prompts,
}

/// A prompt as the snapshot lists it: under which name, from which plugin, as what
/// the plugin calls it.
struct ListedPrompt {
    name: String,
    source: Source,
    own_name: String,
    /// The prompt in MCP's shape (under `name`).
    json: Value,
}

impl Host {
    /// Whether some plugin offers resources: a component exporting
    /// `toolhost:tool/resources`, or an MCP server that declared them.
    pub fn has_resources(&self) -> bool {
        let snapshot = self.core.current.load();
        snapshot.components.iter().any(|served| served.plugin.offers.has(Offered::Resources))
            || snapshot.servers.iter().any(|server| server.offers().0)
    }

    /// Whether some plugin offers prompts: a component exporting
    /// `toolhost:tool/prompts`, or an MCP server that declared them.
    pub fn has_prompts(&self) -> bool {
        let snapshot = self.core.current.load();
        snapshot.components.iter().any(|served| served.plugin.offers.has(Offered::Prompts))
            || snapshot.servers.iter().any(|server| server.offers().1)
    }

    /// Every plugin's resources, as MCP's `resources/list` has them (`{"uri",
    /// "name", "mimeType", ...}`). A plugin whose list fails is left out, logged.
    /// Needs a tokio runtime, as [`Host::call_async`] does.
    pub async fn list_resources(&self) -> Vec<Value> {
        self.list_all(Listing::Resources).await
    }

    /// Every plugin's resource templates, as MCP's `resources/templates/list` has
    /// them (`{"uriTemplate", "name", ...}`), as [`Host::list_resources`] does.
    pub async fn list_resource_templates(&self) -> Vec<Value> {
        self.list_all(Listing::Templates).await
    }

    /// What every plugin lists, in load order.
    async fn list_all(&self, listing: Listing) -> Vec<Value> {
        let snapshot = self.core.current.load_full();
        let mut all = Vec::new();
        for source in sources(&snapshot) {
            all.extend(self.list(&snapshot, source, listing).await);
        }
        all
    }

    /// The contents of the resource at `uri`, as MCP's `resources/read` has them
    /// (`{"uri", "mimeType", "text"}` or `"blob"` in base64), from the first plugin
    /// that lists it or whose template matches it; the plugin's own message when it
    /// cannot read it.
    pub async fn read_resource(&self, uri: &str) -> Result<Vec<Value>, ToolError> {
        let snapshot = self.core.current.load_full();
        for source in sources(&snapshot) {
            let listed = self.list(&snapshot, source, Listing::Resources).await;
            let matches = |t: &Value| t["uriTemplate"].as_str().is_some_and(|t| template_matches(t, uri));
            // The templates are asked for only when the list does not name the URI.
            if listed.iter().any(|entry| entry["uri"] == uri)
                || self.list(&snapshot, source, Listing::Templates).await.iter().any(matches)
            {
                return self.read_from(&snapshot, source, uri).await;
            }
        }
        Err(ToolError::Unavailable { tool: uri.to_string(), reason: "no plugin offers this resource".into() })
    }

    /// Every plugin's prompts, as MCP's `prompts/list` has them; a name two plugins
    /// share is qualified as `plugin.name`.
    pub async fn list_prompts(&self) -> Vec<Value> {
        let snapshot = self.core.current.load_full();
        self.prompts(&snapshot).await.into_iter().map(|prompt| prompt.json).collect()
    }

    /// The messages of the prompt listed as `name` with `arguments`, as MCP's
    /// `prompts/get` has them (`{"role", "content": a content block}`).
    pub async fn get_prompt(&self, name: &str, arguments: &Map<String, Value>) -> Result<Vec<Value>, ToolError> {
        let snapshot = self.core.current.load_full();
        let prompts = self.prompts(&snapshot).await;
        let Some(prompt) = prompts.into_iter().find(|prompt| prompt.name == name) else {
            return Err(ToolError::Unavailable {
                tool: name.to_string(),
                reason: "there is no prompt by this name".into(),
            });
        };
        match prompt.source {
            Source::Component(index) => {
                let pairs = arguments.iter().map(|(key, value)| {
                    let text = value.as_str().map_or_else(|| value.to_string(), str::to_string);
                    Val::Tuple(vec![Val::String(key.clone()), Val::String(text)])
                });
                let args = vec![Val::String(prompt.own_name), Val::List(pairs.collect())];
                let messages = self.call_offered(&snapshot.components[index], Offered::Prompts, "get", args).await?;
                Ok(messages.as_array().map(|all| all.iter().map(mcp_message).collect()).unwrap_or_default())
            }
            Source::Server(index) => {
                let asked = server_ask(&snapshot, index, Asked::Prompt(prompt.own_name, arguments.clone())).await;
                let answer = asked.map_err(|reason| ToolError::Unavailable { tool: name.to_string(), reason })?;
                Ok(answer["messages"].as_array().cloned().unwrap_or_default())
            }
        }
    }

    /// Values completing `value` for the argument `argument` of the prompt listed as
    /// `prompt` (MCP's `completion/complete`), most likely first; none when no plugin
    /// offers that prompt or its completion fails (logged).
    pub async fn complete_prompt(&self, prompt: &str, argument: &str, value: &str) -> Vec<String> {
        let snapshot = self.core.current.load_full();
        let prompts = self.prompts(&snapshot).await;
        let Some(listed) = prompts.into_iter().find(|listed| listed.name == prompt) else { return Vec::new() };
        let reference = json!({"type": "ref/prompt", "name": listed.own_name});
        self.completed(&snapshot, listed.source, reference, argument, value).await
    }

    /// Values completing `value` for the variable `argument` of the resource template
    /// `template`, as [`Host::complete_prompt`] does for a prompt's arguments.
    pub async fn complete_template(&self, template: &str, argument: &str, value: &str) -> Vec<String> {
        let snapshot = self.core.current.load_full();
        for source in sources(&snapshot) {
            let templates = self.list(&snapshot, source, Listing::Templates).await;
            if templates.iter().any(|listed| listed["uriTemplate"] == template) {
                let reference = json!({"type": "ref/resource", "uri": template});
                return self.completed(&snapshot, source, reference, argument, value).await;
            }
        }
        Vec::new()
    }

    /// What `source` completes for `reference`'s `argument` (MCP's JSON reference).
    async fn completed(
        &self,
        snapshot: &Snapshot,
        source: Source,
        reference: Value,
        argument: &str,
        value: &str,
    ) -> Vec<String> {
        let values = match source {
            Source::Component(index) => {
                let name = reference["name"].as_str().or(reference["uri"].as_str()).unwrap_or_default();
                let args = vec![Val::String(name.into()), Val::String(argument.into()), Val::String(value.into())];
                let served = &snapshot.components[index];
                self.call_offered(served, Offered::Prompts, "complete", args).await.map_err(|e| e.to_string())
            }
            Source::Server(index) => {
                let asked =
                    server_ask(snapshot, index, Asked::Complete(reference, argument.into(), value.into())).await;
                asked.map(|answer| answer["completion"]["values"].clone())
            }
        };
        let values = values.unwrap_or_else(|error| {
            tracing::warn!("completing '{argument}' failed: {error}");
            Value::Null
        });
        values
            .as_array()
            .map(|all| all.iter().filter_map(|v| v.as_str().map(str::to_string)).collect())
            .unwrap_or_default()
    }

    /// What `source` lists, in MCP's shape; nothing when it offers none or fails (logged).
    async fn list(&self, snapshot: &Snapshot, source: Source, listing: Listing) -> Vec<Value> {
        match source {
            Source::Component(index) => {
                let served = &snapshot.components[index];
                let (interface, function, shape): (Offered, &str, fn(&Value) -> Value) = match listing {
                    Listing::Resources => (Offered::Resources, "list", mcp_resource),
                    Listing::Templates => (Offered::Resources, "templates", mcp_template),
                    Listing::Prompts => (Offered::Prompts, "list", mcp_prompt),
                };
                if !served.plugin.offers.has(interface) {
                    return Vec::new();
                }
                self.listed(served, interface, function).await.iter().map(shape).collect()
            }
            Source::Server(index) => {
                let (resources, prompts) = snapshot.servers[index].offers();
                let asked = match listing {
                    Listing::Resources if resources => Asked::Resources,
                    Listing::Templates if resources => Asked::Templates,
                    Listing::Prompts if prompts => Asked::Prompts,
                    _ => return Vec::new(),
                };
                match server_ask(snapshot, index, asked).await {
                    Ok(Value::Array(items)) => items,
                    Ok(_) => Vec::new(),
                    Err(why) => {
                        tracing::warn!(
                            "MCP server '{}' could not list {listing:?}: {why}",
                            snapshot.servers[index].name()
                        );
                        Vec::new()
                    }
                }
            }
        }
    }

    /// `uri`'s contents from `source`, in MCP's shape.
    async fn read_from(&self, snapshot: &Snapshot, source: Source, uri: &str) -> Result<Vec<Value>, ToolError> {
        match source {
            Source::Component(index) => {
                let read = vec![Val::String(uri.into())];
                let contents = self.call_offered(&snapshot.components[index], Offered::Resources, "read", read).await?;
                Ok(contents.as_array().map(|all| all.iter().map(mcp_contents).collect()).unwrap_or_default())
            }
            Source::Server(index) => {
                let answer = server_ask(snapshot, index, Asked::Read(uri.to_string())).await;
                let server = snapshot.servers[index].name().to_string();
                let answer = answer.map_err(|reason| ToolError::ServerFailed {
                    tool: uri.to_string(),
                    server,
                    reason,
                    retry: false,
                })?;
                Ok(answer["contents"].as_array().cloned().unwrap_or_default())
            }
        }
    }

    /// Every plugin's prompts, a name two share qualified with the plugin's.
    async fn prompts(&self, snapshot: &Snapshot) -> Vec<ListedPrompt> {
        let mut prompts = Vec::new();
        for source in sources(snapshot) {
            for json in self.list(snapshot, source, Listing::Prompts).await {
                let own_name = json["name"].as_str().unwrap_or_default().to_string();
                prompts.push(ListedPrompt { name: own_name.clone(), source, own_name, json });
            }
        }
        let shared: Vec<String> = prompts
            .iter()
            .filter(|prompt| prompts.iter().filter(|other| other.own_name == prompt.own_name).count() > 1)
            .map(|prompt| prompt.own_name.clone())
            .collect();
        for prompt in prompts.iter_mut().filter(|prompt| shared.contains(&prompt.own_name)) {
            let plugin = match prompt.source {
                Source::Component(index) => snapshot.components[index].plugin.name.to_string(),
                Source::Server(index) => snapshot.servers[index].name().to_string(),
            };
            prompt.name = format!("{plugin}.{}", prompt.own_name);
            prompt.json["name"] = Value::String(prompt.name.clone());
        }
        prompts
    }

    /// What `function` of `interface` lists (an array), or nothing when it fails (logged).
    async fn listed(&self, served: &ServedComponent, interface: Offered, function: &str) -> Vec<Value> {
        match self.call_offered(served, interface, function, Vec::new()).await {
            Ok(Value::Array(items)) => items,
            Ok(other) => {
                tracing::warn!(component = %served.plugin.name, "{function} returned {other}, not a list");
                Vec::new()
            }
            Err(error) => {
                tracing::warn!(component = %served.plugin.name, "{function} failed: {error}");
                Vec::new()
            }
        }
    }

    /// Calls `function` of the component's `interface` with `args`: its value as JSON.
    async fn call_offered(
        &self,
        served: &ServedComponent,
        interface: Offered,
        function: &str,
        args: Vec<Val>,
    ) -> Result<Value, ToolError> {
        let name = format!("{}/{}.{function}", served.plugin.name, interface.name());
        let Some(offered) = served.plugin.offers.function(interface, function) else {
            return Err(ToolError::Unavailable { tool: name, reason: "the component does not export it".into() });
        };
        let call = Invocation {
            tool: &name,
            component: &served.plugin.name,
            warm: &served.warm,
            export: &offered.export,
            result: offered.result.as_ref(),
            limits: served.limits,
            observer: None,
        };
        invoke_async(&self.core.runtime, &call, &args).await.map(|returned| returned.value)
    }
}

/// Every plugin, components first, each in load order.
fn sources(snapshot: &Snapshot) -> impl Iterator<Item = Source> + use<> {
    let components = (0..snapshot.components.len()).map(Source::Component);
    components.chain((0..snapshot.servers.len()).map(Source::Server))
}

/// Asks server `index` of the snapshot.
async fn server_ask(snapshot: &Snapshot, index: usize, asked: Asked) -> Result<Value, String> {
    snapshot.servers[index].ask(asked).await
}

/// Whether `uri` is one of `template`'s (RFC 6570 level 1: `{name}` stands for text
/// without a `/`, at least one character).
pub(crate) fn template_matches(template: &str, uri: &str) -> bool {
    let mut rest = uri;
    let mut parts = template.split('{');
    let Some(first) = parts.next() else { return false };
    let Some(after) = rest.strip_prefix(first) else { return false };
    rest = after;
    for part in parts {
        let Some((_, literal)) = part.split_once('}') else { return false };
        // The variable runs to the next occurrence of the literal after it (or the
        // end), and holds no '/'.
        let end = if literal.is_empty() {
            rest.find('/').unwrap_or(rest.len())
        } else {
            match rest.find(literal) {
                Some(end) => end,
                None => return false,
            }
        };
        if end == 0 || rest[..end].contains('/') {
            return false;
        }
        rest = &rest[end + literal.len()..];
    }
    rest.is_empty()
}

/// Drops the `null` fields of an object.
fn without_nulls(fields: Vec<(&str, Value)>) -> Value {
    Value::Object(fields.into_iter().filter(|(_, value)| !value.is_null()).map(|(k, v)| (k.to_string(), v)).collect())
}

/// A resources `entry` as MCP lists it.
fn mcp_resource(entry: &Value) -> Value {
    mcp_listed(entry, ("uri", "uri"))
}

/// A resources `template` as MCP lists it.
fn mcp_template(template: &Value) -> Value {
    mcp_listed(template, ("uriTemplate", "uri_template"))
}

/// A listed resource or template under MCP's names: its `(mcp, wit)` address field,
/// then name, title, description and MIME type.
fn mcp_listed(listed: &Value, (key, wit_key): (&str, &str)) -> Value {
    let fields = [(key, wit_key), ("name", "name"), ("title", "title"), ("description", "description")];
    let fields = fields.into_iter().chain([("mimeType", "mime_type")]);
    without_nulls(fields.map(|(mcp, wit)| (mcp, listed[wit].clone())).collect())
}

fn mcp_prompt(prompt: &Value) -> Value {
    let arguments: Vec<Value> = prompt["arguments"]
        .as_array()
        .map(|all| {
            all.iter()
                .map(|argument| {
                    without_nulls(vec![
                        ("name", argument["name"].clone()),
                        ("description", argument["description"].clone()),
                        ("required", argument["required"].clone()),
                    ])
                })
                .collect()
        })
        .unwrap_or_default();
    without_nulls(vec![
        ("name", prompt["name"].clone()),
        ("title", prompt["title"].clone()),
        ("description", prompt["description"].clone()),
        ("arguments", Value::Array(arguments)),
    ])
}

/// An `embedded-resource` as MCP's resource contents.
fn mcp_contents(resource: &Value) -> Value {
    embedded_of(resource).map_or(Value::Null, |resource| serde_json::to_value(resource).unwrap_or_default())
}

/// An `embedded-resource` (as the invocation's JSON has it) as [`EmbeddedResource`].
fn embedded_of(resource: &Value) -> Option<EmbeddedResource> {
    let contents = match resource["contents"]["tag"].as_str()? {
        "blob" => ResourceContents::Blob { blob: bytes_of(&resource["contents"]["value"])? },
        _ => ResourceContents::Text { text: resource["contents"]["value"].as_str()?.to_string() },
    };
    let mime_type = resource["mime_type"].as_str().map(str::to_string);
    Some(EmbeddedResource { uri: resource["uri"].as_str()?.to_string(), mime_type, contents })
}

/// A prompt `message` as MCP's.
fn mcp_message(message: &Value) -> Value {
    let block = content_of(&message["content"]);
    json!({"role": message["role"], "content": block.map_or(Value::Null, |block| serde_json::to_value(block).unwrap_or_default())})
}

/// A `content.block` (as the invocation's JSON has it) as [`Content`].
fn content_of(block: &Value) -> Option<Content> {
    let value = &block["value"];
    let text = |key: &str| value[key].as_str().map(str::to_string);
    Some(match block["tag"].as_str()? {
        "text" => Content::text(value.as_str()?),
        "image" => Content::image(bytes_of(&value["data"])?, text("mime_type")?),
        "audio" => Content::audio(bytes_of(&value["data"])?, text("mime_type")?),
        "resource_link" => Content::ResourceLink(crate::tool::ResourceLink::new(
            text("uri")?,
            text("name")?,
            text("description"),
            text("mime_type"),
        )),
        "embedded" => Content::Resource { resource: embedded_of(value)? },
        _ => return None,
    })
}

/// The bytes of a `list<u8>` as JSON (an array of numbers).
fn bytes_of(list: &Value) -> Option<Vec<u8>> {
    list.as_array()?.iter().map(|byte| byte.as_u64().and_then(|b| u8::try_from(b).ok())).collect()
}

#[cfg(test)]
mod tests {
    use super::template_matches;

    #[test]
    fn a_uri_template_matches_its_uris_and_no_others() {
        assert!(template_matches("test://template/{id}/data", "test://template/123/data"));
        assert!(template_matches("notes://{day}/{title}", "notes://monday/todo"));
        assert!(!template_matches("test://template/{id}/data", "test://template//data"));
        assert!(!template_matches("test://template/{id}/data", "test://template/1/2/data"));
        assert!(!template_matches("test://template/{id}/data", "test://template/1/data/more"));
        assert!(!template_matches("test://static", "test://static-text"));
        assert!(template_matches("test://static", "test://static"));
    }
}
