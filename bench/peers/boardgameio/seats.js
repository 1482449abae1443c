'use strict';
// A match's seats as boardgame.io's SocketIO transport holds them: each seat a socket.io
// connection of its own, which sends 'sync' (match, player, credentials) once connected
// and then 'update' (the move, the state id it was made on, match, player); the server
// sends each seat the match's state through the game's playerView ('sync', 'update').
// Used by the driver (driver.js) and by the rules probe (probe.js).

const { io } = require('socket.io-client');
const { LiarsDice } = require('./game');

async function post(base, path, body) {
  const response = await fetch(base + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`POST ${path}: ${response.status} ${await response.text()}`);
  return response.json();
}

// One player's connection to one match (playerID null: a spectator): the latest state it
// was sent, its own view.
class Seat {
  constructor({ base, matchID, playerID, credentials, players, timeoutMs }) {
    Object.assign(this, { base, matchID, playerID, credentials, players, timeoutMs });
    this.state = null;
    this.waiting = [];
    this.received = []; // every state this seat was sent, in order (the probe reads them)
    this.keep = false;
  }

  open() {
    this.socket = io(`${this.base}/${LiarsDice.name}`, { transports: ['websocket'], reconnection: false });
    this.socket.on('sync', (matchID, syncInfo) => this.receive(syncInfo.state, syncInfo.log));
    this.socket.on('update', (matchID, state, deltalog) => this.receive(state, deltalog));
    this.socket.on('connect', () =>
      this.socket.emit('sync', this.matchID, this.playerID, this.credentials, this.players)
    );
    return this.atLeast(0);
  }

  receive(state, log) {
    if (this.keep) this.received.push({ state, log });
    if (this.state !== null && state._stateID <= this.state._stateID) return;
    this.state = state;
    const ready = this.waiting.filter((waiter) => waiter.stateID <= state._stateID);
    this.waiting = this.waiting.filter((waiter) => waiter.stateID > state._stateID);
    for (const waiter of ready) {
      clearTimeout(waiter.timer);
      waiter.resolve(state);
    }
  }

  // This seat's view once it is at `stateID` or later.
  atLeast(stateID) {
    if (this.state !== null && this.state._stateID >= stateID) return Promise.resolve(this.state);
    return new Promise((resolve, reject) => {
      const waiter = { stateID, resolve };
      waiter.timer = setTimeout(() => {
        this.waiting = this.waiting.filter((other) => other !== waiter);
        reject(new Error(`no state ${stateID} for seat ${this.playerID} of ${this.matchID} in time`));
      }, this.timeoutMs);
      this.waiting.push(waiter);
    });
  }

  // A move as boardgame.io's client sends it, with this seat's credentials.
  move(type, args, stateID, playerID = this.playerID) {
    const action = { type: 'MAKE_MOVE', payload: { type, args, playerID, credentials: this.credentials } };
    this.socket.emit('update', action, stateID, this.matchID, playerID);
  }

  close() {
    if (this.socket) this.socket.close();
  }
}

// A new match of `players` (lobby API: create, then join every seat), each seat connected
// and synced.
async function newMatch(base, players, timeoutMs) {
  const { matchID } = await post(base, `/games/${LiarsDice.name}/create`, { numPlayers: players });
  const seats = [];
  for (let player = 0; player < players; player++) {
    const playerID = String(player);
    const joined = await post(base, `/games/${LiarsDice.name}/${matchID}/join`, {
      playerID,
      playerName: `bench ${player}`,
    });
    seats.push(new Seat({ base, matchID, playerID, credentials: joined.playerCredentials, players, timeoutMs }));
  }
  await Promise.all(seats.map((seat) => seat.open()));
  return { matchID, seats, state: seats[0].state };
}

module.exports = { Seat, newMatch, post };
