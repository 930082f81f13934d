import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import type { Hono } from 'hono';
import { AppError } from '../../errors/index.js';

export interface Listening {
  host: string;
  port: number;
  url: string;
  close(): Promise<void>;
}

/** Serves the app on the loopback address; a port in use is a clear error. */
export function listen(app: Hono, host: string, port: number): Promise<Listening> {
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: app.fetch, hostname: host, port }, (info: AddressInfo) => {
      const shown = host.includes(':') ? `[${host}]` : host;
      resolve({
        host,
        port: info.port,
        url: `http://${shown}:${info.port}`,
        close: () =>
          new Promise<void>((done) => {
            // Event streams never end by themselves.
            (server as Server).closeAllConnections?.();
            server.close(() => done());
          }),
      });
    }) as Server;
    server.once('error', (error: NodeJS.ErrnoException) => {
      const reason = error.code === 'EADDRINUSE' ? `port ${port} is in use (set [http] port in config.toml)` : error.message;
      reject(new AppError('HTTP_LISTEN_FAILED', `cannot listen on ${host}:${port}: ${reason}`, { cause: error }));
    });
  });
}
