'use strict';
// Plays a few scripted moves on the peer server (server.js) and prints, as one JSON line,
// every state each seat and a spectator were sent, for the bench's tests to check the
// game's rules and what each seat sees (tests/test_bench_peer.py). 127.0.0.1 only.
//
// The script: player 0 bids 1 two; player 1 bids below it (refused); player 2 moves out
// of turn (refused); player 1 moves with player 0's identity (refused); player 1 calls.

const { parseArgs } = require('node:util');
const { newMatch, Seat } = require('./seats');

const { values: options } = parseArgs({ options: { port: { type: 'string' } } });
const BASE = `http://127.0.0.1:${Number(options.port)}`;
const PLAYERS = 3;
const TIMEOUT_MS = 10_000;
// A refused move gets no answer, or the same state again: how long to wait for either.
const SETTLE_MS = 300;

const settle = () => new Promise((resolve) => setTimeout(resolve, SETTLE_MS));

async function main() {
  const { matchID, seats } = await newMatch(BASE, PLAYERS, TIMEOUT_MS);
  const spectator = new Seat({ base: BASE, matchID, playerID: null, players: PLAYERS, timeoutMs: TIMEOUT_MS });
  const everyone = [...seats, spectator];
  everyone.forEach((seat) => {
    seat.keep = true;
    if (seat.state !== null) seat.received.push({ state: seat.state, log: [] });
  });
  await spectator.open();
  const [zero, one, two] = seats;

  zero.move('bid', [1, 2], 0);
  await Promise.all(everyone.map((seat) => seat.atLeast(1)));
  one.move('bid', [1, 1], 1);
  await settle();
  two.move('bid', [3, 3], 1);
  await settle();
  one.move('bid', [2, 2], 1, '0');
  await settle();
  const refusedAt = Math.max(...everyone.map((seat) => seat.state._stateID));
  one.move('call', [], 1);
  await Promise.all(everyone.map((seat) => seat.atLeast(2)));
  await settle();

  const views = Object.fromEntries(everyone.map((seat) => [seat.playerID ?? 'spectator', seat.received]));
  process.stdout.write(`${JSON.stringify({ matchID, refusedAt, views })}\n`);
  everyone.forEach((seat) => seat.close());
  process.exit(0);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
