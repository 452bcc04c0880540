// The urls example tool: URL tools written in JavaScript.
//
// Built into a WebAssembly component by componentize-js (see scripts/build-guests.sh).
// Each export of the `urls` world in wit/urls.wit is an exported function here;
// a WIT `result` is returned as a value or thrown as an error, records are objects,
// enums are their WIT names as strings.

function parse(text) {
  try {
    return new URL(text);
  } catch {
    throw `'${text}' is not an absolute URL (like https://example.com/path)`;
  }
}

function queryPairs(url) {
  return [...url.searchParams.entries()];
}

export function parseUrl(text) {
  const url = parse(text);
  return {
    scheme: url.protocol.replace(/:$/, ""),
    host: url.hostname,
    port: url.port === "" ? undefined : Number(url.port),
    path: url.pathname,
    query: queryPairs(url),
    fragment: url.hash.replace(/^#/, ""),
  };
}

export function getPart(text, part) {
  const parts = parseUrl(text);
  switch (part) {
    case "port":
      return parts.port === undefined ? "" : String(parts.port);
    case "query":
      return parts.query.map(([name, value]) => `${name}=${value}`).join("&");
    default:
      return parts[part];
  }
}

export function buildUrl(host, path, query, secure) {
  const url = new URL(`${secure ? "https" : "http"}://${host}`);
  url.pathname = path;
  for (const [name, value] of query) {
    url.searchParams.append(name, value);
  }
  return url.href;
}

export function decode(text) {
  return decodeURIComponent(text);
}
