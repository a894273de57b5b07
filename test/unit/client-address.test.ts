/** The client address behind reverse proxies: read from the right, never the entry a client writes. */
import { strict as assert } from 'node:assert';
import type { IncomingMessage } from 'node:http';
import { test } from 'node:test';
import { clientAddressResolver } from '../../src/http/client-address.js';
import { loadConfig } from '../../src/config.js';

const req = (peer: string, forwardedFor?: string) =>
  ({
    socket: { remoteAddress: peer },
    headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor },
  }) as unknown as IncomingMessage;

test('no proxy trusted: the socket peer, whatever X-Forwarded-For says', () => {
  const of = clientAddressResolver(false);
  assert.equal(of(req('203.0.113.7', '1.2.3.4')), '203.0.113.7');
  assert.equal(of(req('::ffff:203.0.113.7')), '203.0.113.7');
});

test('N hops: the Nth entry from the right; fewer entries than hops falls back to the leftmost there is', () => {
  const one = clientAddressResolver(1);
  assert.equal(one(req('127.0.0.1', 'forged, 203.0.113.7')), '203.0.113.7');
  assert.equal(one(req('127.0.0.1', '203.0.113.7')), '203.0.113.7');
  assert.equal(one(req('127.0.0.1')), '127.0.0.1', 'no header: the peer');
  const two = clientAddressResolver(2);
  assert.equal(two(req('10.0.0.2', 'forged, 203.0.113.7, 10.0.0.1')), '203.0.113.7');
});

test('a list of trusted proxies: the first address from the right that is not one of them', () => {
  const of = clientAddressResolver(['127.0.0.1', '10.0.0.0/8']);
  assert.equal(of(req('127.0.0.1', 'forged, 203.0.113.7, 10.1.2.3')), '203.0.113.7');
  assert.equal(
    of(req('198.51.100.9', 'forged')),
    '198.51.100.9',
    'a peer that is not a trusted proxy is the client itself',
  );
  assert.equal(of(req('127.0.0.1', '10.0.0.5, 10.0.0.6')), '10.0.0.5', 'all trusted: the farthest one');
  const named = clientAddressResolver(['loopback']);
  assert.equal(named(req('127.0.0.1', 'forged, 2001:db8::1')), '2001:db8::1');
});

test('TRUST_PROXY is parsed: false, hops, true as one hop, addresses and ranges; anything else is a configuration error', () => {
  assert.equal(loadConfig({}).limits.trustProxy, false);
  assert.equal(loadConfig({ TRUST_PROXY: 'false' }).limits.trustProxy, false);
  assert.equal(loadConfig({ TRUST_PROXY: 'true' }).limits.trustProxy, 1);
  assert.equal(loadConfig({ TRUST_PROXY: '2' }).limits.trustProxy, 2);
  assert.deepEqual(loadConfig({ TRUST_PROXY: '10.0.0.1, 192.168.0.0/16,fd00::/8, loopback' }).limits.trustProxy, [
    '10.0.0.1',
    '192.168.0.0/16',
    'fd00::/8',
    'loopback',
  ]);
  for (const bad of ['yes', '11', '10.0.0.0/33', '300.1.1.1', 'nginx']) {
    assert.throws(
      () => loadConfig({ TRUST_PROXY: bad }),
      /TRUST_PROXY must be false, a number of proxies from 1 to 10, or a comma-separated list/,
      bad,
    );
  }
});
