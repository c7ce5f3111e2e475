import net from 'node:net';

/** One client's connection through the proxy, and what it holds back while the proxy is frozen. */
interface Link {
  client: net.Socket;
  upstream: net.Socket | undefined;
  /** Bytes each way not yet forwarded (while frozen). */
  toServer: Buffer[];
  toClient: Buffer[];
  /** The server's answers on this connection are lost on the way (a reply path gone dead). */
  repliesLost: boolean;
}

/**
 * A loopback TCP proxy in front of a server, which a test can cut and restore:
 * the store "goes away" for the app under test without touching anyone else's
 * connections to the real server. It can also freeze: connections stay open and
 * new ones are accepted, but nothing is forwarded (a hung database, a network
 * black hole) until it thaws.
 */
export class TcpProxy {
  private server: net.Server;
  private links = new Set<Link>();
  private up = true;
  private frozen = false;
  port = 0;

  constructor(private readonly targetHost: string, private readonly targetPort: number) {
    this.server = net.createServer((client) => {
      if (!this.up) {
        client.destroy();
        return;
      }
      const link: Link = { client, upstream: undefined, toServer: [], toClient: [], repliesLost: false };
      this.links.add(link);
      client.on('error', () => client.destroy());
      client.on('close', () => {
        this.links.delete(link);
        link.upstream?.destroy();
      });
      client.on('data', (chunk: Buffer) => {
        if (this.frozen || !link.upstream) link.toServer.push(chunk);
        else link.upstream.write(chunk);
      });
      if (!this.frozen) this.connectUpstream(link);
    });
  }

  private connectUpstream(link: Link): void {
    const upstream = net.connect(this.targetPort, this.targetHost);
    link.upstream = upstream;
    upstream.on('error', () => upstream.destroy());
    upstream.on('close', () => link.client.destroy());
    upstream.on('data', (chunk: Buffer) => {
      if (link.repliesLost) return;
      if (this.frozen) link.toClient.push(chunk);
      else link.client.write(chunk);
    });
    for (const chunk of link.toServer.splice(0)) upstream.write(chunk);
  }

  async start(): Promise<number> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as net.AddressInfo).port;
    return this.port;
  }

  /** Drops every connection and refuses new ones, as a restarting database does. */
  cut(): void {
    this.up = false;
    for (const link of this.links) {
      link.client.destroy();
      link.upstream?.destroy();
    }
  }

  restore(): void {
    this.up = true;
  }

  /** Drops every connection and closes the port, so that connecting is refused, as with a stopped database, until reopen(). */
  async refuseConnections(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Listens again on the same port and forwards as before. */
  async reopen(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(this.port, '127.0.0.1', resolve));
    this.up = true;
  }

  /** Forwards nothing, either way, on any connection, old or new, until thaw(): the database hangs. */
  freeze(): void {
    this.frozen = true;
  }

  /** Forwards again what was held back, and everything after it. */
  thaw(): void {
    this.frozen = false;
    for (const link of this.links) {
      if (!link.upstream) this.connectUpstream(link);
      else for (const chunk of link.toServer.splice(0)) link.upstream.write(chunk);
      for (const chunk of link.toClient.splice(0)) link.client.write(chunk);
    }
  }

  /** The answers on the connections open now are lost from here on (new connections work): what a commit sent into a dying link sees. */
  loseRepliesOfOpenConnections(): void {
    for (const link of this.links) link.repliesLost = true;
  }

  async stop(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** A proxy started in front of the PostgreSQL database at `url`, and the URL that reaches the database through it. */
export async function proxyInFront(url: string): Promise<{ proxy: TcpProxy; url: string }> {
  const direct = new URL(url);
  const proxy = new TcpProxy(direct.hostname, Number(direct.port || 5432));
  const viaProxy = new URL(url);
  viaProxy.port = String(await proxy.start());
  return { proxy, url: viaProxy.toString() };
}
