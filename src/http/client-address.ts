/**
 * The client's address, for the per-address limits. Behind reverse proxies,
 * X-Forwarded-For is read from the right: each proxy appends the address it
 * received the request from, so only the entries our own proxies wrote can be
 * believed; anything to their left was written by the client. proxy-addr (the
 * library Express uses) walks the list from the socket's peer leftwards and
 * stops at the first address that is not a trusted proxy.
 *
 * TRUST_PROXY: false → the socket's peer; N → N proxies in front (the Nth
 * entry from the right); a list → the trusted proxies' addresses or ranges.
 */
import type { IncomingMessage } from 'node:http';
import type { Middleware } from 'koa';
import proxyaddr from 'proxy-addr';
import type { TrustProxy } from '../config.js';
import type { AppState } from './state.js';

export type AddressOf = (req: IncomingMessage) => string;

export function clientAddressResolver(trust: TrustProxy): AddressOf {
  if (trust === false || trust === 0) return (req) => normalise(req.socket.remoteAddress ?? '');
  const trusted: (address: string, hop: number) => boolean =
    typeof trust === 'number' ? (_address, hop) => hop < trust : proxyaddr.compile(trust);
  return (req) => normalise(proxyaddr(req, trusted) ?? req.socket.remoteAddress ?? '');
}

/** `::ffff:10.0.0.1` and `10.0.0.1` are one client. */
function normalise(address: string): string {
  return address.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address;
}

/** Sets ctx.ip (Koa's own getter would take the leftmost X-Forwarded-For entry, the one a client writes). */
export function clientAddress(trust: TrustProxy): Middleware<AppState> {
  const addressOf = clientAddressResolver(trust);
  return async (ctx, next) => {
    ctx.request.ip = addressOf(ctx.req);
    await next();
  };
}
