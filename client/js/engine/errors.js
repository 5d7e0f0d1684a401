// The engine's typed errors (server/engine/errors.py).

/** Base of every error the engine raises on bad input. */
export class EngineError extends Error {
  /** @param {string} message */
  constructor(message) {
    super(message);
    this.name = new.target.name;
  }
}

/** Text or JSON that is not a card, position or move of NOTATION.md. */
export class NotationError extends EngineError {}

/** A malformed move: it cannot be read as a move at all. */
export class InvalidMove extends NotationError {}

/**
 * A well-formed move that the rules do not allow in this position: `code` is a stable
 * machine-readable reason and `args` its arguments (`{card: "10d"}`, `{value: 8}`,
 * `{items: ["5h", 5]}`: a card as its NOTATION code, a pile as its value), which the
 * catalogs word (`reason.<code>`, ui/reasons.js) in the player's language; the server's
 * engine gives the same code and arguments for the same refusal. `message` is a short
 * Spanish explanation for developers (the rules oracle's answer, NOTATION.md).
 */
export class IllegalMove extends EngineError {
  /**
   * @param {string} code
   * @param {string} message
   * @param {Record<string, unknown>} [args]
   */
  constructor(code, message, args = {}) {
    super(message);
    this.code = code;
    this.args = args;
  }
}
