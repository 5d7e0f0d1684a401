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
 * machine-readable reason, `message` a short Spanish explanation a player can read.
 */
export class IllegalMove extends EngineError {
  /**
   * @param {string} code
   * @param {string} message
   */
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}
