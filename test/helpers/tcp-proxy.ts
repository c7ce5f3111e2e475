import net from 'node:net';

/**
 * A loopback TCP proxy in front of a server, which a test can cut and restore:
 * the store "goes away" for the app under test without touching anyone else's
 * connections to the real server.
 */
export class TcpProxy {
  private server: net.Server;
  private sockets = new Set<net.Socket>();
  private up = true;
  port = 0;

  constructor(private readonly targetHost: string, private readonly targetPort: number) {
    this.server = net.createServer((client) => {
      if (!this.up) {
        client.destroy();
        return;
      }
      const upstream = net.connect(this.targetPort, this.targetHost);
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => s.destroy());
      }
      client.pipe(upstream).pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
  }

  async start(): Promise<number> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as net.AddressInfo).port;
    return this.port;
  }

  /** Drops every connection and refuses new ones, as a restarting database does. */
  cut(): void {
    this.up = false;
    for (const s of this.sockets) s.destroy();
  }

  restore(): void {
    this.up = true;
  }

  async stop(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
