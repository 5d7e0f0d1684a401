// The rules oracle's loop (NOTATION.md): one JSON request per line on standard input, one
// JSON answer per line on standard output, until the end of input; as `python -m
// server.engine` reads and writes them (lines end at "\n" only; bytes that are not UTF-8
// become U+FFFD; a line of whitespace gets no answer; the answer to bad input is an error).

import { answer } from "../../client/js/play/requests.js";
import { dumps, isBlank, loads } from "./pyjson.js";

/** The answer line to one request line (its "\n" included, as Python reads it). @param {string} line */
export function answerLine(line) {
  /** @type {Record<string, unknown>} */
  let reply;
  try {
    reply = answer(loads(line));
  } catch (exc) {
    const error = exc instanceof Error ? exc : new Error(String(exc));
    reply = { error: `not JSON: ${error.message}` };
  }
  return dumps(reply) + "\n";
}

/** Serves standard input until its end. */
export function serve() {
  const decoder = new TextDecoder("utf-8", { ignoreBOM: true });
  let pending = "";
  /** @param {string} line */
  const handle = (line) => {
    if (!isBlank(line)) process.stdout.write(answerLine(line));
  };
  process.stdin.on("data", (chunk) => {
    pending += decoder.decode(chunk, { stream: true });
    let end;
    while ((end = pending.indexOf("\n")) >= 0) {
      handle(pending.slice(0, end + 1));
      pending = pending.slice(end + 1);
    }
  });
  process.stdin.on("end", () => {
    pending += decoder.decode();
    if (pending) handle(pending);
  });
}
