import { createServer, connect } from 'node:net';

/**
 * A loopback TCP port that was free a moment ago. nats-server's WebSocket listener does
 * not accept port 0, so the service picks ports itself; another process may still take
 * the port before nats-server binds it, which the caller handles by trying again.
 */
export function findFreeTcpPort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen({ host, port: 0, exclusive: true }, () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => (port > 0 ? resolve(port) : reject(new Error('The operating system gave no port.'))));
    });
  });
}

/** Resolves true when something accepts TCP connections on the port. */
export function acceptsTcpConnections(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => {
      socket.destroy();
      resolve(false);
    });
  });
}
