// The player's words (issue 28): every text a person sees or hears comes from the catalog of
// the language in use, client/i18n/<tag>.json (plain data a translator works with, shared
// with the server, which words its errors and pushes from the same files). Only that
// catalog is fetched (its screens' texts; the reading pages' when one opens). The language: the one chosen on this device (Inicio, the Menú), else
// the first of `navigator.languages` there is a catalog of, else Spanish (es-DO). The tags
// there are catalogs of are listed in index.html (<meta name="languages">): a third language
// is a file and a word there, not a code change.

const KEY = "casino.idioma";
const DEFAULT = "es-DO";
const PLACEHOLDER = /\{(\w+)\}/g;

let current = DEFAULT;
/** @type {Record<string, any>} */
let catalog = {};
let rules = new Intl.PluralRules(DEFAULT);
let numbers = new Intl.NumberFormat(DEFAULT);

/** The tags there is a catalog of, the default first. @returns {string[]} */
export function languages() {
  const meta = document.querySelector('meta[name="languages"]');
  const tags = (meta?.getAttribute("content") || DEFAULT).split(/\s+/).filter(Boolean);
  return tags.length ? tags : [DEFAULT];
}

/** The tag of `tags` that serves `wanted` ("en-US" → "en", "es" → "es-DO"), or null. */
function match(wanted, tags) {
  if (typeof wanted !== "string" || !wanted) return null;
  const lower = wanted.toLowerCase();
  const base = lower.split("-")[0];
  return tags.find((t) => t.toLowerCase() === lower) ||
    tags.find((t) => t.toLowerCase().split("-")[0] === base) || null;
}

/** The language to speak: chosen on this device, else the browser's, else Spanish. */
export function chosenLanguage() {
  const tags = languages();
  let saved = null;
  try {
    saved = window.localStorage.getItem(KEY);
  } catch {
    saved = null;
  }
  const kept = match(saved, tags);
  if (kept) return kept;
  for (const wanted of navigator.languages || [navigator.language]) {
    const found = match(wanted, tags);
    if (found) return found;
  }
  return tags[0];
}

/** The language in use (a tag of `languages()`). */
export function language() {
  return current;
}

/** The language's own name ("English", "Español"), as a switch offers it. */
export function languageName(tag) {
  try {
    const name = new Intl.DisplayNames([tag], { type: "language" }).of(tag.split("-")[0]) || tag;
    return name.charAt(0).toLocaleUpperCase(tag) + name.slice(1);
  } catch {
    return tag;
  }
}

/** Fetches the catalog of `tag` and speaks it (<html lang> too); Spanish if it cannot be
 * had. */
export async function loadWords(tag = chosenLanguage()) {
  const early = /** @type {any} */ (window).casinoWords; // asked for by early.js
  if (early && early.lang === tag && early.data) {
    use(tag, early.data);
    return;
  }
  for (const lang of tag === DEFAULT ? [DEFAULT] : [tag, DEFAULT]) {
    try {
      const response = await fetch(`/static/i18n/${lang}.json`);
      if (!response.ok) continue;
      use(lang, await response.json());
      return;
    } catch {
      // offline with nothing kept: the next language, or the keys themselves
    }
  }
}

/** The address of the catalog in use (the service worker keeps it with the offline kit). */
export function wordsUrl() {
  return `/static/i18n/${current}.json`;
}

function readingUrl() {
  return `/static/i18n/reading/${current}.json`;
}

/** @type {Promise<boolean> | null} */
let reading = null;

/** Fetches the reading pages' words into the catalog, once (a failure: again next time). */
export function loadReading() {
  const url = readingUrl();
  reading ||= fetch(url).then((answer) => (answer.ok ? answer.json() : null)).then((data) => {
    if (!data || url !== readingUrl()) return false;
    catalog = { ...catalog, ...data };
    return true;
  }).catch(() => false).then((done) => {
    if (!done) reading = null;
    return done;
  });
  return reading;
}

/** Speaks `lang` with `data` (its catalog). */
export function use(lang, data) {
  current = lang;
  catalog = data;
  reading = null;
  rules = new Intl.PluralRules(lang);
  numbers = new Intl.NumberFormat(lang);
  document.documentElement.lang = lang;
}

/** Keeps `tag` on this device and opens the app again in it (a table comes back as it
 * was). */
export function switchLanguage(tag) {
  try {
    window.localStorage.setItem(KEY, tag);
  } catch {
    // no storage: this page only
  }
  window.location.reload();
}

/** A number as the language writes it. @param {number} n */
export function num(n) {
  return numbers.format(n);
}

/**
 * The text `key` of the catalog, its `{placeholders}` filled from `args` (numbers written
 * as the language writes them). A plural text (an object of Intl.PluralRules categories)
 * is chosen by `args.n`. A key the catalog lacks shows as itself (tests look for them).
 * @param {string} key @param {Record<string, any>} [args]
 */
export function t(key, args = {}) {
  let text = catalog[key];
  if (text === undefined) return key;
  if (typeof text === "object") text = text[rules.select(Number(args.n))] ?? text.other;
  return String(text).replace(PLACEHOLDER, (whole, name) => {
    if (!(name in args)) return whole;
    const value = args[name];
    return typeof value === "number" ? numbers.format(value) : String(value);
  });
}

/** Whether the catalog has `key` (a text that exists for some values only, such as the
 * article of a card's rank). @param {string} key */
export function has(key) {
  return key in catalog;
}

/**
 * The text `key` as pieces for a line of nodes: its placeholders filled with `args`, which
 * may be nodes (a card chip, a name in bold) or arrays of them; text between them as
 * strings. @param {string} key @param {Record<string, any>} [args]
 */
export function parts(key, args = {}) {
  const marked = {};
  for (const name of Object.keys(args)) marked[name] = `\u0000${name}\u0000`;
  const text = t(key, { ...args, ...marked });
  return text.split("\u0000").map((piece, i) => (i % 2 ? args[piece] : piece))
    .filter((piece) => piece !== "" && piece !== undefined);
}

/** An amount of time as the language says it: "25 segundos", "1 hour" (Intl.NumberFormat's
 * units). @param {number} n @param {"second"|"minute"|"hour"} unit */
export function duration(n, unit) {
  return new Intl.NumberFormat(current, { style: "unit", unit, unitDisplay: "long" }).format(n);
}

// the catalog early.js asked for: every module that imports this one waits for it
const early = /** @type {any} */ (typeof window === "object" ? window : {}).casinoWords;
if (early && early.ready) await early.ready;
if (early && early.data) use(early.lang, early.data);
