// The urls example tool: URL tools written in JavaScript.
//
// Built into a WebAssembly component by componentize-js (see scripts/build-guests.sh).
// Each export of the `urls` world in wit/urls.wit is an exported function here;
// a WIT `result` is returned as a value or thrown as an error, records are objects,
// enums are their WIT names as strings. The host's services (toolhost:tool, in
// wit/deps/toolhost) are imported by their interface names.

import { log } from "toolhost:tool/log@0.3.0";
import { report } from "toolhost:tool/progress@0.3.0";
import { add } from "toolhost:tool/content@0.3.0";

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

export function countHosts(urls) {
  const counts = new Map();
  urls.forEach((text, done) => {
    report(done, urls.length, undefined);
    try {
      const host = new URL(text).hostname;
      counts.set(host, (counts.get(host) ?? 0) + 1);
    } catch {
      log("warn", `skipped '${text}': not an absolute URL`);
    }
  });
  report(urls.length, urls.length, "counted");
  const sorted = [...counts.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  add({ tag: "image", val: { data: new TextEncoder().encode(barChart(sorted)), mimeType: "image/svg+xml" } });
  return sorted;
}

// The counts as an SVG bar chart: one labelled bar per host, 20 pixels high.
function barChart(counts) {
  const most = Math.max(1, ...counts.map(([, count]) => count));
  const bars = counts.map(([host, count], i) => {
    const y = 20 * i;
    const width = (300 * count) / most;
    const label = host.replace(/&/g, "&amp;").replace(/</g, "&lt;");
    return `<rect x="150" y="${y}" width="${width}" height="16" fill="steelblue"/>` +
      `<text x="0" y="${y + 12}" font-size="12">${label} (${count})</text>`;
  });
  return `<svg xmlns="http://www.w3.org/2000/svg" width="460" height="${20 * counts.length}">${bars.join("")}</svg>`;
}
