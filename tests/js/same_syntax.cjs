// Reads JSON [[name, a, b], ...] on stdin: a module's text as written (a) and as served (b).
// Prints JSON {"compared": n, "different": [names...]}: the modules whose two texts do not
// parse to the same syntax tree (TypeScript's parser, as for JavaScript: node kinds in order,
// each name's, string's, template part's, number's and operator's text), or do not parse.
"use strict";
const path = require("path");
const ts = require(path.join(__dirname, "..", "..", "node_modules", "typescript"));

/** @param {string} name @param {string} text */
function tree(name, text) {
  const file = ts.createSourceFile(name, text, ts.ScriptTarget.ESNext, false, ts.ScriptKind.JS);
  // @ts-ignore: parseDiagnostics is internal, and the one way to see a syntax error here
  const errors = file.parseDiagnostics || [];
  if (errors.length) return null;
  /** @type {string[]} */
  const out = [];
  /** @param {any} node */
  const walk = (node) => {
    out.push(String(node.kind));
    if (node.kind !== ts.SyntaxKind.SourceFile && node.text !== undefined) out.push(JSON.stringify(node.text));
    if (node.operatorToken) out.push("op" + node.operatorToken.kind);
    if (node.operator !== undefined) out.push("op" + node.operator);
    ts.forEachChild(node, walk);
  };
  walk(file);
  return out.join(" ");
}

let input = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => { input += chunk; });
process.stdin.on("end", () => {
  /** @type {[string, string, string][]} */
  const pairs = JSON.parse(input);
  const different = [];
  for (const [name, a, b] of pairs) {
    const ta = tree(name, a);
    if (ta === null || ta !== tree(name, b)) different.push(name);
  }
  process.stdout.write(JSON.stringify({ compared: pairs.length, different }));
});
