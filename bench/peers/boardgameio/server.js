'use strict';
// The bench's peer server: boardgame.io's own Server (Koa, its lobby API and its socket.io
// transport) with the liar's-dice game, on 127.0.0.1 only, storage in memory (boardgame.io's
// InMemory, its default without a database). It writes its port to the file named by
// its argument once it listens, and runs until it is stopped.

const fs = require('node:fs');
const { Server } = require('boardgame.io/server');
const { LiarsDice } = require('./game');

const portFile = process.argv[2];
if (!portFile) {
  console.error('usage: node server.js PORT_FILE');
  process.exit(2);
}

const server = Server({ games: [LiarsDice], origins: [] });
// boardgame.io's run() listens on every interface: the socket.io transport's listen
// passes its arguments on to Node's, so a host is given here.
const listen = server.app.listen;
server.app.listen = (port, callback) => listen.call(server.app, port, '127.0.0.1', callback);

server.run({ port: 0 }).then(({ appServer }) => {
  const written = `${portFile}.tmp`;
  fs.writeFileSync(written, String(appServer.address().port));
  fs.renameSync(written, portFile);
});
