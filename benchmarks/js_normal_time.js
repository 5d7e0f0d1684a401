// Times the browser's Normal under Node (benchmarks/js_engine.py runs it): seeded matches of
// Normal against Fácil, each Normal decision timed from its seat's view (the legal moves
// listed, then choose). Prints one JSON line: the times in ms, and the positions decided.
//     node benchmarks/js_normal_time.js MATCHES

import { Rng, facil, normal } from "../client/js/ai/index.js";
import { Match } from "../client/js/engine/match.js";
import { legalMoves } from "../client/js/engine/moves.js";
import { viewFor } from "../client/js/engine/view.js";

const matches = Number(process.argv[2] ?? 20);
/** @type {number[]} */
const times = [];
/** @type {number[]} */
const cpu = [];
/** @type {unknown[]} */
const positions = [];
for (let k = 0; k < matches; k++) {
  let match = Match.new(`time-${k}`);
  const normalSeat = k % 2;
  let count = 0;
  while (!match.finished) {
    const position = match.position;
    const rng = new Rng(`${k}:${count++}`);
    const start = performance.now();
    const used = process.cpuUsage();
    const view = viewFor(position, position.turn);
    const moves = legalMoves(view.asPosition());
    const player = position.turn === normalSeat ? normal : facil;
    const move = player.choose(view, moves, rng);
    if (player === normal) {
      times.push(performance.now() - start);
      const { user, system } = process.cpuUsage(used);
      cpu.push((user + system) / 1000);
      positions.push(position.toJSON());
    }
    [match] = match.play(move);
  }
}
process.stdout.write(JSON.stringify({ times, cpu, positions }) + "\n");
