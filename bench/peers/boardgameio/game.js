'use strict';
// A liar's-dice game for boardgame.io: the bench's peer for tavola's hidden-information
// games (bench/peer.py). Each player holds dice only they see; on their turn a player
// bids ("at least QUANTITY dice show FACE, all hands together") above the standing bid,
// or calls it. A call shows every hand: if the bid holds, the caller loses a die, else
// the bidder does; then every hand is rolled again and the loser opens the next round
// (or, when out of dice, the next player still in). The last player with dice wins.

const { INVALID_MOVE } = require('boardgame.io/core');

const DICE_EACH = 5;
const FACES = 6;

function rollHand(random, count) {
  return Array.from({ length: count }, () => random.Die(FACES));
}

function diceInPlay(G) {
  return Object.values(G.counts).reduce((sum, count) => sum + count, 0);
}

// A bid stands above another when it names more dice, or as many of a higher face.
function isHigher(bid, standing) {
  if (standing === null) return true;
  return bid.quantity > standing.quantity || (bid.quantity === standing.quantity && bid.face > standing.face);
}

function isValidBid(G, quantity, face) {
  return (
    Number.isInteger(quantity) &&
    Number.isInteger(face) &&
    quantity >= 1 &&
    quantity <= diceInPlay(G) &&
    face >= 1 &&
    face <= FACES &&
    isHigher({ quantity, face }, G.bid)
  );
}

// The next player still holding dice after `playerID`, in the seating order.
function nextInPlay(G, playOrder, playerID) {
  const start = playOrder.indexOf(playerID);
  for (let step = 1; step <= playOrder.length; step++) {
    const candidate = playOrder[(start + step) % playOrder.length];
    if (G.counts[candidate] > 0) return candidate;
  }
  return playerID;
}

function bid({ G, ctx, playerID }, quantity, face) {
  if (!isValidBid(G, quantity, face)) return INVALID_MOVE;
  G.bid = { quantity, face, by: playerID };
  G.next = nextInPlay(G, ctx.playOrder, playerID);
}

function call({ G, ctx, playerID, random }) {
  if (G.bid === null) return INVALID_MOVE;
  const { quantity, face, by } = G.bid;
  const shown = Object.values(G.dice)
    .flat()
    .filter((value) => value === face).length;
  const loser = shown >= quantity ? playerID : by;
  G.counts[loser] -= 1;
  G.lastCall = { bid: G.bid, caller: playerID, loser, shown, hands: G.dice };
  G.dice = Object.fromEntries(ctx.playOrder.map((id) => [id, rollHand(random, G.counts[id])]));
  G.bid = null;
  G.round += 1;
  G.next = G.counts[loser] > 0 ? loser : nextInPlay(G, ctx.playOrder, loser);
}

const LiarsDice = {
  name: 'liars-dice',
  minPlayers: 2,
  maxPlayers: 6,

  setup: ({ ctx, random }) => ({
    dice: Object.fromEntries(ctx.playOrder.map((id) => [id, rollHand(random, DICE_EACH)])),
    counts: Object.fromEntries(ctx.playOrder.map((id) => [id, DICE_EACH])),
    bid: null,
    lastCall: null,
    round: 1,
    next: ctx.playOrder[0],
  }),

  moves: { bid, call },

  // One move a turn; the moves name who plays next.
  turn: {
    minMoves: 1,
    maxMoves: 1,
    order: {
      first: ({ G, ctx }) => ctx.playOrder.indexOf(G.next),
      next: ({ G, ctx }) => ctx.playOrder.indexOf(G.next),
    },
  },

  endIf: ({ G, ctx }) => {
    const inPlay = ctx.playOrder.filter((id) => G.counts[id] > 0);
    if (inPlay.length === 1) return { winner: inPlay[0] };
  },

  // A player sees their own hand only; a spectator (playerID null) no hand. Hands shown
  // by the last call (lastCall.hands) are public: a call shows them to everyone.
  playerView: ({ G, playerID }) => ({
    ...G,
    dice: Object.fromEntries(Object.entries(G.dice).map(([id, hand]) => [id, id === playerID ? hand : null])),
  }),
};

module.exports = { LiarsDice, FACES, DICE_EACH, diceInPlay, isValidBid };
