// JSON read and written as Python's json module does it, so that scripts/oracle-js answers
// the very lines `python -m server.engine` answers: a number with a fraction or an exponent
// is a float (a PyFloat: not a whole number, printed as Python prints it), NaN and Infinity
// are read, a whole number of any size is kept (a BigInt beyond 2^53), nesting deeper than
// Python's recursion limit is refused, and answers are written with ", " and ": ".

import { PyFloat } from "../../client/js/engine/pyrepr.js";

export class JSONError extends Error {}

export const MAX_DEPTH = 990; // python -m server.engine decodes 990 nested arrays, not 991
export const MAX_INT_DIGITS = 4300; // sys.get_int_max_str_digits()

const NUMBER = /-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?/y;
const WHITESPACE = /[ \t\n\r]*/y;
/** @type {Record<string, string>} */
const ESCAPES = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };

/** Reads a JSON text as Python's `json.loads` does. @param {string} text @returns {unknown} */
export function loads(text) {
  let at = 0;
  let depth = 0;
  const skip = () => {
    WHITESPACE.lastIndex = at;
    WHITESPACE.exec(text);
    at = WHITESPACE.lastIndex;
  };
  /** @param {string} what @param {number} [pos] @returns {never} */
  const fail = (what, pos = at) => {
    // as Python words it: "Expecting value: line 1 column 1 (char 0)", in code points
    const before = [...text.slice(0, pos)];
    const line = before.filter((ch) => ch === "\n").length + 1;
    const column = before.length - before.lastIndexOf("\n");
    throw new JSONError(`${what}: line ${line} column ${column} (char ${before.length})`);
  };
  /** @returns {string} */
  const string = () => {
    const begin = at;
    at++; // the opening quote
    let out = "";
    for (;;) {
      const ch = text[at];
      if (ch === undefined) fail("Unterminated string starting at", begin);
      if (ch === '"') {
        at++;
        return out;
      }
      if (ch < " ") fail("Invalid control character at");
      if (ch !== "\\") {
        out += ch;
        at++;
        continue;
      }
      const esc = text[at + 1];
      if (esc === "u") {
        const hex = text.slice(at + 2, at + 6);
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) fail("Invalid \\uXXXX escape", at + 1);
        out += String.fromCharCode(parseInt(hex, 16));
        at += 6;
      } else if (esc !== undefined && Object.prototype.hasOwnProperty.call(ESCAPES, esc)) {
        out += ESCAPES[esc];
        at += 2;
      } else fail("Invalid \\escape");
    }
  };
  /** @param {"array" | "object"} kind */
  const enter = (kind) => {
    depth++;
    if (depth > MAX_DEPTH) {
      throw new JSONError(`maximum recursion depth exceeded while decoding a JSON ${kind} from a unicode string`);
    }
  };
  /** @returns {unknown} */
  const value = () => {
    const ch = text[at];
    if (ch === '"') return string();
    if (ch === "{") {
      enter("object");
      at++;
      /** @type {Record<string, unknown>} */
      const obj = Object.create(null);
      skip();
      if (text[at] === "}") {
        at++;
        depth--;
        return obj;
      }
      for (;;) {
        if (text[at] !== '"') fail("Expecting property name enclosed in double quotes");
        const key = string();
        skip();
        if (text[at] !== ":") fail("Expecting ':' delimiter");
        at++;
        skip();
        obj[key] = value();
        skip();
        if (text[at] === "}") {
          at++;
          depth--;
          return obj;
        }
        if (text[at] !== ",") fail("Expecting ',' delimiter");
        at++;
        skip();
      }
    }
    if (ch === "[") {
      enter("array");
      at++;
      /** @type {unknown[]} */
      const list = [];
      skip();
      if (text[at] === "]") {
        at++;
        depth--;
        return list;
      }
      for (;;) {
        list.push(value());
        skip();
        if (text[at] === "]") {
          at++;
          depth--;
          return list;
        }
        if (text[at] !== ",") fail("Expecting ',' delimiter");
        at++;
        skip();
      }
    }
    for (const [word, found] of /** @type {[string, unknown][]} */ ([
      ["null", null],
      ["true", true],
      ["false", false],
      ["NaN", new PyFloat(NaN)],
      ["Infinity", new PyFloat(Infinity)],
      ["-Infinity", new PyFloat(-Infinity)],
    ])) {
      if (text.startsWith(word, at)) {
        at += word.length;
        return found;
      }
    }
    NUMBER.lastIndex = at;
    const number = NUMBER.exec(text);
    if (!number) return fail("Expecting value");
    at = NUMBER.lastIndex;
    if (number[1] !== undefined || number[2] !== undefined) return new PyFloat(Number(number[0]));
    const digits = number[0].replace("-", "").length;
    if (digits > MAX_INT_DIGITS) {
      // Python raises a ValueError here that its oracle does not catch: it stops
      throw new JSONError(
        `Exceeds the limit (${MAX_INT_DIGITS} digits) for integer string conversion: value has ${digits} digits`,
      );
    }
    const whole = Number(number[0]);
    return Number.isSafeInteger(whole) ? whole || 0 : BigInt(number[0]);
  };
  if (text.startsWith("\ufeff")) fail("Unexpected UTF-8 BOM (decode using utf-8-sig)", 0);
  skip();
  const result = value();
  skip();
  if (at !== text.length) fail("Extra data");
  return result;
}

/** Writes a JSON answer as Python's `json.dumps(value, ensure_ascii=False)` does. @param {unknown} value @returns {string} */
export function dumps(value) {
  if (value === null || value === undefined) return "null";
  if (Array.isArray(value)) return `[${value.map(dumps).join(", ")}]`;
  if (typeof value === "bigint") return String(value);
  if (typeof value === "object") {
    const entries = Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}: ${dumps(v)}`);
    return `{${entries.join(", ")}}`;
  }
  return JSON.stringify(value);
}

// str.isspace(): a line holding only these is no request
const PY_SPACE = /^[\t\n\x0b\x0c\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]*$/;

/** @param {string} line */
export const isBlank = (line) => PY_SPACE.test(line);
