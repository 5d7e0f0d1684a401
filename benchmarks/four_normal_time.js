// The browser's Normal on four-player positions under Node (benchmarks/four.py runs it): reads
// one JSON line {positions: [P, ...]} and times each decision from the seat's view (the legal
// moves listed, then choose), CPU and wall. Prints one JSON line: {cpu: [ms], wall: [ms]}.
//     node benchmarks/four_normal_time.js < positions.json

import { readFileSync } from "node:fs";

import { Rng, normal } from "../client/js/ai/index.js";
import { legalMoves } from "../client/js/engine/moves.js";
import { Position } from "../client/js/engine/position.js";
import { viewFor } from "../client/js/engine/view.js";

const { positions } = JSON.parse(readFileSync(0, "utf-8"));
/** @type {number[]} */
const cpu = [];
/** @type {number[]} */
const wall = [];
/** @param {unknown} raw @param {number} n */
function decide(raw, n) {
  const position = Position.fromJSON(raw);
  const view = viewFor(position, position.turn);
  normal.choose(view, legalMoves(view.asPosition()), new Rng(`normal:${n}`));
}
positions.slice(0, 20).forEach(decide); // warm up: compiled before timing
positions.forEach((/** @type {unknown} */ raw, /** @type {number} */ n) => {
  const start = performance.now();
  const used = process.cpuUsage();
  decide(raw, n);
  wall.push(performance.now() - start);
  const { user, system } = process.cpuUsage(used);
  cpu.push((user + system) / 1000);
});
process.stdout.write(JSON.stringify({ cpu, wall }) + "\n");
