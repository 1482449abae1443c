'use strict';
// Drives the peer server (server.js) as the bench's SubmitAction part drives tavola's
// gateway (bench/gateway.py): CLIENTS clients, each playing matches of 3 players whose
// every seat it holds, a move as soon as the last one is answered; only the move is
// timed. A seat is a socket.io connection of its own speaking boardgame.io's protocol
// (seats.js); the server answers each move by sending every seat of the match the new
// state through the game's playerView.
//
// The matches are made (lobby API: create, join each seat) and their seats connected and
// synced before the clock starts, as tavola's tables are; a client that finishes its
// matches makes another inside the window. Bounded in time (SECONDS) and count (LIMIT
// moves a client), against 127.0.0.1 only.
//
// Protocol with the bench: one JSON line {"ready": ...} once set up, then it waits for a
// line on stdin to start the clock; one JSON line of figures at the end; then it closes
// its connections and exits.

const { parseArgs } = require('node:util');
const readline = require('node:readline');
const { performance } = require('node:perf_hooks');
const { FACES, diceInPlay } = require('./game');
const { newMatch: seatedMatch } = require('./seats');

const { values: options } = parseArgs({
  options: {
    port: { type: 'string' },
    clients: { type: 'string', default: '16' },
    seconds: { type: 'string', default: '2' },
    limit: { type: 'string', default: '20000' },
    players: { type: 'string', default: '3' },
    'move-timeout': { type: 'string', default: '10' },
  },
});
const BASE = `http://127.0.0.1:${Number(options.port)}`;
const CLIENTS = Number(options.clients);
const SECONDS = Number(options.seconds);
const LIMIT = Number(options.limit);
const PLAYERS = Number(options.players);
const MOVE_TIMEOUT_MS = Number(options['move-timeout']) * 1000;
// Fewer moves than a match of these random moves lasts (52 on average, 33 at least, over
// 200 matches), as tavola's part counts 25 for Borgia: the matches to make first.
const MOVES_PER_MATCH = 25;
const CALL_CHANCE = 0.3;

const opened = [];

async function newMatch() {
  const match = await seatedMatch(BASE, PLAYERS, MOVE_TIMEOUT_MS);
  opened.push(...match.seats);
  return match;
}

// A small seeded generator (mulberry32): each client's moves are the same run to run.
function generator(seed) {
  let value = seed >>> 0;
  return () => {
    value = (value + 0x6d2b79f5) >>> 0;
    let mixed = Math.imul(value ^ (value >>> 15), 1 | value);
    mixed = (mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed)) ^ mixed;
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  };
}

// A random legal move from the view of the seat that must move: a call now and then
// (always when no bid stands above the current one), else a bid a little above it.
function chooseMove(view, random) {
  const standing = view.G.bid;
  const total = diceInPlay(view.G);
  const top = standing !== null && standing.quantity >= total && standing.face === FACES;
  if (standing !== null && (top || random() < CALL_CHANCE)) return { type: 'call', args: [] };
  const floor = standing === null ? 1 : standing.quantity;
  for (;;) {
    const quantity = Math.min(total, floor + Math.floor(random() * 3));
    const face = 1 + Math.floor(random() * FACES);
    if (standing === null || quantity > standing.quantity || face > standing.face) return { type: 'bid', args: [quantity, face] };
  }
}

async function client(index, matches, deadline, figures) {
  const random = generator(index + 1);
  let match = null;
  let moves = 0;
  while (performance.now() < deadline && moves < LIMIT) {
    if (match === null || match.state.ctx.gameover !== undefined) {
      if (match !== null) figures.finished += 1;
      match = matches.pop() || (await newMatch());
      continue;
    }
    try {
      const playerID = match.state.ctx.currentPlayer;
      const seat = match.seats[Number(playerID)];
      const view = await seat.atLeast(match.state._stateID);
      const { type, args } = chooseMove(view, random);
      const started = performance.now();
      seat.move(type, args, view._stateID);
      match.state = await seat.atLeast(view._stateID + 1);
      figures.latencies.push(performance.now() - started);
      moves += 1;
    } catch (error) {
      figures.errors.push(String(error.message || error));
      match = null;
    }
  }
}

// How many matches each client needs for the window, from one client's pace.
async function matchesEach() {
  const warm = { latencies: [], errors: [], finished: 0 };
  const began = performance.now();
  await client(CLIENTS + 1, [await newMatch()], began + 500, warm);
  const rate = warm.latencies.length / Math.max((performance.now() - began) / 1000, 1e-3);
  // The clients share the machine's cores: their rate grows less than their number.
  const expected = rate * Math.min(CLIENTS, 4) * SECONDS * 1.25;
  return Math.max(2, Math.min(Math.ceil(expected / MOVES_PER_MATCH / CLIENTS), Math.ceil(LIMIT / MOVES_PER_MATCH)));
}

function percentile(sorted, fraction) {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] : 0;
}

async function main() {
  const each = await matchesEach();
  const matches = [];
  for (let index = 0; index < CLIENTS; index++) {
    const own = [];
    for (let made = 0; made < each; made++) own.push(await newMatch());
    matches.push(own);
  }
  process.stdout.write(`${JSON.stringify({ ready: { matches: each * CLIENTS, seats: opened.length } })}\n`);
  await new Promise((resolve) => readline.createInterface({ input: process.stdin }).once('line', resolve));

  const figures = { latencies: [], errors: [], finished: 0 };
  const started = performance.now();
  await Promise.all(matches.map((own, index) => client(index, own, started + SECONDS * 1000, figures)));
  const seconds = (performance.now() - started) / 1000;
  const sorted = figures.latencies.slice().sort((a, b) => a - b);
  const result = {
    clients: CLIENTS,
    moves: sorted.length,
    seconds,
    p50_ms: percentile(sorted, 0.5),
    p99_ms: percentile(sorted, 0.99),
    latencies_ms: sorted.map((value) => Math.round(value * 1000) / 1000),
    finished: figures.finished,
    errors: figures.errors.slice(0, 10),
    error_count: figures.errors.length,
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
  opened.forEach((seat) => seat.close());
  process.exit(0);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
