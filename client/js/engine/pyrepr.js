// Python's repr() of JSON values, so that an error quotes bad text exactly as the server's
// engine does (NOTATION.md: "rejected with an error that quotes the bad text").

/** A JSON number written with a fraction or an exponent (Python reads it as a float). */
export class PyFloat {
  /** @param {number} value */
  constructor(value) {
    this.value = value;
    Object.freeze(this);
  }
}

// str.isprintable() is false for these categories (the space excepted)
const NOT_PRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u;

/** @param {number} n @param {number} width */
const hex = (n, width) => n.toString(16).padStart(width, "0");

/** @param {string} text */
export function reprStr(text) {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of text) {
    const cp = /** @type {number} */ (ch.codePointAt(0));
    if (ch === quote || ch === "\\") out += "\\" + ch;
    else if (ch === "\t") out += "\\t";
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (cp < 0x20 || cp === 0x7f) out += "\\x" + hex(cp, 2);
    else if (cp < 0x7f) out += ch;
    else if (ch !== " " && NOT_PRINTABLE.test(ch)) {
      out += cp <= 0xff ? "\\x" + hex(cp, 2) : cp <= 0xffff ? "\\u" + hex(cp, 4) : "\\U" + hex(cp, 8);
    } else out += ch;
  }
  return out + quote;
}

/** Python's repr of a float: the shortest digits, fixed from 1e-4 up to 1e16. @param {number} x */
export function reprFloat(x) {
  if (Number.isNaN(x)) return "nan";
  if (!Number.isFinite(x)) return x > 0 ? "inf" : "-inf";
  const sign = x < 0 || Object.is(x, -0) ? "-" : "";
  const [mantissa, exp] = Math.abs(x).toExponential().split("e");
  const digits = mantissa.replace(".", "");
  const e = Number(exp);
  if (e < -4 || e >= 16) {
    const body = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    return `${sign}${body}e${e < 0 ? "-" : "+"}${String(Math.abs(e)).padStart(2, "0")}`;
  }
  if (e < 0) return `${sign}0.${"0".repeat(-e - 1)}${digits}`;
  const whole = digits.slice(0, e + 1).padEnd(e + 1, "0");
  return `${sign}${whole}.${digits.slice(e + 1) || "0"}`;
}

/** Python's repr of a JSON value (as Python's json module would have read it). @param {unknown} value @returns {string} */
export function pyRepr(value) {
  if (value === null || value === undefined) return "None";
  if (value === true) return "True";
  if (value === false) return "False";
  if (typeof value === "bigint") return String(value);
  if (typeof value === "number") {
    return Number.isSafeInteger(value) ? String(value === 0 ? 0 : value) : reprFloat(value);
  }
  if (typeof value === "string") return reprStr(value);
  if (value instanceof PyFloat) return reprFloat(value.value);
  if (Array.isArray(value)) return `[${value.map(pyRepr).join(", ")}]`;
  if (typeof value === "object") {
    const entries = Object.entries(value).map(([k, v]) => `${reprStr(k)}: ${pyRepr(v)}`);
    return `{${entries.join(", ")}}`;
  }
  return String(value);
}

/** Whether a value is a JSON object (a Python dict). @param {unknown} value @returns {value is Record<string, unknown>} */
export function isDict(value) {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Whether a value is a JSON whole number (a Python int, not a bool). @param {unknown} value @returns {value is number} */
export function isInt(value) {
  return typeof value === "number" && Number.isInteger(value);
}

/** `dict.get(key, fallback)`. @param {Record<string, unknown>} dict @param {string} key @param {unknown} [fallback] */
export function get(dict, key, fallback = null) {
  return Object.prototype.hasOwnProperty.call(dict, key) ? dict[key] : fallback;
}

/** Python's `len()` of a string: code points, not UTF-16 units. @param {string} text */
export function pyLen(text) {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/**
 * Python's order of strings (by code point). JavaScript's `<` compares UTF-16 units, which
 * orders alike except a surrogate (a character beyond U+FFFF) against U+E000-U+FFFF.
 * @param {string} a @param {string} b
 */
export function compareStr(a, b) {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    const xs = x >= 0xd800 && x <= 0xdfff;
    const ys = y >= 0xd800 && y <= 0xdfff;
    if (xs !== ys && (xs ? y : x) >= 0xe000) return xs ? 1 : -1;
    return x < y ? -1 : 1;
  }
  return a.length < b.length ? -1 : 1;
}
