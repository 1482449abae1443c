// A tavola client in Node.js, from the proto files alone: it creates a table with bots,
// plays seat 0 to the end over a seat session (SessionService.Play: its actions in, its
// events and new view pushed after every move) by choosing among the legal actions the
// gateway lists, and watches the same table as a spectator. It knows no game: actions travel as the Any
// values the gateway sent.
//
//   npm ci && node client.js --gateway 127.0.0.1:50051 --game borgia --players 2
//   node client.js --chat "good luck"   # also: a player takes the seat, watches the
//                                       # players' channel (ChatService.WatchChat) and says so
//
// Prints one JSON line: the table, the decisions made, the events seen, the outcome; and on
// stderr the spectators' history in words, each event's text as the gateway sends it (the
// game's own words, the same in every client).

"use strict";

const path = require("path");
const crypto = require("crypto");
const grpc = require("@grpc/grpc-js");
const protoLoader = require("@grpc/proto-loader");

const PROTO_ROOT = path.resolve(__dirname, "..", "..", "proto");

function parseArgs(argv) {
  const args = {
    gateway: process.env.TAVOLA_GATEWAY || `127.0.0.1:${process.env.TAVOLA_PORT || 50051}`,
    game: "borgia",
    players: 2,
    bot: "random",
    seed: null,
    options: {},
    chat: null,
  };
  for (let i = 0; i < argv.length; i += 2) {
    const [key, value] = [argv[i].replace(/^--/, ""), argv[i + 1]];
    if (value === undefined) throw new Error(`--${key} needs a value`);
    if (key === "option") {
      const [name, ...rest] = value.split("=");
      args.options[name] = rest.join("=");
    } else if (key === "players" || key === "seed") {
      args[key] = Number(value);
    } else if (key in args) {
      args[key] = value;
    } else {
      throw new Error(`unknown option --${key}`);
    }
  }
  return args;
}

function loadProtos() {
  const files = ["gateway.proto", "players.proto", "chat.proto", "sessions.proto"].map((name) =>
    path.join(PROTO_ROOT, "tavola/gateway/v1", name),
  );
  const definition = protoLoader.loadSync(files, {
    includeDirs: [PROTO_ROOT],
    keepCase: true,
    longs: Number,
    enums: String,
    defaults: true,
    oneofs: true,
  });
  return grpc.loadPackageDefinition(definition).tavola.gateway.v1;
}

// Unary calls as promises.
function call(client, method, request, metadata) {
  return new Promise((resolve, reject) => {
    const done = (error, reply) => (error ? reject(error) : resolve(reply));
    if (metadata) client[method](request, metadata, { deadline: Date.now() + 10000 }, done);
    else client[method](request, { deadline: Date.now() + 10000 }, done);
  });
}

// The spectator stream, read to its end (the gateway ends it after the game's last event).
// Batched: each message carries every event the gateway had for the stream (a command's
// events arrive together, in one message).
function spectate(client, tableId) {
  return new Promise((resolve, reject) => {
    const seen = { events: 0, messages: 0, lastSeq: 0, finished: null, texts: 0, ending: "" };
    const stream = client.SpectateTable({ table_id: tableId, after_seq: 0, batched: true });
    stream.on("data", (message) => {
      seen.messages += 1;
      for (const event of message.events.length ? message.events : [message.event]) {
        seen.events += 1;
        seen.lastSeq = event.seq;
        if (event.text) {
          seen.texts += 1;
          process.stderr.write(`${event.text}\n`);
          if (event.body === "game_event") seen.ending = event.text; // the last: who won and why
        }
        if (event.body === "game_finished") seen.finished = event.game_finished.outcome;
      }
    });
    stream.on("error", reject);
    stream.on("end", () => resolve(seen));
  });
}

// The players' channel of the table, as a player reads it: each message is written as
// text (here to stderr; a page would set textContent, never innerHTML). Resolves with the
// first message seen, once the stream is open and has one.
function watchChat(chat, tableId, metadata) {
  const stream = chat.WatchChat({ table_id: tableId, channel: "CHAT_CHANNEL_PLAYERS" }, metadata);
  const first = new Promise((resolve, reject) => {
    stream.on("data", (response) => {
      for (const message of response.messages) {
        process.stderr.write(`chat: ${message.display_name}: ${JSON.stringify(message.text)}\n`);
        resolve(message);
      }
    });
    stream.on("error", (error) => (error.code === grpc.status.CANCELLED ? null : reject(error)));
  });
  return { stream, first };
}


async function main() {
  const args = parseArgs(process.argv.slice(2));
  const gateway = loadProtos();
  // round_robin: a target naming several gateways (ipv4:host:p1,host:p2, or dns:/// of a
  // headless Service) spreads calls over all of them; pick_first, the default, loads one.
  const client = new gateway.GatewayService(args.gateway, grpc.credentials.createInsecure(), {
    'grpc.service_config': JSON.stringify({ loadBalancingConfig: [{ round_robin: {} }] }),
  });

  const bots = [];
  for (let seat = 1; seat < args.players; seat += 1) bots.push({ seat, bot: args.bot });
  const request = { game_id: args.game, player_count: args.players, options: args.options, bot_seats: bots };
  if (args.seed !== null) request.seed = args.seed;
  const created = await call(client, "CreateTable", request);
  const tableId = created.table.table_id;
  const watching = spectate(client, tableId);

  // With --chat, a player (chat needs one) takes the seat, and says args.chat at the table.
  let chatSeen = null;
  const seatedBy = new grpc.Metadata();
  let chatClient = null;
  if (args.chat !== null) {
    const players = new gateway.PlayerService(args.gateway, grpc.credentials.createInsecure());
    const name = `node ${crypto.randomBytes(4).toString("hex")}`;
    const player = await call(players, "CreatePlayer", { display_name: name });
    players.close();
    seatedBy.set("authorization", `Bearer ${player.player_token}`);
    chatClient = new gateway.ChatService(args.gateway, grpc.credentials.createInsecure());
  }
  const taken = await call(client, "TakeSeat", { table_id: tableId, seat: 0, display_name: "node" }, seatedBy);
  const metadata = new grpc.Metadata();
  metadata.set("authorization", `Bearer ${taken.seat_token}`);
  if (chatClient !== null) {
    const watched = watchChat(chatClient, tableId, seatedBy);
    await call(chatClient, "SendChat", { table_id: tableId, channel: "CHAT_CHANNEL_PLAYERS", text: args.chat }, seatedBy);
    chatSeen = (await watched.first).text;
    watched.stream.cancel();
    chatClient.close();
  }
  await call(client, "StartTable", { table_id: tableId }, metadata);

  const sessions = new gateway.SessionService(args.gateway, grpc.credentials.createInsecure());
  const played = await play(sessions, tableId, metadata);
  const view = played.view;
  const seen = await watching;
  const result = {
    table_id: tableId,
    game: args.game,
    seat: taken.seat,
    view_type: view.view.type_url,
    decisions: played.decisions,
    rejected: played.rejected,
    updates: played.updates,
    spectator_events: seen.events,
    spectator_messages: seen.messages,
    spectator_saw_the_end: seen.finished !== null,
    spectator_texts: seen.texts,
    ending: seen.ending,
    outcome: view.table.outcome,
    chat_seen: chatSeen,
  };
  console.log(JSON.stringify(result));
  sessions.close();
  client.close();
}

// The seat's session, to the game's end: each update carries the seat's new view, so the
// client answers a view that must decide with an action on the same stream (no GetView).
// A refused action (the table moved on first) is answered with an error on the stream,
// which goes on: the client chooses again from the newest view. The gateway ends the
// stream (OK) after the game's last event.
function play(sessions, tableId, metadata) {
  return new Promise((resolve, reject) => {
    const stream = sessions.Play(metadata);
    const seen = { view: null, decisions: 0, rejected: 0, updates: 0 };
    let pending = 0;
    let nextId = 1;
    const act = () => {
      const view = seen.view;
      if (pending || !view || !view.must_decide || view.table.status !== "TABLE_STATUS_IN_PROGRESS") return;
      const choice = view.legal_actions[crypto.randomInt(view.legal_actions.length)];
      pending = nextId++;
      stream.write({
        action: { id: pending, action: choice.action, expected_version: view.table.version, request_id: crypto.randomUUID() },
      });
    };
    stream.on("data", (update) => {
      seen.updates += 1;
      if (update.view) seen.view = update.view;
      if (pending && update.answers === pending) {
        pending = 0;
        if (update.error && update.error.length) seen.rejected += 1;
        else seen.decisions += 1;
        if (seen.rejected > 100) reject(new Error("the gateway refused 100 actions"));
      }
      act();
    });
    stream.on("error", reject);
    stream.on("end", () => {
      stream.end();
      resolve(seen);
    });
    stream.write({ open: { table_id: tableId, after_seq: 0 } });
  });
}

main().catch((error) => {
  const where = error.code === grpc.status.UNAVAILABLE ? " (is a gateway running? make run)" : "";
  console.error(`tavola node client: ${error.details || error.message}${where}`);
  process.exit(1);
});
