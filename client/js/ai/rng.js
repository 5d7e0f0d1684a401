// A small seeded random number generator for the computer players: sfc32 (Chris Doty-Humphrey's
// "small fast counting" generator), its state drawn from the SHA-256 of the seed text. The
// same seed gives the same numbers on every device. It is not Python's Mersenne Twister: the
// browser's players draw other samples than the server's for the same seed.

import { sha256Words, utf8 } from "../engine/sha256.js";

export class Rng {
  /** @param {string} seed */
  constructor(seed) {
    const words = sha256Words(utf8(seed));
    this.a = words[0];
    this.b = words[1];
    this.c = words[2];
    this.d = words[3] | 1;
    for (let i = 0; i < 12; i++) this.uint32();
  }

  /** The next 32 random bits, as a number from 0 to 2³² − 1. */
  uint32() {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** A whole number from 0 to n − 1, every one as likely (n at most 2³²). @param {number} n */
  below(n) {
    if (!(n >= 1 && n <= 2 ** 32)) throw new RangeError(`below(${n})`);
    const limit = 2 ** 32 - (2 ** 32 % n); // reject the top values that would bias the result
    for (;;) {
      const x = this.uint32();
      if (x < limit) return x % n;
    }
  }

  /** A number in [0, 1). */
  random() {
    return this.uint32() / 2 ** 32;
  }

  /** @template T @param {readonly T[]} items @returns {T} */
  choice(items) {
    if (!items.length) throw new RangeError("choice from nothing");
    return items[this.below(items.length)];
  }

  /** `k` different whole numbers from 0 to n − 1, in the order drawn. @param {number} n @param {number} k */
  sample(n, k) {
    if (k > n) throw new RangeError(`sample(${n}, ${k})`);
    const pool = Array.from({ length: n }, (_, i) => i);
    for (let i = 0; i < k; i++) {
      const j = i + this.below(n - i);
      [pool[i], pool[j]] = [pool[j], pool[i]];
    }
    return pool.slice(0, k);
  }
}
