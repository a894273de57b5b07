/**
 * The e-mails of the payment flow, as plain ASCII text with short lines (so
 * they travel as 7bit and the key is never wrapped or encoded).
 */
import type { NewOutboxMessage } from '../store/types.js';

const fmt = (n: number): string => n.toLocaleString('en-US');

function usage(publicBaseUrl: string): string[] {
  return [
    'Send it with every call:',
    '',
    '  Authorization: Bearer <your key>',
    '',
    'Check your balance at any time:',
    `  GET ${publicBaseUrl}/api/v1/balance`,
  ];
}

export function newKeyMail(a: {
  to: string;
  key: string;
  stops: number;
  balance: number;
  packId: string;
  publicBaseUrl: string;
}): NewOutboxMessage {
  return {
    kind: 'new_key',
    to: a.to,
    subject: 'Your live API key for the route optimization service',
    body: [
      'Thank you for your purchase.',
      '',
      `Pack: ${a.packId} (${fmt(a.stops)} stops)`,
      `Balance: ${fmt(a.balance)} stops`,
      '',
      'Your live API key:',
      '',
      `  ${a.key}`,
      '',
      'Keep it secret: we keep only a fingerprint of it and cannot show',
      'it again. Your next purchases with this e-mail address top up',
      'this same key.',
      '',
      ...usage(a.publicBaseUrl),
      '',
    ].join('\n'),
  };
}

export function topUpMail(a: {
  to: string;
  last4: string;
  stops: number;
  balance: number;
  packId: string;
  publicBaseUrl: string;
}): NewOutboxMessage {
  return {
    kind: 'top_up',
    to: a.to,
    subject: `Your API key ending in ${a.last4} was topped up`,
    body: [
      'Thank you for your purchase.',
      '',
      `Pack: ${a.packId} (${fmt(a.stops)} stops)`,
      `Key: the live key ending in ${a.last4}`,
      `New balance: ${fmt(a.balance)} stops`,
      '',
      'Keep using the same key; nothing else changes.',
      '',
      ...usage(a.publicBaseUrl),
      '',
    ].join('\n'),
  };
}

export function replacementKeyMail(a: {
  to: string;
  key: string;
  oldLast4: string;
  balance: number;
  publicBaseUrl: string;
}): NewOutboxMessage {
  return {
    kind: 'replacement_key',
    to: a.to,
    subject: 'Your replacement live API key for the route optimization service',
    body: [
      `Your live API key ending in ${a.oldLast4} has been replaced and`,
      'no longer works. Its balance moved to your new key:',
      '',
      `  ${a.key}`,
      '',
      `Balance: ${fmt(a.balance)} stops`,
      '',
      'Keep it secret. It is shown only in this e-mail.',
      '',
      ...usage(a.publicBaseUrl),
      '',
    ].join('\n'),
  };
}
