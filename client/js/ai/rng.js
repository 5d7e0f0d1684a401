// A small seeded random number generator for the computer players: sfc32 (Chris Doty-Humphrey's
// "small fast counting" generator), its 128 bits of state drawn from the seed text by cyrb128
// (bryc's public-domain string hash). The same seed gives the same numbers on every device.
// It is not Python's Mersenne Twister: the browser's players draw other samples than the
// server's for the same seed.

/** Four 32-bit words from a string (cyrb128). @param {string} text */
function cyrb128(text) {
  let h1 = 1779033703;
  let h2 = 3144134277;
  let h3 = 1013904242;
  let h4 = 2773480762;
  for (let i = 0; i < text.length; i++) {
    const k = text.charCodeAt(i);
    h1 = h2 ^ Math.imul(h1 ^ k, 597399067);
    h2 = h3 ^ Math.imul(h2 ^ k, 2869860233);
    h3 = h4 ^ Math.imul(h3 ^ k, 951274213);
    h4 = h1 ^ Math.imul(h4 ^ k, 2716044179);
  }
  h1 = Math.imul(h3 ^ (h1 >>> 18), 597399067);
  h2 = Math.imul(h4 ^ (h2 >>> 22), 2869860233);
  h3 = Math.imul(h1 ^ (h3 >>> 17), 951274213);
  h4 = Math.imul(h2 ^ (h4 >>> 19), 2716044179);
  h1 ^= h2 ^ h3 ^ h4;
  h2 ^= h1;
  h3 ^= h1;
  h4 ^= h1;
  return [h1 >>> 0, h2 >>> 0, h3 >>> 0, h4 >>> 0];
}

export class Rng {
  /** @param {string} seed */
  constructor(seed) {
    const words = cyrb128(seed);
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

  /**
   * `k` different whole numbers from 0 to n − 1, in the order drawn (every ordered choice as
   * likely): each drawn anew until it is not one already drawn.
   * @param {number} n @param {number} k
   */
  sample(n, k) {
    if (k > n) throw new RangeError(`sample(${n}, ${k})`);
    /** @type {number[]} */
    const out = [];
    while (out.length < k) {
      const i = this.below(n);
      if (!out.includes(i)) out.push(i);
    }
    return out;
  }
}
