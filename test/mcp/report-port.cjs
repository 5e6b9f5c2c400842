// Preloaded (`node --require`) into a server that takes its port from PORT and cannot report the
// one the OS gave it for PORT=0: each listening TCP server writes its port to stderr, so a test binds
// port 0 instead of a port found free a moment earlier that another process may take first.
const net = require('node:net');

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  this.once('listening', () => {
    const address = this.address();
    if (address && typeof address === 'object')
      process.stderr.write(`scout-test: listening on port ${address.port}\n`);
  });
  return listen.apply(this, args);
};
