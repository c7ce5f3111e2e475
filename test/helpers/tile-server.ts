import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { ROOT } from './cli.js';

/** A loopback tile server answering every `/{z}/{x}/{y}.png` with the fixture tile, counting what it served. */
export interface TileServer {
  template: string;
  origin: string;
  served(): number;
  close(): Promise<void>;
}

const TILE = fs.readFileSync(path.join(ROOT, 'test', 'fixtures', 'tiles', 'street.png'));

export async function startTileServer(): Promise<TileServer> {
  let served = 0;
  const server = http.createServer((req, res) => {
    if (!/^\/tiles\/\d+\/\d+\/\d+\.png$/.test(req.url ?? '')) {
      res.writeHead(404, { 'content-length': 0 }).end();
      return;
    }
    served++;
    res.writeHead(200, { 'content-type': 'image/png', 'content-length': TILE.length, 'cache-control': 'no-store' }).end(TILE);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  const origin = `http://127.0.0.1:${port}`;
  return {
    template: `${origin}/tiles/{z}/{x}/{y}.png`,
    origin,
    served: () => served,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
