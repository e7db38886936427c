import { createServer, connect, type Socket } from 'node:net';

export interface CuttingProxy {
  /** `http://127.0.0.1:<port>`: the proxied service. */
  url: string;
  /** Connections cut so far. */
  cuts(): number;
  /** Cuts the next connection whose answer carries the marker (one is armed at the start). */
  arm(): void;
  close(): Promise<void>;
}

/**
 * A TCP proxy in front of an HTTP service that drops the first connection whose answer carries
 * `marker` (a chunk type, say), right after forwarding the answer up to the marker's end: the
 * client sees its stream break mid-turn, as when a network path goes away, even when the
 * service wrote the whole turn at once. Later connections pass untouched until
 * `arm()` is called again.
 */
export async function startCuttingProxy(target: string, marker: string): Promise<CuttingProxy> {
  const { hostname, port } = new URL(target);
  const sockets = new Set<Socket>();
  let cut = 0;
  let armed = true;
  const server = createServer((client) => {
    const upstream = connect(Number(port), hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => undefined);
    }
    client.on('data', (bytes) => upstream.write(bytes));
    client.on('end', () => upstream.end());
    // The last bytes of the answer so far, as latin1 (one character per byte), to find a
    // marker split over two reads.
    let tail = '';
    let cutHere = false;
    upstream.on('data', (bytes: Buffer) => {
      if (cutHere) return;
      if (!armed) {
        client.write(bytes);
        return;
      }
      const text = tail + bytes.toString('latin1');
      const at = text.indexOf(marker);
      if (at === -1) {
        client.write(bytes);
        tail = text.slice(-marker.length);
        return;
      }
      // Up to the marker's end and not a byte more, however much the service sent in one write.
      armed = false;
      cutHere = true;
      cut += 1;
      client.write(bytes.subarray(0, Math.max(0, at + marker.length - tail.length)), () => {
        client.destroy();
        upstream.destroy();
      });
    });
    upstream.on('end', () => client.end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${address.port}`,
    cuts: () => cut,
    arm: () => {
      armed = true;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
